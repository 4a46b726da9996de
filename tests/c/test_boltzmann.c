/*
 * boltzmann: terms y_i = x_i softmax(b x)_i (registry), value
 * boltz_b(x) = sum_i y_i (ss_boltzmann).
 *
 * Stated bounds vs the float64 reference below, a = max x (b > 0) or min x
 * (b < 0), z_i = b (x_i - a):
 *   terms: |y_i - y64_i| <= (BZ_A + BZ_B |z_i|) |y64_i| for |y64_i| >= 1e-30
 *          (softmax's 2e-6 doubled for the product with x_i; 2^-23 |z| from
 *          the float b, as for softmax_temperature);
 *   value: |v - v64| <= BZ_V (max |x|) (float weights, double sums).
 * SIMD vs scalar terms: <= 16 ulp for outputs >= 1e-30. Measured: terms at
 * 0.34 of their bound, value 4e-9 max|x|, SIMD vs scalar 6 ulp.
 */
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"
#include "variants_testing.h"

#define BZ_A 4e-6
#define BZ_B 0x1p-23
#define BZ_V 2e-6
#define E_ 2.718281828459045

static const ss_kernel_info *K(void) { return ss_kernel_find("boltzmann", SS_FAMILY_NORMALIZER); }

/* Float64 terms x_i e^{b x_i} / sum_j e^{b x_j} over the unmasked entries. */
static void boltz64(const double *x, size_t n, double b, double *out) {
  double a = b > 0 ? -INFINITY : INFINITY, s = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) continue;
    a = b > 0 ? fmax(a, x[i]) : fmin(a, x[i]);
  }
  for (size_t i = 0; i < n; i++) {
    out[i] = x[i] == -INFINITY ? 0.0 : exp(b * (x[i] - a));
    s += out[i];
  }
  for (size_t i = 0; i < n; i++) out[i] = x[i] == -INFINITY ? 0.0 : x[i] * out[i] / s;
}

static double value64(const float *x, size_t n, double b) {
  double *xd = ss_test_alloc(n * 8), *t = ss_test_alloc(n * 8), v = 0.0;
  for (size_t i = 0; i < n; i++) xd[i] = x[i];
  boltz64(xd, n, b, t);
  for (size_t i = 0; i < n; i++) v += t[i];
  ss_test_free(xd);
  ss_test_free(t);
  return v;
}

static const double bs[] = {-1e3, -20.0, -1.0, -0.3, -1e-300, 0.0, 1e-9, 0.5, 1.0, 2.0, 17.0, 1e3};
#define NBS (sizeof bs / sizeof bs[0])

TEST(boltzmann_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 1 && k->has_backward && k->has_param_backward &&
            k->output == SS_OUTPUT_WEIGHTS && strstr(k->paper, "Kajitsuka") &&
            strstr(k->paper, "2024"),
        "descriptor");
  const ss_param_info *p = &k->params[0];
  CHECK(strcmp(p->name, "b") == 0 && p->type == SS_PARAM_FLOAT && p->min == -1e3 &&
            p->max == 1e3 && !p->min_open && !p->max_open && p->def == 1.0 && p->ui_min == -5.0 &&
            p->ui_max == 20.0,
        "param");
}

TEST(boltzmann_terms_match_float64_reference) {
  static const size_t big[] = {255, 4097};
  double worst = 0.0;
  for (size_t c = 0; c < 40 + 2; c++) {
    const size_t n = c < 40 ? c + 1 : big[c - 40];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *xd = ss_test_alloc(n * 8), *ref = ss_test_alloc(n * 8);
    st_fill(x, n, 10 + n, -8, 8);
    float mx = -INFINITY, mn = INFINITY;
    for (size_t i = 0; i < n; i++) {
      xd[i] = x[i];
      mx = fmaxf(mx, x[i]);
      mn = fminf(mn, x[i]);
    }
    for (size_t k = 0; k < NBS; k++) {
      const double b = bs[k], a = b > 0 ? mx : mn;
      boltz64(xd, n, b, ref);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(K(), impl, x, n, &b, 1, y), SS_OK);
        for (size_t i = 0; i < n; i++) {
          const double e = fabs(y[i] - ref[i]);
          if (fabs(ref[i]) < 1e-30) {
            CHECK(e <= 1e-30, "%s b=%g n=%zu i=%zu: %g vs %g", ss_impl_name(impl), b, n, i, y[i],
                  ref[i]);
            continue;
          }
          const double r = e / ((BZ_A + BZ_B * fabs(b * (x[i] - a))) * fabs(ref[i]));
          CHECK(r <= 1.0, "%s b=%g n=%zu i=%zu: %.9g vs %.9g", ss_impl_name(impl), b, n, i, y[i],
                ref[i]);
          if (r > worst) worst = r;
        }
      }
    }
  }
  CHECK(worst <= 1.0, "worst err/bound %.3g", worst);
}

