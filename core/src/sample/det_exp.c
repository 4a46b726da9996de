/*
 * The elementwise core every sampler shares: z = x / t, y = exp(z - max z),
 * and the 4-lane sum of y -- in a scalar and a SIMD version that give the
 * same bits (see sample_internal.h for why, det_math.h for how).
 *
 * Accuracy: exp is the softmax kernels' (a few ulp, with the TwoSum
 * correction of z - max); tests/c/test_sample_core.c holds y to 4 ulp... of
 * the float64 exp and checks the two paths bit for bit.
 */
#include <math.h>

#include "common/check.h"
#include "common/exp_simd.h"
#include "common/vec_simd.h"
#include "sample/det_math.h"
#include "sample/sample_internal.h"

/* ---- scalar ----------------------------------------------------------- */

double ss_sum4_scalar(const float *w, size_t n) {
  /* Four named accumulators (an array of four would be kept in a v128 by
     the wasm backend); element i goes to accumulator i % 4. */
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a0 += (double)w[i];
    a1 += (double)w[i + 1];
    a2 += (double)w[i + 2];
    a3 += (double)w[i + 3];
  }
  if (i < n) a0 += (double)w[i++];
  if (i < n) a1 += (double)w[i++];
  if (i < n) a2 += (double)w[i];
  return (a0 + a1) + (a2 + a3);
}

/* max of z_i = x_i / t with the validation of every logit input. */
static float div_max_scalar(const float *x, size_t n, float t, float *y, ss_status *st) {
  float m = -INFINITY;
  *st = SS_OK;
  for (size_t i = 0; i < n; i++) {
    const float v = x[i];
    if (isnan(v)) { *st = SS_ERR_NAN; return m; }
    if (v == INFINITY) { *st = SS_ERR_POS_INF; return m; }
    const float z = t == 1.0f ? v : v / t;
    y[i] = z;
    if (z > m) m = z;
  }
  if (m == -INFINITY) *st = SS_ERR_ALL_MASKED;
  else if (m == INFINITY) *st = SS_ERR_DOMAIN; /* x / t overflowed */
  return m;
}

double ss_det_exp_scalar(const float *x, size_t n, float t, float *y, ss_status *st) {
  /* NaN / +Inf first (before any z is formed) so the status does not depend
     on where the division overflows. */
  for (size_t i = 0; i < n; i++) {
    if (isnan(x[i])) { *st = SS_ERR_NAN; return 0.0; }
  }
  for (size_t i = 0; i < n; i++) {
    if (x[i] == INFINITY) { *st = SS_ERR_POS_INF; return 0.0; }
  }
  const float m = div_max_scalar(x, n, t, y, st);
  if (*st != SS_OK) return 0.0;
  for (size_t i = 0; i < n; i++) y[i] = ss_det_exp_diff(y[i], m);
  return ss_sum4_scalar(y, n);
}

void ss_det_scale_scalar(float *y, size_t n, float s) {
  for (size_t i = 0; i < n; i++) y[i] = y[i] * s;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* Lanes (i % 4) of one f32x4 added to the (a01, a23) f64x2 accumulators. */
static inline void acc4(v128_t v, v128_t *a01, v128_t *a23) {
  *a01 = wasm_f64x2_add(*a01, wasm_f64x2_promote_low_f32x4(v));
  *a23 = wasm_f64x2_add(*a23, wasm_f64x2_promote_low_f32x4(
                                  wasm_i32x4_shuffle(v, v, 2, 3, 2, 3)));
}

static inline double fold4(v128_t a01, v128_t a23, const float *tail, size_t i, size_t n) {
  double a[4] = {wasm_f64x2_extract_lane(a01, 0), wasm_f64x2_extract_lane(a01, 1),
                 wasm_f64x2_extract_lane(a23, 0), wasm_f64x2_extract_lane(a23, 1)};
  for (; i < n; i++) a[i & 3] += (double)tail[i];
  return (a[0] + a[1]) + (a[2] + a[3]);
}

double ss_sum4_simd(const float *w, size_t n) {
  v128_t a01 = wasm_f64x2_splat(0.0), a23 = a01;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) acc4(wasm_v128_load(w + i), &a01, &a23);
  return fold4(a01, a23, w, i, n);
}

