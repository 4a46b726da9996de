/*
 * Power sums behind the Renyi and Tsallis entropies: sum_i p_i^a for a > 0.
 *
 * Two hazards, two cures:
 *  - range: p^a under- or overflows for large a (0.5^1000 is below even
 *    double's range). So everything is scaled by M = max p: q = p / M <= 1,
 *    sum p^a = M^a sum q^a, and the largest term q^a is exactly 1.
 *  - cancellation: the entropies are (something -> 0) / (a - 1) near a = 1,
 *    and float32 q^a carries a relative error ~ a 2^-24 |log q| that the
 *    division by |1 - a| amplifies. So for a < 1 + SS_POWER_NEAR the kernels
 *    use dq = sum (q^a - q) instead, each term computed to float32 relative
 *    accuracy of the term itself: q expm1(b log q) (b = a - 1) when
 *    |b log q| < 0.5, else exp(a log q) - q, where q^a / q >= e^0.5 or
 *    <= e^-0.5 so the difference loses at most ~1.5 bits. Then
 *    sum q^a = s1 / M + dq, and for a < 1 both parts are >= 0 (no
 *    cancellation at all); just above 1 dq is small.
 *    For a >= 1 + SS_POWER_NEAR: t = sum q^a directly (>= 1).
 *
 * log q: for M <= 2^40 (every probability vector and most weights)
 * log q = log fl(p / M), error ~2^-24 (1 + |log q|) independent of M; tiny
 * q are computed from p 2^64 so they keep 24 significant bits. For larger M,
 * p / M could underflow beyond that rescue, so log q = log p - log M, error
 * ~2^-24 (|log p| + |log M|).
 *
 * Scalar reference: double log / exp / expm1. SIMD: float32 log
 * (common/log_simd.h) and exp (common/exp_simd.h, valid here because
 * a log q <= 0), a degree-8 Taylor expm1 on |x| < 0.5 (truncation 1e-8
 * relative), sums in float64 lanes.
 */
#include <math.h>

#include "common/exp_simd.h"
#include "common/log_simd.h"
#include "common/vec_simd.h"
#include "measure/measure_internal.h"

void ss_power_sums_scalar(const float *p, size_t n, float max, double a,
                          ss_power_sums *ps) {
  const double b = a - 1.0, m = (double)max;
  double s1 = 0.0, t = 0.0, dq = 0.0;
  const bool near = b < SS_POWER_NEAR;
  for (size_t i = 0; i < n; i++) {
    s1 += p[i];
    if (p[i] == 0.0f) continue; /* 0^a = 0 for a > 0 */
    const double q = (double)p[i] / m, lq = log(q);
    if (near)
      dq += q * expm1(b * lq);
    else
      t += exp(a * lq);
  }
  ps->s1 = s1;
  ps->log_m = log(m);
  ps->t = t;
  ps->dq = dq;
  ps->near = near;
}

const ss_param_info ss_alpha_param[1] = {{
    .name = "alpha",
    .type = SS_PARAM_FLOAT,
    .min = 0.0,
    .max = 1e3,
    .min_open = true,
    .max_open = false,
    .def = 2.0,
    .ui_min = 0.1,
    .ui_max = 10.0,
    .log_scale = true,
    .help = "order a > 0: small a counts the support, large a looks at the "
            "largest p; a = 1 is Shannon",
}};

#if SS_HAVE_SIMD

/* expm1(x) for |x| < 0.5: Taylor to degree 8. */
static inline v128_t expm1_small(v128_t x) {
  v128_t p = wasm_f32x4_splat(1.0f / 40320);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, x), wasm_f32x4_splat(1.0f / 5040));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, x), wasm_f32x4_splat(1.0f / 720));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, x), wasm_f32x4_splat(1.0f / 120));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, x), wasm_f32x4_splat(1.0f / 24));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, x), wasm_f32x4_splat(1.0f / 6));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, x), wasm_f32x4_splat(0.5f));
  return wasm_f32x4_add(x, wasm_f32x4_mul(wasm_f32x4_mul(x, x), p));
}

typedef struct power_consts {
  ss_exp_consts e;
  v128_t m, log_m, a, b, zero, half, tiny, two64, ln2_64;
} power_consts;

/* The term of 4 lanes: q^a (far) or q^a - q (near); zero entries give 0.
   by_diff: log q = log p - log M (M > 2^40), else log(p / M). */
