/*
 * two_pass_softmax — Dukhan & Ablavatski 2020, "The Two-Pass Softmax
 * Algorithm" (arXiv:2001.04438):
 *
 *   exp(x) = m(x) 2^e(x),  e = round(x log2 e),  t = x - e ln2,
 *                          m = exp(t) in [sqrt(1/2), sqrt(2)]
 *   pass 1, one read:  S = sum_i m_i 2^{e_i}, kept as (mantissa, exponent)
 *                      (s, E): E' = max(E, e), s' = s 2^{E - E'} + m 2^{e - E'}
 *   pass 2:            y_i = m_i 2^{e_i - E} / s      (m_i, e_i recomputed)
 *
 * No max pass: the exponent is carried separately, so the sum cannot
 * overflow whatever the logits are. Why it is faster: three-pass softmax
 * reads x twice and reads + writes y twice (max pass; exp pass writing y;
 * scale pass) -- 5 memory streams; two-pass reads x twice and writes y once
 * -- 3 streams. At large n softmax is memory-bound, so fewer streams win
 * even though two-pass computes exp twice.
 *
 * Range: t needs e ln2 to ~2^-25 absolute. Without FMA that takes an exact
 * product, so ln2 is split in three (Cody-Waite): c1 = 0x1.62p-1 (8 bits),
 * c2 = 0x1.c8p-10 (6 bits), c3 = 0x1.7f7d1cp-20; e c1 and e c2 are exact for
 * |e| < 2^16. The result is therefore computed this way when the largest
 * exponent E lies in [-65535 + 126, 65535] -- the largest logit in about
 * [-45337, 45425] -- and by the three-pass kernel otherwise (also the cold
 * path for NaN / +Inf / all -Inf, which the kernel then reports).
 * Elements with e < E - 126 are flushed to 0 (true contribution < 2^-126
 * relative), so they need no accuracy; -Inf logits are clamped to -2^16 and
 * land there (contributing exactly 0, no NaN from -Inf - -Inf).
 *
 * 2^k for integral k <= 0 is built from exponent bits: (max(k, -127) + 127
 * + 1.5 2^23) << 23; k = -127 gives the bit pattern of +0.0.
 *
 * SIMD: this is a SIMD128 port of XNNPACK's AVX2 f32-raddextexp (there is no
 * SSE/NEON/WASM version there): nearest-rounding (f32x4.nearest) for e,
 * rr2_p5 polynomial for m, pmax (one instruction; V8 expands the IEEE
 * f32x4.max), 2 accumulator pairs each taking 4 vectors per
 * step with one shared max exponent (one rescale of the accumulator per 4
 * vectors). Lane sums are float within a block of SS_SUM_BLOCK and go into a
 * double state per block. Pass 2 runs 16 wide.
 * Scalar reference: the same decomposition with e ln2 in double, m = expf(t),
 * the sum in double with ldexp.
 * Backward: the softmax VJP (shared, softmax.c).
 * Measured (tests/c/test_two_pass_softmax.c): rel err <= 2e-6 vs float64.
 */
#include <math.h>
#include <string.h>

#include "common/check.h"
#include "common/vec_simd.h"
#include "registry/kernels.h"
#include "softmax/softmax_internal.h"

#define TP_EMAX 65535.0f              /* |e| < 2^16: e c1, e c2 exact */
#define TP_EMIN (-TP_EMAX + 126.0f)   /* lowest accepted max exponent */
#define TP_XCLAMP (-0x1p16f)          /* e(-2^16) = -94548 < -TP_EMAX */

static const float tp_log2e = 0x1.715476p+0f;

static bool tp_in_range(float E) { return E >= TP_EMIN && E <= TP_EMAX; }

/* The three-pass kernel of the same impl: out of range, or bad input. */
static ss_status fallback(ss_impl impl, const float *x, size_t n, float *y) {
  return ss_kernel_softmax.normalize[impl](x, n, NULL, y);
}

/* ---- scalar reference --------------------------------------------------- */

/* m and e of exp(x) for finite x in [-2^16, 2^16 ln2]. */
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
    y[i] = (float)(ldexp(m, e - E) * inv);
  }
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

