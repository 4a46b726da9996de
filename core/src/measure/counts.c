/*
 * Counting measures of a non-negative vector (exact in both impls):
 *
 *   zero_fraction(p) = #{i : p_i = 0} / n
 *   support(p)       = #{i : p_i != 0}
 *   collapse(p)      = #{i : p_i = 0 or p_i = 1} / n        (float32 values)
 *
 * collapse is the float32 softmax-collapse detector of Prieto et al. 2025:
 * when one logit dominates, softmax rounds to exactly 1 for it and exactly 0
 * for the rest, the gradient of the loss then vanishes ("Softmax Collapse"),
 * which StableMax avoids. collapse = 1 means every entry is saturated.
 * -0.0f counts as 0. Inputs are validated as probabilities (NaN, +-Inf,
 * negative are errors); they need not sum to 1.
 */
#include "common/check.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"
#include "measure/measure_internal.h"

typedef enum { COUNT_ZERO, COUNT_SATURATED } count_mode;

static double count_scalar(const float *p, size_t n, count_mode mode) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    c += p[i] == 0.0f || (mode == COUNT_SATURATED && p[i] == 1.0f);
  return (double)c;
}

static ss_status zero_fraction_scalar(const float *p, const float *q, size_t n,
                                      const double *params, double *out) {
  (void)q, (void)params;
  ss_status s = ss_check_probs(p, n);
  if (s != SS_OK) return s;
  *out = count_scalar(p, n, COUNT_ZERO) / (double)n;
  return SS_OK;
}

static ss_status support_scalar(const float *p, const float *q, size_t n,
                                const double *params, double *out) {
  (void)q, (void)params;
  ss_status s = ss_check_probs(p, n);
  if (s != SS_OK) return s;
  *out = (double)n - count_scalar(p, n, COUNT_ZERO);
  return SS_OK;
}

static ss_status collapse_scalar(const float *p, const float *q, size_t n,
                                 const double *params, double *out) {
  (void)q, (void)params;
  ss_status s = ss_check_probs(p, n);
  if (s != SS_OK) return s;
  *out = count_scalar(p, n, COUNT_SATURATED) / (double)n;
  return SS_OK;
}

#if SS_HAVE_SIMD
/* Lane counters hold at most n/4 + 1 <= 2^24 + 1: no overflow. */
static double count_simd(const float *p, size_t n, count_mode mode) {
  const v128_t zero = wasm_f32x4_splat(0.0f), one = wasm_f32x4_splat(1.0f);
  v128_t c0 = wasm_i32x4_splat(0), c1 = c0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t a = wasm_v128_load(p + i), b = wasm_v128_load(p + i + 4);
    v128_t ma = wasm_f32x4_eq(a, zero), mb = wasm_f32x4_eq(b, zero);
    if (mode == COUNT_SATURATED) {
      ma = wasm_v128_or(ma, wasm_f32x4_eq(a, one));
      mb = wasm_v128_or(mb, wasm_f32x4_eq(b, one));
    }
    c0 = ss_count_mask(c0, ma);
    c1 = ss_count_mask(c1, mb);
  }
  for (; i < n; i += 4) { /* tail padded with 0.5: never counted */
    const v128_t a = n - i >= 4 ? wasm_v128_load(p + i) : ss_load_partial(p + i, n - i, 0.5f);
    v128_t m = wasm_f32x4_eq(a, zero);
    if (mode == COUNT_SATURATED) m = wasm_v128_or(m, wasm_f32x4_eq(a, one));
    c0 = ss_count_mask(c0, m);
  }
  return ss_count_total(c0) + ss_count_total(c1);
}

static ss_status zero_fraction_simd(const float *p, const float *q, size_t n,
                                    const double *params, double *out) {
  (void)q, (void)params;
  float lo, hi;
  ss_status s = ss_probs_minmax_simd(p, n, &lo, &hi);
  if (s != SS_OK) return s;
  *out = count_simd(p, n, COUNT_ZERO) / (double)n;
  return SS_OK;
}

static ss_status support_simd(const float *p, const float *q, size_t n,
                              const double *params, double *out) {
  (void)q, (void)params;
  float lo, hi;
  ss_status s = ss_probs_minmax_simd(p, n, &lo, &hi);
  if (s != SS_OK) return s;
  *out = (double)n - count_simd(p, n, COUNT_ZERO);
  return SS_OK;
}

static ss_status collapse_simd(const float *p, const float *q, size_t n,
                               const double *params, double *out) {
  (void)q, (void)params;
  float lo, hi;
  ss_status s = ss_probs_minmax_simd(p, n, &lo, &hi);
  if (s != SS_OK) return s;
  *out = count_simd(p, n, COUNT_SATURATED) / (double)n;
  return SS_OK;
}
#endif

const ss_kernel_info ss_kernel_zero_fraction = {
    .name = "zero_fraction",
    .family = SS_FAMILY_MEASURE,
    .summary = "Fraction of entries that are exactly 0 (sparsity of sparsemax, "
               "entmax, softpick or an underflowed softmax)",
    .formula = "#{i : p_i = 0} / n",
    .paper = "Sparsity as reported for sparsemax: Martins & Astudillo 2016, "
             "'From Softmax to Sparsemax'",
    .input = SS_INPUT_PROBS,
    .measure = SS_IMPLS(zero_fraction),
};

const ss_kernel_info ss_kernel_support = {
    .name = "support",
    .family = SS_FAMILY_MEASURE,
    .summary = "Number of non-zero entries (size of the support)",
    .formula = "#{i : p_i != 0}",
    .paper = "Martins & Astudillo 2016, 'From Softmax to Sparsemax' (support "
             "of sparse probability mappings)",
    .input = SS_INPUT_PROBS,
    .measure = SS_IMPLS(support),
};

const ss_kernel_info ss_kernel_collapse = {
    .name = "collapse",
    .family = SS_FAMILY_MEASURE,
    .summary = "Fraction of entries exactly 0 or exactly 1 in float32: the "
               "softmax-collapse detector (1 = fully saturated)",
    .formula = "#{i : p_i = 0 or p_i = 1} / n",
    .paper = "Prieto, Barsbey, Mediano & Birdal 2025, 'Grokking at the Edge "
             "of Numerical Stability' (Softmax Collapse, StableMax)",
    .input = SS_INPUT_PROBS,
    .measure = SS_IMPLS(collapse),
};
