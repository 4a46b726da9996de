/*
 * gumbel_max -- categorical draws from softmax(x) by the Gumbel-max trick
 * (Gumbel 1954; Maddison, Tarlow & Minka 2014, "A* Sampling"):
 *
 *   index = argmax_i (x_i + G_i),  G_i = -log(-log U_i) i.i.d. Gumbel(0, 1)
 *   P(index = i) = exp(x_i) / sum_j exp(x_j)
 *
 * One pass over the logits per draw and no normalization: the decoder's
 * sampler when the logits arrive in pieces. probs = softmax(x), the law of
 * the draws (checked by a chi-square test). The SIMD path generates the
 * noise four lanes at a time (SIMD Philox, two SIMD logs); see gumbel.h for
 * the draw layout shared with gumbel_softmax and reinmax.
 */
#include "common/impl_pair.h"
#include "registry/kernels.h"
#include "sample/gumbel.h"

static const ss_param_info gumbel_max_params[] = {
    SS_SAMPLER_SEED_PARAM,
    SS_SAMPLER_DRAWS_PARAM,
};

SS_ALWAYS_INLINE ss_status gumbel_max_run(ss_impl impl, const float *x, size_t n,
                                          const double *params, float *probs,
                                          uint32_t *indices, float *samples) {
  (void)samples;
  return ss_gumbel_run(SS_DET_OPS(impl), &ss_kernel_gumbel_max, SS_GUMBEL_NO_ROW, x, n, params, probs,
                       indices, NULL);
}

SS_SAMPLE_IMPLS(gumbel_max, gumbel_max_run)

const ss_kernel_info ss_kernel_gumbel_max = {
    .name = "gumbel_max",
    .family = SS_FAMILY_SAMPLER,
    .summary = "categorical draws from softmax(x) by argmax(x + Gumbel noise)",
    .formula = "index = argmax_i (x_i - log(-log U_i)), U_i ~ U(0, 1); P(i) = softmax(x)_i",
    .paper = "Maddison, Tarlow & Minka 2014, A* Sampling (Gumbel-max trick, Gumbel 1954)",
    .nparams = sizeof gumbel_max_params / sizeof gumbel_max_params[0],
    .params = gumbel_max_params,
    .input = SS_INPUT_LOGITS,
    .draws = SS_DRAW_INDEX,
    .sample = SS_IMPLS(gumbel_max),
};
