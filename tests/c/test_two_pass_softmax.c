/* two_pass_softmax: the properties every build must hold. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"

#define REL_F64 2e-6   /* vs float64 softmax, outputs >= 1e-30 */
#define REL_SIMD 1e-6  /* SIMD vs scalar (measured ~3e-7) */
#define SUM_TOL 1e-5   /* |sum y - 1| at n = 2^20 */

static const ss_kernel_info *K(void) {
  return ss_kernel_find("two_pass_softmax", SS_FAMILY_NORMALIZER);
}

/* Every impl within REL_F64 of float64; false (after reporting) if not. */
static bool check_ref(const float *x, size_t n, const char *what) {
  float *y = ss_test_alloc(n * 4);
  double *ref = ss_test_alloc(n * 8);
  ref_softmax(x, n, 1.0, ref);
  FOR_EACH_IMPL(impl) {
    const ss_status s = ss_normalize(K(), impl, x, n, NULL, 0, y);
    size_t at = 0;
    const double e = s == SS_OK ? ref_max_rel_err(y, ref, n, 1e-30, &at) : INFINITY;
    if (!(e <= REL_F64)) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: status %d, rel err %.3g at %zu (x=%g y=%g ref=%g)",
                   what, ss_impl_name(impl), n, (int)s, e, at, x[at], y[at], ref[at]);
      return false;
    }
  }
  ss_test_free(y);
  ss_test_free(ref);
  return true;
}

TEST(two_pass_matches_float64_reference) {
  CHECK(K() != NULL, "two_pass_softmax not registered");
  static const size_t big[] = {255, 1000, 1023, 1024, 1025, 4097, 65536 + 3};
  for (size_t t = 0; t < 67 + 7; t++) {
    const size_t n = t < 67 ? t + 1 : big[t - 67];
    float *x = ss_test_alloc(n * 4);
    st_fill(x, n, 5000 + n, -50.0f, 50.0f);
    if (!check_ref(x, n, "spread 100")) return;
    st_fill(x, n, 6000 + n, -3.0f, 1.0f);
    if (!check_ref(x, n, "spread 4")) return;
    ss_test_free(x);
  }
}

/* Inputs that stress the (mantissa, exponent) sum and the range check. */
/* The subnormal rule (common/softmax_row.h), and the case that broke it: an
   entry at x - max = -87 is 1.6e-38 / S, a normal float, not 0. */
TEST(two_pass_subnormal_rule) {
  st_check_subnormal_rule(K(), NULL, 0, 1.0, REL_F64, 137.25f);
  st_check_subnormal_rule(K(), NULL, 0, 1.0, REL_F64, 400.0f); /* three-pass fallback */
  const float x[5] = {0.0f, -87.0f, -87.2f, -87.5f, -INFINITY};
  double ref[5];
  ref_softmax(x, 5, 1.0, ref);
  FOR_EACH_IMPL(impl) {
    float y[5];
    CHECK_STATUS(ss_normalize(K(), impl, x, 5, NULL, 0, y), SS_OK);
    CHECK(fabs(y[1] - ref[1]) <= REL_F64 * ref[1] && fabs(y[2] - ref[2]) <= REL_F64 * ref[2],
          "%s: y = %g %g, exact %g %g", ss_impl_name(impl), y[1], y[2], ref[1], ref[2]);
    CHECK(y[3] == 0.0f && y[4] == 0.0f, "%s: y = %g %g, want 0 0", ss_impl_name(impl), y[3], y[4]);
  }
}

