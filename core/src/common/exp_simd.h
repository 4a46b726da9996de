/*
 * exp(x) on four floats without FMA, after XNNPACK's "rr2_p5" scheme:
 *
 *   n = round(x / ln2)           by the magic-bias trick: adding 1.5*2^23 (+127,
 *                                the exponent bias) rounds to an integer that then
 *                                sits in the low mantissa bits, so a left shift
 *                                by 23 builds s = 2^n directly.
 *   t = x - n*ln2                Cody-Waite: ln2 = ln2_hi + ln2_lo, ln2_hi has
 *                                trailing zero bits so n*ln2_hi is exact.
 *   exp(t) ~ 1 + t*p(t)          degree-5 minimax polynomial on [-ln2/2, ln2/2].
 *   exp(x) = s * (1 + t*p(t))
 *
 * Valid for x <= 0 (softmax feeds x - max): inputs below ln(2^-126) ~ -87.34
 * (including -Inf) give exactly 0, so the result never is a denormal, NaN or
 * Inf. Measured error: a few ulp (see tests/c/test_exp.c).
 *
 * Why a correction term: softmax needs exp(x - m) for floats x, m, but the
 * float difference d = fl(x - m) is off by up to half an ulp of d -- 3.8e-6
 * absolute for |d| in [64, 128), which becomes a 3.8e-6 relative error of
 * exp. ss_two_diff gives d and its exact rounding error e (Knuth's TwoSum),
 * and the reduction folds e into t, so exp(x - m) keeps ~1e-7 accuracy over
 * the whole float32 range of outputs.
 */
#ifndef SS_COMMON_EXP_SIMD_H
#define SS_COMMON_EXP_SIMD_H

#include "common/simd.h"

#if SS_HAVE_SIMD

typedef struct ss_exp_consts {
  v128_t log2e, magic_bias, minus_ln2_hi, minus_ln2_lo;
  v128_t c5, c4, c3, c2, c1, one, denorm_cutoff;
} ss_exp_consts;

static inline ss_exp_consts ss_exp_consts_load(void) {
  ss_exp_consts c;
  c.log2e = wasm_f32x4_splat(0x1.715476p+0f);
  c.magic_bias = wasm_f32x4_splat(0x1.8000FEp23f);
  c.minus_ln2_hi = wasm_f32x4_splat(-0x1.62E400p-1f);
  c.minus_ln2_lo = wasm_f32x4_splat(-0x1.7F7D1Cp-20f);
  c.c5 = wasm_f32x4_splat(0x1.0F9F9Cp-7f);
  c.c4 = wasm_f32x4_splat(0x1.573A1Ap-5f);
  c.c3 = wasm_f32x4_splat(0x1.555A80p-3f);
  c.c2 = wasm_f32x4_splat(0x1.FFFDC6p-2f);
  c.c1 = wasm_f32x4_splat(0x1.FFFFF6p-1f);
  c.one = wasm_f32x4_splat(1.0f);
  c.denorm_cutoff = wasm_f32x4_splat(-0x1.5D589Ep6f);
  return c;
}

/* d + e = a - b exactly (TwoSum; no magnitude ordering needed). */
static inline v128_t ss_two_diff(v128_t a, v128_t b, v128_t *e) {
  const v128_t d = wasm_f32x4_sub(a, b);
  const v128_t bb = wasm_f32x4_sub(a, d);        /* the part of b in d */
  const v128_t da = wasm_f32x4_add(d, bb);       /* the part of a in d */
  *e = wasm_f32x4_add(wasm_f32x4_sub(a, da), wasm_f32x4_sub(bb, b));
  return d;
}

/* exp(x + e) for x <= 0 and a tiny correction e (|e| <= ulp(x)). */
static inline v128_t ss_exp_nonpos_corr_f32x4(v128_t x, v128_t e,
                                              const ss_exp_consts *c) {
  /* Clamp first so no lane (not even a masked -Inf one) computes with
     denormals or NaN, which are slow on x86; the mask below uses the
     unclamped x. */
  const v128_t xc = wasm_f32x4_pmax(c->denorm_cutoff, x);
  /* ...and drop the correction there too: a negative e on a clamped lane
     would take the result just below 2^-126, into denormals. */
  const v128_t below = wasm_f32x4_lt(x, c->denorm_cutoff);
  e = wasm_v128_andnot(e, below);
  v128_t n = wasm_f32x4_add(wasm_f32x4_mul(xc, c->log2e), c->magic_bias);
  const v128_t s = wasm_i32x4_shl(n, 23);
  n = wasm_f32x4_sub(n, c->magic_bias);
  v128_t t = wasm_f32x4_add(wasm_f32x4_mul(n, c->minus_ln2_hi), xc);
  t = wasm_f32x4_add(wasm_f32x4_mul(n, c->minus_ln2_lo), wasm_f32x4_add(t, e));
  v128_t p = wasm_f32x4_add(wasm_f32x4_mul(c->c5, t), c->c4);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, t), c->c3);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, t), c->c2);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, t), c->c1);
  /* s * (1 + t p) rounds exactly like (t s) p + s (scaling by a power of two
     is exact) but never forms the denormal t*s near the cutoff. */
  const v128_t f = wasm_f32x4_mul(s, wasm_f32x4_add(wasm_f32x4_mul(t, p), c->one));
  return wasm_v128_andnot(f, below);
}

/* exp(a - b) for a <= b, accurate to a few ulp even when fl(a - b) is not. */
static inline v128_t ss_exp_diff_f32x4(v128_t a, v128_t b,
                                       const ss_exp_consts *c) {
  v128_t e;
  const v128_t d = ss_two_diff(a, b, &e);
  return ss_exp_nonpos_corr_f32x4(d, e, c);
}

/* exp(x) for x <= 0 (four lanes). */
static inline v128_t ss_exp_nonpos_f32x4(v128_t x, const ss_exp_consts *c) {
  return ss_exp_nonpos_corr_f32x4(x, wasm_f32x4_splat(0.0f), c);
}

#endif /* SS_HAVE_SIMD */
#endif
