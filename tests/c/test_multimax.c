/*
 * multimax: y = softmax(z), z = x + t0 relu(r0 - x) + t1 relu(x - r1)
 *                              + t2 relu(r2 - x)^2 + t3 relu(x - r3)^2.
 * Params in registry order t0, t1, t2, t3, r0, r1, r2, r3.
 *
 * Stated bound vs the float64 reference (z and softmax in double, written
 * below): rel err <= MM_A + MM_B Z for outputs >= 1e-30, Z = max |z_i|:
 * MM_A is softmax's 2e-6, MM_B = 3 2^-24 covers rounding z to float (the
 * exponent z_i - max z moves by up to 2^-24 (|z_i| + |max z|) ...). SIMD vs
 * scalar: <= 16 ulp (the same float z, then softmax's two exp-and-sum
 * paths: rows with many equal z, as t0 = 1 makes below r0, bias the float
 * block sums of the SIMD path; measured 9). Measured vs float64: 2.2e-6
 * at max|z| ~ 36 (bound there 8.4e-6).
 */
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"
#include "variants_testing.h"

#define MM_A 2e-6
#define MM_B (3.0 * 0x1p-24)

static const ss_kernel_info *K(void) { return ss_kernel_find("multimax", SS_FAMILY_NORMALIZER); }
static const ss_kernel_info *KS(void) { return ss_kernel_find("softmax", SS_FAMILY_NORMALIZER); }

static double relu(double v) { return v > 0.0 ? v : 0.0; }

static double phi(double x, const double *p) {
  return x + p[0] * relu(p[4] - x) + p[1] * relu(x - p[5]) + p[2] * relu(p[6] - x) * relu(p[6] - x) +
         p[3] * relu(x - p[7]) * relu(x - p[7]);
}

/* The parameters the float64 model reads (st_model64 carries one double). */
static double g_params[8];

static void multimax64(const double *x, size_t n, double unused, double *out) {
  (void)unused;
  double *z = ss_test_alloc(n * 8);
  for (size_t i = 0; i < n; i++) z[i] = x[i] == -INFINITY ? -INFINITY : phi(x[i], g_params);
  st_softmax64(z, n, 1.0, out);
  ss_test_free(z);
}

/* phi as a function of x (ctx: the parameters) and of the parameters
   (ctx: x), and sum g_i y_i of the float64 model as a function of the
   parameters, for the differences. */
static double phi_of_x(const double *v, size_t one, const void *ctx) {
  (void)one;
  return phi(v[0], ctx);
}
static double phi_of_params(const double *p, size_t np, const void *ctx) {
  (void)np;
  return phi(*(const double *)ctx, p);
}
typedef struct {
  const double *x;
  size_t n;
  const float *g;
  double *out;
} mm_dot;
static double mm_dot_of_params(const double *p, size_t np, const void *ctx) {
  const mm_dot *c = ctx;
  memcpy(g_params, p, np * sizeof *p);
  multimax64(c->x, c->n, 0, c->out);
  double l = 0.0;
  for (size_t i = 0; i < c->n; i++) l += c->g[i] * c->out[i];
  return l;
}

