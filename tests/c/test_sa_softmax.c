/*
 * sa_softmax: y = x softmax(x) (normalized = 0) or
 * y = (x - lo)/(hi - lo) softmax(x), lo = min(min x, 0), hi = max(max x, 0).
 *
 * Stated bounds: |y - y64| <= SA_REL |y64| for |y64| >= 1e-30 (float64
 * reference below; measured 1.9e-7 scalar, 3.4e-7 SIMD), else
 * |y - y64| <= 1e-30; SIMD vs scalar <= 16 ulp (measured 7) (softmax's 8 plus
 * the product with the weight).
 */
#include <string.h>

#include "forward_sweep.h"
#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"
#include "variants_testing.h"

#define SA_REL 1e-6

static const ss_kernel_info *K(void) { return ss_kernel_find("sa_softmax", SS_FAMILY_NORMALIZER); }
static const ss_kernel_info *KS(void) { return ss_kernel_find("softmax", SS_FAMILY_NORMALIZER); }
static const double PLAIN[2] = {0.0, 0.0}, NORM[2] = {1.0, 0.0};

/* Float64 SA-Softmax; param = normalized. */
static void sa64(const double *x, size_t n, double normalized, double *out) {
  double lo = 0.0, hi = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) continue;
    lo = fmin(lo, x[i]);
    hi = fmax(hi, x[i]);
  }
  st_softmax64(x, n, 1.0, out);
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) continue; /* softmax gave 0 */
    const double w = normalized == 0.0 ? x[i] : hi == lo ? 0.0 : (x[i] - lo) / (hi - lo);
    out[i] *= w;
  }
}

TEST(sa_softmax_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 1 && k->has_backward && k->output == SS_OUTPUT_WEIGHTS &&
            strstr(k->paper, "Zheng") && strstr(k->paper, "2025"),
        "descriptor");
  const ss_param_info *p = &k->params[0];
  CHECK(strcmp(p->name, "normalized") == 0 && p->type == SS_PARAM_BOOL && p->def == 0.0 &&
            p->min == 0.0 && p->max == 1.0,
        "param");
}

/* Small exact cases: x = (1, 1): y = (1/2, 1/2); x = (-2, 0, 2) normalized:
   w = (0, 1/2, 1). */
TEST(sa_softmax_definition) {
  const float a[2] = {1.0f, 1.0f}, b[3] = {-2.0f, 0.0f, 2.0f};
  const double e2 = exp(2.0), s = exp(-2.0) + 1.0 + e2;
  FOR_EACH_IMPL(impl) {
    float y[3];
    CHECK_STATUS(ss_normalize(K(), impl, a, 2, PLAIN, 1, y), SS_OK);
    CHECK(y[0] == 0.5f && y[1] == 0.5f, "%s: [%g %g]", ss_impl_name(impl), y[0], y[1]);
    CHECK_STATUS(ss_normalize(K(), impl, b, 3, NORM, 1, y), SS_OK);
    CHECK(y[0] == 0.0f && fabs(y[1] - 0.5 / s) <= 2e-6 * 0.5 / s && fabs(y[2] - e2 / s) <= 2e-6,
          "%s normalized: [%.9g %.9g %.9g]", ss_impl_name(impl), y[0], y[1], y[2]);
    CHECK_STATUS(ss_normalize(K(), impl, b, 3, PLAIN, 1, y), SS_OK);
    CHECK(fabs(y[0] + 2 * exp(-2.0) / s) <= 4e-6 * 2 * exp(-2.0) / s && y[1] == 0.0f,
          "%s plain: [%.9g %.9g %.9g]", ss_impl_name(impl), y[0], y[1], y[2]);
  }
}

static const float SA_RANGES[][2] = {{-10, 10}, {0.5f, 30}, {-40, -1}, {-1e3f, 1e3f}, {-3e37f, 3e37f}};

/* Case c: x uniform in SA_RANGES[c / 2], the plain (c even) or normalized form. */
static void sa_input(float *x, size_t n, size_t c, fw_case *o) {
  const size_t r = c / 2;
  st_fill(x, n, 10 * r + n, SA_RANGES[r][0], SA_RANGES[r][1]);
  const double *p = c % 2 ? NORM : PLAIN;
  o->params[0] = p[0];
  o->params[1] = p[1];
  o->nparams = 1;
  snprintf(o->what, sizeof o->what, "range %zu normalized=%d", r, (int)(c % 2));
}

