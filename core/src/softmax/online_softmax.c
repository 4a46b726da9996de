/*
 * online_softmax — Milakov & Gimelshein 2018, "Online normalizer
 * calculation for softmax" (arXiv 1805.02867):
 *
 *   pass 1, one read:  m_0 = -Inf, d_0 = 0,
 *                      m_i = max(m_{i-1}, x_i)
 *                      d_i = d_{i-1} e^{m_{i-1} - m_i} + e^{x_i - m_i}
 *   pass 2:            y_i = e^{x_i - m_n} / d_n
 *
 * Same function as the three-pass softmax, one read pass fewer (the max and
 * the sum come out of the same pass). The state (m, d) of two chunks merges
 * exactly: m = max(m_a, m_b), d = d_a e^{m_a - m} + d_b e^{m_b - m}; that is
 * the public ss_softmax_state_* API (chunks, streams, threads).
 *
 * Backward: the softmax VJP, dx = y (g - <g, y>) (shared, softmax.c).
 *
 * Scalar reference: per element, either the max grows (d <- d e^{m-x} + 1,
 * double exp) or the sum does (d += e^{x-m}, TwoSum-corrected expf as in the
 * three-pass reference); d in double.
 *
 * SIMD: per lane the same recurrence with a single exp per element: with
 * hi = max(m, x), lo = min(m, x) and e = exp(lo - hi),
 *     d <- x > m ? d e + 1 : d + e.
 * Four accumulator pairs (16 floats per step) for ILP; one compare decides
 * whether any of the 16 lanes' maxima grows -- rare once they have settled
 * -- and otherwise the step is just d += exp(x - m). A lane that has seen
 * only -Inf would compute exp(-Inf - -Inf) = NaN, so the max is floored at
 * -FLT_MAX there (then the difference is -Inf and exp gives 0). +Inf shows
 * as a +Inf lane max, NaN as a NaN lane sum (exp(NaN) is NaN): each block's
 * flush checks both and the cold path classifies the input.
 * Pass 2 of the kernel is softmax's row-reduced exp of x - (m + ln d), with
 * m + ln d in double (ss_exp_lse_store_simd, as two-pass softmax's pass 2;
 * the kernel ran 1.3x faster at 2^22 in the relaxed build than with the
 * TwoSum exp). Pass 2 of the
 * state API (and of the kernel where m + ln d is outside ss_expm's range)
 * folds 1/d into the exponent, y = exp(x - (m + ln d)) with m + ln d
 * as a float pair: no multiply, and outputs below 2^-126 are +0 (the
 * subnormal rule of common/softmax_row.h; the scalar reference and the
 * multiply path for |m| > 2^16 flush explicitly). Lane sums are
 * float within a block of SS_SUM_BLOCK, then rescaled (one SIMD exp per
 * accumulator) and added into the double state.
 * Measured (tests/c/test_online_softmax.c): rel err <= 2e-6 vs float64,
 * |sum - 1| <= 1e-5 at n = 2^20.
 */
#include <float.h>
#include <math.h>

#include "common/check.h"
#include "common/exp_simd.h"
#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"
#include "softmax/online_internal.h"

/* ---- shared pieces ------------------------------------------------------ */

void ss_online_merge(float *m, double *d, float mb, double db) {
  if (mb == -INFINITY) return; /* an empty / all -Inf state: identity */
  if (*m == -INFINITY) {
    *m = mb;
    *d = db;
  } else if (mb > *m) {
    *d = *d * exp((double)*m - (double)mb) + db;
    *m = mb;
  } else {
    /* Written so that merge(a, b) and merge(b, a) give the same bits. */
    *d = db * exp((double)mb - (double)*m) + *d;
  }
}

void ss_online_apply_scalar(const float *x, size_t n, float m, double d,
                            float *y) {
  const double inv = 1.0 / d;
  for (size_t i = 0; i < n; i++)
    y[i] = x[i] == -INFINITY
               ? 0.0f
               : ss_flush_tiny((double)ss_online_exp_diff(x[i], m) * inv);
}

/* Status of a chunk for the state API: NaN, +Inf; all -Inf is fine. */
static ss_status chunk_status(const float *x, size_t n) {
  const ss_status s = ss_check_logits(x, n, NULL);
  return s == SS_ERR_ALL_MASKED ? SS_OK : s;
}

/* ---- scalar reference --------------------------------------------------- */

