/*
 * two_pass_softmax — Dukhan & Ablavatski 2020, "The Two-Pass Softmax
 * Algorithm" (arXiv:2001.04438):
 *
 *   exp(x) = m(x) 2^e(x),  e = round(x log2 e),  t = x - e ln2,
 *                          m = exp(t) in [sqrt(1/2), sqrt(2)]
 *   pass 1, one read:  S = sum_i m_i 2^{e_i}, kept as (mantissa, exponent)
 *                      (s, E): E' = max(E, e), s' = s 2^{E - E'} + m 2^{e - E'}
 *   pass 2:            y_i = m_i 2^{e_i - E} / s = exp(x_i - c),
 *                      c = log(s) + E ln2, the row's log-sum-exp
 *
 * No max pass: the exponent is carried separately, so the sum cannot
 * overflow whatever the logits are. Why it is faster: three-pass softmax
 * reads x twice and reads + writes y twice (max pass; exp pass writing y;
 * scale pass) -- 5 memory streams; two-pass reads x twice and writes y once
 * -- 3 streams, at the price of computing exp twice. It wins when memory
 * (or cache) bandwidth, not arithmetic, bounds the three-pass kernel: large
 * n, and machines with weaker memory than ALUs.
 *
 * Range: t needs e ln2 to ~2^-25 absolute; without FMA that takes an exact
 * product, so ln2 = c1 + c2 (Cody-Waite, c1 = 0x1.62e4p-1 has 15 bits):
 * e c1 is exact for |e| <= 511. Terms with e < E - 125 are dropped (below
 * 2^-125 of the largest term), so only elements with e in [E - 125, E] need
 * an accurate t, and the kernel is exact-range safe when the largest
 * exponent E lies in [-385, 511] -- the largest logit in about
 * [-266.5, 353.9], whatever the other logits are. Outside it (and as the
 * cold path for NaN / +Inf / all -Inf, which it then reports) the
 * three-pass kernel runs. -Inf logits are clamped to -512, far enough below
 * to be dropped: they contribute exactly 0 and never compute -Inf - -Inf.
 *
 * 2^k for integral k <= 0 is built from exponent bits: (max(k + 127 +
 * 1.5 2^23, 1.5 2^23)) << 23, where k = -127 gives the pattern of +0.0. The
 * terms are formed as (2m) 2^{k-1} (bias 126, coefficients doubled), which
 * is either 0 or >= 1.41 2^-126: no denormal is ever multiplied (x86 does
 * that ~100x slower and V8 runs without flush-to-zero).
 *
 * Pass 2 is exp(x - c) by softmax's row-reduced exp (ss_expm_f32x4 with c in
 * double): it follows the subnormal rule (common/softmax_row.h) exactly -- an
 * output is +0 iff its exact value is below FLT_MIN -- where folding 1/S as
 * (2m f) 2^{k + L - 1} had to drop outputs whose mantissa factor 2mf, which
 * spans two octaves, would have kept them normal (x - max = -87 gave 0
 * instead of 1.6e-38). Rows with c above ss_expm's range (max logit above
 * about 335) take the three-pass kernel.
 *
 * SIMD: a SIMD128 port of XNNPACK's AVX2 f32-raddextexp (XNNPACK has no
 * SSE/NEON/WASM version): f32x4.nearest for e, the rr2_p5 polynomial for m,
 * pmax (one instruction; V8 expands the IEEE f32x4.max), 2 accumulator
 * pairs each taking 4 vectors per step with one shared max exponent (one
 * rescale of the accumulator per 4 vectors; measured best against 2-8
 * vectors and 1-4 accumulators). Lane sums are float within a block of
 * SS_SUM_BLOCK and go into a double state per block. Pass 2 is
 * ss_exp_lse_store_simd (softmax.c), 16 wide. Relaxed build: the
 * multiply-adds of both passes are relaxed_madd (e c1 is exact, so the
 * reduction is the same fused or not). Not faster here: pass 1 as an online
 * softmax over L1-resident chunks of 2048 or 8192 (a max, then a sum of
 * ss_expm, per chunk): 5-10% slower at 2^22 and 2^24.
 * Scalar reference: the same decomposition with e ln2 in double, m = expf(t),
 * the sum in double with ldexp; outputs by ss_flush_tiny.
 * Backward: the softmax VJP (shared, softmax.c).
 * Measured (tests/c/test_two_pass_softmax.c): rel err <= 2e-6 vs float64.
 */