/* The value by ss_boltzmann and as the sum of the kernel's terms, both
   within BZ_V max|x| of float64; b = 0 is the mean. */
TEST(boltzmann_value) {
  static const size_t ns[] = {1, 2, 3, 8, 17, 100, 1000, 65539};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    st_fill(x, n, 20 + n, -30, 50);
    double M = 0.0, mean = 0.0;
    for (size_t i = 0; i < n; i++) M = fmax(M, fabs(x[i])), mean += x[i];
    mean /= (double)n;
    for (size_t k = 0; k < NBS; k++) {
      const double v64 = value64(x, n, bs[k]);
      double v;
      CHECK_STATUS(ss_boltzmann(x, n, bs[k], &v), SS_OK);
      CHECK(fabs(v - v64) <= BZ_V * M, "b=%g n=%zu: value %.12g vs %.12g", bs[k], n, v, v64);
      if (bs[k] == 0.0) CHECK(fabs(v - mean) <= BZ_V * M, "b=0 n=%zu: %.12g vs mean %.12g", n, v, mean);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(K(), impl, x, n, &bs[k], 1, y), SS_OK);
        double s = 0.0;
        for (size_t i = 0; i < n; i++) s += y[i];
        CHECK(fabs(s - v64) <= BZ_V * M, "%s b=%g n=%zu: sum of terms %.12g vs %.12g",
              ss_impl_name(impl), bs[k], n, s, v64);
      }
    }
  }
}

/* Soft max / min: min x <= boltz_b <= max x, and for |b| large
   0 <= max x - boltz_b <= (n - 1) / (e b) (min likewise), up to the value's
   rounding BZ_V max|x|. The bound is approached, not loose: at b = 1e3 the
   row (0, -1/b) gives max - boltz = (1/b) e^{-1} / (1 + e^{-1}). */
TEST(boltzmann_soft_max_and_min) {
  enum { N = 50 };
  float x[N];
  st_fill(x, N, 31, -5, 5);
  float mx = -INFINITY, mn = INFINITY;
  for (size_t i = 0; i < N; i++) mx = fmaxf(mx, x[i]), mn = fminf(mn, x[i]);
  const double slack = BZ_V * 5;
  for (size_t k = 0; k < NBS; k++) {
    double v;
    CHECK_STATUS(ss_boltzmann(x, N, bs[k], &v), SS_OK);
    CHECK(v >= mn - slack && v <= mx + slack, "b=%g: %g outside [%g, %g]", bs[k], v, mn, mx);
    if (bs[k] >= 1.0)
      CHECK(mx - v <= (N - 1) / (E_ * bs[k]) + slack, "b=%g: max - value = %g", bs[k], mx - v);
    if (bs[k] <= -1.0)
      CHECK(v - mn <= (N - 1) / (E_ * -bs[k]) + slack, "b=%g: value - min = %g", bs[k], v - mn);
  }
  const float two[2] = {0.0f, -1e-3f};
  double v;
  CHECK_STATUS(ss_boltzmann(two, 2, 1e3, &v), SS_OK);
  const double want = 1e-3 * exp(-1.0) / (1.0 + exp(-1.0)); /* max - boltz */
  CHECK(fabs(-v - want) <= 1e-6 * want && -v <= 1.0 / (E_ * 1e3), "two-point: %.9g vs %.9g", -v, want);
  CHECK_STATUS(ss_boltzmann(two, 2, -1e3, &v), SS_OK);
  CHECK(fabs((v + 1e-3) - want) <= 1e-6 * want, "two-point min: %.9g", v + 1e-3);
}