typedef struct tp_consts {
  v128_t xclamp, log2e, mc1, mc2, mc3, p5, p4, p3, p2, p1, one, kmin, magic;
} tp_consts;

static inline tp_consts tp_consts_load(void) {
  tp_consts c;
  c.xclamp = wasm_f32x4_splat(TP_XCLAMP);
  c.log2e = wasm_f32x4_splat(tp_log2e);
  c.mc1 = wasm_f32x4_splat(-0x1.62p-1f);
  c.mc2 = wasm_f32x4_splat(-0x1.c8p-10f);
  c.mc3 = wasm_f32x4_splat(-0x1.7f7d1cp-20f);
  /* rr2_p5 coefficients, as in common/exp_simd.h */
  c.p5 = wasm_f32x4_splat(0x1.0F9F9Cp-7f);
  c.p4 = wasm_f32x4_splat(0x1.573A1Ap-5f);
  c.p3 = wasm_f32x4_splat(0x1.555A80p-3f);
  c.p2 = wasm_f32x4_splat(0x1.FFFDC6p-2f);
  c.p1 = wasm_f32x4_splat(0x1.FFFFF6p-1f);
  c.one = wasm_f32x4_splat(1.0f);
  c.kmin = wasm_f32x4_splat(-127.0f);
  c.magic = wasm_f32x4_splat(0x1.8000FEp23f); /* 1.5 2^23 + 127 */
  return c;
}

/* exp(x) = m 2^n; -Inf is clamped (see top). pmax(x, c) = x < c ? c : x
   keeps a NaN x, so NaN reaches m and from there the lane sum. */
static inline v128_t tp_mexp(v128_t x, v128_t *n, const tp_consts *c) {
  x = wasm_f32x4_pmax(x, c->xclamp);
  const v128_t e = wasm_f32x4_nearest(wasm_f32x4_mul(x, c->log2e));
  v128_t t = wasm_f32x4_add(wasm_f32x4_mul(e, c->mc1), x); /* exact */
  t = wasm_f32x4_add(wasm_f32x4_mul(e, c->mc2), t);
  t = wasm_f32x4_add(wasm_f32x4_mul(e, c->mc3), t);
  v128_t p = wasm_f32x4_add(wasm_f32x4_mul(c->p5, t), c->p4);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, t), c->p3);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, t), c->p2);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, t), c->p1);
  *n = e;
  return wasm_f32x4_add(wasm_f32x4_mul(t, p), c->one);
}

/* 2^k for integral k <= 0, 0 for k <= -127. */
static inline v128_t tp_pow2(v128_t k, const tp_consts *c) {
  return wasm_i32x4_shl(wasm_f32x4_add(wasm_f32x4_pmax(k, c->kmin), c->magic), 23);
}

/* (mantissa sum, exponent) of one lane accumulator. */
typedef struct tp_acc {
  v128_t s, e;
} tp_acc;

/* Fold four vectors into one accumulator with one shared max exponent. */
static inline void tp_group(tp_acc *a, v128_t x0, v128_t x1, v128_t x2,
                            v128_t x3, const tp_consts *c) {
  v128_t n0, n1, n2, n3;
  const v128_t m0 = tp_mexp(x0, &n0, c), m1 = tp_mexp(x1, &n1, c);
  const v128_t m2 = tp_mexp(x2, &n2, c), m3 = tp_mexp(x3, &n3, c);
  const v128_t E = wasm_f32x4_pmax(wasm_f32x4_pmax(a->e, n0),
                                   wasm_f32x4_pmax(wasm_f32x4_pmax(n1, n2), n3));
  const v128_t t01 = wasm_f32x4_add(wasm_f32x4_mul(m0, tp_pow2(wasm_f32x4_sub(n0, E), c)),
                                    wasm_f32x4_mul(m1, tp_pow2(wasm_f32x4_sub(n1, E), c)));
  const v128_t t23 = wasm_f32x4_add(wasm_f32x4_mul(m2, tp_pow2(wasm_f32x4_sub(n2, E), c)),
                                    wasm_f32x4_mul(m3, tp_pow2(wasm_f32x4_sub(n3, E), c)));
  a->s = wasm_f32x4_add(wasm_f32x4_mul(a->s, tp_pow2(wasm_f32x4_sub(a->e, E), c)),
                        wasm_f32x4_add(t01, t23));
  a->e = E;
}

