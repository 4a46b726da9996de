/*
 * dare -- drop and rescale (DARE; Yu, Yu, Yu, Huang & Li 2024, "Language
 * Models are Super Mario"): each entry of a weight delta is dropped with
 * probability p and the survivors are scaled by 1 / (1 - p),
 *
 *   m_i ~ Bernoulli(1 - p),  out_i = m_i x_i / (1 - p)     (rescale = 1)
 *   E[out_i] = x_i                                          (unbiased)
 *
 * With rescale = 0 it is plain dropout masking (E[out_i] = (1 - p) x_i);
 * probs holds that mean. Entry i of draw d is kept iff its uniform u (stream
 * SS_STREAM_DARE, block d * ceil(n/4) + i/4) satisfies u >= p: u lies on the
 * grid (k + 1/2) 2^-23, so P(keep) = 1 - p to within 2^-23. The SIMD path
 * draws, compares and scales four lanes at a time, with the same float
 * operations: masks and values are bit-identical. A survivor x_i / (1 - p)
 * beyond FLT_MAX (|x| near FLT_MAX, or p within ~1e-22 of 1 times a large
 * x) is SS_ERR_DOMAIN when samples are asked for, before anything is
 * written: the sample is not a float.
 */
#include <float.h>
#include <math.h>

#include "common/check.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/rng.h"
#include "registry/kernels.h"
#include "sample/sample_internal.h"

static const ss_param_info dare_params[] = {
    {.name = "p", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1.0, .max_open = true, .def = 0.9,
     .ui_min = 0.0, .ui_max = 0.99, .help = "drop probability"},
    {.name = "rescale", .type = SS_PARAM_BOOL, .min = 0.0, .max = 1.0, .def = 1.0, .ui_min = 0.0,
     .ui_max = 1.0, .help = "scale survivors by 1 / (1 - p) (unbiased)"},
    SS_SAMPLER_SEED_PARAM,
    SS_SAMPLER_DRAWS_PARAM,
};

static void row_scalar(const float *x, size_t n, uint64_t seed, uint64_t d, float p, float s,
                       float *row) {
  ss_philox_uniform_f32_scalar(seed, SS_STREAM_DARE, d * ss_blocks_per_draw(n), n, row);
  for (size_t i = 0; i < n; i++) row[i] = row[i] >= p ? ss_flush(x[i] * s) : 0.0f;
}

#if SS_HAVE_SIMD
static void row_simd(const float *x, size_t n, uint64_t seed, uint64_t d, float p, float s,
                     float *row) {
  ss_philox_uniform_f32_simd(seed, SS_STREAM_DARE, d * ss_blocks_per_draw(n), n, row);
  const v128_t vp = wasm_f32x4_splat(p), vs = wasm_f32x4_splat(s);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t keep = wasm_f32x4_ge(wasm_v128_load(row + i), vp);
    wasm_v128_store(row + i,
                    ss_flush_f32x4(wasm_v128_and(keep, wasm_f32x4_mul(wasm_v128_load(x + i), vs))));
  }
  for (; i < n; i++) row[i] = row[i] >= p ? ss_flush(x[i] * s) : 0.0f;
}
#endif

SS_ALWAYS_INLINE ss_status dare_run(ss_impl impl, const float *x, size_t n, const double *params,
                                    float *probs, uint32_t *indices, float *samples) {
  (void)indices;
  const ss_status st = ss_check_finite(x, n);
  if (st != SS_OK) return st;
  const float p = (float)params[0];
  const bool rescale = params[1] != 0.0;
  const float s = rescale ? (float)(1.0 / (1.0 - params[0])) : 1.0f;
  const float keep = (float)(1.0 - params[0]);
  if (samples && rescale)
    for (size_t i = 0; i < n; i++)
      if (fabs((double)x[i] * (double)s) > FLT_MAX) return SS_ERR_DOMAIN;
  for (size_t i = 0; i < n; i++) probs[i] = ss_flush(rescale ? x[i] : x[i] * keep);
  if (!samples) return SS_OK;
  const uint64_t seed = ss_sampler_seed(&ss_kernel_dare, params);
  const size_t draws = ss_sampler_draws(&ss_kernel_dare, params);
  for (size_t d = 0; d < draws; d++) SS_BY_IMPL(impl, row)(x, n, seed, d, p, s, samples + d * n);
  return SS_OK;
}

SS_SAMPLE_IMPLS(dare, dare_run)

const ss_kernel_info ss_kernel_dare = {
    .name = "dare",
    .family = SS_FAMILY_SAMPLER,
    .summary = "drop and rescale: drop each entry with probability p, scale survivors by 1/(1-p)",
    .formula = "out_i = [u_i >= p] x_i / (1 - p), u_i ~ U(0, 1); E[out] = x",
    .paper = "Yu et al. 2024, Language Models are Super Mario: Absorbing Abilities from "
             "Homologous Models as a Free Lunch",
    .nparams = sizeof dare_params / sizeof dare_params[0],
    .params = dare_params,
    .input = SS_INPUT_VALUES,
    .draws = SS_DRAW_VECTOR,
    .sample = SS_IMPLS(dare),
};