/* -Inf entries are excluded at every b (for b <= 0 their weight e^{b x}
   would not vanish by itself): terms exactly 0, the rest as on the
   compacted row, the value unchanged. */
TEST(boltzmann_masking) {
  static const size_t ns[] = {2, 7, 16, 37, 64, 1000};
  char why[160];
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *sub = ss_test_alloc(n * 4);
    vt_fill_masked(x, n, 40 + n, -6, 6, 0.4);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (x[i] != -INFINITY) sub[m++] = x[i];
    for (size_t k = 0; k < NBS; k++) {
      FOR_EACH_IMPL(impl) {
        const uint32_t ulps = impl == SS_IMPL_SCALAR ? 0 : 16;
        CHECK(vt_padding_holds(K(), impl, &bs[k], 1, x, n, ulps, 1e-30f, why, sizeof why),
              "%s n=%zu b=%g: %s", ss_impl_name(impl), n, bs[k], why);
      }
      double v, vs;
      CHECK_STATUS(ss_boltzmann(x, n, bs[k], &v), SS_OK);
      CHECK_STATUS(ss_boltzmann(sub, m, bs[k], &vs), SS_OK);
      CHECK(fabs(v - vs) <= 1e-6 * 6, "n=%zu b=%g: value %.12g vs compacted %.12g", n, bs[k], v, vs);
    }
  }
}

TEST(boltzmann_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  for (size_t n = 1; n <= 67; n++) {
    float x[67];
    st_fill(x, n, 50 + n, -10, 10);
    for (size_t k = 0; k < NBS; k++) {
      const uint32_t u = vt_simd_vs_scalar(K(), &bs[k], 1, x, n, 1e-30f);
      CHECK(u <= 16, "n=%zu b=%g: %u ulp", n, bs[k], u);
    }
  }
}

/* VJP dx = p (g (1 + b x) - b <g, y>) vs central differences of the float64
   model: |dx - fd| <= 4 (BZ_A + BZ_B Z) p (|g| + G) (1 + |b| M) M + 1e-9 G M,
   M = 1 + max |x|, Z = max |b (x - a)|. */
TEST(boltzmann_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40};
  static const double vb[] = {-2.0, -0.5, 0.0, 0.7, 1.0, 3.0};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float x[40], y[40], g[40], dx[40];
    double fd[40], xd[40], p[40];
    st_fill(x, n, 60 + n, -3, 3);
    st_fill(g, n, 61 + n, -2, 2);
    double G = 0.0, M = 1.0;
    for (size_t i = 0; i < n; i++) G += fabs(g[i]), M = fmax(M, 1 + fabs(x[i])), xd[i] = x[i];
    for (size_t k = 0; k < sizeof vb / sizeof vb[0]; k++) {
      const double b = vb[k];
      st_softmax64(xd, n, b, p);
      st_fd_vjp(boltz64, x, g, n, b, 1e-5, fd);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(K(), impl, x, n, &b, 1, y), SS_OK);
        CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, n, &b, 1, dx), SS_OK);
        for (size_t j = 0; j < n; j++) {
          const double tol = 4 * (BZ_A + BZ_B * fabs(b) * 2 * M) * p[j] * (fabs(g[j]) + G) *
                                 (1 + fabs(b) * M) * M + 1e-9 * G * M;
          CHECK(fabs(dx[j] - fd[j]) <= tol, "%s b=%g n=%zu j=%zu: dx=%.9g fd=%.9g",
                ss_impl_name(impl), b, n, j, dx[j], fd[j]);
        }
      }
    }
  }
}

/* d/db sum g_i y_i = sum g_i y_i (x_i - V), V = sum y, vs central
   differences in b of the float64 model:
   |dp - fd| <= 4 BZ_A' sum |g_i y_i| (|x_i| + |V|) + 1e-8 G, BZ_A' = BZ_A + BZ_B Z
   (the terms' stated error, Z = max |b (x - a)| <= 6 |b|). */
