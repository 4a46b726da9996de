/*
 * stablemax — StableMax (Prieto et al. 2025): softmax with exp replaced by a
 * function that grows linearly instead of exponentially,
 *
 *   s(x) = x + 1         (x >= 0)
 *          1 / (1 - x)   (x < 0)           s(-Inf) = 0 (a masked entry)
 *   y_i  = s(x_i) / sum_j s(x_j)
 *
 * s is positive, increasing and C^1 (s(0) = 1, s'(0) = 1 from both sides).
 * Why: at large logit scales float32 softmax "collapses" (Softmax Collapse,
 * the paper's SC): the top probability rounds to exactly 1 and the others
 * underflow to 0, so the cross-entropy gradient y - onehot is exactly 0 and
 * learning stops. StableMax's outputs shrink only like 1/x, so they stay
 * representable (tests/c/test_stablemax.c runs both kernels through
 * ss_normalize_vjp on such logits). Unlike softmax it is not shift-invariant.
 * Checked against public code of the paper's StableMax (the s(x) helper
 * used with its cross-entropy, e.g. in HRM's losses.py): where(x < 0,
 * 1/(1 - x + eps), x + 1) normalized by its sum, eps = 1e-30, which cannot
 * change 1 - x >= 1 in float or double; this kernel has no eps.
 *
 * Backward: dy_i/dx_j = (delta_ij - y_i) s'(x_j) / S, and s'/s = 1/(1 + |x|):
 *   dx_j = y_j (g_j - <g, y>) / (1 + |x_j|).
 *
 * Scalar reference: s and the sum in double, one rounding per output.
 * SIMD: s is computed scaled by a common factor c = 1/s(max x) (c = 1/(m+1),
 * or 1 - m when m = max x < 0), i.e. x >= 0: (x + 1) c, x < 0: c / (1 - x), so
 * every scaled value is <= 1, the float block sums cannot overflow for logits
 * near FLT_MAX and values of s below FLT_MIN (x < -8.5e37) are not denormal
 * unless the output itself is; c cancels in the normalization. The final
 * step divides by the sum (not a multiply by its reciprocal): n = 1 gives
 * exactly 1.
 * Accuracy (tests/c/test_stablemax.c, logit scales 1 .. 1e30): rel err
 * <= 1e-6 vs float64 for outputs >= 1e-30, measured 6e-8 (scalar) and
 * 1.9e-7 (SIMD); SIMD vs scalar <= 8 ulp, measured 3.
 */
#include <math.h>

#include "common/check.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"

static inline double s64(float x) {
  return x >= 0.0f ? (double)x + 1.0 : 1.0 / (1.0 - (double)x);
}

/* ---- scalar reference ------------------------------------------------- */

static ss_status stablemax_scalar(const float *x, size_t n,
                                  const double *params, float *y) {
  (void)params;
  ss_status s = ss_check_logits(x, n, NULL);
  if (s != SS_OK) return s;
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) sum += s64(x[i]);
  const double inv = 1.0 / sum;
  for (size_t i = 0; i < n; i++) y[i] = ss_flush((float)(s64(x[i]) * inv));
  return SS_OK;
}

