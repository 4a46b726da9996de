/*
 * max_median_ratio — how far the largest magnitude stands out:
 *
 *   R(x) = max_i |x_i| / median_i |x_i|
 *
 * Sun, Chen, Kolter & Liu 2024 ("Massive Activations in Large Language
 * Models") call an activation massive when its magnitude is about 1000
 * times the median magnitude of its hidden state (and above 100); R is that
 * ratio. Softpick (Zuhri, Fuadi & Aji 2025) removes them along with the
 * attention sink. kurtosis.c measures the same heavy tail by moments.
 *
 * median: the middle |x| of the n values, the mean of the two middle ones
 * for even n (in double). Domain: finite values (NaN -> SS_ERR_NAN, +-Inf
 * -> SS_ERR_NONFINITE); a median of 0 (the middle |x| is 0, both middle ones for
 * even n; n = 1 with x = 0) is SS_ERR_DOMAIN, the ratio being infinite or 0/0. R >= 1
 * otherwise (n = 1: R = 1).
 *
 * Selection without scratch memory: non-negative floats order like their
 * bit patterns, so the k-th smallest |x| is the smallest pattern t with
 * #{i : bits|x_i| <= t} >= k + 1, found by bisection over [bits min|x|,
 * bits max|x|] with one counting pass per step (at most 31 passes; the
 * input is read-only). Counting is exact in both impls (the SIMD version
 * compares four patterns at once), so both give the same R bit for bit.
 * No backward: R is piecewise of three entries and not differentiable at
 * ties; a gradient would only move the max and the median entries.
 */
#include <math.h>
#include <string.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"
#include "measure/measure_internal.h"

static inline uint32_t abs_bits(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  return u & 0x7FFFFFFFu;
}
static inline float from_bits(uint32_t u) {
  float v;
  memcpy(&v, &u, sizeof v);
  return v;
}

typedef size_t (*count_le_fn)(const float *x, size_t rows, size_t cols, size_t stride, uint32_t t);
typedef float (*min_above_fn)(const float *x, size_t rows, size_t cols, size_t stride, uint32_t t);

static size_t count_le_scalar(const float *x, size_t rows, size_t cols, size_t stride, uint32_t t) {
  size_t c = 0;
  for (size_t r = 0; r < rows; r++)
    for (size_t j = 0; j < cols; j++) c += abs_bits(x[r * stride + j]) <= t;
  return c;
}

/* The smallest |x| above the pattern t (t is below the max). */
static float min_above_scalar(const float *x, size_t rows, size_t cols, size_t stride, uint32_t t) {
  uint32_t best = 0x7F800000u;
  for (size_t r = 0; r < rows; r++)
    for (size_t j = 0; j < cols; j++) {
      const uint32_t u = abs_bits(x[r * stride + j]);
      if (u > t && u < best) best = u;
    }
  return from_bits(best);
}

/* Median of |x| given the patterns of min |x| and max |x|. */
SS_ALWAYS_INLINE double abs_median(count_le_fn count_le, min_above_fn min_above, const float *x,
                                   size_t rows, size_t cols, size_t stride, uint32_t lo,
                                   uint32_t hi) {
  const size_t n = rows * cols, k = (n - 1) / 2; /* lower middle, 0-based */
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (count_le(x, rows, cols, stride, mid) >= k + 1) hi = mid;
    else lo = mid + 1;
  }
  const double a = from_bits(lo);
  if (n % 2) return a;
  /* even n: the next order statistic is a itself when a fills that rank too */
  const double b = count_le(x, rows, cols, stride, lo) >= k + 2 ? a : min_above(x, rows, cols, stride, lo);
  return 0.5 * (a + b);
}

double ss_abs_median_scalar(const float *x, size_t rows, size_t cols, size_t stride, float *max_abs) {
  uint32_t lo = 0x7F800000u, hi = 0;
  for (size_t r = 0; r < rows; r++)
    for (size_t j = 0; j < cols; j++) {
      const uint32_t u = abs_bits(x[r * stride + j]);
      lo = u < lo ? u : lo, hi = u > hi ? u : hi;
    }
  *max_abs = from_bits(hi);
  return abs_median(count_le_scalar, min_above_scalar, x, rows, cols, stride, lo, hi);
}

static ss_status ratio_of(double median, float max_abs, double *out) {
  if (!(median > 0.0)) return SS_ERR_DOMAIN;
  *out = (double)max_abs / median;
  return SS_OK;
}

static ss_status max_median_ratio_scalar(const float *p, const float *q, size_t n,
                                         const double *params, double *out) {
  (void)q, (void)params;
  ss_status s = ss_check_finite(p, n);
  if (s != SS_OK) return s;
  float mx;
  const double med = ss_abs_median_scalar(p, 1, n, n, &mx);
  return ratio_of(med, mx, out);
}

