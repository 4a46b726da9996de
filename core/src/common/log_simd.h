/*
 * Natural log of four floats without FMA (Cephes logf scheme, musl-style
 * reduction):
 *
 *   x = 2^k * m,  m in [sqrt(1/2), sqrt(2))   integer ops on the bits: adding
 *                                 0x3F800000 - 0x3F3504F3 to the bits carries
 *                                 into the exponent exactly when the mantissa
 *                                 is >= sqrt(2), so k = (bits' >> 23) - 127 and
 *                                 m = (bits' & 0x7FFFFF) + 0x3F3504F3 as bits.
 *   f = m - 1                     exact (Sterbenz), f in [-0.2929, 0.4142]
 *   log(1+f) ~ f - f^2/2 + f^3 P(f)   P of degree 8 (Cephes coefficients)
 *   log x = log(1+f) + k*ln2,     ln2 = 0.693359375 - 2.12194440e-4: the high
 *                                 part has 9 bits, so k*ln2_hi is exact.
 *
 * Denormals: x < 2^-126 is first multiplied by 2^23 (exact) and k lowered by
 * 23, so the whole positive range [2^-149, FLT_MAX] is handled.
 * log(1) = 0 exactly (f = 0, k = 0).
 * Measured error over a dense sweep of all positive floats: see
 * tests/c/test_log.c (<= 2 ulp vs the correctly rounded float64 log; the
 * bound asserted there is the statement).
 *
 * ss_log_pos_f32x4: x must be positive and finite (x = 0 gives a finite
 *   garbage value; callers mask zeros themselves).
 * ss_log_f32x4: any input; log(+0) = log(-0) = -Inf, log(+Inf) = +Inf,
 *   x < 0 and NaN give NaN.
 */
#ifndef SS_COMMON_LOG_SIMD_H
#define SS_COMMON_LOG_SIMD_H

#include <math.h>

#include "common/simd.h"

#if SS_HAVE_SIMD

static inline v128_t ss_log_pos_f32x4(v128_t x) {
  /* Denormals: scale into the normal range. */
  const v128_t tiny = wasm_f32x4_lt(x, wasm_f32x4_splat(0x1p-126f));
  x = wasm_v128_bitselect(wasm_f32x4_mul(x, wasm_f32x4_splat(0x1p23f)), x, tiny);
  const v128_t kadj = wasm_v128_and(tiny, wasm_i32x4_splat(23));

  const v128_t ix = wasm_i32x4_add(x, wasm_i32x4_splat(0x3F800000 - 0x3F3504F3));
  const v128_t k = wasm_i32x4_sub(
      wasm_i32x4_sub(wasm_u32x4_shr(ix, 23), wasm_i32x4_splat(127)), kadj);
  const v128_t m = wasm_i32x4_add(wasm_v128_and(ix, wasm_i32x4_splat(0x007FFFFF)),
                                  wasm_i32x4_splat(0x3F3504F3));
  const v128_t f = wasm_f32x4_sub(m, wasm_f32x4_splat(1.0f));
  const v128_t fk = wasm_f32x4_convert_i32x4(k);

  v128_t p = wasm_f32x4_splat(7.0376836292e-2f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, f), wasm_f32x4_splat(-1.1514610310e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, f), wasm_f32x4_splat(1.1676998740e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, f), wasm_f32x4_splat(-1.2420140846e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, f), wasm_f32x4_splat(1.4249322787e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, f), wasm_f32x4_splat(-1.6668057665e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, f), wasm_f32x4_splat(2.0000714765e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, f), wasm_f32x4_splat(-2.4999993993e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, f), wasm_f32x4_splat(3.3333331174e-1f));
  const v128_t z = wasm_f32x4_mul(f, f);
  v128_t y = wasm_f32x4_mul(wasm_f32x4_mul(p, f), z);
  y = wasm_f32x4_add(y, wasm_f32x4_mul(fk, wasm_f32x4_splat(-2.12194440e-4f)));
  y = wasm_f32x4_sub(y, wasm_f32x4_mul(z, wasm_f32x4_splat(0.5f)));
  const v128_t r = wasm_f32x4_add(f, y);
  return wasm_f32x4_add(r, wasm_f32x4_mul(fk, wasm_f32x4_splat(0.693359375f)));
}

static inline v128_t ss_log_f32x4(v128_t x) {
  v128_t r = ss_log_pos_f32x4(x);
  r = wasm_v128_bitselect(wasm_f32x4_splat(-INFINITY), r,
                          wasm_f32x4_eq(x, wasm_f32x4_splat(0.0f)));
  r = wasm_v128_bitselect(x, r, wasm_f32x4_eq(x, wasm_f32x4_splat(INFINITY)));
  /* !(x >= 0): negative or NaN */
  return wasm_v128_bitselect(wasm_f32x4_splat(NAN), r,
                             wasm_v128_not(wasm_f32x4_ge(x, wasm_f32x4_splat(0.0f))));
}

#endif /* SS_HAVE_SIMD */
#endif