static const double psets[][8] = {
    {0.5, -0.3, 0.1, 0.05, -1.0, 1.0, -2.0, 2.0},
    {-5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, /* steeper below 0: sparser */
    {1.0, 1.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0},  /* flat below 0.5, slope 2 above */
    {0.0, 0.0, -0.3, 0.2, 0.0, 0.0, 1.0, -1.0},
    {-0.9, 2.5, 0.7, -0.02, -3.0, 2.0, -1.5, 3.0},
};
#define NPSETS (sizeof psets / sizeof psets[0])

TEST(multimax_descriptor) {
  const ss_kernel_info *k = K();
  static const char *names[8] = {"t0", "t1", "t2", "t3", "r0", "r1", "r2", "r3"};
  CHECK(k && k->nparams == 8 && k->has_backward && k->has_param_backward &&
            k->output == SS_OUTPUT_PROBS && strstr(k->paper, "Zhou") && strstr(k->paper, "2024"),
        "descriptor");
  for (int i = 0; i < 8; i++)
    CHECK(strcmp(k->params[i].name, names[i]) == 0 && k->params[i].type == SS_PARAM_FLOAT &&
              k->params[i].def == 0.0 && k->params[i].ui_min < 0.0 && k->params[i].ui_max > 0.0,
          "param %d", i);
}

/* t = 0 is softmax bitwise, whatever r, both impls, masks included. */
TEST(multimax_t0_is_softmax_bitwise) {
  static const size_t ns[] = {1, 3, 16, 17, 67, 1000, 4099};
  const double p[8] = {0, 0, 0, 0, -1.5, 2.0, 0.3, -7.0};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4), *b = ss_test_alloc(n * 4);
    st_fill(x, n, 10 + n, -40, 40);
    if (n > 2) x[1] = -INFINITY;
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, p, 8, a), SS_OK);
      CHECK_STATUS(ss_normalize(KS(), impl, x, n, NULL, 0, b), SS_OK);
      CHECK(memcmp(a, b, n * 4) == 0, "%s n=%zu: t = 0 differs from softmax", ss_impl_name(impl), n);
    }
  }
}

TEST(multimax_matches_float64_reference) {
  static const size_t big[] = {255, 4097};
  double worst = 0.0;
  for (size_t c = 0; c < 40 + 2; c++) {
    const size_t n = c < 40 ? c + 1 : big[c - 40];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *xd = ss_test_alloc(n * 8), *ref = ss_test_alloc(n * 8);
    for (size_t k = 0; k < NPSETS; k++) {
      st_fill(x, n, 20 * k + n, -6, 6);
      memcpy(g_params, psets[k], sizeof g_params);
      double Z = 0.0;
      for (size_t i = 0; i < n; i++) {
        xd[i] = x[i];
        Z = fmax(Z, fabs(phi(x[i], g_params)));
      }
      multimax64(xd, n, 0, ref);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(K(), impl, x, n, psets[k], 8, y), SS_OK);
        size_t at;
        const double e = ref_max_rel_err(y, ref, n, 1e-30, &at) / (MM_A + MM_B * Z);
        CHECK(e <= 1.0, "%s n=%zu set %zu: err/bound %.3g at %zu (%.9g vs %.9g)",
              ss_impl_name(impl), n, k, e, at, y[at], ref[at]);
        if (e > worst) worst = e;
      }
    }
  }
  CHECK(worst <= 1.0, "worst err/bound %.3g", worst);
}

/* The point of MultiMax: t0 = -5, r0 = 0 makes the slope 6 below 0, so every
   negative logit loses mass against softmax, the positive ones gain, and
   two equal peaks stay exactly equal (z depends on each x_i alone). */
TEST(multimax_sparser_but_multimodal) {
  enum { N = 40 };
  float x[N], ym[N], ys[N];
  st_fill(x, N, 33, -3, 1.5f);
  x[4] = x[29] = 2.5f; /* two equal peaks */
  x[10] = -0.5f;
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, N, psets[1], 8, ym), SS_OK);
    CHECK_STATUS(ss_normalize(KS(), impl, x, N, NULL, 0, ys), SS_OK);
    CHECK(ym[4] == ym[29], "%s: peaks %a %a", ss_impl_name(impl), ym[4], ym[29]);
    for (size_t i = 0; i < N; i++)
      CHECK(x[i] < 0.0f ? ym[i] < ys[i] : ym[i] > ys[i], "%s: x=%g multimax %g softmax %g",
            ss_impl_name(impl), x[i], ym[i], ys[i]);
    for (size_t k = 0; k < NPSETS; k++) {
      CHECK_STATUS(ss_normalize(K(), impl, x, N, psets[k], 8, ym), SS_OK);
      CHECK(ym[4] == ym[29], "%s set %zu: peaks %a %a", ss_impl_name(impl), k, ym[4], ym[29]);
    }
  }
}

