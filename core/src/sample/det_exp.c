/*
 * The elementwise core every sampler shares: z = x / t, y = exp(z - max z),
 * and the 4-lane sum of y -- in a scalar and a SIMD version that give the
 * same bits (see sample_internal.h for why, det_math.h for how). Where x / t
 * is not a float (t below FLT_MIN, or an overflowing quotient) the same
 * exponent is formed as (x - max x) / t in double instead (exp_limit), so
 * every t > 0 gives the exact distribution, T -> 0 the argmax.
 *
 * Accuracy: exp is the softmax kernels' (a few ulp, with the TwoSum
 * correction of z - max); tests/c/test_sample_core.c holds y to 4 ulp... of
 * the float64 exp and checks the two paths bit for bit.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "common/check.h"
#include "common/det_math.h"
#include "common/exp_simd.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/sum4.h"
#include "common/vec_simd.h"
#include "sample/sample_internal.h"

/* ---- scalar ----------------------------------------------------------- */

/* Validation of a logit row without writing anything: NaN first, then
   +Inf, then all -Inf; the row max in *mx, the largest finite |x_i| in
   *amax. */
static ss_status validate_scalar(const float *x, size_t n, float *mx, float *amax) {
  for (size_t i = 0; i < n; i++)
    if (isnan(x[i])) return SS_ERR_NAN;
  float m = -INFINITY, a = 0.0f;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == INFINITY) return SS_ERR_POS_INF;
    if (x[i] > m) m = x[i];
    if (x[i] != -INFINITY && fabsf(x[i]) > a) a = fabsf(x[i]);
  }
  if (m == -INFINITY) return SS_ERR_ALL_MASKED;
  *mx = m;
  *amax = a;
  return SS_OK;
}

/* The temperature regime where z = x / t is not a float (t below FLT_MIN
   as a float, or x / t overflowing): e_i = exp((x_i - max x) / t) with the
   difference and the quotient in double (<= 0, -Inf when below -FLT_MAX),
   so T -> 0 tends to the argmax exactly instead of failing (T = 1e-300 gave
   NaN probabilities in SIMD and SS_ERR_DOMAIN in scalar). One scalar code
   for both impls: bit-identical. e_max = exp(0) = 1 exactly. y may alias x. */
static void exp_limit(const float *x, size_t n, float mx, double t, float *y) {
  for (size_t i = 0; i < n; i++) {
    const double d = ((double)x[i] - (double)mx) / t; /* -Inf for x_i = -Inf */
    y[i] = ss_det_exp_nonpos_corr(d < -FLT_MAX ? -INFINITY : (float)d, 0.0f);
  }
}

/* Whether z = x / t is formed in float: t a normal float and no quotient
   near overflow (amax = the largest finite |x_i|). Otherwise exp_limit. */
static bool float_quotient(double t, float amax) {
  const float tf = (float)t;
  return tf >= FLT_MIN && (double)amax / (double)tf <= 0.5 * FLT_MAX;
}

double ss_det_exp_scalar(const float *x, size_t n, double t, float *y, ss_status *st) {
  float mx, amax;
  *st = validate_scalar(x, n, &mx, &amax);
  if (*st != SS_OK) return 0.0;
  if (t == 1.0) {
    for (size_t i = 0; i < n; i++) y[i] = ss_det_exp_diff(x[i], mx);
    return ss_sum4_scalar(y, n);
  }
  if (!float_quotient(t, amax)) {
    exp_limit(x, n, mx, t, y);
    return ss_sum4_scalar(y, n);
  }
  const float tf = (float)t;
  float m = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    y[i] = x[i] / tf;
    if (y[i] > m) m = y[i];
  }
  for (size_t i = 0; i < n; i++) y[i] = ss_det_exp_diff(y[i], m);
  return ss_sum4_scalar(y, n);
}

