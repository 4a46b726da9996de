/*
 * hellinger — Hellinger distance (Hellinger 1909):
 *
 *   H(p, q) = sqrt(1/2 sum_i (sqrt p_i - sqrt q_i)^2),
 *
 * in [0, 1] for probability vectors: 0 iff p = q, 1 iff disjoint supports.
 * p and q are used as given.
 *
 * Each difference is evaluated as (p_i - q_i) / (sqrt p_i + sqrt q_i), which
 * is exact algebra and keeps full relative accuracy when p_i ~ q_i (the
 * direct sqrt p - sqrt q cancels). Terms with p_i = q_i = 0 are 0.
 * Scalar reference: double. SIMD: float32 sqrt and divide (a few ulp per
 * term), squares and sums in float64 lanes: measured relative error
 * 8.2e-8, asserted 3e-7 in tests/c/test_measures.c.
 */
#include <math.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"
#include "measure/measure_internal.h"

static ss_status hellinger_scalar(const float *p, const float *q, size_t n,
                                  const double *params, double *out) {
  (void)params;
  ss_status s = ss_probs_pair_check_scalar(p, q, n);
  if (s != SS_OK) return s;
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    const double den = sqrt((double)p[i]) + sqrt((double)q[i]);
    if (den == 0.0) continue;
    const double d = ((double)p[i] - (double)q[i]) / den;
    sum += d * d;
  }
  *out = sqrt(0.5 * sum);
  return SS_OK;
}

#if SS_HAVE_SIMD
static ss_status hellinger_simd(const float *p, const float *q, size_t n,
                                const double *params, double *out) {
  (void)params;
  ss_status s = ss_probs_pair_check_simd(p, q, n);
  if (s != SS_OK) return s;
  const v128_t zero = wasm_f32x4_splat(0.0f);
  v128_t acc_lo = wasm_f64x2_splat(0.0), acc_hi = acc_lo;
  for (size_t i = 0; i < n; i += 4) { /* tail padded with 0, 0: adds 0 */
    v128_t a, b;
    ss_load_pair(p, q, i, n, 0.0f, 0.0f, &a, &b);
    const v128_t den = wasm_f32x4_add(wasm_f32x4_sqrt(a), wasm_f32x4_sqrt(b));
    v128_t d = wasm_f32x4_div(wasm_f32x4_sub(a, b), den);
    d = wasm_v128_andnot(d, wasm_f32x4_eq(den, zero)); /* 0/0 */
    ss_acc_mul_f64(&acc_lo, &acc_hi, d, d);
  }
  *out = sqrt(0.5 * ss_hsum_f64x2(acc_lo, acc_hi));
  return SS_OK;
}
#endif

const ss_kernel_info ss_kernel_hellinger = {
    .name = "hellinger",
    .family = SS_FAMILY_MEASURE,
    .summary = "Hellinger distance, in [0, 1] for probability vectors "
               "(1 = disjoint supports); p, q used as given",
    .formula = "H(p, q) = sqrt(1/2 sum_i (sqrt p_i - sqrt q_i)^2)",
    .paper = "Hellinger 1909, 'Neue Begruendung der Theorie quadratischer "
             "Formen von unendlichvielen Veraenderlichen', J. reine angew. Math.",
    .input = SS_INPUT_PROBS_PAIR,
    .measure = SS_IMPLS(hellinger),
};