#include <math.h>
#include <string.h>

#include "common/check.h"
#include "common/exp_simd.h"
#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"
#include "registry/kernels.h"

#define TP_EMAX 511.0f                /* |e| <= 511: e c1 exact */
#define TP_EMIN (-TP_EMAX + 126.0f)   /* lowest accepted max exponent */
#define TP_XCLAMP (-512.0f)           /* e(-512) = -739 < -TP_EMAX */

static const float tp_log2e = 0x1.715476p+0f;

static bool tp_in_range(float E) { return E >= TP_EMIN && E <= TP_EMAX; }

/* The three-pass kernel of the same impl: out of range, or bad input. */
static ss_status fallback(ss_impl impl, const float *x, size_t n, float *y) {
  return ss_kernel_softmax.normalize[impl](x, n, NULL, y);
}

/* ---- scalar reference --------------------------------------------------- */

/* m and e of exp(x) for finite x <= 511 ln2 (x below -512 is clamped). */
static inline float tp_mexp_scalar(float v, int *e) {
  if (v < TP_XCLAMP) v = TP_XCLAMP;
  const float n = rintf(v * tp_log2e);
  *e = (int)n;
  return expf((float)((double)v - (double)n * 0x1.62e42fefa39efp-1));
}

static ss_status two_pass_scalar(const float *x, size_t n,
                                 const double *params, float *y) {
  (void)params;
  double S = 0.0;
  int E = INT32_MIN; /* nothing seen yet */
  for (size_t i = 0; i < n; i++) {
    const float v = x[i];
    if (v == -INFINITY) continue;
    /* NaN, +Inf, or e > TP_EMAX: let the three-pass kernel decide. */
    if (!(v * tp_log2e <= TP_EMAX - 0.5f)) return fallback(SS_IMPL_SCALAR, x, n, y);
    int e;
    const float m = tp_mexp_scalar(v, &e);
    if (e > E) {
      S = (E == INT32_MIN ? 0.0 : ldexp(S, E - e)) + m;
      E = e;
    } else {
      S += ldexp(m, e - E);
    }
  }
  if (E == INT32_MIN || !tp_in_range((float)E))
    return fallback(SS_IMPL_SCALAR, x, n, y);
  const double inv = 1.0 / S;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) {
      y[i] = 0.0f;
      continue;
    }
    int e;
    const float m = tp_mexp_scalar(x[i], &e);
    y[i] = ss_flush_tiny(ldexp(m, e - E) * inv);
  }
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

typedef struct tp_consts {
  v128_t xclamp, log2e, mc1, mc2, p5, p4, p3, p2, p1, two;
  v128_t bias, bias_h, floor; /* 2^k construction */
} tp_consts;

static inline tp_consts tp_consts_load(void) {
  tp_consts c;
  c.xclamp = wasm_f32x4_splat(TP_XCLAMP);
  c.log2e = wasm_f32x4_splat(tp_log2e);
  c.mc1 = wasm_f32x4_splat(-0x1.62E400p-1f);
  c.mc2 = wasm_f32x4_splat(-0x1.7F7D1Cp-20f);
  /* rr2_p5 coefficients of common/exp_simd.h times 2 (exact): tp_mexp
     returns 2 exp(t), see tp_pow2h */
  c.p5 = wasm_f32x4_splat(0x1.0F9F9Cp-6f);
  c.p4 = wasm_f32x4_splat(0x1.573A1Ap-4f);
  c.p3 = wasm_f32x4_splat(0x1.555A80p-2f);
  c.p2 = wasm_f32x4_splat(0x1.FFFDC6p-1f);
  c.p1 = wasm_f32x4_splat(0x1.FFFFF6p+0f);
  c.two = wasm_f32x4_splat(2.0f);
  c.bias = wasm_f32x4_splat(0x1.8000FEp23f);   /* 1.5 2^23 + 127 */
  c.bias_h = wasm_f32x4_splat(0x1.8000FCp23f); /* 1.5 2^23 + 126 */
  c.floor = wasm_f32x4_splat(0x1.8p23f);       /* 1.5 2^23: gives +0.0 */
  return c;
}