TEST(two_pass_extreme_inputs) {
  const size_t n = 3001;
  float *x = ss_test_alloc(n * 4);
  /* |x| up to 1e4, and up to 4e4 (outside the two-pass range) */
  st_fill(x, n, 1, -1e4f, 1e4f);
  if (!check_ref(x, n, "|x|<=1e4")) return;
  st_fill(x, n, 2, -4e4f, 4e4f);
  if (!check_ref(x, n, "|x|<=4e4")) return;
  /* the two-pass range is a max logit in about [-266.5, 353.9]: clusters
     at both ends, and just outside (three-pass path) */
  st_fill(x, n, 3, 250.0f, 353.8f);
  if (!check_ref(x, n, "near +353.9")) return;
  st_fill(x, n, 31, 300.0f, 354.5f);
  if (!check_ref(x, n, "max just above 353.9")) return;
  st_fill(x, n, 32, -400.0f, -266.0f);
  if (!check_ref(x, n, "near -266")) return;
  st_fill(x, n, 33, -400.0f, -267.5f);
  if (!check_ref(x, n, "max just below -266.5")) return;
  ss_rng r0 = {34};
  for (size_t i = 0; i < n; i++) /* in range at the top, far below the rest */
    x[i] = ss_rng_unif(&r0) < 0.1 ? ss_rng_range(&r0, 320.0f, 350.0f) : ss_rng_range(&r0, -3e4f, 200.0f);
  if (!check_ref(x, n, "mixed 350 / -3e4")) return;
  /* mixed huge positive and negative, positives within 30 of each other */
  ss_rng r = {4};
  for (size_t i = 0; i < n; i++)
    x[i] = ss_rng_unif(&r) < 0.5 ? ss_rng_range(&r, 3e4f, 3e4f + 30) : ss_rng_range(&r, -4e4f, -3e4f);
  if (!check_ref(x, n, "mixed +-3e4")) return;
  /* large negative only: the max is low, exponents all negative */
  st_fill(x, n, 5, -45000.0f, -44950.0f);
  if (!check_ref(x, n, "near -45000")) return;
  /* outside the two-pass range: the three-pass path must give the same */
  st_fill(x, n, 6, -1e6f, 1e6f);
  if (!check_ref(x, n, "|x|<=1e6 (fallback)")) return;
  st_fill(x, n, 7, -2e5f, -1.9999e5f);
  if (!check_ref(x, n, "x~-2e5 (fallback)")) return;
  x[0] = FLT_MAX;
  x[1] = -FLT_MAX;
  x[2] = FLT_MAX;
  if (!check_ref(x, 3, "+-FLT_MAX")) return;
  /* outputs underflowing: spread of 200 -> many below float range */
  st_fill(x, n, 8, -100.0f, 100.0f);
  if (!check_ref(x, n, "spread 200")) return;
  /* all equal: exactly-ish 1/n */
  for (size_t i = 0; i < n; i++) x[i] = 7.25f;
  if (!check_ref(x, n, "all equal")) return;
  for (size_t i = 0; i < n; i++) x[i] = -33000.0f;
  if (!check_ref(x, n, "all equal -33000")) return;
  /* single element */
  static const float one[] = {0.0f, -3e4f, 4.5e4f, 1e6f, -1e30f, 123.456f};
  for (size_t i = 0; i < 6; i++) {
    float y = 0.0f;
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, &one[i], 1, NULL, 0, &y), SS_OK);
      CHECK(y <= 1.0f && y >= 1.0f - REL_F64, "%s single %g: y = %.9g", ss_impl_name(impl), one[i], y);
    }
  }
  /* a probability is never above 1: single logits across the range */
  ss_rng rs = {35};
  for (int i = 0; i < 2000; i++) {
    const float v = ss_rng_range(&rs, -260.0f, 330.0f);
    float y = 0.0f;
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, &v, 1, NULL, 0, &y), SS_OK);
      CHECK(y <= 1.0f && y >= 1.0f - REL_F64, "%s single %a: y = %a", ss_impl_name(impl), v, y);
    }
  }
  /* -Inf masks among every kind of value */
  st_fill(x, n, 9, -60.0f, 60.0f);
  for (size_t i = 0; i < n; i += 3) x[i] = -INFINITY;
  if (!check_ref(x, n, "masks")) return;
  st_fill(x, n, 10, -4e4f, 4e4f);
  for (size_t i = 1; i < n; i += 2) x[i] = -INFINITY;
  if (!check_ref(x, n, "masks + 4e4")) return;
  for (size_t i = 0; i < n; i++) x[i] = -INFINITY;
  x[1234] = -40000.0f; /* one finite logit among masks */
  if (!check_ref(x, n, "one finite")) return;
}

/* Guards against the fast path never running: inside the range the result
   is not bit-identical to the three-pass kernel's (different exp and
   summation), outside it (the fallback) it is. */
TEST(two_pass_takes_its_own_path_in_range) {
  const ss_kernel_info *K3 = ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
  const size_t n = 4097;
  float *x = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4), *b = ss_test_alloc(n * 4);
  FOR_EACH_IMPL(impl) {
    st_fill(x, n, 21, -50.0f, 50.0f);
    CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, a), SS_OK);
    CHECK_STATUS(ss_normalize(K3, impl, x, n, NULL, 0, b), SS_OK);
    size_t diff = 0;
    for (size_t i = 0; i < n; i++) diff += a[i] != b[i];
    CHECK(diff > 0, "%s: in range, identical to three-pass", ss_impl_name(impl));
    x[7] = 400.0f; /* max logit above the range: three-pass */
    CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, a), SS_OK);
    CHECK_STATUS(ss_normalize(K3, impl, x, n, NULL, 0, b), SS_OK);
    CHECK(memcmp(a, b, n * 4) == 0, "%s: out of range, not the three-pass result", ss_impl_name(impl));
  }
}