static void sa_model(const float *x, size_t n, const fw_case *c, double *ref, double *bound) {
  st_ref64(sa64, c->params[0], x, n, ref);
  for (size_t i = 0; i < n; i++) bound[i] = SA_REL * fabs(ref[i]);
}

TEST(sa_softmax_matches_float64_reference) {
  static const size_t big[] = {255, 4097, 65539};
  const fw_sweep row = {.kernel = "sa_softmax", .big = big, .nbig = 3, .ncases = 2 * 5,
                        .input = sa_input, .model = sa_model};
  double worst;
  CHECK(fw_run(&row, &worst), "see above");
  CHECK(worst <= 1.0, "worst %.3g of the bound", worst);
}

/* The plain form is x times the library's softmax: SIMD multiplies the
   SIMD softmax output (bitwise fl(x p)), the scalar rounds x e / S once
   (<= 1 ulp from fl(x p)). It is negative where x < 0 and does not sum to
   1. The normalized form lies in [0, p], is p at the max (max > 0) and 0 at
   the min (min < 0). */
TEST(sa_softmax_is_x_times_softmax) {
  enum { N = 77 };
  float x[N], y[N], p[N];
  st_fill(x, N, 5, -6, 6);
  x[3] = -INFINITY;
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(KS(), impl, x, N, NULL, 0, p), SS_OK);
    CHECK_STATUS(ss_normalize(K(), impl, x, N, PLAIN, 1, y), SS_OK);
    double s = 0.0;
    for (size_t i = 0; i < N; i++) {
      if (i == 3) {
        CHECK(y[i] == 0.0f, "%s: masked %g", ss_impl_name(impl), y[i]);
        continue;
      }
      CHECK(ss_ulp_diff(y[i], x[i] * p[i]) <= (impl == SS_IMPL_SIMD ? 0u : 1u) &&
                (x[i] < 0.0f) == (y[i] < 0.0f),
            "%s i=%zu: y=%a x p=%a", ss_impl_name(impl), i, y[i], x[i] * p[i]);
      s += y[i];
    }
    CHECK(fabs(s - 1.0) > 0.1, "%s: sums to %g", ss_impl_name(impl), s);
    CHECK_STATUS(ss_normalize(K(), impl, x, N, NORM, 1, y), SS_OK);
    size_t imax = 0, imin = 0;
    for (size_t i = 0; i < N; i++) {
      if (x[i] > x[imax]) imax = i;
      if (x[i] != -INFINITY && x[i] < x[imin]) imin = i;
      CHECK(y[i] >= 0.0f && y[i] <= p[i] * (1 + 1e-6f), "%s i=%zu: %g vs p %g", ss_impl_name(impl),
            i, y[i], p[i]);
    }
    CHECK(ss_ulp_diff(y[imax], p[imax]) <= 2 && y[imin] == 0.0f, "%s: max %g (p %g) min %g",
          ss_impl_name(impl), y[imax], p[imax], y[imin]);
  }
}

/* Normalized form, every finite x = 0: range 0, defined as y = 0, dx = 0. */
TEST(sa_softmax_degenerate_range) {
  const float x[5] = {0.0f, -0.0f, -INFINITY, 0.0f, 0.0f};
  const float g[5] = {1, -2, 3, 4, -5};
  FOR_EACH_IMPL(impl) {
    float y[5], dx[5];
    CHECK_STATUS(ss_normalize(K(), impl, x, 5, NORM, 1, y), SS_OK);
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, 5, NORM, 1, dx), SS_OK);
    for (int i = 0; i < 5; i++)
      CHECK(y[i] == 0.0f && dx[i] == 0.0f, "%s: y[%d]=%g dx=%g", ss_impl_name(impl), i, y[i], dx[i]);
    CHECK_STATUS(ss_normalize(K(), impl, x, 5, PLAIN, 1, y), SS_OK); /* plain: 0 * p */
    for (int i = 0; i < 5; i++) CHECK(y[i] == 0.0f, "%s plain y[%d]=%g", ss_impl_name(impl), i, y[i]);
  }
}

TEST(sa_softmax_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  for (size_t n = 1; n <= 67; n++) {
    float x[67];
    st_fill(x, n, 30 + n, -20, 20);
    for (int v = 0; v < 2; v++) {
      const uint32_t u = vt_simd_vs_scalar(K(), v ? NORM : PLAIN, 1, x, n, 1e-30f);
      CHECK(u <= 16, "n=%zu normalized=%d: %u ulp", n, v, u);
    }
  }
  float *x = ss_test_alloc(65539 * 4);
  st_fill(x, 65539, 31, -10, 10);
  for (int v = 0; v < 2; v++) {
    const uint32_t u = vt_simd_vs_scalar(K(), v ? NORM : PLAIN, 1, x, 65539, 1e-30f);
    CHECK(u <= 16, "n=65539 normalized=%d: %u ulp", v, u);
  }
}

