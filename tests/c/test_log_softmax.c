/*
 * log_softmax (normalizer, log-probabilities) and logsumexp (measure).
 *
 * Stated bounds, checked below (measured maxima in parentheses, over n in
 * 1..67, 255, 4097, 65539, 2^20 + 1; logit spreads 1..170 at offsets 0, -30,
 * 1e3, +-1e4):
 *   log_softmax vs float64: |y - y64| <= 5e-7 * max(1, |y64|)
 *                           (scalar 5.9e-8, SIMD 1.03e-7)
 *   SIMD vs scalar:         <= 5e-7 * max(1, |y|)  (1.2e-7)
 *   logsumexp vs float64:   |LSE - LSE64| <= 5e-7 absolute, at any offset
 *                           (scalar 0: the same double algorithm; SIMD 9.1e-8)
 *   max <= LSE exactly, LSE <= max + log n (+ the bound above)
 * The SIMD error is that of the float block sums (a relative error d of S is
 * an absolute error d of log S); pathological rows can reach ~64 * 2^-24 =
 * 3.8e-6 in theory, random rows stay near 1e-7.
 */
#include <float.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"

#define LSM_TOL 5e-7
#define LSE_TOL 5e-7 /* absolute: the error of log S does not grow with max */

static const ss_kernel_info *LSM(void) {
  return ss_kernel_find("log_softmax", SS_FAMILY_NORMALIZER);
}
static const ss_kernel_info *LSE(void) {
  return ss_kernel_find("logsumexp", SS_FAMILY_MEASURE);
}

/* Test vectors: n in 1..67 and some large n, various spreads and offsets. */
#define NCASES (67 + 4)
static size_t case_n(size_t t) {
  static const size_t big[] = {255, 4097, 65536 + 3, (1u << 20) + 1};
  return t < 67 ? t + 1 : big[t - 67];
}
static void case_fill(float *x, size_t t, size_t n) {
  static const float spread[] = {1.0f, 20.0f, 100.0f, 170.0f};
  static const float offset[] = {0.0f, -30.0f, 1e3f, 1e4f, -1e4f};
  const float s = spread[t % 4], o = offset[t % 5];
  st_fill(x, n, 100 + t, o - s / 2, o + s / 2);
}

TEST(log_softmax_descriptor) {
  CHECK(LSM() && LSM()->output == SS_OUTPUT_LOG_PROBS && LSM()->has_backward &&
            LSM()->nparams == 0,
        "log_softmax descriptor");
  CHECK(LSE() && LSE()->input == SS_INPUT_LOGITS && LSE()->has_backward && LSE()->nparams == 0,
        "logsumexp descriptor");
}

/* y vs x - LSE64(x), the float64 log-softmax of the same float logits. */
TEST(log_softmax_matches_float64_reference) {
  double worst[SS_IMPL_COUNT] = {0};
  for (size_t t = 0; t < NCASES; t++) {
    const size_t n = case_n(t);
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    case_fill(x, t, n);
    const double c = ref_logsumexp(x, n);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(LSM(), impl, x, n, NULL, 0, y), SS_OK);
      for (size_t i = 0; i < n; i++) {
        const double ref = (double)x[i] - c;
        const double e = fabs(y[i] - ref) / fmax(1.0, fabs(ref));
        CHECK(e <= LSM_TOL, "%s n=%zu i=%zu: y=%.9g ref=%.9g (x=%.9g)", ss_impl_name(impl),
              n, i, y[i], ref, x[i]);
        if (e > worst[impl]) worst[impl] = e;
      }
    }
    ss_test_free(x);
    ss_test_free(y);
  }
  CHECK(worst[0] <= LSM_TOL && worst[1] <= LSM_TOL, "worst %.3g %.3g", worst[0], worst[1]);
}