/* exp(x) = (2m) 2^{n-1}: returns the reduced argument t and n; the caller
   evaluates 2m = 2 + t p(t) with its own coefficients. -Inf is clamped (see
   top). pmax(x, c) = x < c ? c : x keeps a NaN x, so NaN reaches m and from
   there the lane sum. */
static inline v128_t tp_reduce(v128_t x, v128_t *n, const tp_consts *c) {
  x = wasm_f32x4_pmax(x, c->xclamp);
  const v128_t e = wasm_f32x4_nearest(wasm_f32x4_mul(x, c->log2e));
  const v128_t t = ss_madd_relaxed(e, c->mc1, x); /* exact product */
  *n = e;
  return ss_madd_relaxed(e, c->mc2, t);
}

/* Horner: q0 + t (q1 + t (q2 + t (q3 + t (q4 + t q5)))) with q0 the
   constant term; coefficients as in tp_consts (possibly scaled). */
typedef struct tp_poly {
  v128_t q5, q4, q3, q2, q1, q0;
} tp_poly;

static inline v128_t tp_eval(v128_t t, const tp_poly *q) {
  v128_t p = ss_madd_relaxed(q->q5, t, q->q4);
  p = ss_madd_relaxed(p, t, q->q3);
  p = ss_madd_relaxed(p, t, q->q2);
  p = ss_madd_relaxed(p, t, q->q1);
  return ss_madd_relaxed(p, t, q->q0);
}

/* 2^{k} for k = n - E <= 0 given bE = bias - E; 0 for k <= -127. */
static inline v128_t tp_scale(v128_t n, v128_t bE, const tp_consts *c) {
  return wasm_i32x4_shl(wasm_f32x4_pmax(wasm_f32x4_add(n, bE), c->floor), 23);
}

/* (mantissa sum, exponent) of one lane accumulator. */
typedef struct tp_acc {
  v128_t s, e;
} tp_acc;

/* Fold four vectors into one accumulator with one shared max exponent.
   Terms: (2m) 2^{n-E-1} via bias_h, so each is 0 or a normal float. */
static inline void tp_group(tp_acc *a, v128_t x0, v128_t x1, v128_t x2,
                            v128_t x3, const tp_poly *q, const tp_consts *c) {
  v128_t n0, n1, n2, n3;
  const v128_t t0 = tp_reduce(x0, &n0, c), t1 = tp_reduce(x1, &n1, c);
  const v128_t t2 = tp_reduce(x2, &n2, c), t3 = tp_reduce(x3, &n3, c);
  const v128_t m0 = tp_eval(t0, q), m1 = tp_eval(t1, q);
  const v128_t m2 = tp_eval(t2, q), m3 = tp_eval(t3, q);
  const v128_t E = wasm_f32x4_pmax(wasm_f32x4_pmax(a->e, n0),
                                   wasm_f32x4_pmax(wasm_f32x4_pmax(n1, n2), n3));
  const v128_t bEh = wasm_f32x4_sub(c->bias_h, E);
  const v128_t bE = wasm_f32x4_sub(c->bias, E);
  const v128_t s01 = wasm_f32x4_add(wasm_f32x4_mul(m0, tp_scale(n0, bEh, c)),
                                    wasm_f32x4_mul(m1, tp_scale(n1, bEh, c)));
  const v128_t s23 = wasm_f32x4_add(wasm_f32x4_mul(m2, tp_scale(n2, bEh, c)),
                                    wasm_f32x4_mul(m3, tp_scale(n3, bEh, c)));
  a->s = wasm_f32x4_add(wasm_f32x4_mul(a->s, tp_scale(a->e, bE, c)),
                        wasm_f32x4_add(s01, s23));
  a->e = E;
}

