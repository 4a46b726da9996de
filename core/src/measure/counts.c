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

#if SS_HAVE_SIMD
/* The lanes of a that count (all ones): a == 0, or a == 1 for COUNT_SATURATED. */
static inline v128_t counted_lanes(v128_t a, count_mode mode) {
  const v128_t m = wasm_f32x4_eq(a, wasm_f32x4_splat(0.0f));
  return mode == COUNT_SATURATED ? wasm_v128_or(m, wasm_f32x4_eq(a, wasm_f32x4_splat(1.0f))) : m;
}

/* Lane counters hold at most n/4 + 1 <= 2^24 + 1: no overflow. */
static double count_simd(const float *p, size_t n, count_mode mode) {
  v128_t c0 = wasm_i32x4_splat(0), c1 = c0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    c0 = ss_count_mask(c0, counted_lanes(wasm_v128_load(p + i), mode));
    c1 = ss_count_mask(c1, counted_lanes(wasm_v128_load(p + i + 4), mode));
  }
  for (; i < n; i += 4) { /* tail padded with 0.5: never counted */
    const v128_t a = n - i >= 4 ? wasm_v128_load(p + i) : ss_load_partial(p + i, n - i, 0.5f);
    c0 = ss_count_mask(c0, counted_lanes(a, mode));
  }
  return ss_count_total(c0) + ss_count_total(c1);
}
#endif

/* The three kernels of this file: what each reports of the count. */
typedef enum { ZERO_FRACTION, SUPPORT, COLLAPSE } count_kernel;

/* One body for both impls (common/impl_pair.h): validate p, count, report. */
SS_ALWAYS_INLINE ss_status counts_run(count_kernel kernel, ss_impl impl, const float *p,
                                      const float *q, size_t n, const double *params,
                                      double *out) {
  (void)q, (void)params;
  ss_status s = SS_BY_IMPL(impl, ss_probs_check)(p, n);
  if (s != SS_OK) return s;
  const count_mode mode = kernel == COLLAPSE ? COUNT_SATURATED : COUNT_ZERO;
  const double c = SS_BY_IMPL(impl, count)(p, n, mode);
  *out = kernel == SUPPORT ? (double)n - c : c / (double)n;
  return SS_OK;
}

SS_MEASURE_IMPLS(zero_fraction, counts_run, ZERO_FRACTION)
SS_MEASURE_IMPLS(support, counts_run, SUPPORT)
SS_MEASURE_IMPLS(collapse, counts_run, COLLAPSE)

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
