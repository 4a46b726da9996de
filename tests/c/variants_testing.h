/*
 * Helpers for the tests of core/src/variants (softpick, stablemax, multimax,
 * sa_softmax, boltzmann, vq_softmax): the -Inf padding property and the
 * SIMD-vs-scalar comparison, shared so each test states only its bounds.
 */
#ifndef SS_TEST_VARIANTS_TESTING_H
#define SS_TEST_VARIANTS_TESTING_H

#include "harness.h"
#include "softmax_testing.h"

/* Worst ulp distance between the scalar and SIMD outputs of k on x, over
   entries with |scalar| >= floor; below it the two must agree to `floor`
   absolute (returns UINT32_MAX if they do not, or on an error status). */
static inline uint32_t vt_simd_vs_scalar(const ss_kernel_info *k, const double *params,
                                         size_t np, const float *x, size_t n, float floor) {
  float *a = ss_test_alloc(n * 4), *b = ss_test_alloc(n * 4);
  uint32_t worst = 0;
  if (ss_normalize(k, SS_IMPL_SCALAR, x, n, params, np, a) != SS_OK ||
      ss_normalize(k, SS_IMPL_SIMD, x, n, params, np, b) != SS_OK)
    worst = UINT32_MAX;
  for (size_t i = 0; i < n && worst != UINT32_MAX; i++) {
    if (fabsf(a[i]) >= floor) {
      const uint32_t u = ss_ulp_diff(a[i], b[i]);
      if (u > worst) worst = u;
    } else if (!(fabsf(a[i] - b[i]) <= floor)) {
      worst = UINT32_MAX;
    }
  }
  ss_test_free(a);
  ss_test_free(b);
  return worst;
}

/* The -Inf padding property on x (n entries, some of them -Inf, not all):
   every masked output is exactly +0, and every other output is within
   `ulps` of the kernel run on the compacted row (the unmasked entries in
   order), or within `floor` absolute where that output is below floor. */
static inline bool vt_padding_holds(const ss_kernel_info *k, ss_impl impl, const double *params,
                                    size_t np, const float *x, size_t n, uint32_t ulps,
                                    float floor, char *why, size_t why_len) {
  float *y = ss_test_alloc(n * 4), *sub = ss_test_alloc(n * 4), *ys = ss_test_alloc(n * 4);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (x[i] != -INFINITY) sub[m++] = x[i];
  bool ok = ss_normalize(k, impl, x, n, params, np, y) == SS_OK &&
            ss_normalize(k, impl, sub, m, params, np, ys) == SS_OK;
  if (!ok) snprintf(why, why_len, "status not ok");
  for (size_t i = 0, j = 0; ok && i < n; i++) {
    if (x[i] == -INFINITY) {
      if (!(y[i] == 0.0f && !signbit(y[i]))) {
        snprintf(why, why_len, "masked y[%zu] = %g", i, y[i]);
        ok = false;
      }
      continue;
    }
    const bool close = fabsf(ys[j]) >= floor ? ss_ulp_diff(y[i], ys[j]) <= ulps
                                             : fabsf(y[i] - ys[j]) <= floor;
    if (!close) {
      snprintf(why, why_len, "y[%zu] = %a, compacted %a", i, y[i], ys[j]);
      ok = false;
    }
    j++;
  }
  ss_test_free(y);
  ss_test_free(sub);
  ss_test_free(ys);
  return ok;
}

/* Logits uniform in [lo, hi) with about `frac` of them -Inf (never the last). */
static inline void vt_fill_masked(float *x, size_t n, uint64_t seed, float lo, float hi,
                                  double frac) {
  st_fill(x, n, seed, lo, hi);
  ss_rng r = {seed ^ 0x5bd1e995u};
  for (size_t i = 0; i + 1 < n; i++)
    if (ss_rng_unif(&r) < frac) x[i] = -INFINITY;
}

#endif