/* (m, d) of x[0..n); on NaN / +Inf returns the chunk's status. */
static ss_status accumulate_scalar(const float *x, size_t n, float *m,
                                   double *d) {
  float mm = -INFINITY;
  double dd = 0.0;
  for (size_t i = 0; i < n; i++)
    if (!ss_online_step(x[i], &mm, &dd)) return chunk_status(x, n);
  *m = mm;
  *d = dd;
  return SS_OK;
}

static ss_status online_softmax_scalar(const float *x, size_t n,
                                       const double *params, float *y) {
  (void)params;
  float m = -INFINITY;
  double d = 0.0;
  const ss_status s = accumulate_scalar(x, n, &m, &d);
  if (s != SS_OK) return s;
  if (m == -INFINITY) return SS_ERR_ALL_MASKED;
  ss_online_apply_scalar(x, n, m, d, y);
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

void ss_online_lanes_init(ss_online_lanes *a) {
  for (int j = 0; j < 4; j++) {
    a->m[j] = wasm_f32x4_splat(-INFINITY);
    a->s[j] = wasm_f32x4_splat(0.0f);
  }
  a->max = -INFINITY;
  a->sum = 0.0;
}

/* One step of the per-lane recurrence (see the top comment), for a vector
   in which some lane's max grows. pmax / pmin: one instruction each, unlike
   the IEEE f32x4.max / min that V8 expands. Written as s A + B with
   {A, B} = {e, 1} so that no lane multiplies two tiny numbers (a denormal
   product, ~100x slower on x86 without flush-to-zero). */
static inline void lane_grow(v128_t x, v128_t grows, v128_t *m, v128_t *s,
                             v128_t lowest, v128_t one,
                             const ss_exp_consts *c) {
  const v128_t hi = wasm_f32x4_pmax(*m, x);
  /* pmin(x, m) = m < x ? m : x keeps a NaN x (then e and s are NaN) */
  const v128_t lo = wasm_f32x4_pmin(x, *m);
  const v128_t e = ss_exp_diff_f32x4(lo, wasm_f32x4_pmax(hi, lowest), c);
  const v128_t g1 = wasm_v128_and(grows, one); /* 1 where the max grows */
  const v128_t n1 = wasm_v128_andnot(one, grows);
  /* e <= 1: max(e, 0) = e, max(e, 1) = 1 */
  const v128_t A = wasm_f32x4_pmax(e, n1), B = wasm_f32x4_pmax(e, g1);
  *s = wasm_f32x4_add(wasm_f32x4_mul(*s, A), B);
  *m = hi;
}

/* The common step: no lane's max grows, so d += e^{x - m}. The floor keeps
   an all -Inf lane at exp(-Inf - -FLT_MAX) = 0. A NaN x lands here (x > m
   is false) and makes e, hence s, NaN: the flush sees it. */
static inline v128_t lane_add(v128_t x, v128_t m, v128_t s, v128_t lowest,
                              const ss_exp_consts *c) {
  return wasm_f32x4_add(s, ss_exp_diff_f32x4(x, wasm_f32x4_pmax(m, lowest), c));
}

static inline void lane_step(v128_t x, v128_t *m, v128_t *s, v128_t lowest,
                             v128_t one, const ss_exp_consts *c) {
  const v128_t grows = wasm_f32x4_lt(*m, x);
  if (wasm_v128_any_true(grows))
    lane_grow(x, grows, m, s, lowest, one, c);
  else
    *s = lane_add(x, *m, *s, lowest, c);
}

/* Horizontal max of four lanes (NaN is caught through the sums). */
static inline float hmax(v128_t v) {
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

/* Move the lane sums into the double state; false on NaN / +Inf. */
static inline bool flush(ss_online_lanes *a, const v128_t *m, v128_t *s,
                         const ss_exp_consts *c) {
  const float bm = hmax(wasm_f32x4_pmax(wasm_f32x4_pmax(m[0], m[1]),
                                        wasm_f32x4_pmax(m[2], m[3])));
  const float M = bm > a->max ? bm : a->max;
  if (M == INFINITY) return false;
  if (M == -INFINITY) { /* only -Inf (or NaN) so far: the sums are 0 or NaN */
    const v128_t z = wasm_v128_or(wasm_v128_or(s[0], s[1]), wasm_v128_or(s[2], s[3]));
    return !wasm_v128_any_true(z);
  }
  const v128_t vM = wasm_f32x4_splat(M);
  /* Lane j holds s_j relative to its own max m_j <= M: scale by e^{m_j - M}
     (a lane at -Inf has s_j = 0 and factor 0; a NaN s_j stays NaN). */
  const v128_t t01 = wasm_f32x4_add(wasm_f32x4_mul(s[0], ss_exp_diff_f32x4(m[0], vM, c)),
                                    wasm_f32x4_mul(s[1], ss_exp_diff_f32x4(m[1], vM, c)));
  const v128_t t23 = wasm_f32x4_add(wasm_f32x4_mul(s[2], ss_exp_diff_f32x4(m[2], vM, c)),
                                    wasm_f32x4_mul(s[3], ss_exp_diff_f32x4(m[3], vM, c)));
  const double block = ss_hsum_f64(t01) + ss_hsum_f64(t23);
  if (isnan(block)) return false;
  if (M > a->max) /* a->max = -Inf: sum is 0 and exp(-Inf) = 0 */
    a->sum = a->sum * exp((double)a->max - (double)M);
  a->sum += block;
  a->max = M;
  for (int j = 0; j < 4; j++) s[j] = wasm_f32x4_splat(0.0f);
  return true;
}

bool ss_online_lanes_add(ss_online_lanes *a, const float *x, size_t n) {
  const ss_exp_consts c = ss_exp_consts_load();
  const v128_t lowest = wasm_f32x4_splat(-FLT_MAX);
  const v128_t one = wasm_f32x4_splat(1.0f);
  v128_t m[4] = {a->m[0], a->m[1], a->m[2], a->m[3]};
  v128_t s[4] = {a->s[0], a->s[1], a->s[2], a->s[3]};
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    for (; i + 16 <= end; i += 16) {
      const v128_t x0 = wasm_v128_load(x + i), x1 = wasm_v128_load(x + i + 4);
      const v128_t x2 = wasm_v128_load(x + i + 8), x3 = wasm_v128_load(x + i + 12);
      const v128_t g0 = wasm_f32x4_lt(m[0], x0), g1 = wasm_f32x4_lt(m[1], x1);
      const v128_t g2 = wasm_f32x4_lt(m[2], x2), g3 = wasm_f32x4_lt(m[3], x3);
      if (wasm_v128_any_true(wasm_v128_or(wasm_v128_or(g0, g1), wasm_v128_or(g2, g3)))) {
        /* rare once the maxima have settled */
        lane_grow(x0, g0, &m[0], &s[0], lowest, one, &c);
        lane_grow(x1, g1, &m[1], &s[1], lowest, one, &c);
        lane_grow(x2, g2, &m[2], &s[2], lowest, one, &c);
        lane_grow(x3, g3, &m[3], &s[3], lowest, one, &c);
      } else {
        s[0] = lane_add(x0, m[0], s[0], lowest, &c);
        s[1] = lane_add(x1, m[1], s[1], lowest, &c);
        s[2] = lane_add(x2, m[2], s[2], lowest, &c);
        s[3] = lane_add(x3, m[3], s[3], lowest, &c);
      }
    }
    for (; i + 4 <= end; i += 4)
      lane_step(wasm_v128_load(x + i), &m[0], &s[0], lowest, one, &c);
    if (i < end) { /* -Inf padding is a no-op step */
      lane_step(ss_load_partial(x + i, end - i, -INFINITY), &m[1], &s[1],
                lowest, one, &c);
      i = end;
    }
    if (!flush(a, m, s, &c)) return false;
  }
  for (int j = 0; j < 4; j++) {
    a->m[j] = m[j];
    a->s[j] = s[j];
  }
  return true;
}

/* y = exp(x - m) / d = exp(x - (m + ln d)): the divisor goes into the
   exponent as a float pair M = mh + ml (ml the rounding error of mh), so
   there is no multiply, and outputs below 2^-126 are 0 rather than
   denormals (which x86 produces ~2x slower here; V8 has no flush-to-zero).
   ml <= ulp(mh)/2 joins the TwoSum correction inside exp; for |m| > 2^16
   that could push the reduced argument off the polynomial's interval, so
   there the plain exp(x - m) * (1/d) runs instead. */
static void apply_mul_simd(const float *x, size_t n, float m, double d,
                           float *y) {
  const ss_exp_consts c = ss_exp_consts_load();
  const v128_t vm = wasm_f32x4_splat(m);
  const v128_t vinv = wasm_f32x4_splat((float)(1.0 / d));
  /* the subnormal rule: e * inv below FLT_MIN is +0, never formed */
  const v128_t vth = wasm_f32x4_splat((float)((double)FLT_MIN * d * (1.0 + 0x1p-21)));
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t e = ss_exp_diff_f32x4(wasm_v128_load(x + i), vm, &c);
    wasm_v128_store(y + i, wasm_f32x4_mul(wasm_v128_and(e, wasm_f32x4_ge(e, vth)), vinv));
  }
  if (i < n) {
    const v128_t e = ss_exp_diff_f32x4(ss_load_partial(x + i, n - i, -INFINITY), vm, &c);
    ss_store_partial(y + i, n - i, wasm_f32x4_mul(wasm_v128_and(e, wasm_f32x4_ge(e, vth)), vinv));
  }
}

