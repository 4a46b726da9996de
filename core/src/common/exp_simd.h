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

#include <math.h>
#include <stdbool.h>

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

/*
 * exp(x - m) for a row that shares m (softmax's max), accurate without the
 * TwoSum of ss_exp_diff_f32x4 and in as many instructions as XNNPACK's
 * uncorrected rr2_p5 (which loses up to 3.8e-6 where |x - m| is large):
 *
 *   k  = floor((x - m) log2e + eps)   the magic-bias rounding of (x - m')
 *                                     log2e, m' = m + (1/2 - eps) ln2,
 *                                     eps = 2^-10 or 0 (ss_expm_mode):
 *                                     t below is in [-eps ln2, ln2]
 *   N  = k + nm, nm = round(m log2e)  read off the same magic sum
 *   t  = x - m - k ln2 = (x - N ln2_hi) + (-tm - N ln2_lo),  tm = m - nm ln2
 *   exp(x - m) = 2^k (1 + t r(t))
 *
 * r is a degree-4 minimax fit (Remez, relative error of exp 8.2e-8 on
 * [-2^-10 ln2, ln2]; float coefficients). The "1 +" is exact, so with
 * eps = 2^-10 at x = m (t = 0 up to the 1.5e-8 rounding of tm; k = 0 since
 * eps > 0) exp(0) = 1 exactly: the max entry contributes exactly 1 to
 * softmax's sum, equal logits give exactly n, log-sum-exp >= max.
 *
 * Why TwoSum is not needed: N ln2_hi is exact (|N| <= 511, ln2_hi has 15
 * bits) and x - N ln2_hi lies within 1.04 of 0, so by Sterbenz's lemma it is
 * exact for |x| >= 2.08 and rounded by at most 2^-24 below; tm and the other
 * terms are below 0.7. The absolute error of t is at most 1.2e-7, the
 * relative error it adds to exp. The price: |N| <= 511 needs m in about
 * [-266, 354] (ss_expm_init says; other rows take the TwoSum path).
 *
 * Zeros and denormals: x is clamped at m - 87.7, where k = -127 and 2^k is
 * built as +0, so -Inf (a masked logit) gives +0 without a mask. The floor
 * makes k <= -127, so exp = +0, exactly when exp(x - m) < 2^-126 = FLT_MIN
 * (up to the rounding of (x - m') log2e, ~1e-5 of a unit; with eps > 0,
 * values in [0.9993 FLT_MIN, FLT_MIN) come out as the denormals they are).
 * Every other value is 2^k (1 + t r), k >= -126 and 1 + t r in [1, 2): a
 * normal float formed without a denormal operand (x86 runs those ~100x
 * slower, and V8 does not flush them).
 *
 * The two parts of t, t1 = x - N ln2_hi and tc = -tm - N ln2_lo, are formed
 * side by side and added once: one dependent step fewer than
 * ((x - N ln2_hi) - tm) - N ln2_lo. Chromium's wasm compiler (Turboshaft)
 * keeps LLVM's instruction order, one vector's whole chain after the next,
 * so the chain's length is what the CPU waits on there (Node 20's TurboFan
 * reschedules and interleaves the vectors): softmax at 2^16 went from 0.85
 * to 0.81 ns per element in Chromium 156, the same in Node 20. tc is
 * rounded once (|tc| < 0.36: at most 1.5e-8), as tm already was.
 *
 * Relaxed: every multiply-add is ss_madd_relaxed. N ln2_hi is exact, so t1
 * is the same fused or not, and N ln2_lo < 7.3e-4 rounds by 4e-11; the
 * polynomial rounds once or twice per step. Measured error
 * (tests/c/test_exp.c): <= 3 ulp either way.
 */
/* The polynomial's constants, shared by ss_expm and ss_expz. */
typedef struct ss_expm_poly {
  v128_t r4, r3, r2, r1, r0, one;
} ss_expm_poly;

typedef struct ss_expm {
  v128_t xlo, mh, log2e, bias, nbias, mln2_hi, mln2_lo, ntm;
  ss_expm_poly r;
} ss_expm;

/* Largest |N| for which N ln2_hi is exact. */
#define SS_EXPM_NMAX 511.0
/* The polynomial of ss_expm and ss_expz: exp(t) ~ 1 + t r(t) on
   [-2^-10 ln2, (1 - 2^-10) ln2] (tests/c/test_exp.c). */