static inline v128_t power_term(v128_t x, bool near, bool by_diff,
                                const power_consts *c) {
  const v128_t z = wasm_f32x4_eq(x, c->zero);
  const v128_t q = wasm_f32x4_div(x, c->m);
  v128_t lq;
  if (by_diff) {
    lq = wasm_f32x4_sub(ss_log_pos_f32x4(x), c->log_m);
  } else {
    /* A tiny q = p / M rounds to a denormal with few significant bits (or
       to 0): divide p 2^64 (exact) instead and take 64 ln2 off the log.
       With M <= 2^40 and p >= 2^-149, p 2^64 / M >= 2^-125 is normal, and
       q < 2^-100 means p < 2^-60, so p 2^64 cannot overflow. */
    const v128_t tiny = wasm_f32x4_lt(q, c->tiny);
    const v128_t qs = wasm_v128_bitselect(
        wasm_f32x4_div(wasm_f32x4_mul(x, c->two64), c->m), q, tiny);
    lq = wasm_f32x4_sub(ss_log_pos_f32x4(qs), wasm_v128_and(tiny, c->ln2_64));
  }
  lq = wasm_f32x4_min(lq, c->zero); /* log q <= 0, also in the last bit */
  const v128_t e = ss_exp_nonpos_f32x4(wasm_f32x4_mul(c->a, lq), &c->e);
  if (!near) return wasm_v128_andnot(e, z);
  const v128_t y = wasm_f32x4_mul(c->b, lq);
  const v128_t small = wasm_f32x4_lt(wasm_f32x4_abs(y), c->half);
  const v128_t t = wasm_v128_bitselect(wasm_f32x4_mul(q, expm1_small(y)),
                                       wasm_f32x4_sub(e, q), small);
  return wasm_v128_andnot(t, z);
}

static inline void power_loop(const float *p, size_t n, bool near, bool by_diff,
                              const power_consts *c, double *s1, double *acc) {
  v128_t s_lo = wasm_f64x2_splat(0.0), s_hi = s_lo, t_lo = s_lo, t_hi = s_lo;
  for (size_t i = 0; i < n; i += 4) { /* tail padded with 0: adds 0 */
    const v128_t x = n - i >= 4 ? wasm_v128_load(p + i) : ss_load_partial(p + i, n - i, 0.0f);
    ss_acc_f64(&s_lo, &s_hi, x);
    ss_acc_f64(&t_lo, &t_hi, power_term(x, near, by_diff, c));
  }
  *s1 = ss_hsum_f64x2(s_lo, s_hi);
  *acc = ss_hsum_f64x2(t_lo, t_hi);
}

void ss_power_sums_simd(const float *p, size_t n, float max, double a,
                        ss_power_sums *ps) {
  power_consts c;
  c.e = ss_exp_consts_load();
  c.m = wasm_f32x4_splat(max);
  c.log_m = ss_log_pos_f32x4(c.m);
  c.a = wasm_f32x4_splat((float)a);
  c.b = wasm_f32x4_splat((float)(a - 1.0));
  c.zero = wasm_f32x4_splat(0.0f);
  c.half = wasm_f32x4_splat(0.5f);
  c.tiny = wasm_f32x4_splat(0x1p-100f);
  c.two64 = wasm_f32x4_splat(0x1p64f);
  c.ln2_64 = wasm_f32x4_splat((float)(64 * 0.69314718055994531));
  ps->near = a - 1.0 < SS_POWER_NEAR;
  ps->t = ps->dq = 0.0;
  const bool by_diff = max > 0x1p40f;
  /* the four instantiations, so the loop has no per-element branches */
  if (ps->near)
    if (by_diff) power_loop(p, n, true, true, &c, &ps->s1, &ps->dq);
    else power_loop(p, n, true, false, &c, &ps->s1, &ps->dq);
  else if (by_diff) power_loop(p, n, false, true, &c, &ps->s1, &ps->t);
  else power_loop(p, n, false, false, &c, &ps->s1, &ps->t);
  /* Far and by_diff: t was scaled by the float32 log M, so that one undoes
     it; otherwise q = fl(p / M) is scaled by M itself: exact log M. */
  ps->log_m = !ps->near && by_diff ? (double)wasm_f32x4_extract_lane(c.log_m, 0)
                                   : log((double)max);
}

#endif