double ss_det_exp_simd(const float *x, size_t n, float t, float *y, ss_status *st) {
  /* Validation in the NaN-propagating max pass (as the softmax kernels). */
  const float mx = ss_max_simd(x, n);
  *st = ss_classify_max(mx);
  if (*st != SS_OK) {
    if (isnan(mx)) *st = SS_ERR_NAN;
    return 0.0;
  }
  /* +Inf anywhere is caught by the max (it would be the max). */
  float m;
  if (t == 1.0f) {
    m = mx;
  } else {
    const v128_t vt = wasm_f32x4_splat(t);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, wasm_f32x4_div(wasm_v128_load(x + i), vt));
    for (; i < n; i++) y[i] = x[i] / t;
    m = ss_max_simd(y, n);
    if (m == INFINITY) { *st = SS_ERR_DOMAIN; return 0.0; }
    x = y;
  }
  const ss_exp_consts c = ss_exp_consts_load();
  const v128_t vm = wasm_f32x4_splat(m);
  v128_t a01 = wasm_f64x2_splat(0.0), a23 = a01;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t e = ss_exp_diff_f32x4(wasm_v128_load(x + i), vm, &c);
    wasm_v128_store(y + i, e);
    acc4(e, &a01, &a23);
  }
  for (size_t j = i; j < n; j++) y[j] = ss_det_exp_diff(x[j], m);
  return fold4(a01, a23, y, i, n);
}

void ss_det_scale_simd(float *y, size_t n, float s) {
  const v128_t vs = wasm_f32x4_splat(s);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, wasm_f32x4_mul(wasm_v128_load(y + i), vs));
  for (; i < n; i++) y[i] = y[i] * s;
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
    acc4(kept, &a01, &a23);
  }
  for (size_t j = i; j < n; j++)
    if (e[j] < thr) e[j] = 0.0f;
  return fold4(a01, a23, e, i, n);
}
#endif

/* ---- impl dispatch -------------------------------------------------------- */

/* Through a table of function pointers: the impl is a run-time choice, and a
   scalar entry point that dispatches this way links no SIMD code into its
   own call graph (tests/build-checks.sh follows direct calls). */
const ss_det_ops ss_det_ops_scalar = {ss_det_exp_scalar, ss_det_scale_scalar,
                                      ss_det_mask_below_scalar, ss_sum4_scalar,
                                      ss_gumbel_noise_scalar};
#if SS_HAVE_SIMD
const ss_det_ops ss_det_ops_simd = {ss_det_exp_simd, ss_det_scale_simd, ss_det_mask_below_simd,
                                    ss_sum4_simd, ss_gumbel_noise_simd};
#endif

const ss_det_ops *ss_det_ops_for(ss_impl impl) {
#if SS_HAVE_SIMD
  if (impl == SS_IMPL_SIMD) return &ss_det_ops_simd;
#endif
  (void)impl;
  return &ss_det_ops_scalar;
}

double ss_det_exp(ss_impl impl, const float *x, size_t n, float t, float *y, ss_status *st) {
  return ss_det_ops_for(impl)->exp(x, n, t, y, st);
}

void ss_det_scale(ss_impl impl, float *y, size_t n, float s) {
  ss_det_ops_for(impl)->scale(y, n, s);
}

double ss_det_mask_below(ss_impl impl, float *e, size_t n, float thr) {
  return ss_det_ops_for(impl)->mask_below(e, n, thr);
}

double ss_det_sum4(ss_impl impl, const float *w, size_t n) {
  return ss_det_ops_for(impl)->sum4(w, n);
}
