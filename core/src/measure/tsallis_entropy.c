/*
 * tsallis_entropy — Tsallis entropy of order a > 0 (Tsallis 1988):
 *
 *   S_a(p) = (1 - sum_i p_i^a) / (a - 1),   S_1 = Shannon (the limit a -> 1)
 *
 * Uniform p over n entries: S_a = (n^(1-a) - 1) / (1 - a); one-hot: 0.
 * p is used as given; the a -> 1 limit is Shannon only when sum p = 1
 * ((1 - sum p) / (a - 1) diverges otherwise). All-zero p: sum p^a = 0, so
 * S_a = 1 / (a - 1) (Shannon's 0 at a = 1). For weights >> 1 and large a,
 * sum p^a can exceed double's range; the result is then -Inf.
 *
 * Evaluation (measure/power_sum.c): with M = max p, q = p / M, b = a - 1,
 *   a >= 1 + 1/16:  S_a = (1 - exp(a log M + log sum q^a)) / b
 *   a < 1 - 1/16:   S_a = (1 - exp(a log M + log(s1/M + dq))) / b,
 *   |b| < 1/16:     S_a = (1 - s1)/b - (M^a dq + s1 expm1(b log M)) / b,
 *                   s1 = sum p, dq = sum (q^a - q)  (sum p^a - s1 exactly
 *                   rearranged, without cancellation).
 * |a - 1| <= 1e-9 returns the Shannon entropy.
 */
#include <math.h>

#include "common/impl_pair.h"
#include "measure/measure_internal.h"

static double tsallis_from_sums(const ss_power_sums *ps, double a, float max) {
  const double b = a - 1.0;
  if (fabs(b) < SS_POWER_NEAR) /* near 1: sum p^a - s1 without cancellation */
    return (1.0 - ps->s1) / b -
           (exp(a * ps->log_m) * ps->dq + ps->s1 * expm1(b * ps->log_m)) / b;
  /* else the terms are of any size (weights >> 1): sum p^a in the log domain */
  const double sq = ps->near ? ps->s1 / (double)max + ps->dq : ps->t;
  return (1.0 - exp(a * ps->log_m + log(sq))) / b;
}

/* One body for both impls (common/impl_pair.h). An all-zero p has
   sum p^a = 0 (but the Shannon entropy 0 near a = 1). */
SS_ALWAYS_INLINE ss_status tsallis_run(ss_impl impl, const float *p, const float *q, size_t n,
                                       const double *params, double *out) {
  (void)q;
  const double a = params[0];
  float lo, hi;
  ss_status s = SS_BY_IMPL(impl, ss_probs_minmax)(p, n, &lo, &hi);
  if (s != SS_OK) return s;
  if (hi == 0.0f && !(fabs(a - 1.0) <= SS_ALPHA_SHANNON))
    *out = 1.0 / (a - 1.0);
  else
    *out = ss_alpha_entropy(impl, p, n, hi, a, tsallis_from_sums);
  return SS_OK;
}

SS_MEASURE_IMPLS(tsallis, tsallis_run)

const ss_kernel_info ss_kernel_tsallis_entropy = {
    .name = "tsallis_entropy",
    .family = SS_FAMILY_MEASURE,
    .summary = "Tsallis entropy of order alpha (alpha = 1: Shannon); p used "
               "as given",
    .formula = "S_a(p) = (1 - sum_i p_i^a) / (a - 1);  S_1 = -sum_i p_i log p_i",
    .paper = "Tsallis 1988, 'Possible generalization of Boltzmann-Gibbs "
             "statistics', J. Stat. Phys. 52",
    .nparams = 1,
    .params = ss_alpha_param,
    .input = SS_INPUT_PROBS,
    .has_backward = false,
    .measure = SS_IMPLS(tsallis),
};