static ss_status stablemax_vjp_scalar(const float *x, const float *y,
                                      const float *g, size_t n,
                                      const double *params, float *dx) {
  (void)params;
  ss_status s = ss_check_logits(x, n, NULL);
  if (s != SS_OK) return s;
  double dot = 0.0;
  for (size_t i = 0; i < n; i++) dot += (double)g[i] * (double)y[i];
  /* masked: y = 0 and 1 + |x| = Inf give 0 */
  for (size_t j = 0; j < n; j++)
    dx[j] = (float)((double)y[j] * ((double)g[j] - dot) / (1.0 + fabs((double)x[j])));
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* s(x) * c, with c = 1 / s(max): <= 1, and 0 for x = -Inf (c / Inf). */
static inline v128_t scaled_s(v128_t x, v128_t c, v128_t zero, v128_t one) {
  const v128_t pos = wasm_f32x4_mul(wasm_f32x4_add(x, one), c);
  const v128_t neg = wasm_f32x4_div(c, wasm_f32x4_sub(one, x));
  return wasm_v128_bitselect(pos, neg, wasm_f32x4_ge(x, zero));
}

/* y[i] /= d: a division, not a multiply by 1/d, so a row with one nonzero
   term gives exactly 1 there. */
static void divide_simd(float *y, size_t n, float d) {
  const v128_t vd = wasm_f32x4_splat(d);
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    wasm_v128_store(y + i, ss_flush_f32x4(wasm_f32x4_div(wasm_v128_load(y + i), vd)));
  for (; i < n; i++) y[i] = ss_flush(y[i] / d);
}

static ss_status stablemax_simd(const float *x, size_t n, const double *params,
                                float *y) {
  (void)params;
  const float max = ss_max_simd(x, n);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  const v128_t c = wasm_f32x4_splat(max >= 0.0f ? (float)(1.0 / ((double)max + 1.0))
                                                : (float)(1.0 - (double)max));
  const v128_t zero = wasm_f32x4_splat(0.0f), one = wasm_f32x4_splat(1.0f);
  double total = 0.0;
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t s0 = zero, s1 = zero, s2 = zero, s3 = zero;
    for (; i + 16 <= end; i += 16) {
      const v128_t a = scaled_s(wasm_v128_load(x + i), c, zero, one);
      const v128_t b = scaled_s(wasm_v128_load(x + i + 4), c, zero, one);
      const v128_t d = scaled_s(wasm_v128_load(x + i + 8), c, zero, one);
      const v128_t e = scaled_s(wasm_v128_load(x + i + 12), c, zero, one);
      wasm_v128_store(y + i, a);
      wasm_v128_store(y + i + 4, b);
      wasm_v128_store(y + i + 8, d);
      wasm_v128_store(y + i + 12, e);
      s0 = wasm_f32x4_add(s0, a);
      s1 = wasm_f32x4_add(s1, b);
      s2 = wasm_f32x4_add(s2, d);
      s3 = wasm_f32x4_add(s3, e);
    }
    for (; i + 4 <= end; i += 4) {
      const v128_t a = scaled_s(wasm_v128_load(x + i), c, zero, one);
      wasm_v128_store(y + i, a);
      s0 = wasm_f32x4_add(s0, a);
    }
    if (i < end) { /* tail padded with -Inf, whose scaled s is 0 */
      const size_t rem = end - i;
      const v128_t a = scaled_s(ss_load_partial(x + i, rem, -INFINITY), c, zero, one);
      ss_store_partial(y + i, rem, a);
      s1 = wasm_f32x4_add(s1, a);
      i = end;
    }
    total += ss_hsum_f64(wasm_f32x4_add(wasm_f32x4_add(s0, s1), wasm_f32x4_add(s2, s3)));
  }
  /* total >= ~1 (the max contributes s(max) c = 1): no under- or overflow */
  divide_simd(y, n, (float)total);
  return SS_OK;
}

static ss_status stablemax_vjp_simd(const float *x, const float *y,
                                    const float *g, size_t n,
                                    const double *params, float *dx) {
  (void)params;
  ss_status s = ss_classify_max(ss_max_simd(x, n));
  if (s != SS_OK) return s;
  const v128_t vdot = wasm_f32x4_splat((float)ss_dot_simd(g, y, n));
  const v128_t one = wasm_f32x4_splat(1.0f);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t num = wasm_f32x4_mul(wasm_v128_load(y + i),
                                      wasm_f32x4_sub(wasm_v128_load(g + i), vdot));
    const v128_t den = wasm_f32x4_add(one, wasm_f32x4_abs(wasm_v128_load(x + i)));
    wasm_v128_store(dx + i, wasm_f32x4_div(num, den));
  }
  const float dot = wasm_f32x4_extract_lane(vdot, 0);
  for (; i < n; i++) dx[i] = y[i] * (g[i] - dot) / (1.0f + fabsf(x[i]));
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_stablemax = {
    .name = "stablemax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "StableMax: softmax with exp replaced by x + 1 (x >= 0) and "
               "1/(1 - x) (x < 0), so large logits do not collapse to one-hot in float",
    .formula = "s(x) = x + 1 (x >= 0), 1/(1 - x) (x < 0), s(-Inf) = 0; "
               "y_i = s(x_i) / sum_j s(x_j); VJP: dx = y (g - <g, y>) / (1 + |x|)",
    .paper = "Prieto, Barsbey, Mediano & Birdal 2025, 'Grokking at the Edge of "
             "Numerical Stability' (ICLR 2025)",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .normalize = SS_IMPLS(stablemax),
    .normalize_vjp = SS_IMPLS(stablemax_vjp),
};

ss_status ss_stablemax(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_stablemax, ss_impl_default(), x, n, NULL, 0, y);
}
