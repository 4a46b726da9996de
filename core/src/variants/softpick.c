/*
 * softpick — rectified softmax (Zuhri, Fuadi & Aji 2025), a drop-in for
 * softmax in attention that need not sum to 1, so a head can attend to
 * nothing (no attention sink):
 *
 *   y_i = relu(e^{x_i} - 1) / sum_j |e^{x_j} - 1|
 *
 * x_i <= 0 gives exactly 0; sum y <= 1, with equality only when no entry
 * is negative (output kind WEIGHTS).
 * Checked against the authors' reference (github.com/zaydzuhri/
 * softpick-attention, naive_softpick_attn.py): they compute, with m = max x,
 * relu(e^{x-m} - e^{-m}) / (sum over finite x of |e^{x-m} - e^{-m}| + eps),
 * eps = 1e-8, "only useful if all inputs are exactly 0". This kernel has no
 * eps (it would add eps e^m to the true denominator) and defines that case:
 *
 *   - masked entries (-Inf) are left out of the denominator as well (the
 *     reference excludes non-finite x there), so they get 0 and padding a
 *     row with -Inf changes no other output;
 *   - max x <= 0: every numerator is 0, so y = 0 exactly -- including the
 *     degenerate all-zero row, whose denominator is 0 (0/0 defined as 0,
 *     which is also what the eps gives). Its VJP is 0 too.
 *
 * Stable form: with m = max x > 0, multiply through by e^{-m}:
 *   t_i = e^{max(x_i, 0) - m} (1 - e^{-|x_i|}),  D = sum_j t_j,
 *   y_i = [x_i > 0] t_i / D.
 * Both factors have non-positive exponents (no overflow at any logit), and
 * 1 - e^{-|x|} = -expm1(-|x|) keeps full relative accuracy for tiny |x|
 * where e^x - 1 would cancel.
 *
 * Backward: with w_j = e^{x_j} / sum |e^x - 1| = e^{x_j - m} / D,
 *   dx_j = w_j ([x_j > 0] g_j - sign(x_j) <g, y>)
 * (sign(0) = 0 and relu'(0) = 0: the one-sided choice at the kinks). The
 * VJP recomputes D from x.
 *
 * Scalar reference: double exp and expm1 (libm). SIMD: e^{.} by the exp of
 * common/exp_simd.h (with its TwoSum correction of max(x,0) - m), and
 * expm1(u), u <= 0, by the same range reduction u = n ln2 + t,
 * |t| <= ln2/2, with expm1(u) = (2^n - 1) + 2^n q(t), q the degree-7 Taylor
 * polynomial of expm1 (truncation < 2e-8 relative; exact leading term t, so
 * tiny |u| keep their relative accuracy); u is clamped at -32, where
 * expm1 = -1 in float. The outputs are t_i / D by a division (a row with
 * one positive entry gives exactly 1 there). Rows whose max is below 2^-100
 * (1/D would not be a float, and such logits are mostly denormal) take the
 * scalar path; denormal logits in other rows keep only denormal precision
 * in their (tiny) terms. The VJP's |dx_j| <= (|g_j| + |<g, y>|) / D: where
 * that bound may pass FLT_MAX / 2, the cancellation in g_j - <g, y> decides
 * between a finite result and an overflow, so the scalar reference answers
 * (one status from both impls).
 * Accuracy (tests/c/test_softpick.c, logit scales 1e-20 .. 1e3): rel err vs
 * float64 <= 1e-6 for outputs >= 1e-30, measured 6e-8 (scalar) and 3.3e-7
 * (SIMD); SIMD vs scalar <= 8 ulp, measured 5.
 */
#include <float.h>
#include <math.h>

#include "common/check.h"
#include "common/exp_simd.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"

/* t_i of the stable form, in double (0 for -Inf). */
static inline double term64(float x, double m) {
  if (x == -INFINITY) return 0.0;
  const double ax = fabs((double)x);
  return exp((x > 0.0f ? (double)x : 0.0) - m) * -expm1(-ax);
}

/* ---- scalar reference ------------------------------------------------- */

static ss_status softpick_scalar(const float *x, size_t n,
                                 const double *params, float *y) {
  (void)params;
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s != SS_OK) return s;
  if (max <= 0.0f) { /* every numerator is 0 (also the 0/0 all-zero row) */
    for (size_t i = 0; i < n; i++) y[i] = 0.0f;
    return SS_OK;
  }
  double d = 0.0;
  for (size_t i = 0; i < n; i++) d += term64(x[i], max);
  for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? ss_flush((float)(term64(x[i], max) / d)) : 0.0f;
  return SS_OK;
}

