/*
 * stablemax: y_i = s(x_i) / sum_j s(x_j), s(x) = x + 1 (x >= 0), 1/(1 - x) (x < 0).
 *
 * Stated bounds: |y_i - y64_i| <= SM_REL y64_i for outputs >= 1e-30 (float64
 * reference written below; measured 6e-8 scalar, 1.9e-7 SIMD); SIMD vs
 * scalar <= 8 ulp for outputs >= 1e-30 (measured 3).
 */
#include <string.h>

#include "forward_sweep.h"
#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"
#include "variants_testing.h"

#define SM_REL 1e-6

static const ss_kernel_info *K(void) { return ss_kernel_find("stablemax", SS_FAMILY_NORMALIZER); }

static double s_ref(double x) {
  if (x == -INFINITY) return 0.0;
  return x >= 0.0 ? x + 1.0 : 1.0 / (1.0 - x);
}

static void stablemax64(const double *x, size_t n, double unused, double *out) {
  (void)unused;
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) sum += s_ref(x[i]);
  for (size_t i = 0; i < n; i++) out[i] = s_ref(x[i]) / sum;
}

TEST(stablemax_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 0 && k->has_backward && !k->has_param_backward &&
            k->output == SS_OUTPUT_PROBS && k->normalize[SS_IMPL_SCALAR] &&
            strstr(k->paper, "Prieto") && strstr(k->paper, "2025") && strstr(k->formula, "1/(1 - x)"),
        "descriptor");
}

/* The definition on small exact cases: s(0, 1, -1, 3) = (1, 2, 1/2, 4),
   sum 15/2, so y = (2, 4, 1, 8) / 15. */
TEST(stablemax_definition) {
  const float x[4] = {0.0f, 1.0f, -1.0f, 3.0f};
  const double want[4] = {2.0 / 15, 4.0 / 15, 1.0 / 15, 8.0 / 15};
  FOR_EACH_IMPL(impl) {
    float y[4];
    CHECK_STATUS(ss_normalize(K(), impl, x, 4, NULL, 0, y), SS_OK);
    for (int i = 0; i < 4; i++)
      CHECK(ss_ulp_diff(y[i], (float)want[i]) <= 2, "%s y[%d] = %.9g, want %.9g",
            ss_impl_name(impl), i, y[i], want[i]);
  }
}

/* Rel err <= SM_REL vs the float64 reference, over logit scales from 1 to
   1e30 (where softmax would be one-hot), every n in 1..67 and large n. */
TEST(stablemax_matches_float64_reference) {
  static const size_t big[] = {255, 4097, 65539};
  static const float scales[] = {1.0f, 30.0f, 1e3f, 1e8f, 1e30f};
  const fw_sweep row = {.kernel = "stablemax", .big = big, .nbig = 3, .ncases = 5, .scales = scales,
                        .seed_step = 100, .model64 = stablemax64, .rel = SM_REL};
  double worst;
  CHECK(fw_run(&row, &worst), "see above");
  CHECK(worst <= 1.0, "worst %.3g of the bound", worst);
}

/* Sums to 1 within 1e-5 (the outputs' rel err plus their float rounding). */
TEST(stablemax_sums_to_one) {
  static const size_t ns[] = {1, 2, 7, 64, 1000, (size_t)1 << 18};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    st_fill(x, n, 300 + n, -100, 100);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
      double s = 0.0;
      for (size_t i = 0; i < n; i++) {
        CHECK(y[i] > 0.0f, "%s n=%zu: y[%zu] = %g not positive", ss_impl_name(impl), n, i, y[i]);
        s += y[i];
      }
      CHECK(fabs(s - 1.0) <= 1e-5, "%s n=%zu: sum %.9g", ss_impl_name(impl), n, s);
    }
  }
}

TEST(stablemax_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  uint32_t worst = 0;
  for (size_t n = 1; n <= 67; n++) {
    float x[67];
    st_fill(x, n, 400 + n, -50, 50);
    const uint32_t u = vt_simd_vs_scalar(K(), NULL, 0, x, n, 1e-30f);
    CHECK(u <= 8, "n=%zu: %u ulp", n, u);
    if (u > worst) worst = u;
  }
  float *x = ss_test_alloc(70000 * 4);
  st_fill(x, 70000, 401, -1e6f, 1e6f);
  const uint32_t u = vt_simd_vs_scalar(K(), NULL, 0, x, 70000, 1e-30f);
  CHECK(u <= 8, "n=70000: %u ulp", u);
}

/* Logits near +-FLT_MAX: no overflow in s or its sum, no NaN. s(3e38) = 3e38,
   s(-3e38) = 1/(1 + 3e38) ~ 3.3e-39: y = (1 - tiny, tiny / 3e38 ~ 1e-77 -> 0, ...). */
TEST(stablemax_extreme_logits) {
  const float x[4] = {3e38f, -3e38f, 0.0f, 3e38f};
  FOR_EACH_IMPL(impl) {
    float y[4];
    CHECK_STATUS(ss_normalize(K(), impl, x, 4, NULL, 0, y), SS_OK);
    /* y[2] = 1 / 6e38 is below FLT_MIN: +0 by the exact-zero rule */
    CHECK(ss_ulp_diff(y[0], 0.5f) <= 1 && y[0] == y[3] && y[1] == 0.0f && y[2] == 0.0f &&
              !signbit(y[2]),
          "%s: [%g %g %g %g]", ss_impl_name(impl), y[0], y[1], y[2], y[3]);
    /* all very negative and equal: uniform, though every s is ~1e-39 */
    const float z[3] = {-3e38f, -3e38f, -3e38f};
    CHECK_STATUS(ss_normalize(K(), impl, z, 3, NULL, 0, y), SS_OK);
    for (int i = 0; i < 3; i++)
      CHECK(ss_ulp_diff(y[i], 1.0f / 3.0f) <= 2, "%s: uniform y[%d] = %.9g", ss_impl_name(impl), i,
            y[i]);
  }
}