void ss_online_apply_simd(const float *x, size_t n, float m, double d,
                          float *y) {
  if (!(fabsf(m) <= 0x1p16f)) {
    apply_mul_simd(x, n, m, d, y);
    return;
  }
  const ss_exp_consts c = ss_exp_consts_load();
  const double M = (double)m + log(d); /* >= m: d >= 1 */
  const float mh = (float)M;
  const v128_t vmh = wasm_f32x4_splat(mh);
  const v128_t vml = wasm_f32x4_splat((float)(M - (double)mh));
  size_t i = 0;
  /* The correction e - ml can reach 1.5 ulp(d); on lanes below exp's
     cutoff (clamped there, result masked to 0) it could push the clamped
     argument under ln 2^-126 and make a denormal -- a ~2x slowdown at a
     logit spread of 100 -- so it is dropped on those lanes. */
#define SS_APPLY(v)                                                       \
  do {                                                                    \
    v128_t e_;                                                            \
    const v128_t d_ = ss_two_diff((v), vmh, &e_);                          \
    const v128_t k_ = wasm_f32x4_ge(d_, c.denorm_cutoff);                 \
    (v) = ss_exp_nonpos_corr_f32x4(                                       \
        d_, wasm_v128_and(wasm_f32x4_sub(e_, vml), k_), &c);              \
  } while (0)
  for (; i + 16 <= n; i += 16) {
    v128_t a0 = wasm_v128_load(x + i), a1 = wasm_v128_load(x + i + 4);
    v128_t a2 = wasm_v128_load(x + i + 8), a3 = wasm_v128_load(x + i + 12);
    SS_APPLY(a0);
    SS_APPLY(a1);
    SS_APPLY(a2);
    SS_APPLY(a3);
    wasm_v128_store(y + i, a0);
    wasm_v128_store(y + i + 4, a1);
    wasm_v128_store(y + i + 8, a2);
    wasm_v128_store(y + i + 12, a3);
  }
  for (; i + 4 <= n; i += 4) {
    v128_t a = wasm_v128_load(x + i);
    SS_APPLY(a);
    wasm_v128_store(y + i, a);
  }
  if (i < n) {
    v128_t a = ss_load_partial(x + i, n - i, -INFINITY);
    SS_APPLY(a);
    ss_store_partial(y + i, n - i, a);
  }
#undef SS_APPLY
}

