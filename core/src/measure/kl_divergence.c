/*
 * kl_divergence — Kullback-Leibler divergence of p from q, in nats
 * (Kullback & Leibler 1951):
 *
 *   KL(p || q) = sum_i p_i log(p_i / q_i),
 *   terms with p_i = 0 are 0; p_i > 0 = q_i makes KL = +Inf (status SS_OK).
 *
 * KL >= 0 (Gibbs) when sum p = sum q; p and q are used as given, so for
 * unnormalized weights the value can be negative. KL(p || p) = 0 exactly in
 * both impls (the two logs are the same float function of the same input).
 *
 * Scalar reference: double log(p/q). SIMD: log p - log q with the float32 log
 * of common/log_simd.h, products and sums in float64 lanes:
 * |err| <= ~1.5e-7 * sum_i p_i (|log p_i| + |log q_i|) (asserted with
 * 4e-7 in tests/c/test_measures.c; measured 1.1e-7 relative to KL there).
 */
#include <math.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/log_simd.h"
#include "common/vec_simd.h"
#include "measure/measure_internal.h"

static ss_status kl_scalar(const float *p, const float *q, size_t n,
                           const double *params, double *out) {
  (void)params;
  ss_status s = ss_probs_pair_check_scalar(p, q, n);
  if (s != SS_OK) return s;
  double kl = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] == 0.0f) continue;
    if (q[i] == 0.0f) {
      *out = INFINITY;
      return SS_OK;
    }
    kl += (double)p[i] * log((double)p[i] / (double)q[i]);
  }
  *out = kl;
  return SS_OK;
}

#if SS_HAVE_SIMD
static ss_status kl_simd(const float *p, const float *q, size_t n,
                         const double *params, double *out) {
  (void)params;
  ss_status s = ss_probs_pair_check_simd(p, q, n);
  if (s != SS_OK) return s;
  const v128_t zero = wasm_f32x4_splat(0.0f), inf = wasm_f32x4_splat(INFINITY);
  v128_t acc_lo = wasm_f64x2_splat(0.0), acc_hi = acc_lo;
  for (size_t i = 0; i < n; i += 4) { /* tail: p padded with 0 adds 0 */
    v128_t a, b;
    ss_load_pair(p, q, i, n, 0.0f, 1.0f, &a, &b);
    v128_t d = wasm_f32x4_sub(ss_log_pos_f32x4(a), ss_log_pos_f32x4(b));
    d = wasm_v128_bitselect(inf, d, wasm_f32x4_eq(b, zero)); /* log(p/0) */
    d = wasm_v128_andnot(d, wasm_f32x4_eq(a, zero));         /* 0 log 0 */
    ss_acc_mul_f64(&acc_lo, &acc_hi, a, d);
  }
  *out = ss_hsum_f64x2(acc_lo, acc_hi);
  return SS_OK;
}
#endif

const ss_kernel_info ss_kernel_kl_divergence = {
    .name = "kl_divergence",
    .family = SS_FAMILY_MEASURE,
    .summary = "Kullback-Leibler divergence KL(p || q) in nats; +Inf when "
               "some p_i > 0 = q_i; p, q used as given",
    .formula = "KL(p || q) = sum_i p_i log(p_i / q_i)  (0 where p_i = 0)",
    .paper = "Kullback & Leibler 1951, 'On Information and Sufficiency'",
    .input = SS_INPUT_PROBS_PAIR,
    .measure = SS_IMPLS(kl),
};
