/*
 * temperature -- sample from softmax(x / T):
 *
 *   p_i = exp(x_i / T - max_j x_j / T) / sum_j exp(x_j / T - max_j x_j / T)
 *
 * T < 1 sharpens toward the argmax, T > 1 flattens toward uniform (the
 * temperature of Ackley, Hinton & Sejnowski 1985's Boltzmann machines, the
 * first knob of every LLM decoder). Draws: inverse CDF of p (draw.c).
 * This is the filter skeleton with nothing filtered (filter.h), so it is
 * also exactly what every other filter does before filtering.
 */
#include "common/impl_pair.h"
#include "registry/kernels.h"
#include "sample/filter.h"
#include "sample/sample_internal.h"

static const ss_param_info temperature_params[] = {
    SS_SAMPLER_TEMPERATURE_PARAM,
    SS_SAMPLER_SEED_PARAM,
    SS_SAMPLER_DRAWS_PARAM,
};

SS_ALWAYS_INLINE ss_status temperature_run(ss_impl impl, const float *x, size_t n,
                                           const double *params, float *probs,
                                           uint32_t *indices, float *samples) {
  (void)samples;
  return ss_filter_sample(&ss_kernel_temperature, SS_DET_OPS(impl), x, n, params, NULL, probs,
                          indices);
}

SS_SAMPLE_IMPLS(temperature, temperature_run)

const ss_kernel_info ss_kernel_temperature = {
    .name = "temperature",
    .family = SS_FAMILY_SAMPLER,
    .summary = "sample from softmax(x / T)",
    .formula = "p_i = exp(x_i/T - max x/T) / sum_j exp(x_j/T - max x/T); draws by inverse CDF",
    .paper = "Ackley, Hinton & Sejnowski 1985, A Learning Algorithm for Boltzmann Machines",
    .nparams = sizeof temperature_params / sizeof temperature_params[0],
    .params = temperature_params,
    .input = SS_INPUT_LOGITS,
    .draws = SS_DRAW_INDEX,
    .sample = SS_IMPLS(temperature),
    .role = SS_ROLE_DECODE_STAGE,
    .stage = 1,
    .stage_param = "temperature",
};