TEST(log_softmax_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  double worst = 0.0;
  for (size_t t = 0; t < NCASES; t++) {
    const size_t n = case_n(t);
    float *x = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4), *b = ss_test_alloc(n * 4);
    case_fill(x, t, n);
    CHECK_STATUS(ss_normalize(LSM(), SS_IMPL_SCALAR, x, n, NULL, 0, a), SS_OK);
    CHECK_STATUS(ss_normalize(LSM(), SS_IMPL_SIMD, x, n, NULL, 0, b), SS_OK);
    for (size_t i = 0; i < n; i++) {
      const double e = fabs((double)a[i] - b[i]) / fmax(1.0, fabs(a[i]));
      if (e > worst) worst = e;
    }
    ss_test_free(x);
    ss_test_free(a);
    ss_test_free(b);
  }
  CHECK(worst <= LSM_TOL, "worst %.3g", worst);
}

/* log_softmax = log(softmax) wherever softmax >= 1e-30: softmax has rel err
   <= 2e-6, i.e. abs err 2e-6 after the log, plus log_softmax's own bound. */
TEST(log_softmax_is_log_of_softmax) {
  const ss_kernel_info *sm = ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
  for (size_t t = 0; t < NCASES; t++) {
    const size_t n = case_n(t);
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *p = ss_test_alloc(n * 4);
    case_fill(x, t, n);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(LSM(), impl, x, n, NULL, 0, y), SS_OK);
      CHECK_STATUS(ss_normalize(sm, impl, x, n, NULL, 0, p), SS_OK);
      for (size_t i = 0; i < n; i++) {
        if (p[i] < 1e-30f) continue;
        const double l = log((double)p[i]);
        CHECK(fabs(y[i] - l) <= 2e-6 + LSM_TOL * fmax(1.0, fabs(l)),
              "%s n=%zu i=%zu: log_softmax %.9g, log(softmax) %.9g", ss_impl_name(impl), n,
              i, y[i], l);
      }
    }
    ss_test_free(x);
    ss_test_free(y);
    ss_test_free(p);
  }
}

/* -Inf logits give exactly -Inf; the others are the log_softmax of the
   unmasked subset; large logits do not overflow. */
TEST(log_softmax_masking_and_extremes) {
  enum { N = 41 };
  float x[N], y[N], sub[N];
  st_fill(x, N, 55, -10, 10);
  size_t m = 0;
  for (size_t i = 0; i < N; i++) {
    if (i % 3 == 1) x[i] = -INFINITY;
    else sub[m++] = x[i];
  }
  const double c = ref_logsumexp(sub, m);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(LSM(), impl, x, N, NULL, 0, y), SS_OK);
    for (size_t i = 0, k = 0; i < N; i++) {
      if (x[i] == -INFINITY) {
        CHECK(y[i] == -INFINITY, "%s: masked y[%zu]=%g", ss_impl_name(impl), i, y[i]);
        continue;
      }
      const double ref = (double)sub[k++] - c;
      CHECK(fabs(y[i] - ref) <= LSM_TOL * fmax(1.0, fabs(ref)), "%s: y[%zu]=%.9g ref %.9g",
            ss_impl_name(impl), i, y[i], ref);
    }
    /* [1e4, -1e4, 0, 1e4 - 1]: y = (-L, -2e4 - L, -1e4 - L, -1 - L), L = log(1 + e^-1). */
    const float xl[] = {1e4f, -1e4f, 0.0f, 1e4f - 1.0f, -INFINITY};
    float yl[5];
    const double L = log1p(exp(-1.0));
    const double want[] = {-L, -2e4 - L, -1e4 - L, -1.0 - L};
    CHECK_STATUS(ss_normalize(LSM(), impl, xl, 5, NULL, 0, yl), SS_OK);
    for (int i = 0; i < 4; i++)
      CHECK(fabs(yl[i] - want[i]) <= LSM_TOL * fmax(1.0, fabs(want[i])), "%s: yl[%d]=%.9g want %.9g",
            ss_impl_name(impl), i, yl[i], want[i]);
    CHECK(yl[4] == -INFINITY, "%s: masked %g", ss_impl_name(impl), yl[4]);
    /* The float extremes: x - c overflows to -Inf (the true value, -6.8e38,
       is beyond float), never NaN. */
    const float xe[] = {FLT_MAX, -FLT_MAX, 0.0f};
    float ye[3];
    CHECK_STATUS(ss_normalize(LSM(), impl, xe, 3, NULL, 0, ye), SS_OK);
    CHECK(ye[0] == 0.0f && ye[1] == -INFINITY && ye[2] == -FLT_MAX, "%s: extremes %g %g %g",
          ss_impl_name(impl), ye[0], ye[1], ye[2]);
  }
}

