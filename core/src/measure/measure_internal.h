/*
 * Pieces shared by the measure kernels of this folder.
 *
 * Accumulation: every SIMD measure computes its per-entry terms in float32
 * (one SIMD log, exp or sqrt each) and adds them in float64 lanes
 * (f64x2.promote_low_f32x4 + f64x2.add). The sum itself then contributes
 * ~n * 2^-53 relative to sum |term|, far below the float32 term error, so
 * the SIMD error bound of a measure is the error of its terms; and no
 * intermediate sum can overflow (n * FLT_MAX << DBL_MAX).
 *
 * Inputs are used as given: probability-type measures accept any
 * non-negative finite vector (unnormalized weights, e.g. softpick's, are
 * fine) and apply their formula to it without normalizing.
 */
#ifndef SS_MEASURE_INTERNAL_H
#define SS_MEASURE_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/simd.h"
#include "common/vec_simd.h"
#include "softscope.h"

/* Scalar: ss_check_probs, then min and max of p. */
ss_status ss_probs_minmax_scalar(const float *p, size_t n, float *min,
                                 float *max);
/* Validation of a probability vector alone, per impl (SS_BY_IMPL(impl,
   ss_probs_check)): ss_check_probs, or the SIMD scan (same statuses). */
static inline ss_status ss_probs_check_scalar(const float *p, size_t n) {
  return ss_check_probs(p, n);
}
/* Validate both inputs of a pair measure (p first, so its status wins). */
static inline ss_status ss_probs_pair_check_scalar(const float *p, const float *q, size_t n) {
  const ss_status s = ss_check_probs(p, n);
  return s != SS_OK ? s : ss_check_probs(q, n);
}

/* Shannon sum: returns -sum_{p_i > 0} p_i log p_i (p already validated). */
double ss_shannon_scalar(const float *p, size_t n);

/* Power sums of q_i = p_i / M, M = max p > 0, a = 1 + b > 0 (p validated):
     near (b < SS_POWER_NEAR, so every a < 1 too): dq = sum_i (q_i^a - q_i),
       each term computed without cancellation (q expm1(b log q) when
       |b log q| is small);
     else:                       t  = sum_i q_i^a  (>= 1: the max term is 1).
   s1 = sum p, log_m = log M. */
#define SS_POWER_NEAR 0.0625
typedef struct ss_power_sums {
  double s1, log_m, t, dq;
  bool near;
} ss_power_sums;
void ss_power_sums_scalar(const float *p, size_t n, float max, double a,
                          ss_power_sums *ps);

/* Moments of the values x[r stride + c], r < rows, c < cols (finite), in
   double (kurtosis.c): the mean and the central moments m2, m3, m4
   (divided by the count). */
typedef struct ss_moments {
  double mean, m2, m3, m4;
} ss_moments;
void ss_moments_scalar(const float *x, size_t rows, size_t cols, size_t stride, ss_moments *mo);
/* Median of |x| over the same layout (finite values; max_median_ratio.c),
   the mean of the two middle values for an even count; *max_abs receives
   max |x|. Reads x only (bisection over the float bit patterns). */
double ss_abs_median_scalar(const float *x, size_t rows, size_t cols, size_t stride, float *max_abs);

/* The order parameter of Renyi and Tsallis: (0, 1e3], default 2. */
extern const ss_param_info ss_alpha_param[1];

/* alpha within this of 1 gives the Shannon entropy (Renyi and Tsallis). */
#define SS_ALPHA_SHANNON 1e-9

#if SS_HAVE_SIMD
/* SIMD scan: NaN -> SS_ERR_NAN, +-Inf -> SS_ERR_NONFINITE, negative ->
   SS_ERR_DOMAIN (the same precedence as ss_check_probs); min and max out. */
ss_status ss_probs_minmax_simd(const float *p, size_t n, float *min,
                               float *max);
static inline ss_status ss_probs_check_simd(const float *p, size_t n) {
  float lo, hi;
  return ss_probs_minmax_simd(p, n, &lo, &hi);
}
static inline ss_status ss_probs_pair_check_simd(const float *p, const float *q,
                                                 size_t n) {
  float lo, hi;
  ss_status s = ss_probs_minmax_simd(p, n, &lo, &hi);
  return s != SS_OK ? s : ss_probs_minmax_simd(q, n, &lo, &hi);
}
/* Lanes i..i+3 of p and q, the ones past n padded with pad_p and pad_q: the
   loads of the pair measures' loops. */
