/*
 * The exact-zero rule (softscope.h, Conventions): a probability or weight
 * output whose value is below FLT_MIN in magnitude -- a subnormal, or -0 --
 * is written as +0, in every build and impl. Subnormal results depend on
 * rounding details that differ between the scalar and SIMD paths (an exp
 * polynomial that flushes, a product rounded twice), so without the rule
 * the two could disagree on which outputs are exactly zero (the support).
 *
 * ss_flush(v) for one value; ss_scale_flush_* scale a row and flush it in
 * the same pass (the last pass of most normalizers).
 */
#ifndef SS_COMMON_FLUSH_H
#define SS_COMMON_FLUSH_H

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "common/simd.h"

static inline float ss_flush(float v) { return fabsf(v) < FLT_MIN ? 0.0f : v; }

/* y[i] = flush(y[i]) over [0, n). */
static inline void ss_flush_scalar(float *y, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] = ss_flush(y[i]);
}

/* y[i] = flush((float)(y[i] * inv)), the product in double. */
static inline void ss_scale_flush_scalar(float *y, size_t n, double inv) {
  for (size_t i = 0; i < n; i++) y[i] = ss_flush((float)((double)y[i] * inv));
}

/* y[i] = flush(y[i] / sum), the last pass of a normalizer whose weights are
   in y, one function per impl (common/impl_pair.h): the scalar reference
   multiplies by 1 / sum in double, SIMD by its float rounding. */
static inline void ss_divide_flush_scalar(float *y, size_t n, double sum) {
  ss_scale_flush_scalar(y, n, 1.0 / sum);
}

#if SS_HAVE_SIMD
/* Lanes with |v| < FLT_MIN (subnormals, +-0) become +0; NaN is kept. */
static inline v128_t ss_flush_f32x4(v128_t v) {
  const v128_t tiny = wasm_f32x4_lt(wasm_f32x4_abs(v), wasm_f32x4_splat(FLT_MIN));
  return wasm_v128_andnot(v, tiny);
}

static inline void ss_flush_simd(float *y, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, ss_flush_f32x4(wasm_v128_load(y + i)));
  for (; i < n; i++) y[i] = ss_flush(y[i]);
}

/* y[i] = flush(x[i] * s), in float (ss_scale_simd with the rule). */
static inline void ss_scale_flush_simd(const float *x, size_t n, float s, float *y) {
  const v128_t vs = wasm_f32x4_splat(s);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    wasm_v128_store(y + i, ss_flush_f32x4(wasm_f32x4_mul(wasm_v128_load(x + i), vs)));
    wasm_v128_store(y + i + 4, ss_flush_f32x4(wasm_f32x4_mul(wasm_v128_load(x + i + 4), vs)));
  }
  for (; i + 4 <= n; i += 4)
    wasm_v128_store(y + i, ss_flush_f32x4(wasm_f32x4_mul(wasm_v128_load(x + i), vs)));
  for (; i < n; i++) y[i] = ss_flush(x[i] * s);
}

static inline void ss_divide_flush_simd(float *y, size_t n, double sum) {
  ss_scale_flush_simd(y, n, (float)(1.0 / sum), y);
}
#endif

#endif