static inline float tp_hmax(v128_t v) {
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

/* Move both accumulators' sums into (S, E); false when a lane sum is NaN (a
   NaN or +Inf logit) or the max exponent is above TP_EMAX (too large a
   logit) -> three-pass. (pmax drops NaN from the exponents; the sums keep
   it: NaN * 2^k is NaN even for 2^k = 0.) The -Inf initial exponent of a
   lane gives the scale 0 through the floor. */
static inline bool tp_flush(tp_acc *a, double *S, float *E,
                            const tp_consts *c) {
  const float be = tp_hmax(wasm_f32x4_pmax(a[0].e, a[1].e));
  if (!(be <= TP_EMAX)) return false;
  const float nE = be > *E ? be : *E;
  const v128_t bE = wasm_f32x4_splat(0x1.8000FEp23f - nE);
  const double block =
      ss_hsum_f64(wasm_f32x4_mul(a[0].s, tp_scale(a[0].e, bE, c))) +
      ss_hsum_f64(wasm_f32x4_mul(a[1].s, tp_scale(a[1].e, bE, c)));
  if (isnan(block)) return false;
  if (nE > *E) *S = *E == -INFINITY ? 0.0 : ldexp(*S, (int)(*E - nE));
  *S += block;
  *E = nE;
  a[0].s = a[1].s = wasm_f32x4_splat(0.0f);
  return true;
}

static ss_status two_pass_simd(const float *x, size_t n, const double *params,
                               float *y) {
  (void)params;
  const tp_consts c = tp_consts_load();
  const tp_poly q = {c.p5, c.p4, c.p3, c.p2, c.p1, c.two};
  tp_acc a[2] = {{wasm_f32x4_splat(0.0f), wasm_f32x4_splat(-INFINITY)},
                 {wasm_f32x4_splat(0.0f), wasm_f32x4_splat(-INFINITY)}};
  double S = 0.0;
  float E = -INFINITY;
  /* pass 1: 32 floats per step; SS_SUM_BLOCK is a multiple of 32 */
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    for (; i + 32 <= end; i += 32) {
      const float *p = x + i;
      tp_group(&a[0], wasm_v128_load(p), wasm_v128_load(p + 4),
               wasm_v128_load(p + 8), wasm_v128_load(p + 12), &q, &c);
      tp_group(&a[1], wasm_v128_load(p + 16), wasm_v128_load(p + 20),
               wasm_v128_load(p + 24), wasm_v128_load(p + 28), &q, &c);
    }
    if (i < end) { /* last block's tail, padded with -Inf */
      float tmp[32];
      for (int j = 0; j < 32; j++) tmp[j] = -INFINITY;
      memcpy(tmp, x + i, (end - i) * sizeof(float));
      tp_group(&a[0], wasm_v128_load(tmp), wasm_v128_load(tmp + 4),
               wasm_v128_load(tmp + 8), wasm_v128_load(tmp + 12), &q, &c);
      tp_group(&a[1], wasm_v128_load(tmp + 16), wasm_v128_load(tmp + 20),
               wasm_v128_load(tmp + 24), wasm_v128_load(tmp + 28), &q, &c);
      i = end;
    }
    if (!tp_flush(a, &S, &E, &c)) return fallback(SS_IMPL_SIMD, x, n, y);
  }
  /* Out of range, or all -Inf (E is then the clamp's exponent). */
  if (!tp_in_range(E)) return fallback(SS_IMPL_SIMD, x, n, y);

  /* pass 2: y = exp(x - c) with c = log(S 2^E), the row's log-sum-exp, in
     double: softmax's row-reduced exp (exact zeros below FLT_MIN, no
     denormal; y <= 1). c >= max x; outside ss_expm's range (a max logit
     above about 335) the three-pass kernel runs. */
  if (!ss_exp_lse_store_simd(x, n, log(S) + (double)E * 0x1.62E42FEFA39EFp-1, y))
    return fallback(SS_IMPL_SIMD, x, n, y);
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_two_pass_softmax = {
    .name = "two_pass_softmax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Softmax, two passes, no max pass: the sum is kept as "
               "(mantissa, exponent)",
    .formula = "exp(x_i) = m_i 2^{e_i}; (s, E) = sum_i m_i 2^{e_i} with "
               "E = max e_i; y_i = m_i 2^{e_i - E} / s",
    .paper = "Dukhan & Ablavatski 2020, 'The Two-Pass Softmax Algorithm', "
             "arXiv:2001.04438",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .normalize = SS_IMPLS(two_pass),
    .normalize_vjp = SS_IMPLS(ss_softmax_vjp),
    .relaxed_simd = "relaxed_madd in both passes (fused or not): rel err <= 2e-6 vs "
                    "float64 for outputs >= 1e-30; zeros as scalar",
};

ss_status ss_two_pass_softmax(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_two_pass_softmax, ss_impl_default(), x, n,
                      NULL, 0, y);
}