static ss_status softpick_vjp_scalar(const float *x, const float *y,
                                     const float *g, size_t n,
                                     const double *params, float *dx) {
  (void)params;
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s != SS_OK) return s;
  if (max <= 0.0f) {
    for (size_t i = 0; i < n; i++) dx[i] = 0.0f;
    return SS_OK;
  }
  double d = 0.0, dot = 0.0;
  for (size_t i = 0; i < n; i++) {
    d += term64(x[i], max);
    dot += (double)g[i] * (double)y[i];
  }
  for (size_t j = 0; j < n; j++) {
    const double w = exp((double)x[j] - max) / d; /* 0 for -Inf */
    const double num = x[j] > 0.0f ? (double)g[j] : 0.0;
    const double den = x[j] > 0.0f ? dot : x[j] < 0.0f ? -dot : 0.0;
    dx[j] = (float)(w * (num - den));
  }
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* expm1(u) for u <= 0 (see the header). */
static inline v128_t expm1_nonpos_f32x4(v128_t u, const ss_exp_consts *c) {
  u = wasm_f32x4_pmax(wasm_f32x4_splat(-32.0f), u); /* -32 < u ? u : -32 */
  const v128_t nb = wasm_f32x4_add(wasm_f32x4_mul(u, c->log2e), c->magic_bias);
  const v128_t s = wasm_i32x4_shl(nb, 23); /* 2^n */
  const v128_t nf = wasm_f32x4_sub(nb, c->magic_bias);
  v128_t t = wasm_f32x4_add(wasm_f32x4_mul(nf, c->minus_ln2_hi), u);
  t = wasm_f32x4_add(wasm_f32x4_mul(nf, c->minus_ln2_lo), t);
  v128_t q = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_splat(0x1.a01a02p-13f), t),
                            wasm_f32x4_splat(0x1.6c16c2p-10f)); /* 1/5040, 1/720 */
  q = wasm_f32x4_add(wasm_f32x4_mul(q, t), wasm_f32x4_splat(0x1.111112p-7f)); /* 1/120 */
  q = wasm_f32x4_add(wasm_f32x4_mul(q, t), wasm_f32x4_splat(0x1.555556p-5f)); /* 1/24 */
  q = wasm_f32x4_add(wasm_f32x4_mul(q, t), wasm_f32x4_splat(0x1.555556p-3f)); /* 1/6 */
  q = wasm_f32x4_add(wasm_f32x4_mul(q, t), wasm_f32x4_splat(0.5f));
  const v128_t p = wasm_f32x4_add(t, wasm_f32x4_mul(wasm_f32x4_mul(t, t), q)); /* expm1(t) */
  return wasm_f32x4_add(wasm_f32x4_sub(s, c->one), wasm_f32x4_mul(s, p));
}

/* t_i for four lanes: e^{max(x,0) - m} (1 - e^{-|x|}), 0 for -Inf. */
static inline v128_t term4(v128_t x, v128_t vm, v128_t zero, v128_t ninf,
                           const ss_exp_consts *c) {
  const v128_t mag = wasm_f32x4_neg(expm1_nonpos_f32x4(wasm_f32x4_neg(wasm_f32x4_abs(x)), c));
  const v128_t sc = ss_exp_diff_f32x4(wasm_f32x4_pmax(x, zero), vm, c); /* x < 0 ? 0 : x */
  return wasm_v128_andnot(wasm_f32x4_mul(sc, mag), wasm_f32x4_eq(x, ninf));
}

/* num_i = [x_i > 0] t_i stored; returns D = sum_i t_i (float blocks, double across). */
static double terms_simd(const float *x, size_t n, float m, float *num) {
  const ss_exp_consts c = ss_exp_consts_load();
  const v128_t vm = wasm_f32x4_splat(m), zero = wasm_f32x4_splat(0.0f);
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  double total = 0.0;
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t s0 = zero, s1 = zero;
    for (; i + 8 <= end; i += 8) {
      const v128_t xa = wasm_v128_load(x + i), xb = wasm_v128_load(x + i + 4);
      const v128_t ta = term4(xa, vm, zero, ninf, &c), tb = term4(xb, vm, zero, ninf, &c);
      wasm_v128_store(num + i, wasm_v128_and(ta, wasm_f32x4_gt(xa, zero)));
      wasm_v128_store(num + i + 4, wasm_v128_and(tb, wasm_f32x4_gt(xb, zero)));
      s0 = wasm_f32x4_add(s0, ta);
      s1 = wasm_f32x4_add(s1, tb);
    }
    for (; i + 4 <= end; i += 4) {
      const v128_t xa = wasm_v128_load(x + i);
      const v128_t ta = term4(xa, vm, zero, ninf, &c);
      wasm_v128_store(num + i, wasm_v128_and(ta, wasm_f32x4_gt(xa, zero)));
      s0 = wasm_f32x4_add(s0, ta);
    }
    if (i < end) { /* tail padded with -Inf, whose term is 0 */
      const size_t rem = end - i;
      const v128_t xa = ss_load_partial(x + i, rem, -INFINITY);
      const v128_t ta = term4(xa, vm, zero, ninf, &c);
      ss_store_partial(num + i, rem, wasm_v128_and(ta, wasm_f32x4_gt(xa, zero)));
      s1 = wasm_f32x4_add(s1, ta);
      i = end;
    }
    total += ss_hsum_f64(wasm_f32x4_add(s0, s1));
  }
  return total;
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