TEST(boltzmann_param_vjp_matches_finite_differences) {
  enum { N = 33 };
  float x[N], y[N], g[N];
  double xd[N], out[N];
  st_fill(x, N, 70, -3, 3);
  st_fill(g, N, 71, -2, 2);
  x[4] = -INFINITY;
  double G = 0.0;
  for (size_t i = 0; i < N; i++) G += fabs(g[i]), xd[i] = x[i];
  static const double vb[] = {-2.0, -0.5, 0.0, 0.7, 1.0, 3.0};
  for (size_t k = 0; k < sizeof vb / sizeof vb[0]; k++) {
    double v = 0.0, scale = 0.0;
    const double fd = st_fd_param(boltz64, xd, g, N, vb[k], 1e-6);
    boltz64(xd, N, vb[k], out);
    for (size_t i = 0; i < N; i++) v += out[i];
    for (size_t i = 0; i < N; i++)
      if (x[i] != -INFINITY) scale += fabs(g[i] * out[i]) * (fabs(x[i]) + fabs(v));
    const double tol = 4 * (BZ_A + BZ_B * 6 * fabs(vb[k])) * scale + 1e-8 * G;
    FOR_EACH_IMPL(impl) {
      double dp;
      CHECK_STATUS(ss_normalize(K(), impl, x, N, &vb[k], 1, y), SS_OK);
      CHECK_STATUS(ss_normalize_param_vjp(K(), impl, x, y, g, N, &vb[k], 1, &dp), SS_OK);
      CHECK(fabs(dp - fd) <= tol, "%s b=%g: dp=%.9g fd=%.9g (tol %.3g)", ss_impl_name(impl), vb[k],
            dp, fd, tol);
    }
  }
}

TEST(boltzmann_params_n1_direct_call) {
  const float one[1] = {-2.25f};
  FOR_EACH_IMPL(impl) {
    for (size_t k = 0; k < NBS; k++) {
      float y[1];
      CHECK_STATUS(ss_normalize(K(), impl, one, 1, &bs[k], 1, y), SS_OK);
      CHECK(y[0] == one[0], "%s b=%g: n=1 term %g", ss_impl_name(impl), bs[k], y[0]);
    }
    const double bad[] = {1e3 * (1 + 1e-15), -1001.0, NAN, INFINITY, -INFINITY};
    float x[8], y[8];
    st_fill(x, 8, 1, -1, 1);
    for (int b = 0; b < 5; b++) {
      st_poison(y, 8);
      CHECK_STATUS(ss_normalize(K(), impl, x, 8, &bad[b], 1, y), SS_ERR_PARAM_RANGE);
      CHECK(st_untouched(y, 8), "y written");
      double v = 7.0;
      CHECK_STATUS(ss_boltzmann(x, 8, bad[b], &v), SS_ERR_PARAM_RANGE);
      CHECK(v == 7.0, "value written on error");
    }
  }
  double v;
  CHECK_STATUS(ss_boltzmann(one, 1, -5.0, &v), SS_OK);
  CHECK(v == -2.25, "n=1 value %g", v);
  float x[9] = {1, 2, NAN, 4, 5, 6, 7, 8, 9};
  CHECK_STATUS(ss_boltzmann(x, 9, 1.0, &v), SS_ERR_NAN);
  x[2] = INFINITY;
  CHECK_STATUS(ss_boltzmann(x, 9, 1.0, &v), SS_ERR_POS_INF);
  for (int i = 0; i < 9; i++) x[i] = -INFINITY;
  CHECK_STATUS(ss_boltzmann(x, 9, 1.0, &v), SS_ERR_ALL_MASKED);
  CHECK_STATUS(ss_boltzmann(NULL, 9, 1.0, &v), SS_ERR_NULL);
  CHECK_STATUS(ss_boltzmann(x, 9, 1.0, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_boltzmann(x, 0, 1.0, &v), SS_ERR_EMPTY);
  CHECK_STATUS(ss_boltzmann(x, SS_MAX_N + 1, 1.0, &v), SS_ERR_TOO_LARGE);
}