/* VJP vs central differences of sum_i g_i (x_i - LSE(x)) in float64:
   dx_j = g_j - p_j sum(g). Tolerance: p_j's error (from y's 2e-6 (1 + |y|))
   times |sum g|, the rounding of dx_j, and 1e-9 sum|g| for the differences. */
TEST(log_softmax_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 3, 5, 16, 17, 33, 64};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *g = ss_test_alloc(n * 4),
          *dx = ss_test_alloc(n * 4);
    double *fd = ss_test_alloc(n * 8);
    st_fill(x, n, 500 + n, -6.0f, 6.0f);
    st_fill(g, n, 600 + n, -2.0f, 2.0f);
    double G = 0.0, sg = 0.0;
    for (size_t i = 0; i < n; i++) G += fabs(g[i]), sg += g[i];
    st_fd_vjp(st_model_log_softmax, x, g, n, 0.0, 1e-5, fd);
    const double c = ref_logsumexp(x, n);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(LSM(), impl, x, n, NULL, 0, y), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(LSM(), impl, x, y, g, n, NULL, 0, dx), SS_OK);
      for (size_t j = 0; j < n; j++) {
        const double yr = (double)x[j] - c, p = exp(yr);
        const double tol = 1e-5 * p * (1.0 + fabs(yr)) * fabs(sg) +
                           0x1p-23 * (fabs(g[j]) + p * fabs(sg)) + 1e-9 * G;
        CHECK(fabs(dx[j] - fd[j]) <= tol, "%s n=%zu j=%zu: dx=%.9g fd=%.9g",
              ss_impl_name(impl), n, j, dx[j], fd[j]);
      }
    }
  }
}

/* A masked logit: y = -Inf, p = 0, so dx = g there exactly; and a gradient
   sum beyond the float range gives no NaN. */
TEST(log_softmax_vjp_masked_and_huge) {
  enum { N = 23 };
  float x[N], y[N], g[N], dx[N];
  st_fill(x, N, 31, -3, 3);
  st_fill(g, N, 32, -1, 1);
  x[4] = x[21] = -INFINITY;
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(LSM(), impl, x, N, NULL, 0, y), SS_OK);
    CHECK_STATUS(ss_normalize_vjp(LSM(), impl, x, y, g, N, NULL, 0, dx), SS_OK);
    CHECK(dx[4] == g[4] && dx[21] == g[21], "%s: masked dx %g %g (g %g %g)",
          ss_impl_name(impl), dx[4], dx[21], g[4], g[21]);
    float gh[N];
    for (size_t i = 0; i < N; i++) gh[i] = 1e37f;
    CHECK_STATUS(ss_normalize_vjp(LSM(), impl, x, y, gh, N, NULL, 0, dx), SS_OK);
    for (size_t i = 0; i < N; i++)
      CHECK(isfinite(dx[i]), "%s: dx[%zu] = %g with large g", ss_impl_name(impl), i, dx[i]);
    CHECK(dx[4] == 1e37f, "%s: masked dx %g", ss_impl_name(impl), dx[4]);
    /* g = 3e38: the exact dx_j = g (1 - 21 p_j) of the largest p_j is beyond
       FLT_MAX, so SS_ERR_DOMAIN (softscope.h: a gradient that overflows) */
    double pmax = 0;
    for (size_t i = 0; i < N; i++) pmax = fmax(pmax, exp((double)y[i]));
    CHECK(3e38 * (21 * pmax - 1) > FLT_MAX, "test premise: p_max %g", pmax);
    for (size_t i = 0; i < N; i++) gh[i] = 3e38f;
    CHECK_STATUS(ss_normalize_vjp(LSM(), impl, x, y, gh, N, NULL, 0, dx), SS_ERR_DOMAIN);
  }
}

TEST(log_softmax_bad_inputs) {
  const double params[1] = {0.0};
  st_normalizer_bad_inputs(LSM(), params, 0);
}

