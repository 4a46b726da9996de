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

static ss_status renyi_scalar(const float *p, const float *q, size_t n,
                              const double *params, double *out) {
  (void)q;
  float lo, hi;
  ss_status s = ss_probs_minmax_scalar(p, n, &lo, &hi);
  if (s != SS_OK) return s;
  if (hi == 0.0f) return SS_ERR_DOMAIN;
  const double a = params[0];
  if (fabs(a - 1.0) <= SS_ALPHA_SHANNON) {
    *out = ss_shannon_scalar(p, n);
    return SS_OK;
  }
  ss_power_sums ps;
  ss_power_sums_scalar(p, n, hi, a, &ps);
  *out = renyi_from_sums(&ps, a, hi);
  return SS_OK;
}

#if SS_HAVE_SIMD
static ss_status renyi_simd(const float *p, const float *q, size_t n,
                            const double *params, double *out) {
  (void)q;
  float lo, hi;
  ss_status s = ss_probs_minmax_simd(p, n, &lo, &hi);
  if (s != SS_OK) return s;
  if (hi == 0.0f) return SS_ERR_DOMAIN;
  const double a = params[0];
  if (fabs(a - 1.0) <= SS_ALPHA_SHANNON) {
    *out = ss_shannon_simd(p, n);
    return SS_OK;
  }
  ss_power_sums ps;
  ss_power_sums_simd(p, n, hi, a, &ps);
  *out = renyi_from_sums(&ps, a, hi);
  return SS_OK;
}
#endif

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