static ss_status accumulate_simd(const float *x, size_t n, float *m,
                                 double *d) {
  ss_online_lanes a;
  ss_online_lanes_init(&a);
  if (!ss_online_lanes_add(&a, x, n)) return chunk_status(x, n);
  *m = a.max;
  *d = a.sum;
  return SS_OK;
}

static ss_status online_softmax_simd(const float *x, size_t n,
                                     const double *params, float *y) {
  (void)params;
  float m = -INFINITY;
  double d = 0.0;
  const ss_status s = accumulate_simd(x, n, &m, &d);
  if (s != SS_OK) return s;
  if (m == -INFINITY) return SS_ERR_ALL_MASKED;
  /* Pass 2: y = exp(x - (m + ln d)) by softmax's row-reduced exp
     (ss_exp_lse_store_simd), unless d = 1 (n = 1, or every other entry
     negligible: y at the max must then be exactly 1, which that exp's
     exp(0) can miss by an ulp) or m + ln d is outside its range: then the
     state API's pass. */
  if (d == 1.0 || !ss_exp_lse_store_simd(x, n, (double)m + log(d), y))
    ss_online_apply_simd(x, n, m, d, y);
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- public state API --------------------------------------------------- */

/* A state is valid when it is empty (max -Inf, sum 0) or has a finite max
   and 1 <= sum < Inf: the element at the max contributes exactly e^0 = 1. */
static bool state_valid(const ss_softmax_state *s) {
  if (s->max == -INFINITY) return s->sum == 0.0;
  return isfinite(s->max) && s->sum >= 1.0 && s->sum < INFINITY;
}

/* A chunk's max for ss_softmax_state_apply; SS_ERR_NAN for a NaN. */
static ss_status chunk_max_scalar(const float *x, size_t n, float *cm) {
  const ss_status st = chunk_status(x, n);
  if (st != SS_OK) return st;
  float m = -INFINITY;
  for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  *cm = m;
  return SS_OK;
}
#if SS_HAVE_SIMD
static ss_status chunk_max_simd(const float *x, size_t n, float *cm) {
  *cm = ss_max_simd(x, n); /* NaN-propagating */
  return isnan(*cm) ? SS_ERR_NAN : SS_OK;
}
#endif

static bool impl_ok(ss_impl impl) {
  return (unsigned)impl < SS_IMPL_COUNT && ss_impl_available(impl);
}

void ss_softmax_state_init(ss_softmax_state *s) {
  if (!s) return;
  s->max = -INFINITY;
  s->sum = 0.0;
}

ss_status ss_softmax_state_update(ss_softmax_state *s, ss_impl impl,
                                  const float *x, size_t n) {
  if (!s || !x) return SS_ERR_NULL;
  if (!impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  ss_status st = ss_check_n(n);
  if (st != SS_OK) return st;
  if (!state_valid(s)) return SS_ERR_DOMAIN;
  float m = -INFINITY;
  double d = 0.0;
  st = SS_BY_IMPL(impl, accumulate)(x, n, &m, &d);
  if (st != SS_OK) return st;
  ss_online_merge(&s->max, &s->sum, m, d);
  return SS_OK;
}

ss_status ss_softmax_state_merge(ss_softmax_state *a,
                                 const ss_softmax_state *b) {
  if (!a || !b) return SS_ERR_NULL;
  if (!state_valid(a) || !state_valid(b)) return SS_ERR_DOMAIN;
  ss_online_merge(&a->max, &a->sum, b->max, b->sum);
  return SS_OK;
}

ss_status ss_softmax_state_apply(const ss_softmax_state *s, ss_impl impl,
                                 const float *x, size_t n, float *y) {
  if (!s || !x || !y) return SS_ERR_NULL;
  if (!impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  ss_status st = ss_check_n(n);
  if (st != SS_OK) return st;
  if (!state_valid(s)) return SS_ERR_DOMAIN;
  if (s->max == -INFINITY) return SS_ERR_ALL_MASKED;
  /* The chunk must be covered by the state: a logit above its max would
     make exp(x - max) overflow. One read of the chunk, before any write. */
  float cm;
  st = SS_BY_IMPL(impl, chunk_max)(x, n, &cm);
  if (st != SS_OK) return st;
  if (cm == INFINITY) return SS_ERR_POS_INF;
  if (cm > s->max) return SS_ERR_DOMAIN;
  SS_BY_IMPL(impl, ss_online_apply)(x, n, s->max, s->sum, y);
  return SS_OK;
}

/* ---- registry entry ----------------------------------------------------- */

const ss_kernel_info ss_kernel_online_softmax = {
    .name = "online_softmax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Softmax, two passes: running max and rescaled sum, then scale",
    .formula = "m_i = max(m_{i-1}, x_i), d_i = d_{i-1} exp(m_{i-1} - m_i) + "
               "exp(x_i - m_i); y_i = exp(x_i - m_n) / d_n",
    .paper = "Milakov & Gimelshein 2018, 'Online normalizer calculation for "
             "softmax', arXiv:1805.02867",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .normalize = SS_IMPLS(online_softmax),
    .normalize_vjp = SS_IMPLS(ss_softmax_vjp),
    .relaxed_simd = "pass 2 by softmax's relaxed_madd exp (fused or not): rel err <= 2e-6 "
                    "vs float64 for outputs >= 1e-30; zeros as scalar",
};
