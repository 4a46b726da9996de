/* softmax: the properties every build must hold. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"

static const ss_kernel_info *K(void) {
  return ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
}

/* Max relative error <= 2e-6 vs float64 for every output >= 1e-30, logits
   spread over a range of 100, every n in 1..67 and a few large n. */
TEST(softmax_matches_float64_reference) {
  static const size_t big[] = {255, 1000, 4097, 65536 + 3};
  for (size_t t = 0; t < 67 + 4; t++) {
    const size_t n = t < 67 ? t + 1 : big[t - 67];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8);
    st_fill(x, n, 1000 + n, -50.0f, 50.0f);
    ref_softmax(x, n, 1.0, ref);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
      size_t at;
      const double e = ref_max_rel_err(y, ref, n, 1e-30, &at);
      CHECK(e <= 2e-6, "%s n=%zu: rel err %.3g at %zu (y=%g ref=%g)",
            ss_impl_name(impl), n, e, at, y[at], ref[at]);
    }
    ss_test_free(x);
    ss_test_free(y);
    ss_test_free(ref);
  }
}

/* ---- properties of the output ------------------------------------------ */

/* Sum of the float outputs (in double) within 1e-5 of 1, at n = 2^20 and for
   every n in 1..67. Each y_i has rel err <= 2e-6, so |sum - 1| <= 2e-6 plus
   the rounding of the n float outputs; measured <= 1.2e-7 (SIMD),
   3e-8 (scalar). */
TEST(softmax_sums_to_one) {
  const size_t big = (size_t)1 << 20;
  float *x = ss_test_alloc((big + 3) * 4), *y = ss_test_alloc((big + 3) * 4);
  double worst = 0.0;
  for (size_t t = 0; t < 67 + 2; t++) {
    const size_t n = t < 67 ? t + 1 : t == 67 ? big : big + 3;
    st_fill(x, n, 2000 + n, -8.0f, 8.0f);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
      double s = 0.0;
      for (size_t i = 0; i < n; i++) s += y[i];
      const double e = fabs(s - 1.0);
      CHECK(e <= 1e-5, "%s n=%zu: |sum - 1| = %.3g", ss_impl_name(impl), n, e);
      if (e > worst) worst = e;
    }
  }
  CHECK(worst <= 1e-5, "worst |sum - 1| %.3g", worst);
}

/* softmax(x + c) = softmax(x). The logits are multiples of 2^-6 in (-50, 50)
   so x + 1000 is exact in float: both outputs then have the same float64
   reference, each within 2e-6 of it, so they agree to 4e-6 relative. */
TEST(softmax_shift_invariance) {
  enum { N = 301 };
  float x[N], xs[N], y[N], ys[N];
  ss_rng r = {77};
  for (size_t i = 0; i < N; i++) {
    x[i] = (float)((int)(ss_rng_unif(&r) * 6400) - 3200) / 64.0f;
    xs[i] = x[i] + 1000.0f;
    CHECK((double)xs[i] == (double)x[i] + 1000.0, "shift not exact at %zu", i);
  }
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, N, NULL, 0, y), SS_OK);
    CHECK_STATUS(ss_normalize(K(), impl, xs, N, NULL, 0, ys), SS_OK);
    for (size_t i = 0; i < N; i++) {
      const double d = fabs((double)y[i] - (double)ys[i]);
      CHECK(d <= 4e-6 * y[i], "%s i=%zu: %g vs %g", ss_impl_name(impl), i, y[i], ys[i]);
    }
  }
}

/* Huge logits: max subtraction means no overflow. [1e4, -1e4, 0, 1e4 - 1]:
   y = (1, 0, 0, e^-1) / (1 + e^-1), the two small ones exactly 0 (underflow
   of e^-1e4, not a NaN), and likewise at the float extremes. */