/* VJP vs central differences of the float64 model, for rows with min < 0 <
   max, all positive (lo = 0 constant) and all negative (hi = 0 constant);
   no ties at the extremes. |dx - fd| <= 4 SA_REL q_j (|g_j| + G) M + 1e-9 G M,
   q_j = softmax(x)_j + [j extreme], M = 1 + max |x|. */
TEST(sa_softmax_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40};
  static const float ranges[][2] = {{-3, 3}, {0.2f, 4}, {-4, -0.3f}};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float x[40], y[40], g[40], dx[40];
    double fd[40], xd[40], p[40];
    for (size_t r = 0; r < 3; r++) {
      st_fill(x, n, 40 + n + r, ranges[r][0], ranges[r][1]);
      st_fill(g, n, 50 + n, -2, 2);
      double G = 0.0, M = 1.0;
      size_t imax = 0, imin = 0;
      for (size_t i = 0; i < n; i++) {
        G += fabs(g[i]);
        M = fmax(M, 1.0 + fabs(x[i]));
        xd[i] = x[i];
        if (x[i] > x[imax]) imax = i;
        if (x[i] < x[imin]) imin = i;
      }
      st_softmax64(xd, n, 1.0, p);
      for (int v = 0; v < 2; v++) {
        st_fd_vjp(sa64, x, g, n, v, 1e-5, fd);
        FOR_EACH_IMPL(impl) {
          const double *par = v ? NORM : PLAIN;
          CHECK_STATUS(ss_normalize(K(), impl, x, n, par, 1, y), SS_OK);
          CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, n, par, 1, dx), SS_OK);
          for (size_t j = 0; j < n; j++) {
            const double q = p[j] + (v && (j == imax || j == imin) ? 1.0 : 0.0);
            const double tol = 4 * SA_REL * q * (fabs(g[j]) + G) * M + 1e-9 * G * M;
            CHECK(fabs(dx[j] - fd[j]) <= tol, "%s n=%zu range %zu norm=%d j=%zu: dx=%.9g fd=%.9g",
                  ss_impl_name(impl), n, r, v, j, dx[j], fd[j]);
          }
        }
      }
    }
  }
}

TEST(sa_softmax_masking) {
  static const size_t ns[] = {2, 7, 16, 37, 64, 1000};
  char why[160];
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4);
    vt_fill_masked(x, n, 20 + n, -8, 8, 0.4);
    FOR_EACH_IMPL(impl) {
      for (int v = 0; v < 2; v++) {
        const uint32_t ulps = impl == SS_IMPL_SCALAR ? 0 : 8;
        CHECK(vt_padding_holds(K(), impl, v ? NORM : PLAIN, 1, x, n, ulps, 1e-30f, why, sizeof why),
              "%s n=%zu normalized=%d: %s", ss_impl_name(impl), n, v, why);
      }
    }
  }
}

TEST(sa_softmax_params_n1) {
  const float xs[3] = {2.5f, -1.5f, 0.0f};
  FOR_EACH_IMPL(impl) {
    for (int c = 0; c < 3; c++) {
      float y[1];
      CHECK_STATUS(ss_normalize(K(), impl, &xs[c], 1, PLAIN, 1, y), SS_OK);
      CHECK(y[0] == xs[c], "%s: plain n=1 x=%g gives %g", ss_impl_name(impl), xs[c], y[0]);
      CHECK_STATUS(ss_normalize(K(), impl, &xs[c], 1, NORM, 1, y), SS_OK);
      CHECK(y[0] == (c == 0 ? 1.0f : 0.0f), "%s: normalized n=1 x=%g gives %g", ss_impl_name(impl),
            xs[c], y[0]);
    }
    const double bad[] = {0.5, 2.0, -1.0, NAN, INFINITY};
    float x[8], y[8];
    st_fill(x, 8, 1, -1, 1);
    for (int b = 0; b < 5; b++) {
      st_poison(y, 8);
      CHECK_STATUS(ss_normalize(K(), impl, x, 8, &bad[b], 1, y), SS_ERR_PARAM_RANGE);
      CHECK(st_untouched(y, 8), "y written");
    }
  }
}
