/*
 * categorical -- draw indices from a probability vector (or any
 * non-negative weights, normalized by their sum):
 *
 *   p_i = w_i / sum_j w_j,   draw = the first i with u * sum w < w_0 + ... + w_i
 *
 * the sampler to put after a normalizer (sparsemax's exact zeros are never
 * drawn). Inverse CDF with blocked prefix sums (draw.c): O(n) once, then
 * O(log n + block) per draw, no allocation. Input: SS_INPUT_PROBS, with the
 * statuses every probability input has (NaN is SS_ERR_NAN, +-Inf
 * SS_ERR_NONFINITE, a negative weight SS_ERR_DOMAIN) and all zero
 * SS_ERR_ALL_MASKED (nothing to draw). Weights of any size work: a total
 * below 2^-100 (subnormal weights, whose 1 / sum overflows a float) or
 * above 2^100 (whose 1 / sum is subnormal and imprecise) is rescaled by
 * 2^100 or 2^-100 first (exact, but for weights that then fall below
 * FLT_MIN: they are below 2^-226 of the total and flush to 0 anyway).
 */
#include "common/check.h"
#include "common/impl_pair.h"
#include "registry/kernels.h"
#include "sample/sample_internal.h"

static const ss_param_info categorical_params[] = {
    SS_SAMPLER_SEED_PARAM,
    SS_SAMPLER_DRAWS_PARAM,
};

SS_ALWAYS_INLINE ss_status categorical_run(ss_impl impl, const float *w, size_t n,
                                           const double *params, float *probs,
                                           uint32_t *indices, float *samples) {
  (void)samples;
  const ss_det_ops *ops = SS_DET_OPS(impl);
  ss_status s = ss_check_probs(w, n);
  if (s != SS_OK) return s;
  double sum = ops->sum4(w, n);
  if (!(sum > 0.0)) return SS_ERR_ALL_MASKED;
  if (probs != w)
    for (size_t i = 0; i < n; i++) probs[i] = w[i];
  if (sum < 0x1p-100 || sum > 0x1p100) { /* powers of two: exact (1 / sum stays a normal float) */
    ops->scale(probs, n, sum < 1.0 ? 0x1p100f : 0x1p-100f);
    sum = ops->sum4(probs, n);
  }
  ops->scale(probs, n, (float)(1.0 / sum));
  if (indices)
    ss_draw_weights(probs, n, ss_sampler_seed(&ss_kernel_categorical, params),
                    SS_STREAM_CATEGORICAL, 0, ss_sampler_draws(&ss_kernel_categorical, params),
                    indices);
  return SS_OK;
}

SS_SAMPLE_IMPLS(categorical, categorical_run)

const ss_kernel_info ss_kernel_categorical = {
    .name = "categorical",
    .family = SS_FAMILY_SAMPLER,
    .summary = "draw indices from a probability vector (weights normalized by their sum)",
    .formula = "P(draw = i) = w_i / sum_j w_j; inverse CDF of a uniform in (0, 1)",
    .paper = "inverse transform sampling (e.g. Devroye 1986, Non-Uniform Random Variate Generation, ch. III)",
    .nparams = sizeof categorical_params / sizeof categorical_params[0],
    .params = categorical_params,
    .input = SS_INPUT_PROBS,
    .draws = SS_DRAW_INDEX,
    .sample = SS_IMPLS(categorical),
};