TEST(softmax_no_overflow_at_large_logits) {
  const float x[] = {1e4f, -1e4f, 0.0f, 1e4f - 1.0f};
  const double a = 1.0 / (1.0 + exp(-1.0)), b = exp(-1.0) / (1.0 + exp(-1.0));
  float xl[19];
  for (size_t i = 0; i < 19; i++) xl[i] = i % 2 ? -1e4f : 1e4f - (float)i;
  double ref[19];
  ref_softmax(xl, 19, 1.0, ref);
  FOR_EACH_IMPL(impl) {
    float y[4], yl[19];
    CHECK_STATUS(ss_normalize(K(), impl, x, 4, NULL, 0, y), SS_OK);
    CHECK(fabs(y[0] - a) <= 2e-6 * a && fabs(y[3] - b) <= 2e-6 * b,
          "%s: y0=%.9g (want %.9g) y3=%.9g (want %.9g)", ss_impl_name(impl), y[0], a, y[3], b);
    CHECK(y[1] == 0.0f && y[2] == 0.0f, "%s: y1=%g y2=%g", ss_impl_name(impl), y[1], y[2]);
    CHECK_STATUS(ss_normalize(K(), impl, xl, 19, NULL, 0, yl), SS_OK);
    size_t at;
    const double e = ref_max_rel_err(yl, ref, 19, 1e-30, &at);
    CHECK(e <= 2e-6, "%s: rel err %.3g at %zu", ss_impl_name(impl), e, at);
  }
}

/* n = 0 is SS_ERR_EMPTY; every n in 1..67 and some large n give a finite
   probability vector with the argmax where the logits have it. */
TEST(softmax_every_length) {
  float dummy = 0.0f, ydummy = ST_SENTINEL;
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, &dummy, 0, NULL, 0, &ydummy), SS_ERR_EMPTY);
    CHECK(ydummy == ST_SENTINEL, "n=0 wrote y");
  }
  static const size_t big[] = {1023, 1024, 1025, 4111, (1u << 18) + 13};
  for (size_t t = 0; t < 67 + 5; t++) {
    const size_t n = t < 67 ? t + 1 : big[t - 67];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc((n + 1) * 4);
    st_fill(x, n, 3000 + n, -30.0f, 30.0f);
    const size_t hot = (n * 7) / 11;
    x[hot] = 31.0f;
    FOR_EACH_IMPL(impl) {
      y[n] = ST_SENTINEL;
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
      CHECK(y[n] == ST_SENTINEL, "%s n=%zu: wrote past the end", ss_impl_name(impl), n);
      size_t am = 0;
      for (size_t i = 0; i < n; i++) {
        CHECK(y[i] >= 0.0f && y[i] <= 1.0f, "%s n=%zu: y[%zu]=%g", ss_impl_name(impl), n, i, y[i]);
        if (y[i] > y[am]) am = i;
      }
      CHECK(am == hot, "%s n=%zu: argmax %zu, want %zu", ss_impl_name(impl), n, am, hot);
    }
    ss_test_free(x);
    ss_test_free(y);
  }
}

/* SIMD vs the scalar reference: <= 8 ulp for every output >= 1e-30, measured
   max 6 ulp (n = 1..67, 1000, 65541, 2^20; logit ranges 1..170). The exps
   differ by <= 2.5 ulp (tests/c/test_exp.c); the rest is the SIMD float
   block sums (64 adds per lane per block) against the scalar double sum,
   a relative error shared by every output. An output < 1e-30 differs by
   less than 1e-30 absolute. */