/* The VJP reads y as log-probabilities: NaN -> SS_ERR_NAN, y > 0 ->
   SS_ERR_DOMAIN; g non-finite as for every VJP. dx untouched. */
TEST(log_softmax_vjp_bad_inputs) {
  enum { N = 37 };
  float x[N], y[N], g[N], dx[N];
  st_fill(x, N, 11, -3, 3);
  st_fill(g, N, 12, -1, 1);
  static const size_t where[] = {0, 15, 17, 35, 36};
  FOR_EACH_IMPL(impl) {
    const char *in = ss_impl_name(impl);
    st_poison(dx, N);
    for (size_t w = 0; w < sizeof where / sizeof where[0]; w++) {
      CHECK_STATUS(ss_normalize(LSM(), impl, x, N, NULL, 0, y), SS_OK);
      y[where[w]] = NAN;
      CHECK_STATUS(ss_normalize_vjp(LSM(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_NAN);
      y[where[w]] = 0x1p-20f;
      CHECK_STATUS(ss_normalize_vjp(LSM(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_DOMAIN);
      y[where[w]] = INFINITY;
      CHECK_STATUS(ss_normalize_vjp(LSM(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_DOMAIN);
      CHECK(st_untouched(dx, N), "%s y bad at %zu: dx written", in, where[w]);
    }
    CHECK_STATUS(ss_normalize(LSM(), impl, x, N, NULL, 0, y), SS_OK);
    g[3] = INFINITY;
    CHECK_STATUS(ss_normalize_vjp(LSM(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_NONFINITE);
    g[3] = NAN;
    CHECK_STATUS(ss_normalize_vjp(LSM(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_NAN);
    g[3] = 0.25f;
    CHECK_STATUS(ss_normalize_vjp(LSM(), impl, x, y, g, N, NULL, 0, NULL), SS_ERR_NULL);
    CHECK(st_untouched(dx, N), "%s: dx written", in);
  }
}

/* ---- logsumexp ----------------------------------------------------------- */

TEST(logsumexp_matches_float64_and_bounds) {
  double worst[SS_IMPL_COUNT] = {0};
  for (size_t t = 0; t < NCASES; t++) {
    const size_t n = case_n(t);
    float *x = ss_test_alloc(n * 4);
    case_fill(x, t, n);
    const double ref = ref_logsumexp(x, n);
    float m = -INFINITY;
    for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    FOR_EACH_IMPL(impl) {
      double out = NAN;
      CHECK_STATUS(ss_measure(LSE(), impl, x, NULL, n, NULL, 0, &out), SS_OK);
      const double tol = LSE_TOL;
      const double e = fabs(out - ref);
      CHECK(e <= LSE_TOL, "%s n=%zu: %.17g vs %.17g", ss_impl_name(impl), n, out, ref);
      /* The max entry contributes exactly 1 to the sum, so LSE >= max exactly. */
      CHECK(out >= (double)m && out <= (double)m + log((double)n) + tol,
            "%s n=%zu: LSE %.17g outside [max, max + log n] = [%.9g, %.9g]",
            ss_impl_name(impl), n, out, (double)m, m + log((double)n));
      if (e > worst[impl]) worst[impl] = e;
    }
    ss_test_free(x);
  }
  CHECK(worst[0] <= LSE_TOL && worst[1] <= LSE_TOL, "worst %.3g %.3g", worst[0], worst[1]);
}

/* n equal logits: LSE = x + log n exactly in double (the sum is exactly n). */
TEST(logsumexp_equal_logits_and_masks) {
  static const size_t ns[] = {1, 2, 3, 4, 15, 16, 17, 1000, 1025};
  float x[1025];
  FOR_EACH_IMPL(impl) {
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
      const size_t n = ns[t];
      for (size_t i = 0; i < n; i++) x[i] = 2.5f;
      double out;
      CHECK_STATUS(ss_measure(LSE(), impl, x, NULL, n, NULL, 0, &out), SS_OK);
      CHECK(out == 2.5 + log((double)n), "%s n=%zu: %.17g", ss_impl_name(impl), n, out);
      /* masking all but one: LSE = that logit */
      for (size_t i = 0; i + 1 < n; i++) x[i] = -INFINITY;
      CHECK_STATUS(ss_measure(LSE(), impl, x, NULL, n, NULL, 0, &out), SS_OK);
      CHECK(out == 2.5, "%s n=%zu masked: %.17g", ss_impl_name(impl), n, out);
    }
    const float xl[] = {1e4f, -1e4f, 0.0f, 1e4f - 1.0f};
    double out;
    CHECK_STATUS(ss_measure(LSE(), impl, xl, NULL, 4, NULL, 0, &out), SS_OK);
    const double want = 1e4 + log1p(exp(-1.0));
    CHECK(fabs(out - want) <= LSE_TOL, "%s: %.17g vs %.17g", ss_impl_name(impl), out, want);
  }
}

static double lse_of(const double *x, size_t n, const void *ctx) {
  (void)ctx;
  return st_logsumexp64(x, n);
}

/* measure_vjp: dp = g softmax(x), vs g * float64 softmax (2e-6 relative, as
   softmax) and vs central differences of g LSE(x) in float64. */
TEST(logsumexp_vjp) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 33, 64, 1000};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *dp = ss_test_alloc(n * 4);
    double *p = ss_test_alloc(n * 8), *xd = ss_test_alloc(n * 8);
    st_fill(x, n, 900 + n, -20.0f, 20.0f);
    if (n > 3) x[2] = -INFINITY;
    ref_softmax(x, n, 1.0, p);
    const double g = -1.75;
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_measure_vjp(LSE(), impl, x, n, NULL, 0, g, dp), SS_OK);
      for (size_t j = 0; j < n; j++) {
        const double want = g * p[j];
        CHECK(fabs(dp[j] - want) <= 2e-6 * fabs(want) || (fabs(want) < 1e-30 && fabs(dp[j]) < 1e-30),
              "%s n=%zu j=%zu: dp=%g want %g", ss_impl_name(impl), n, j, dp[j], want);
        if (x[j] == -INFINITY) {
          CHECK(dp[j] == 0.0f, "%s: masked dp %g", ss_impl_name(impl), dp[j]);
          continue;
        }
        if (n > 64) continue; /* the O(n^2) differences on the small sizes only */
        for (size_t i = 0; i < n; i++) xd[i] = x[i];
        const double fd = g * fd_central64(lse_of, NULL, xd, n, j, 1e-5);
        CHECK(fabs(dp[j] - fd) <= 2e-6 * fabs(fd) + 1e-9 * fabs(g),
              "%s n=%zu j=%zu: dp=%.9g fd=%.9g", ss_impl_name(impl), n, j, dp[j], fd);
      }
    }
  }
}

/* The float extremes: x - max overflows to -Inf for the small entry, whose
   exp (and gradient) is then exactly 0, never NaN. */
TEST(logsumexp_extremes) {
  const float x[] = {FLT_MAX, -FLT_MAX, FLT_MAX, 0.0f, -INFINITY};
  FOR_EACH_IMPL(impl) {
    double out;
    float dp[5];
    CHECK_STATUS(ss_measure(LSE(), impl, x, NULL, 5, NULL, 0, &out), SS_OK);
    CHECK(out == (double)FLT_MAX + log(2.0), "%s: LSE %.17g", ss_impl_name(impl), out);
    CHECK_STATUS(ss_measure_vjp(LSE(), impl, x, 5, NULL, 0, 3.0, dp), SS_OK);
    CHECK(dp[0] == 1.5f && dp[1] == 0.0f && dp[2] == 1.5f && dp[3] == 0.0f && dp[4] == 0.0f,
          "%s: dp %g %g %g %g %g", ss_impl_name(impl), dp[0], dp[1], dp[2], dp[3], dp[4]);
  }
}

/* Bad inputs for the measure and its VJP; out / dp untouched. */
TEST(logsumexp_bad_inputs) {
  enum { N = 37 };
  float x[N], dp[N];
  static const size_t where[] = {0, 5, 16, 33, 36};
  FOR_EACH_IMPL(impl) {
    const char *in = ss_impl_name(impl);
    double out = 42.0;
    st_poison(dp, N);
    for (size_t w = 0; w < sizeof where / sizeof where[0]; w++) {
      st_fill(x, N, 3, -5, 5);
      x[where[w]] = NAN;
      CHECK_STATUS(ss_measure(LSE(), impl, x, NULL, N, NULL, 0, &out), SS_ERR_NAN);
      CHECK_STATUS(ss_measure_vjp(LSE(), impl, x, N, NULL, 0, 1.0, dp), SS_ERR_NAN);
      x[where[w]] = INFINITY;
      CHECK_STATUS(ss_measure(LSE(), impl, x, NULL, N, NULL, 0, &out), SS_ERR_POS_INF);
      CHECK_STATUS(ss_measure_vjp(LSE(), impl, x, N, NULL, 0, 1.0, dp), SS_ERR_POS_INF);
    }
    for (size_t i = 0; i < N; i++) x[i] = -INFINITY;
    CHECK_STATUS(ss_measure(LSE(), impl, x, NULL, N, NULL, 0, &out), SS_ERR_ALL_MASKED);
    CHECK_STATUS(ss_measure_vjp(LSE(), impl, x, N, NULL, 0, 1.0, dp), SS_ERR_ALL_MASKED);
    st_fill(x, N, 4, -5, 5);
    CHECK_STATUS(ss_measure(LSE(), impl, NULL, NULL, N, NULL, 0, &out), SS_ERR_NULL);
    CHECK_STATUS(ss_measure(LSE(), impl, x, NULL, N, NULL, 0, NULL), SS_ERR_NULL);
    CHECK_STATUS(ss_measure(LSE(), impl, x, NULL, 0, NULL, 0, &out), SS_ERR_EMPTY);
    CHECK_STATUS(ss_measure(LSE(), impl, x, NULL, SS_MAX_N + 1, NULL, 0, &out), SS_ERR_TOO_LARGE);
    const double extra[1] = {1.0};
    CHECK_STATUS(ss_measure(LSE(), impl, x, NULL, N, extra, 1, &out), SS_ERR_PARAM_COUNT);
    CHECK_STATUS(ss_measure_vjp(LSE(), impl, x, N, NULL, 0, NAN, dp), SS_ERR_NONFINITE);
    CHECK_STATUS(ss_measure_vjp(LSE(), impl, x, N, NULL, 0, INFINITY, dp), SS_ERR_NONFINITE);
    /* dp is float: a g beyond the float range would overflow it. */
    CHECK_STATUS(ss_measure_vjp(LSE(), impl, x, N, NULL, 0, 1e39, dp), SS_ERR_NONFINITE);
    CHECK_STATUS(ss_measure_vjp(LSE(), impl, x, N, NULL, 0, 1.0, NULL), SS_ERR_NULL);
    float y[N];
    CHECK_STATUS(ss_normalize(LSE(), impl, x, N, NULL, 0, y), SS_ERR_FAMILY);
    CHECK(out == 42.0, "%s: out written on error (%g)", in, out);
    CHECK(st_untouched(dp, N), "%s: dp written on error", in);
  }
  double out = 42.0;
  if (!ss_impl_available(SS_IMPL_SIMD))
    CHECK_STATUS(ss_measure(LSE(), SS_IMPL_SIMD, x, NULL, N, NULL, 0, &out), SS_ERR_UNSUPPORTED);
  CHECK_STATUS(ss_measure(LSE(), SS_IMPL_COUNT, x, NULL, N, NULL, 0, &out), SS_ERR_UNSUPPORTED);
  CHECK(out == 42.0, "out written on error");
}

TEST(logsumexp_direct_call) {
  enum { N = 29 };
  float x[N];
  st_fill(x, N, 14, -4, 4);
  double a = 0, b = 1;
  CHECK_STATUS(ss_logsumexp(x, N, &a), SS_OK);
  CHECK_STATUS(ss_measure(LSE(), ss_impl_default(), x, NULL, N, NULL, 0, &b), SS_OK);
  CHECK(a == b, "ss_logsumexp %.17g vs ss_measure %.17g", a, b);
  CHECK_STATUS(ss_logsumexp(x, N, NULL), SS_ERR_NULL);
}