/* y = m 2^{n - E} / S for pass 2. */
static inline v128_t tp_out(const tp_consts *c, v128_t vE, v128_t vinv,
                            v128_t x) {
  v128_t n;
  const v128_t m = tp_mexp(x, &n, c);
  return wasm_f32x4_mul(wasm_f32x4_mul(m, vinv),
                        tp_pow2(wasm_f32x4_sub(n, vE), c));
}

static inline float tp_hmax(v128_t v) {
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

/* Move both accumulators' sums into (S, E); false when a lane sum is NaN (a
   NaN or +Inf logit) or the max exponent is above TP_EMAX (too large a
   logit) -> three-pass. (pmax drops NaN from the exponents; the sums keep
   it: NaN * 2^k is NaN even for 2^k = 0.) */
static inline bool tp_flush(tp_acc *a, double *S, float *E,
                            const tp_consts *c) {
  const float be = tp_hmax(wasm_f32x4_pmax(a[0].e, a[1].e));
  if (!(be <= TP_EMAX)) return false;
  const float nE = be > *E ? be : *E;
  const v128_t vE = wasm_f32x4_splat(nE);
  const double block =
      ss_hsum_f64(wasm_f32x4_mul(a[0].s, tp_pow2(wasm_f32x4_sub(a[0].e, vE), c))) +
      ss_hsum_f64(wasm_f32x4_mul(a[1].s, tp_pow2(wasm_f32x4_sub(a[1].e, vE), c)));
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
               wasm_v128_load(p + 8), wasm_v128_load(p + 12), &c);
      tp_group(&a[1], wasm_v128_load(p + 16), wasm_v128_load(p + 20),
               wasm_v128_load(p + 24), wasm_v128_load(p + 28), &c);
    }
    if (i < end) { /* last block's tail, padded with -Inf */
      float tmp[32];
      for (int j = 0; j < 32; j++) tmp[j] = -INFINITY;
      memcpy(tmp, x + i, (end - i) * sizeof(float));
      tp_group(&a[0], wasm_v128_load(tmp), wasm_v128_load(tmp + 4),
               wasm_v128_load(tmp + 8), wasm_v128_load(tmp + 12), &c);
      tp_group(&a[1], wasm_v128_load(tmp + 16), wasm_v128_load(tmp + 20),
               wasm_v128_load(tmp + 24), wasm_v128_load(tmp + 28), &c);
      i = end;
    }
    if (!tp_flush(a, &S, &E, &c)) return fallback(SS_IMPL_SIMD, x, n, y);
  }
  /* All -Inf (E is then the clamp's exponent) or all far below 0. */
  if (!tp_in_range(E)) return fallback(SS_IMPL_SIMD, x, n, y);

  /* pass 2 */
  const v128_t vE = wasm_f32x4_splat(E);
  const v128_t vinv = wasm_f32x4_splat((float)(1.0 / S));
  i = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t y0 = tp_out(&c, vE, vinv, wasm_v128_load(x + i));
    const v128_t y1 = tp_out(&c, vE, vinv, wasm_v128_load(x + i + 4));
    const v128_t y2 = tp_out(&c, vE, vinv, wasm_v128_load(x + i + 8));
    const v128_t y3 = tp_out(&c, vE, vinv, wasm_v128_load(x + i + 12));
    wasm_v128_store(y + i, y0);
    wasm_v128_store(y + i + 4, y1);
    wasm_v128_store(y + i + 8, y2);
    wasm_v128_store(y + i + 12, y3);
  }
  for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, tp_out(&c, vE, vinv, wasm_v128_load(x + i)));
  if (i < n) ss_store_partial(y + i, n - i, tp_out(&c, vE, vinv, ss_load_partial(x + i, n - i, -INFINITY)));
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
    .normalize = {two_pass_scalar, SS_SIMD(two_pass_simd)},
    .normalize_vjp = {ss_softmax_vjp_scalar, SS_SIMD(ss_softmax_vjp_simd)},
};

ss_status ss_two_pass_softmax(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_two_pass_softmax, ss_impl_default(), x, n,
                      NULL, 0, y);
}