TEST(softmax_simd_vs_scalar_ulp) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  uint32_t worst = 0;
  static const float ranges[] = {1.0f, 20.0f, 100.0f, 170.0f};
  for (size_t t = 0; t < 67 + 3; t++) {
    const size_t n = t < 67 ? t + 1 : t == 67 ? 1000 : t == 68 ? 65541 : 1 << 20;
    float *x = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4), *b = ss_test_alloc(n * 4);
    st_fill(x, n, 4000 + n, -ranges[n % 4] / 2, ranges[n % 4] / 2);
    CHECK_STATUS(ss_normalize(K(), SS_IMPL_SCALAR, x, n, NULL, 0, a), SS_OK);
    CHECK_STATUS(ss_normalize(K(), SS_IMPL_SIMD, x, n, NULL, 0, b), SS_OK);
    for (size_t i = 0; i < n; i++) {
      if (a[i] >= 1e-30f) {
        const uint32_t u = ss_ulp_diff(a[i], b[i]);
        if (u > worst) worst = u;
        CHECK(u <= 8, "n=%zu i=%zu: scalar %a simd %a (%u ulp)", n, i, a[i], b[i], u);
      } else {
        CHECK(fabsf(a[i] - b[i]) < 1e-30f, "n=%zu i=%zu: %g vs %g", n, i, a[i], b[i]);
      }
    }
    ss_test_free(x);
    ss_test_free(a);
    ss_test_free(b);
  }
  CHECK(worst <= 8, "worst %u ulp", worst);
}

/* VJP vs central differences of <g, softmax(x)> in float64 (h = 1e-5):
   |dx_j - fd_j| <= 1e-5 y_j (|g_j| + G) + 1e-9 G, G = sum |g| (the float
   outputs' 2e-6 relative error plus the float dot product; the last term
   covers the differencing error). */
TEST(softmax_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 3, 5, 16, 17, 33, 64};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *g = ss_test_alloc(n * 4),
          *dx = ss_test_alloc(n * 4);
    double *fd = ss_test_alloc(n * 8), *p = ss_test_alloc(n * 8);
    st_fill(x, n, 5000 + n, -6.0f, 6.0f);
    st_fill(g, n, 6000 + n, -2.0f, 2.0f);
    double G = 0.0;
    for (size_t i = 0; i < n; i++) G += fabs(g[i]);
    st_fd_vjp(st_model_softmax, x, g, n, 1.0, 1e-5, fd);
    ref_softmax(x, n, 1.0, p);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, n, NULL, 0, dx), SS_OK);
      for (size_t j = 0; j < n; j++) {
        const double tol = 1e-5 * p[j] * (fabs(g[j]) + G) + 1e-9 * G;
        CHECK(fabs(dx[j] - fd[j]) <= tol, "%s n=%zu j=%zu: dx=%.9g fd=%.9g",
              ss_impl_name(impl), n, j, dx[j], fd[j]);
      }
    }
  }
}

/* -Inf logits are masks: their outputs are exactly 0 and the others are the
   softmax of the unmasked subset (within 2e-6 of its float64 softmax, and
   within 8 ulp of the kernel run on the compacted subset). */
TEST(softmax_masking) {
  static const size_t ns[] = {1, 2, 7, 16, 37, 64, 1000};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *sub = ss_test_alloc(n * 4),
          *ysub = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8);
    st_fill(x, n, 7000 + n, -20.0f, 20.0f);
    ss_rng r = {n};
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
      /* keep the last entry so the row is never all masked */
      if (i + 1 < n && ss_rng_unif(&r) < 0.4) x[i] = -INFINITY;
      else sub[m++] = x[i];
    }
    ref_softmax(sub, m, 1.0, ref);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
      CHECK_STATUS(ss_normalize(K(), impl, sub, m, NULL, 0, ysub), SS_OK);
      for (size_t i = 0, k = 0; i < n; i++) {
        if (x[i] == -INFINITY) {
          CHECK(y[i] == 0.0f && !signbit(y[i]), "%s n=%zu: masked y[%zu]=%g",
                ss_impl_name(impl), n, i, y[i]);
          continue;
        }
        const double e = fabs(y[i] - ref[k]);
        CHECK(e <= 2e-6 * ref[k] || (ref[k] < 1e-30 && e < 1e-30),
              "%s n=%zu i=%zu: %g vs subset ref %g", ss_impl_name(impl), n, i, y[i], ref[k]);
        CHECK(ss_ulp_diff(y[i], ysub[k]) <= 8 || (ref[k] < 1e-30 && fabs(y[i] - ysub[k]) < 1e-30),
              "%s n=%zu i=%zu: %a vs compacted %a", ss_impl_name(impl), n, i, y[i], ysub[k]);
        k++;
      }
    }
  }
}