TEST(multimax_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  for (size_t n = 1; n <= 67; n++) {
    float x[67];
    st_fill(x, n, 44 + n, -8, 8);
    for (size_t k = 0; k < NPSETS; k++) {
      const uint32_t u = vt_simd_vs_scalar(K(), psets[k], 8, x, n, 1e-30f);
      CHECK(u <= 16, "n=%zu set %zu: %u ulp", n, k, u);
    }
  }
  float *x = ss_test_alloc(65539 * 4);
  st_fill(x, 65539, 45, -6, 6);
  for (size_t k = 0; k < NPSETS; k++) {
    const uint32_t u = vt_simd_vs_scalar(K(), psets[k], 8, x, 65539, 1e-30f);
    CHECK(u <= 16, "n=65539 set %zu: %u ulp", k, u);
  }
}

/* Logits at least 1e-3 away from every threshold (the kinks). */
static void fill_off_kinks(float *x, size_t n, uint64_t seed, const double *p) {
  st_fill(x, n, seed, -4, 4);
  for (size_t i = 0; i < n; i++)
    for (int r = 4; r < 8; r++)
      if (fabs((double)x[i] - p[r]) < 1e-3) x[i] += 0.01f;
}

/* VJP vs central differences of the float64 model: |dx - fd| <= 4 (MM_A +
   MM_B Z) y (|g| + G) |phi'| + 1e-9 G S, S = max |phi'| (a scale). */
TEST(multimax_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float x[40], y[40], g[40], dx[40];
    double fd[40], xd[40], p[40];
    for (size_t k = 0; k < NPSETS; k++) {
      memcpy(g_params, psets[k], sizeof g_params);
      fill_off_kinks(x, n, 70 + n + k, g_params);
      st_fill(g, n, 80 + n, -2, 2);
      double G = 0.0, Z = 0.0, S = 1.0;
      for (size_t i = 0; i < n; i++) {
        G += fabs(g[i]);
        xd[i] = x[i];
        Z = fmax(Z, fabs(phi(x[i], g_params)));
        double xi = x[i];
        S = fmax(S, fabs(fd_central64(phi_of_x, g_params, &xi, 1, 0, 1e-6)));
      }
      multimax64(xd, n, 0, p);
      st_fd_vjp(multimax64, x, g, n, 0.0, 1e-5, fd);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(K(), impl, x, n, psets[k], 8, y), SS_OK);
        CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, n, psets[k], 8, dx), SS_OK);
        for (size_t j = 0; j < n; j++) {
          const double tol = 4 * (MM_A + MM_B * Z) * p[j] * (fabs(g[j]) + G) * S + 1e-9 * G * S;
          CHECK(fabs(dx[j] - fd[j]) <= tol, "%s n=%zu set %zu j=%zu: dx=%.9g fd=%.9g",
                ss_impl_name(impl), n, k, j, dx[j], fd[j]);
        }
      }
    }
  }
}

/* Parameter gradient vs central differences in each parameter of
   L = sum g_i y_i (float64 model):
   |dp_q - fd_q| <= 4 (MM_A + MM_B Z) sum_i y_i (|g_i| + sum_j |g_j| y_j) |dz_i/dq| + 1e-8 G
   (the outputs' stated error carried through v_i = y_i (g_i - <g, y>)). */
TEST(multimax_param_vjp_matches_finite_differences) {
  enum { N = 29 };
  float x[N], y[N], g[N];
  double xd[N], out[N], p64[N], dp[8];
  for (size_t k = 0; k < NPSETS; k++) {
    fill_off_kinks(x, N, 90 + k, psets[k]);
    st_fill(g, N, 91 + k, -2, 2);
    double G = 0.0, Z = 0.0, gy = 0.0;
    memcpy(g_params, psets[k], sizeof g_params);
    for (size_t i = 0; i < N; i++) {
      G += fabs(g[i]), xd[i] = x[i];
      Z = fmax(Z, fabs(phi(x[i], g_params)));
    }
    multimax64(xd, N, 0, p64);
    for (size_t i = 0; i < N; i++) gy += fabs(g[i]) * p64[i];
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, N, psets[k], 8, y), SS_OK);
      CHECK_STATUS(ss_normalize_param_vjp(K(), impl, x, y, g, N, psets[k], 8, dp), SS_OK);
      for (int q = 0; q < 8; q++) {
        double scale = 0.0, pv[8];
        memcpy(pv, psets[k], sizeof pv);
        const mm_dot c = {xd, N, g, out};
        const double fd = fd_central64(mm_dot_of_params, &c, pv, 8, (size_t)q, 1e-6);
        for (size_t i = 0; i < N; i++) {
          const double xi = x[i];
          scale += p64[i] * (fabs(g[i]) + gy) * fabs(fd_central64(phi_of_params, &xi, pv, 8, (size_t)q, 1e-6));
        }
        const double tol = 4 * (MM_A + MM_B * Z) * scale + 1e-8 * G;
        CHECK(fabs(dp[q] - fd) <= tol, "%s set %zu param %d: dp=%.9g fd=%.9g (tol %.3g)",
              ss_impl_name(impl), k, q, dp[q], fd, tol);
      }
    }
  }
}

