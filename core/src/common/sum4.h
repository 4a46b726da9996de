/*
 * The "4-lane" double sum of floats: element i goes to double accumulator
 * i % 4 in index order, and the total is (a0 + a1) + (a2 + a3). The scalar
 * version keeps four doubles, the SIMD version two f64x2 accumulators: the
 * same additions in the same order, so both give the same bits in every
 * build. The samplers sum their weights this way (sample_internal.h), and
 * so does sign_mean's mean magnitude.
 */
#ifndef SS_COMMON_SUM4_H
#define SS_COMMON_SUM4_H

#include <stddef.h>

#include "common/simd.h"

double ss_sum4_scalar(const float *w, size_t n);

#if SS_HAVE_SIMD
double ss_sum4_simd(const float *w, size_t n);

/* Lanes (i % 4) of one f32x4 added to the (a01, a23) f64x2 accumulators. */
static inline void ss_sum4_acc(v128_t v, v128_t *a01, v128_t *a23) {
  *a01 = wasm_f64x2_add(*a01, wasm_f64x2_promote_low_f32x4(v));
  *a23 = wasm_f64x2_add(*a23, wasm_f64x2_promote_low_f32x4(
                                  wasm_i32x4_shuffle(v, v, 2, 3, 2, 3)));
}

/* The total of the accumulators and the tail[i..n) entries (each to its
   lane i % 4). */
static inline double ss_sum4_fold(v128_t a01, v128_t a23, const float *tail, size_t i, size_t n) {
  double a[4] = {wasm_f64x2_extract_lane(a01, 0), wasm_f64x2_extract_lane(a01, 1),
                 wasm_f64x2_extract_lane(a23, 0), wasm_f64x2_extract_lane(a23, 1)};
  for (; i < n; i++) a[i & 3] += (double)tail[i];
  return (a[0] + a[1]) + (a[2] + a[3]);
}
#endif

#endif