static inline void ss_load_pair(const float *p, const float *q, size_t i, size_t n, float pad_p,
                                float pad_q, v128_t *a, v128_t *b) {
  const size_t rem = n - i;
  *a = rem >= 4 ? wasm_v128_load(p + i) : ss_load_partial(p + i, rem, pad_p);
  *b = rem >= 4 ? wasm_v128_load(q + i) : ss_load_partial(q + i, rem, pad_q);
}
/* Same scan for `sum` (any finite values): NaN, then +-Inf. */
ss_status ss_finite_scan_simd(const float *p, size_t n);
double ss_shannon_simd(const float *p, size_t n);
void ss_power_sums_simd(const float *p, size_t n, float max, double a,
                        ss_power_sums *ps);

/* acc_lo/acc_hi += (double)v, lanes 0-1 and 2-3. */
static inline void ss_acc_f64(v128_t *lo, v128_t *hi, v128_t v) {
  *lo = wasm_f64x2_add(*lo, wasm_f64x2_promote_low_f32x4(v));
  *hi = wasm_f64x2_add(*hi, wasm_f64x2_promote_low_f32x4(
                                wasm_i32x4_shuffle(v, v, 2, 3, 2, 3)));
}

/* acc_lo/acc_hi += (double)a * (double)b: the product cannot overflow. */
static inline void ss_acc_mul_f64(v128_t *lo, v128_t *hi, v128_t a, v128_t b) {
  *lo = wasm_f64x2_add(*lo, wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(a),
                                           wasm_f64x2_promote_low_f32x4(b)));
  const v128_t ah = wasm_i32x4_shuffle(a, a, 2, 3, 2, 3);
  const v128_t bh = wasm_i32x4_shuffle(b, b, 2, 3, 2, 3);
  *hi = wasm_f64x2_add(*hi, wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(ah),
                                           wasm_f64x2_promote_low_f32x4(bh)));
}

static inline double ss_hsum_f64x2(v128_t lo, v128_t hi) {
  const v128_t s = wasm_f64x2_add(lo, hi);
  return wasm_f64x2_extract_lane(s, 0) + wasm_f64x2_extract_lane(s, 1);
}

/* sum_i p_i in float64 lanes (four of them; the tail padded with 0): the
   sum measure and the kurtosis' mean. Finite iff every p_i is. */
static inline double ss_sum_f64_simd(const float *p, size_t n) {
  v128_t lo0 = wasm_f64x2_splat(0.0), hi0 = lo0, lo1 = lo0, hi1 = lo0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    ss_acc_f64(&lo0, &hi0, wasm_v128_load(p + i));
    ss_acc_f64(&lo1, &hi1, wasm_v128_load(p + i + 4));
  }
  for (; i < n; i += 4)
    ss_acc_f64(&lo0, &hi0, n - i >= 4 ? wasm_v128_load(p + i) : ss_load_partial(p + i, n - i, 0.0f));
  return ss_hsum_f64x2(lo0, hi0) + ss_hsum_f64x2(lo1, hi1);
}

/* Lane count of a comparison mask (lanes are 0 or -1) added to acc (i32x4). */
static inline v128_t ss_count_mask(v128_t acc, v128_t mask) {
  return wasm_i32x4_sub(acc, mask);
}
static inline double ss_count_total(v128_t acc) {
  return (double)(uint32_t)wasm_i32x4_extract_lane(acc, 0) +
         (double)(uint32_t)wasm_i32x4_extract_lane(acc, 1) +
         (double)(uint32_t)wasm_i32x4_extract_lane(acc, 2) +
         (double)(uint32_t)wasm_i32x4_extract_lane(acc, 3);
}
#endif

/* Renyi's and Tsallis' evaluation, one body for both impls
   (common/impl_pair.h), of a validated p with max = max p: the Shannon
   entropy when |a - 1| <= SS_ALPHA_SHANNON, else (max > 0) from_sums, the
   kernel's formula, of the power sums of p. */
typedef double (*ss_from_power_sums_fn)(const ss_power_sums *ps, double a, float max);
SS_ALWAYS_INLINE double ss_alpha_entropy(ss_impl impl, const float *p, size_t n, float max,
                                         double a, ss_from_power_sums_fn from_sums) {
  if (fabs(a - 1.0) <= SS_ALPHA_SHANNON) return SS_BY_IMPL(impl, ss_shannon)(p, n);
  ss_power_sums ps;
  SS_BY_IMPL(impl, ss_power_sums)(p, n, max, a, &ps);
  return from_sums(&ps, a, max);
}

#endif