/* VJP dx = y (g - <g, y>) / (1 + |x|) vs central differences of the float64
   model: |dx - fd| <= 4 SM_REL y (|g| + G) + 1e-9 G. Logits straddle 0, the
   point where s switches branch (s is C^1 there). */
static const float FD_SCALES[] = {0.5f, 4.0f, 60.0f};

static void sm_fd_input(float *x, float *g, size_t n, size_t c, fd_case *o) {
  st_fill(x, n, 500 + n + c, -FD_SCALES[c], FD_SCALES[c]);
  st_fill(g, n, 600 + n, -2.0f, 2.0f);
  snprintf(o->what, sizeof o->what, "scale %g", FD_SCALES[c]);
}

static void sm_fd_tol(const float *x, const float *g, size_t n, const fd_case *c, const double *p,
                      double G, double *tol) {
  (void)x, (void)c;
  for (size_t j = 0; j < n; j++) tol[j] = 4 * SM_REL * p[j] * (fabs(g[j]) + G) + 1e-9 * G;
}

TEST(stablemax_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40};
  const fd_sweep row = {.kernel = "stablemax", .ns = ns, .nns = 6, .ncases = 3,
                        .input = sm_fd_input, .model64 = stablemax64, .tol = sm_fd_tol};
  CHECK(fd_run(&row), "see above");
}

/* Softmax Collapse, the paper's motivating failure: logits scaled by 1e3
   with the target class leading by >= 1e3. In float32 softmax gives the
   target exactly 1 and the rest exactly 0, so the cross-entropy gradient
   through softmax's VJP (g = dL/dy = -1/y_t at the target) is exactly 0
   everywhere: learning stops. StableMax's outputs are ~1/x, its gradient is
   nonzero at every entry, with the right signs (raise the target, lower the
   rest) and within the stated tolerance of the float64 gradient. */
TEST(stablemax_no_softmax_collapse) {
  enum { N = 10, T = 3 };
  float x[N], y[N], g[N], dx[N];
  st_fill(x, N, 700, -1e3f, 1e3f);
  x[T] = 3e3f;
  const ss_kernel_info *ks = ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(ks, impl, x, N, NULL, 0, y), SS_OK);
    CHECK(y[T] == 1.0f, "%s: softmax y_t = %.9g (no collapse to test)", ss_impl_name(impl), y[T]);
    for (size_t i = 0; i < N; i++) g[i] = i == T ? -1.0f / y[T] : 0.0f;
    CHECK_STATUS(ss_normalize_vjp(ks, impl, x, y, g, N, NULL, 0, dx), SS_OK);
    for (size_t i = 0; i < N; i++)
      CHECK(dx[i] == 0.0f, "%s: softmax dx[%zu] = %g, expected the collapse to 0",
            ss_impl_name(impl), i, dx[i]);

    double p[N], fd[N];
    st_ref64(stablemax64, 0.0, x, N, p);
    CHECK_STATUS(ss_normalize(K(), impl, x, N, NULL, 0, y), SS_OK);
    CHECK(y[T] < 0.9f, "%s: stablemax y_t = %.9g", ss_impl_name(impl), y[T]);
    for (size_t i = 0; i < N; i++) g[i] = i == T ? -1.0f / y[T] : 0.0f;
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_OK);
    st_fd_vjp(stablemax64, x, g, N, 0.0, 1e-2, fd); /* logits ~1e3: h = 1e-2 */
    double G = 0.0;
    for (size_t i = 0; i < N; i++) G += fabs(g[i]);
    for (size_t i = 0; i < N; i++) {
      CHECK(i == T ? dx[i] < 0.0f : dx[i] > 0.0f, "%s: stablemax dx[%zu] = %g",
            ss_impl_name(impl), i, dx[i]);
      const double tol = 4 * SM_REL * p[i] * (fabs(g[i]) + G) / (1.0 + fabs(x[i])) + 1e-9 * G;
      CHECK(fabs(dx[i] - fd[i]) <= tol, "%s: dx[%zu] = %.9g, fd %.9g", ss_impl_name(impl), i,
            dx[i], fd[i]);
    }
  }
}

/* -Inf entries: s = 0, exactly 0 out, the rest as on the compacted row
   (scalar: the same double sum, bitwise; SIMD: <= 8 ulp). */
TEST(stablemax_masking) {
  static const size_t ns[] = {2, 7, 16, 37, 64, 1000};
  char why[160];
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4);
    vt_fill_masked(x, n, 800 + n, -20, 20, 0.4);
    FOR_EACH_IMPL(impl) {
      const uint32_t ulps = impl == SS_IMPL_SCALAR ? 0 : 8;
      CHECK(vt_padding_holds(K(), impl, NULL, 0, x, n, ulps, 1e-30f, why, sizeof why), "%s n=%zu: %s",
            ss_impl_name(impl), n, why);
    }
  }
}

TEST(stablemax_n1) {
  const float one[6] = {-7.5f, 0.0f, 2.0f, 0.3f, -3e38f, 3e38f};
  float y[1];
  FOR_EACH_IMPL(impl) {
    for (int c = 0; c < 6; c++) {
      CHECK_STATUS(ss_normalize(K(), impl, &one[c], 1, NULL, 0, y), SS_OK);
      CHECK(y[0] == 1.0f, "%s: n=1 x=%g gives %a", ss_impl_name(impl), one[c], y[0]);
    }
  }
}