#define SS_EXPM_R4 0x1.7E61BAp-7f
#define SS_EXPM_R3 0x1.400050p-5f
#define SS_EXPM_R2 0x1.572706p-3f
#define SS_EXPM_R1 0x1.FFDE24p-2f
#define SS_EXPM_R0 0x1.000064p+0f

/* Where the rounding of k puts t (ss_expm_init's `mode`):
   SS_EXPM_ONE    t in [-eps ln2, (1 - eps) ln2], eps = 2^-10: exp(0) = 1
                  exactly; values in [2^-eps FLT_MIN, FLT_MIN) =
                  [0.9993 FLT_MIN, FLT_MIN) come out as the denormals they
                  are (a kernel that multiplies by 1/S flushes them there).
   SS_EXPM_FLOOR  t in [0, ln2]: +0 exactly below FLT_MIN and never a
                  denormal, but exp(0) may be 2 ulp off (for an output
                  written as is, e.g. exp(x - logsumexp)). */
typedef enum ss_expm_mode { SS_EXPM_ONE, SS_EXPM_FLOOR } ss_expm_mode;

static inline ss_expm_poly ss_expm_poly_load(void) {
  ss_expm_poly r;
  r.r4 = wasm_f32x4_splat(SS_EXPM_R4);
  r.r3 = wasm_f32x4_splat(SS_EXPM_R3);
  r.r2 = wasm_f32x4_splat(SS_EXPM_R2);
  r.r1 = wasm_f32x4_splat(SS_EXPM_R1);
  r.r0 = wasm_f32x4_splat(SS_EXPM_R0);
  r.one = wasm_f32x4_splat(1.0f);
  return r;
}

/* 2^k (1 + t r(t)) given s = 2^k (+0 for k = -127). */
static inline v128_t ss_expm_poly_eval(v128_t t, v128_t s, const ss_expm_poly *r) {
  v128_t p = ss_madd_relaxed(r->r4, t, r->r3);
  p = ss_madd_relaxed(p, t, r->r2);
  p = ss_madd_relaxed(p, t, r->r1);
  p = ss_madd_relaxed(p, t, r->r0);
  return wasm_f32x4_mul(s, ss_madd_relaxed(p, t, r->one));
}

/* Row constants for a finite m (a float row max, or a double such as the
   log-sum-exp of a row, which only x <= m matters for); false when m is
   outside the range above (the caller then uses ss_exp_diff_f32x4). */
static inline bool ss_expm_init(double m, ss_expm_mode mode, ss_expm *c) {
  const double nm = rint(m * 0x1.71547652B82FEp+0);
  if (!(nm - 127.0 >= -SS_EXPM_NMAX && nm <= SS_EXPM_NMAX)) return false;
  const double ln2 = 0x1.62E42FEFA39EFp-1;
  c->xlo = wasm_f32x4_splat((float)(m - 87.7));
  c->mh = wasm_f32x4_splat((float)(m + (mode == SS_EXPM_ONE ? 0.5 - 0x1p-10 : 0.5) * ln2));
  c->log2e = wasm_f32x4_splat(0x1.715476p+0f);
  c->bias = wasm_f32x4_splat(0x1.8000FEp23f);              /* 1.5 2^23 + 127 */
  c->nbias = wasm_f32x4_splat((float)(0x1.8000FEp23 - nm)); /* exact: an integer */
  c->mln2_hi = wasm_f32x4_splat(-0x1.62E400p-1f);
  c->mln2_lo = wasm_f32x4_splat(-0x1.7F7D1Cp-20f);
  c->ntm = wasm_f32x4_splat((float)(nm * ln2 - m)); /* -tm */
  c->r = ss_expm_poly_load();
  return true;
}