/* max_i |g_i|. */
static float max_abs_simd(const float *g, size_t n) {
  v128_t m = wasm_f32x4_splat(0.0f);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) m = wasm_f32x4_pmax(m, wasm_f32x4_abs(wasm_v128_load(g + i)));
  float r = fmaxf(fmaxf(wasm_f32x4_extract_lane(m, 0), wasm_f32x4_extract_lane(m, 1)),
                  fmaxf(wasm_f32x4_extract_lane(m, 2), wasm_f32x4_extract_lane(m, 3)));
  for (; i < n; i++) r = fmaxf(r, fabsf(g[i]));
  return r;
}

static void zero_fill_simd(float *y, size_t n) {
  const v128_t z = wasm_f32x4_splat(0.0f);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, z);
  for (; i < n; i++) y[i] = 0.0f;
}

static ss_status softpick_simd(const float *x, size_t n, const double *params,
                               float *y) {
  const float max = ss_max_simd(x, n);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  if (max <= 0.0f) {
    zero_fill_simd(y, n);
    return SS_OK;
  }
  if (max < 0x1p-100f) return softpick_scalar(x, n, params, y);
  divide_simd(y, n, (float)terms_simd(x, n, max, y));
  return SS_OK;
}

static ss_status softpick_vjp_simd(const float *x, const float *y,
                                   const float *g, size_t n,
                                   const double *params, float *dx) {
  const float max = ss_max_simd(x, n);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  if (max <= 0.0f) {
    zero_fill_simd(dx, n);
    return SS_OK;
  }
  if (max < 0x1p-100f) return softpick_vjp_scalar(x, y, g, n, params, dx);
  const float dot = (float)ss_dot_simd(g, y, n);
  const double d = terms_simd(x, n, max, dx);
  /* |dx_j| <= (|g_j| + |<g, y>|) / D in both impls; where that bound may
     pass FLT_MAX, the float difference g_j - <g, y> can cancel to a finite
     result where the double one rounds to an overflow (or the reverse):
     the scalar reference answers, so both impls give one status. */
  if (!(((double)max_abs_simd(g, n) + fabs((double)dot)) / d < 0.5 * FLT_MAX))
    return softpick_vjp_scalar(x, y, g, n, params, dx);
  const v128_t vinv = wasm_f32x4_splat((float)(1.0 / d));
  const ss_exp_consts c = ss_exp_consts_load();
  const v128_t vm = wasm_f32x4_splat(max), zero = wasm_f32x4_splat(0.0f);
  const v128_t vdot = wasm_f32x4_splat(dot), vndot = wasm_f32x4_splat(-dot);
  for (size_t i = 0; i < n; i += 4) {
    const size_t rem = n - i < 4 ? n - i : 4;
    const v128_t vx = rem == 4 ? wasm_v128_load(x + i) : ss_load_partial(x + i, rem, -INFINITY);
    const v128_t vg = rem == 4 ? wasm_v128_load(g + i) : ss_load_partial(g + i, rem, 0.0f);
    const v128_t pos = wasm_f32x4_gt(vx, zero), neg = wasm_f32x4_lt(vx, zero);
    const v128_t w = wasm_f32x4_mul(ss_exp_diff_f32x4(vx, vm, &c), vinv); /* 0 for -Inf */
    const v128_t sd = wasm_v128_or(wasm_v128_and(vdot, pos), wasm_v128_and(vndot, neg));
    const v128_t r = wasm_f32x4_mul(w, wasm_f32x4_sub(wasm_v128_and(vg, pos), sd));
    if (rem == 4) wasm_v128_store(dx + i, r);
    else ss_store_partial(dx + i, rem, r);
  }
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_softpick = {
    .name = "softpick",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Softpick: rectified softmax relu(e^x - 1) / sum |e^x - 1|; "
               "exact zeros for x <= 0, need not sum to 1 (no attention sink)",
    .formula = "y_i = relu(exp(x_i) - 1) / sum_j |exp(x_j) - 1| over unmasked j; "
               "y = 0 when max x <= 0 (incl. the 0/0 all-zero row)",
    .paper = "Zuhri, Fuadi & Aji 2025, 'Softpick: No Attention Sink, No Massive "
             "Activations with Rectified Softmax' (arXiv:2504.20966)",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_WEIGHTS,
    .has_backward = true,
    .normalize = SS_IMPLS(softpick),
    .normalize_vjp = SS_IMPLS(softpick_vjp),
};

ss_status ss_softpick(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_softpick, ss_impl_default(), x, n, NULL, 0, y);
}
