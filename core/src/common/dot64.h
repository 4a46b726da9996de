/*
 * sum a_i b_i of two float vectors in double: each product is exact in
 * double (24 + 24 bits), so nothing overflows or underflows however large
 * or small the floats (a float product overflows beyond |a b| = FLT_MAX and
 * underflows below 1e-38). The scalar version sums in index order, the SIMD
 * version in two f64x2 accumulators (the optimizers' norms, the model
 * layers' row moments).
 */
#ifndef SS_COMMON_DOT64_H
#define SS_COMMON_DOT64_H

#include <stddef.h>

#include "common/simd.h"

/* sum a_i b_i in double, in index order: the scalar twin of ss_dot64_simd. */
static inline double ss_dot64_scalar(const float *a, const float *b, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; i++) s += (double)a[i] * (double)b[i];
  return s;
}

#if SS_HAVE_SIMD
/* The same sum in two f64x2 accumulators. Why double: a float product
   overflowed for gradients of 2e19 (LARS / LAMB gave NaN in SIMD where
   scalar was finite) and underflowed below 1e-38 (tiny weights gave 0 / 0
   in SIMD, a ratio in scalar). */
static inline double ss_dot64_simd(const float *a, const float *b, size_t n) {
  v128_t s0 = wasm_f64x2_splat(0.0), s1 = s0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t va = wasm_v128_load(a + i), vb = wasm_v128_load(b + i);
    s0 = wasm_f64x2_add(s0, wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(va),
                                           wasm_f64x2_promote_low_f32x4(vb)));
    const v128_t ha = wasm_i32x4_shuffle(va, va, 2, 3, 2, 3), hb = wasm_i32x4_shuffle(vb, vb, 2, 3, 2, 3);
    s1 = wasm_f64x2_add(s1, wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(ha),
                                           wasm_f64x2_promote_low_f32x4(hb)));
  }
  double t = (wasm_f64x2_extract_lane(s0, 0) + wasm_f64x2_extract_lane(s0, 1)) +
             (wasm_f64x2_extract_lane(s1, 0) + wasm_f64x2_extract_lane(s1, 1));
  for (; i < n; i++) t += (double)a[i] * (double)b[i];
  return t;
}
#endif

#endif