/* y_i = flush(y_i s): every scaled sampler output obeys the exact-zero rule. */
void ss_det_scale_scalar(float *y, size_t n, float s) {
  for (size_t i = 0; i < n; i++) y[i] = ss_flush(y[i] * s);
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* The largest |x_i| over the finite entries (x validated: no NaN, no +Inf). */
static float max_abs_finite_simd(const float *x, size_t n) {
  const v128_t ninf = wasm_f32x4_splat(-INFINITY), zero = wasm_f32x4_splat(0.0f);
  v128_t a = zero;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(x + i);
    a = wasm_f32x4_pmax(a, wasm_v128_bitselect(zero, wasm_f32x4_abs(v), wasm_f32x4_eq(v, ninf)));
  }
  float r[4];
  wasm_v128_store(r, a);
  float m = fmaxf(fmaxf(r[0], r[1]), fmaxf(r[2], r[3]));
  for (; i < n; i++)
    if (x[i] != -INFINITY && fabsf(x[i]) > m) m = fabsf(x[i]);
  return m;
}

double ss_det_exp_simd(const float *x, size_t n, double t, float *y, ss_status *st) {
  /* Validation in the NaN-propagating max pass (as the softmax kernels);
     nothing is written before it. +Inf anywhere would be the max. */
  const float mx = ss_max_simd(x, n);
  *st = ss_classify_max(mx);
  if (*st != SS_OK) {
    if (isnan(mx)) *st = SS_ERR_NAN;
    return 0.0;
  }
  float m = mx;
  if (t != 1.0) {
    if (!float_quotient(t, max_abs_finite_simd(x, n))) {
      exp_limit(x, n, mx, t, y);
      return ss_sum4_simd(y, n);
    }
    const v128_t vt = wasm_f32x4_splat((float)t);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, wasm_f32x4_div(wasm_v128_load(x + i), vt));
    for (; i < n; i++) y[i] = x[i] / (float)t;
    m = ss_max_simd(y, n);
    x = y;
  }
  const ss_exp_consts c = ss_exp_consts_load();
  const v128_t vm = wasm_f32x4_splat(m);
  v128_t a01 = wasm_f64x2_splat(0.0), a23 = a01;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t e = ss_exp_diff_f32x4(wasm_v128_load(x + i), vm, &c);
    wasm_v128_store(y + i, e);
    ss_sum4_acc(e, &a01, &a23);
  }
  for (size_t j = i; j < n; j++) y[j] = ss_det_exp_diff(x[j], m);
  return ss_sum4_fold(a01, a23, y, i, n);
}

void ss_det_scale_simd(float *y, size_t n, float s) {
  const v128_t vs = wasm_f32x4_splat(s);
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    wasm_v128_store(y + i, ss_flush_f32x4(wasm_f32x4_mul(wasm_v128_load(y + i), vs)));
  for (; i < n; i++) y[i] = ss_flush(y[i] * s);
}

#endif /* SS_HAVE_SIMD */

/* ---- the kept-set mask of the filters ----------------------------------- */

double ss_det_mask_below_scalar(float *e, size_t n, float thr) {
  for (size_t i = 0; i < n; i++)
    if (e[i] < thr) e[i] = 0.0f;
  return ss_sum4_scalar(e, n);
}

#if SS_HAVE_SIMD
double ss_det_mask_below_simd(float *e, size_t n, float thr) {
  const v128_t vt = wasm_f32x4_splat(thr);
  v128_t a01 = wasm_f64x2_splat(0.0), a23 = a01;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(e + i);
    const v128_t kept = wasm_v128_and(v, wasm_f32x4_ge(v, vt));
    wasm_v128_store(e + i, kept);
    ss_sum4_acc(kept, &a01, &a23);
  }
  for (size_t j = i; j < n; j++)
    if (e[j] < thr) e[j] = 0.0f;
  return ss_sum4_fold(a01, a23, e, i, n);
}
#endif

/* ---- impl dispatch -------------------------------------------------------- */

/* The run-time pick (the samplers' bodies pick through SS_DET_OPS, with impl
   a constant: sample_internal.h). */
double ss_det_exp(ss_impl impl, const float *x, size_t n, double t, float *y, ss_status *st) {
  return SS_BY_IMPL(impl, ss_det_exp)(x, n, t, y, st);
}
