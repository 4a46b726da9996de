/*
 * What the layers of the tiny model (core/src/model) share: the checks of
 * their entry points, the largest magnitude of an input, and the rule for
 * results beyond float's range.
 *
 * Overflow rule (softscope.h, Conventions): a result whose value is beyond
 * FLT_MAX is SS_ERR_DOMAIN, never Inf. The scalar references compute in
 * double and convert with ss_model_f32; a SIMD path whose float
 * intermediates could overflow where double does not hands the call to the
 * scalar reference, so both impls give the same status.
 */
#ifndef SS_MODEL_INTERNAL_H
#define SS_MODEL_INTERNAL_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/check.h"
#include "common/simd.h"
#include "softscope.h"

/* impl is an ss_impl compiled into this build. */
static inline bool ss_model_impl_ok(ss_impl impl) {
  return (unsigned)impl < SS_IMPL_COUNT && ss_impl_available(impl);
}

/* A matrix of a x b values: each in [1, SS_MAX_N] (SS_ERR_EMPTY,
   SS_ERR_TOO_LARGE) and a b <= SS_MAX_N (SS_ERR_TOO_LARGE). */
static inline ss_status ss_model_check_shape(size_t a, size_t b) {
  if (a == 0 || b == 0) return SS_ERR_EMPTY;
  if (a > SS_MAX_N || b > SS_MAX_N || a * b > SS_MAX_N) return SS_ERR_TOO_LARGE;
  return SS_OK;
}

/* The norms' rows (rmsnorm.c, layernorm.c): at most SS_NORM_MAX_D features
   (their backward sums the gain gradient over rows in double on the stack),
   and eps in [0, 1]. */
static inline ss_status ss_model_check_norm(ss_impl impl, size_t rows, size_t d, double eps) {
  if (!ss_model_impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  const ss_status s = ss_model_check_shape(rows, d);
  if (s != SS_OK) return s;
  if (d > SS_NORM_MAX_D) return SS_ERR_TOO_LARGE;
  if (!(eps >= 0.0 && eps <= 1.0)) return SS_ERR_PARAM_RANGE;
  return SS_OK;
}

/* The norms' checks after their NULL checks: impl, shapes, eps, then x,
   gain and (backward; NULL in the forward) dy finite. */
static inline ss_status ss_model_check_norm_inputs(ss_impl impl, const float *x, size_t rows,
                                                   size_t d, const float *gain, double eps,
                                                   const float *dy) {
  ss_status s = ss_model_check_norm(impl, rows, d, eps);
  if (s == SS_OK) s = ss_check_finite_fast(x, rows * d);
  if (s == SS_OK) s = ss_check_finite_fast(gain, d);
  if (s == SS_OK && dy) s = ss_check_finite_fast(dy, rows * d);
  return s;
}

/* A double as a float where it is below 2^127 in magnitude (the SIMD
   paths' rule: anything larger goes to the scalar reference). */
static inline bool ss_model_f32_small(double v, float *out) {
  if (!(fabs(v) < 0x1p127)) return false;
  *out = (float)v;
  return true;
}

/* v as a float, false when |v| > FLT_MAX (a result SS_ERR_DOMAIN reports). */
static inline bool ss_model_f32(double v, float *out) {
  if (!(fabs(v) <= FLT_MAX)) return false;
  *out = (float)v;
  return true;
}

/* max |x_i| of a finite vector (the caller checked it with
   ss_check_finite_fast), one function per impl. */
static inline float ss_model_absmax_scalar(const float *x, size_t n) {
  float m = 0.0f;
  for (size_t i = 0; i < n; i++) m = fmaxf(m, fabsf(x[i]));
  return m;
}

#if SS_HAVE_SIMD
static inline float ss_model_absmax_simd(const float *x, size_t n) {
  v128_t m0 = wasm_f32x4_splat(0.0f), m1 = m0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    m0 = wasm_f32x4_pmax(m0, wasm_f32x4_abs(wasm_v128_load(x + i)));
    m1 = wasm_f32x4_pmax(m1, wasm_f32x4_abs(wasm_v128_load(x + i + 4)));
  }
  for (; i + 4 <= n; i += 4) m0 = wasm_f32x4_pmax(m0, wasm_f32x4_abs(wasm_v128_load(x + i)));
  m0 = wasm_f32x4_pmax(m0, m1);
  m0 = wasm_f32x4_pmax(m0, wasm_i32x4_shuffle(m0, m0, 2, 3, 0, 1));
  m0 = wasm_f32x4_pmax(m0, wasm_i32x4_shuffle(m0, m0, 1, 0, 3, 2));
  float m = wasm_f32x4_extract_lane(m0, 0);
  for (; i < n; i++) m = fmaxf(m, fabsf(x[i]));
  return m;
}

/* Whether some y_i is NaN, infinite or >= 2^127 in magnitude: a SIMD
   result that may be an overflow (or near enough to FLT_MAX that float
   rounding could decide the status), which the scalar reference then
   recomputes. */
static inline bool ss_model_big_simd(const float *y, size_t n) {
  const v128_t lim = wasm_f32x4_splat(0x1p127f);
  v128_t ok = wasm_i32x4_splat(-1);
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    ok = wasm_v128_and(ok, wasm_f32x4_lt(wasm_f32x4_abs(wasm_v128_load(y + i)), lim));
  bool good = wasm_i32x4_all_true(ok);
  for (; i < n && good; i++) good = fabsf(y[i]) < 0x1p127f;
  return !good;
}
#endif

#endif
