/*
 * renyi_entropy — Renyi entropy of order a > 0, in nats (Renyi 1961):
 *
 *   H_a(p) = log(sum_i p_i^a) / (1 - a),   H_1 = Shannon (the limit a -> 1)
 *
 * For a probability vector H_a is non-increasing in a, H_0+ = log(support),
 * H_2 = -log(collision probability), H_inf = -log(max p); uniform p gives
 * log n for every a. p is used as given; the a -> 1 limit is Shannon only
 * when sum p = 1 (otherwise log(sum p) / (1 - a) diverges there, as the
 * formula says). An all-zero p has no Renyi entropy: SS_ERR_DOMAIN.
 *
 * Evaluation (measure/power_sum.c): with M = max p, q = p / M,
 *   a >= 1 + 1/16: H_a = (a log M + log sum q^a) / (1 - a)
 *   a < 1 + 1/16:   H_a = -log M - log(s1)/b - log1p(M dq / s1)/b,
 *                   b = a - 1, s1 = sum p, dq = sum (q^a - q),
 * so neither large a (underflow) nor a near 1 (0/0) loses accuracy.
 * |a - 1| <= 1e-9 returns the Shannon entropy.
 * SIMD error: see tests/c/test_measures.c (renyi_*).
 */
#include <math.h>

#include "common/impl_pair.h"
#include "measure/measure_internal.h"

static double renyi_from_sums(const ss_power_sums *ps, double a, float max) {
  const double b = a - 1.0;
  if (ps->near)
    return -ps->log_m - log(ps->s1) / b - log1p((double)max * ps->dq / ps->s1) / b;
  return (a * ps->log_m + log(ps->t)) / (1.0 - a);
}

/* One body for both impls (common/impl_pair.h). */
SS_ALWAYS_INLINE ss_status renyi_run(ss_impl impl, const float *p, const float *q, size_t n,
                                     const double *params, double *out) {
  (void)q;
  float lo, hi;
  ss_status s = SS_BY_IMPL(impl, ss_probs_minmax)(p, n, &lo, &hi);
  if (s != SS_OK) return s;
  if (hi == 0.0f) return SS_ERR_DOMAIN;
  *out = ss_alpha_entropy(impl, p, n, hi, params[0], renyi_from_sums);
  return SS_OK;
}

SS_MEASURE_IMPLS(renyi, renyi_run)

const ss_kernel_info ss_kernel_renyi_entropy = {
    .name = "renyi_entropy",
    .family = SS_FAMILY_MEASURE,
    .summary = "Renyi entropy of order alpha in nats (alpha = 1: Shannon); "
               "p used as given, all-zero p is a domain error",
    .formula = "H_a(p) = log(sum_i p_i^a) / (1 - a);  H_1 = -sum_i p_i log p_i",
    .paper = "Renyi 1961, 'On Measures of Entropy and Information'",
    .nparams = 1,
    .params = ss_alpha_param,
    .input = SS_INPUT_PROBS,
    .has_backward = false,
    .measure = SS_IMPLS(renyi),
};