#if SS_HAVE_SIMD
static size_t count_le_simd(const float *x, size_t rows, size_t cols, size_t stride, uint32_t t) {
  (void)rows, (void)stride; /* contiguous: rows == 1 */
  const v128_t mask = wasm_i32x4_splat(0x7FFFFFFF), vt = wasm_i32x4_splat((int32_t)t);
  v128_t acc0 = wasm_i32x4_splat(0), acc1 = acc0;
  size_t i = 0, c = 0;
  /* i32 lane counts: flushed every 2^30 vectors at most, n <= 2^26 */
  for (; i + 8 <= cols; i += 8) {
    acc0 = ss_count_mask(acc0, wasm_u32x4_le(wasm_v128_and(wasm_v128_load(x + i), mask), vt));
    acc1 = ss_count_mask(acc1, wasm_u32x4_le(wasm_v128_and(wasm_v128_load(x + i + 4), mask), vt));
  }
  for (; i + 4 <= cols; i += 4)
    acc0 = ss_count_mask(acc0, wasm_u32x4_le(wasm_v128_and(wasm_v128_load(x + i), mask), vt));
  for (; i < cols; i++) c += abs_bits(x[i]) <= t;
  return c + (size_t)ss_count_total(wasm_i32x4_add(acc0, acc1));
}

static float min_above_simd(const float *x, size_t rows, size_t cols, size_t stride, uint32_t t) {
  (void)rows, (void)stride;
  const v128_t mask = wasm_i32x4_splat(0x7FFFFFFF), vt = wasm_i32x4_splat((int32_t)t);
  const v128_t inf = wasm_i32x4_splat(0x7F800000);
  v128_t best = inf;
  size_t i = 0;
  for (; i + 4 <= cols; i += 4) {
    const v128_t u = wasm_v128_and(wasm_v128_load(x + i), mask);
    best = wasm_u32x4_min(best, wasm_v128_bitselect(u, inf, wasm_u32x4_gt(u, vt)));
  }
  uint32_t b = 0x7F800000u;
  for (int l = 0; l < 4; l++) {
    const uint32_t v = (uint32_t)wasm_i32x4_extract_lane(best, 0);
    b = v < b ? v : b;
    best = wasm_i32x4_shuffle(best, best, 1, 2, 3, 0);
  }
  for (; i < cols; i++) {
    const uint32_t u = abs_bits(x[i]);
    if (u > t && u < b) b = u;
  }
  return from_bits(b);
}

static ss_status max_median_ratio_simd(const float *p, const float *q, size_t n,
                                       const double *params, double *out) {
  (void)q, (void)params;
  const v128_t mask = wasm_i32x4_splat(0x7FFFFFFF);
  v128_t lo = wasm_i32x4_splat(0x7FFFFFFF), hi = wasm_i32x4_splat(0);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t u = wasm_v128_and(wasm_v128_load(p + i), mask);
    lo = wasm_u32x4_min(lo, u), hi = wasm_u32x4_max(hi, u);
  }
  uint32_t l = 0x7FFFFFFFu, h = 0;
  for (int k = 0; k < 4; k++) {
    const uint32_t a = (uint32_t)wasm_i32x4_extract_lane(lo, 0), b = (uint32_t)wasm_i32x4_extract_lane(hi, 0);
    l = a < l ? a : l, h = b > h ? b : h;
    lo = wasm_i32x4_shuffle(lo, lo, 1, 2, 3, 0), hi = wasm_i32x4_shuffle(hi, hi, 1, 2, 3, 0);
  }
  for (; i < n; i++) {
    const uint32_t u = abs_bits(p[i]);
    l = u < l ? u : l, h = u > h ? u : h;
  }
  if (h >= 0x7F800000u) return ss_check_finite(p, n); /* Inf or NaN: which status */
  const double med = abs_median(count_le_simd, min_above_simd, p, 1, n, n, l, h);
  return ratio_of(med, from_bits(h), out);
}
#endif

const ss_kernel_info ss_kernel_max_median_ratio = {
    .name = "max_median_ratio",
    .family = SS_FAMILY_MEASURE,
    .summary = "Largest magnitude over the median magnitude: massive activations stand ~1000x "
               "above the median",
    .formula = "R = max_i |x_i| / median_i |x_i|",
    .paper = "Sun, Chen, Kolter & Liu 2024, 'Massive Activations in Large Language Models'; "
             "Zuhri, Fuadi & Aji 2025, 'Softpick' (softpick removes them)",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_VALUES,
    .has_backward = false,
    .measure = SS_IMPLS(max_median_ratio),
};