TEST(two_pass_sums_to_one_large) {
  static const float ranges[] = {1.0f, 30.0f, 100.0f, 2e4f};
  CHECK(st_sums_to_one_large(K(), ranges, 4, 11, SUM_TOL), "see above");
}

TEST(two_pass_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  for (size_t n = 1; n <= 300; n += (n < 67 ? 1 : 37)) {
    float *x = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4), *b = ss_test_alloc(n * 4);
    for (int kind = 0; kind < 3; kind++) {
      const float w = kind == 0 ? 50.0f : kind == 1 ? 1e4f : 3.0f;
      st_fill(x, n, 7000 + n * 3 + (uint64_t)kind, -w, w);
      if (kind == 2 && n > 2) x[n - 2] = -INFINITY;
      CHECK_STATUS(ss_normalize(K(), SS_IMPL_SCALAR, x, n, NULL, 0, a), SS_OK);
      CHECK_STATUS(ss_normalize(K(), SS_IMPL_SIMD, x, n, NULL, 0, b), SS_OK);
      for (size_t i = 0; i < n; i++) {
        const double e = a[i] >= 1e-30f ? fabs((double)b[i] - a[i]) / a[i] : fabs(b[i] - a[i]) * 1e30;
        CHECK(e <= REL_SIMD, "n=%zu kind %d i=%zu: simd %.9g scalar %.9g", n, kind, i, b[i], a[i]);
      }
    }
    ss_test_free(x);
    ss_test_free(a);
    ss_test_free(b);
  }
}

TEST(two_pass_bad_inputs) {
  const size_t n = 2500;
  float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
  FOR_EACH_IMPL(impl) {
    static const size_t pos[] = {0, 7, 1023, 1024, 2499};
    for (size_t p = 0; p < 5; p++) {
      st_fill(x, n, 1, -5, 5);
      x[pos[p]] = NAN;
      for (size_t i = 0; i < n; i++) y[i] = 42.0f;
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_ERR_NAN);
      for (size_t i = 0; i < n; i++) CHECK(y[i] == 42.0f, "output written on error");
      x[(pos[p] + 11) % n] = INFINITY; /* NaN wins over +Inf */
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_ERR_NAN);
      st_fill(x, n, 1, -5, 5);
      x[pos[p]] = INFINITY;
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_ERR_POS_INF);
      x[pos[p]] = -INFINITY;
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
      CHECK(y[pos[p]] == 0.0f, "masked y = %g", y[pos[p]]);
    }
    for (size_t i = 0; i < n; i++) x[i] = -INFINITY;
    CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_ERR_ALL_MASKED);
    CHECK_STATUS(ss_normalize(K(), impl, x, 1, NULL, 0, y), SS_ERR_ALL_MASKED);
    CHECK_STATUS(ss_normalize(K(), impl, x, 0, NULL, 0, y), SS_ERR_EMPTY);
    CHECK_STATUS(ss_normalize(K(), impl, NULL, n, NULL, 0, y), SS_ERR_NULL);
    CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, NULL), SS_ERR_NULL);
    CHECK_STATUS(ss_normalize(K(), impl, x, SS_MAX_N + 1, NULL, 0, y), SS_ERR_TOO_LARGE);
  }
  /* the direct call */
  float a[3] = {1.0f, 2.0f, 3.0f}, b[3];
  CHECK_STATUS(ss_two_pass_softmax(a, 3, b), SS_OK);
  CHECK(fabs(b[2] - exp(3.0) / (exp(1.0) + exp(2.0) + exp(3.0))) <= 2e-7, "direct call %g", b[2]);
  a[1] = NAN;
  CHECK_STATUS(ss_two_pass_softmax(a, 3, b), SS_ERR_NAN);
}

/* VJP (shared with softmax) against its formula in float64, with the
   forward's REL_F64 error of y carried into dx. */
TEST(two_pass_vjp) {
  static const size_t ns[] = {1, 5, 16, 67, 1000};
  CHECK(st_softmax_vjp_formula(K(), ns, 5, 70, REL_F64), "see above");
}