/* The subnormal rule (common/softmax_row.h): outputs whose exact value is
   below FLT_MIN are +0 and no output is a denormal, in every impl, so
   scalar and SIMD agree on the zeros (outside the 2e-6 band around FLT_MIN
   that the error bound leaves open). */
TEST(softmax_subnormal_rule) {
  st_check_subnormal_rule(K(), NULL, 0, 1.0, 2e-6, 137.25f);
  st_check_subnormal_rule(K(), NULL, 0, 1.0, 2e-6, 600.0f); /* the TwoSum exp */
}

/* The same on softmax's other exp: rows whose max is outside the row-reduced
   exp's range [-266, 354] take the TwoSum exp. */
TEST(softmax_subnormal_rule_far_max) {
  static const float bases[] = {400.0f, -300.0f, 1e4f};
  for (size_t b = 0; b < 3; b++) {
    float x[37], y[37];
    double ref[37];
    for (size_t i = 0; i < 37; i++) x[i] = bases[b] - (float)(86.5 + 0.05 * (double)i);
    x[5] = bases[b];
    ref_softmax(x, 37, 1.0, ref);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, 37, NULL, 0, y), SS_OK);
      for (size_t i = 0; i < 37; i++) {
        CHECK(y[i] == 0.0f || y[i] >= FLT_MIN, "%s max %g i=%zu: denormal %a", ss_impl_name(impl),
              bases[b], i, y[i]);
        if (ref[i] < FLT_MIN * (1 - 1e-5)) CHECK(y[i] == 0.0f, "%s i=%zu: %a, exact %g",
                                                  ss_impl_name(impl), i, y[i], ref[i]);
        if (ref[i] >= FLT_MIN * (1 + 1e-5)) CHECK(y[i] != 0.0f, "%s i=%zu: 0, exact %g",
                                                   ss_impl_name(impl), i, ref[i]);
      }
    }
  }
}

TEST(softmax_bad_inputs) {
  const double params[1] = {0.0};
  st_normalizer_bad_inputs(K(), params, 0);
}

/* The VJP's own checks: NULL pointers, a non-finite gradient; dx untouched. */
TEST(softmax_vjp_bad_inputs) {
  enum { N = 21 };
  float x[N], y[N], g[N], dx[N];
  st_fill(x, N, 9, -3, 3);
  st_fill(g, N, 10, -1, 1);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, N, NULL, 0, y), SS_OK);
    st_poison(dx, N);
    CHECK_STATUS(ss_normalize_vjp(K(), impl, NULL, y, g, N, NULL, 0, dx), SS_ERR_NULL);
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, NULL, g, N, NULL, 0, dx), SS_ERR_NULL);
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, NULL, N, NULL, 0, dx), SS_ERR_NULL);
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, NULL), SS_ERR_NULL);
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, 0, NULL, 0, dx), SS_ERR_EMPTY);
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, SS_MAX_N + 1, NULL, 0, dx), SS_ERR_TOO_LARGE);
    g[N - 1] = NAN;
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_NAN);
    g[N - 1] = -INFINITY;
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_NONFINITE);
    g[N - 1] = 0.5f;
    CHECK(st_untouched(dx, N), "%s: dx written on error", ss_impl_name(impl));
  }
}

/* x - max can overflow float (3e38 - -3e38): the masked-like entry must come
   out 0, never NaN, in every impl. */
TEST(softmax_extreme_spread_has_no_nan) {
  const float x[] = {3e38f, -3e38f, 0.0f, -3e38f};
  float y[4];
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, 4, NULL, 0, y), SS_OK);
    CHECK(y[0] == 1.0f && y[1] == 0.0f && y[2] == 0.0f && y[3] == 0.0f,
          "%s: got [%g %g %g %g], want [1 0 0 0]", ss_impl_name(impl), y[0],
          y[1], y[2], y[3]);
  }
}