/* Out-of-range params are SS_ERR_PARAM_RANGE; a finite logit whose z
   overflows float is SS_ERR_DOMAIN; y untouched either way. */
TEST(multimax_param_range_and_overflow) {
  enum { N = 9 };
  float x[N], y[N];
  st_fill(x, N, 3, -2, 2);
  FOR_EACH_IMPL(impl) {
    for (int q = 0; q < 8; q++) {
      const double bads[] = {NAN, INFINITY, q < 4 ? 1001.0 : 1.00001e4, q < 4 ? -1001.0 : -2e4};
      for (int b = 0; b < 4; b++) {
        double p[8] = {0};
        p[q] = bads[b];
        st_poison(y, N);
        CHECK_STATUS(ss_normalize(K(), impl, x, N, p, 8, y), SS_ERR_PARAM_RANGE);
        CHECK(ss_params_bad_index(K(), p, 8) == q && st_untouched(y, N), "param %d", q);
      }
    }
    const double pov[8] = {0, 0, 0, 1.0, 0, 0, 0, 0}; /* t3 relu(x)^2 */
    x[5] = 1e20f;
    st_poison(y, N);
    CHECK_STATUS(ss_normalize(K(), impl, x, N, pov, 8, y), SS_ERR_DOMAIN);
    CHECK(st_untouched(y, N), "%s: y written on overflow", ss_impl_name(impl));
    x[5] = 1e18f; /* z = 1e36 is a float: one-hot */
    CHECK_STATUS(ss_normalize(K(), impl, x, N, pov, 8, y), SS_OK);
    CHECK(y[5] == 1.0f, "%s: y[5] = %g", ss_impl_name(impl), y[5]);
    x[5] = -INFINITY; /* masks are not modulated */
    CHECK_STATUS(ss_normalize(K(), impl, x, N, pov, 8, y), SS_OK);
  }
}

TEST(multimax_masking) {
  static const size_t ns[] = {2, 7, 16, 37, 64, 1000};
  char why[160];
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4);
    vt_fill_masked(x, n, 60 + n, -5, 5, 0.4);
    FOR_EACH_IMPL(impl) {
      const uint32_t ulps = impl == SS_IMPL_SCALAR ? 0 : 8;
      for (size_t k = 0; k < NPSETS; k++)
        CHECK(vt_padding_holds(K(), impl, psets[k], 8, x, n, ulps, 1e-30f, why, sizeof why),
              "%s n=%zu set %zu: %s", ss_impl_name(impl), n, k, why);
    }
  }
}

TEST(multimax_n1_and_null_params) {
  const float one[1] = {-3.0f};
  FOR_EACH_IMPL(impl) {
    float y[1];
    CHECK_STATUS(ss_normalize(K(), impl, one, 1, psets[0], 8, y), SS_OK);
    CHECK(y[0] == 1.0f, "%s: n=1 gives %g", ss_impl_name(impl), y[0]);
  }
  float x[19], a[19];
  st_fill(x, 19, 5, -3, 3);
  CHECK_STATUS(ss_multimax(x, 19, NULL, psets[4] + 4, a), SS_ERR_NULL);
}
