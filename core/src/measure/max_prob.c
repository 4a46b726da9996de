/*
 * max_prob — the largest entry, max_i p_i (exact in both impls).
 *
 * For a probability vector: the confidence of the top outcome, and
 * -log max p is the Renyi entropy of order infinity (min-entropy).
 * Validated as probabilities (NaN, +-Inf, negative are errors).
 */
#include "common/check.h"
#include "common/impl_pair.h"
#include "measure/measure_internal.h"

/* One body for both impls (common/impl_pair.h): the max of the scan that
   validates p. */
SS_ALWAYS_INLINE ss_status max_prob_run(ss_impl impl, const float *p, const float *q, size_t n,
                                        const double *params, double *out) {
  (void)q, (void)params;
  float lo, hi;
  ss_status s = SS_BY_IMPL(impl, ss_probs_minmax)(p, n, &lo, &hi);
  if (s != SS_OK) return s;
  *out = hi;
  return SS_OK;
}

SS_MEASURE_IMPLS(max_prob, max_prob_run)

const ss_kernel_info ss_kernel_max_prob = {
    .name = "max_prob",
    .family = SS_FAMILY_MEASURE,
    .summary = "Largest entry (top-1 confidence); -log of it is the "
               "min-entropy",
    .formula = "max_i p_i;  H_inf(p) = -log max_i p_i",
    .paper = "Renyi 1961 (order-infinity entropy); as a confidence score: "
             "Hendrycks & Gimpel 2017, 'A Baseline for Detecting "
             "Misclassified and Out-of-Distribution Examples'",
    .input = SS_INPUT_PROBS,
    .measure = SS_IMPLS(max_prob),
};