/* exp(x - m) for x <= m (or -Inf), four lanes; m as given to ss_expm_init. */
static inline v128_t ss_expm_f32x4(v128_t x, const ss_expm *c) {
  x = wasm_f32x4_pmax(x, c->xlo); /* x < xlo ? xlo : x */
  const v128_t nb = ss_madd_relaxed(wasm_f32x4_sub(x, c->mh), c->log2e, c->bias);
  const v128_t s = wasm_i32x4_shl(nb, 23);          /* 2^k, +0 for k = -127 */
  const v128_t N = wasm_f32x4_sub(nb, c->nbias);    /* k + nm, exact */
  const v128_t t1 = ss_madd_relaxed(N, c->mln2_hi, x);       /* exact product */
  const v128_t tc = ss_madd_relaxed(N, c->mln2_lo, c->ntm);   /* beside t1 */
  const v128_t t = wasm_f32x4_add(t1, tc);
  return ss_expm_poly_eval(t, s, &c->r);
}

/*
 * exp(beta (x - m)) for a row that shares m and a scale beta > 0 (softmax
 * with temperature: beta = 1/T). In float, beta (x - m) would be off by up
 * to 2^-24 |z| twice (beta rounded to float, the product rounded), 4e-6
 * relative for the smallest outputs (|z| ~ 69). So the exponent is formed
 * and reduced in double, two lanes at a time, and only the reduced t is
 * rounded to float:
 *
 *   z = (x - m) beta                 (double: x - m exact, the product to
 *                                     2^-53 relative), clamped at -87.7
 *   k = round((z - (1/2 - 2^-10) ln2) log2e),  t = z - k ln2
 *   exp(beta (x - m)) = 2^k (1 + t r(t))   (the polynomial of ss_expm)
 *
 * Zeros, exp(0) = 1 and denormals as ss_expm's SS_EXPM_ONE. About twice the
 * instructions of ss_expm_f32x4 (conversions and two double lanes per
 * vector).
 */
typedef struct ss_expz {
  v128_t m, beta, zlo, off, log2e, bias, ln2; /* f64x2 */
  ss_expm_poly r;                             /* f32x4 */
} ss_expz;

/* m in double: a float row maximum, or one shifted (e.g. by -ln2 / beta for
   exp(beta (x - max)) times 2, see softplus_l1.c). */
static inline void ss_expz_init(double m, double beta, ss_expz *c) {
  const double ln2 = 0x1.62E42FEFA39EFp-1;
  c->m = wasm_f64x2_splat(m);
  c->beta = wasm_f64x2_splat(beta);
  c->zlo = wasm_f64x2_splat(-87.7);
  c->off = wasm_f64x2_splat((0.5 - 0x1p-10) * ln2);
  c->log2e = wasm_f64x2_splat(0x1.71547652B82FEp+0);
  c->bias = wasm_f64x2_splat(0x1.8p52 + 127.0); /* low word of kb: k + 127 */
  c->ln2 = wasm_f64x2_splat(ln2);
  c->r = ss_expm_poly_load();
}

/* Two lanes: kb = 1.5 2^52 + 127 + k (its low word is k + 127) and t. */
static inline v128_t ss_expz_reduce(v128_t xd, const ss_expz *c, v128_t *t) {
  const v128_t z = wasm_f64x2_pmax(wasm_f64x2_mul(wasm_f64x2_sub(xd, c->m), c->beta), c->zlo);
  const v128_t kb = wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_sub(z, c->off), c->log2e), c->bias);
  const v128_t k = wasm_f64x2_sub(kb, c->bias); /* exact */
  *t = wasm_f64x2_sub(z, wasm_f64x2_mul(k, c->ln2));
  return kb;
}

/* exp(beta (x - m)) for x <= m (or -Inf), four lanes. The float polynomial
   uses ss_madd_relaxed (the double reduction is plain SIMD128). */
static inline v128_t ss_expz_f32x4(v128_t x, const ss_expz *c) {
  v128_t t0, t1;
  const v128_t k0 = ss_expz_reduce(wasm_f64x2_promote_low_f32x4(x), c, &t0);
  const v128_t k1 = ss_expz_reduce(
      wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(x, x, 2, 3, 2, 3)), c, &t1);
  const v128_t s = wasm_i32x4_shl(wasm_i32x4_shuffle(k0, k1, 0, 2, 4, 6), 23);
  const v128_t t = wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(t0),
                                      wasm_f32x4_demote_f64x2_zero(t1), 0, 1, 4, 5);
  return ss_expm_poly_eval(t, s, &c->r);
}

#endif /* SS_HAVE_SIMD */
#endif
