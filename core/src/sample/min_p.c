/*
 * min_p -- min-p sampling (Nguyen, Baker, Neo, Roush, Kirsch & Shwartz-Ziv
 * 2024/2025, "Turning Up the Heat: Min-p Sampling for Creative and Coherent
 * LLM Outputs"), after temperature:
 *
 *   keep i iff p_i >= min_p * max_j p_j,   p = softmax(x / T).
 *
 * Since p_i / p_max = e_i = exp(z_i - max z) and the skeleton's e_max is 1
 * exactly, this is e_i >= min_p, compared exactly: the threshold is the
 * smallest float >= min_p. min_p = 0 keeps everything, 1 only the argmax
 * (and its ties). No selection and no recomputation: one masked pass.
 */
#include <math.h>

#include "common/impl_pair.h"
#include "registry/kernels.h"
#include "sample/filter.h"
#include "sample/sample_internal.h"

static const ss_param_info min_p_params[] = {
    {.name = "min_p", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1.0, .def = 0.1, .ui_min = 0.0,
     .ui_max = 1.0, .help = "keep tokens with p >= min_p * p_max"},
    SS_SAMPLER_TEMPERATURE_PARAM,
    SS_SAMPLER_SEED_PARAM,
    SS_SAMPLER_DRAWS_PARAM,
};

static float min_p_threshold(float *e, size_t n, const ss_filter_ctx *c, bool *permuted) {
  (void)e, (void)n, (void)permuted;
  const double mp = c->params[0];
  float t = (float)mp;
  if ((double)t < mp) t = nextafterf(t, INFINITY);
  return t;
}

SS_ALWAYS_INLINE ss_status min_p_run(ss_impl impl, const float *x, size_t n, const double *params,
                           float *probs, uint32_t *indices, float *samples) {
  (void)samples;
  return ss_filter_sample(&ss_kernel_min_p, SS_DET_OPS(impl), x, n, params, min_p_threshold, probs, indices);
}

SS_SAMPLE_IMPLS(min_p, min_p_run)

const ss_kernel_info ss_kernel_min_p = {
    .name = "min_p",
    .family = SS_FAMILY_SAMPLER,
    .summary = "min-p sampling: keep tokens with p >= min_p * p_max",
    .formula = "keep i iff p_i >= min_p * max_j p_j, p = softmax(x/T); q = p on kept / sum_kept p",
    .paper = "Nguyen et al. 2025, Turning Up the Heat: Min-p Sampling for Creative and Coherent LLM Outputs",
    .nparams = sizeof min_p_params / sizeof min_p_params[0],
    .params = min_p_params,
    .input = SS_INPUT_LOGITS,
    .draws = SS_DRAW_INDEX,
    .sample = SS_IMPLS(min_p),
    .role = SS_ROLE_DECODE_STAGE,
    .stage = 4,
    .stage_param = "min_p",
};
