/*
 * top_p -- nucleus sampling (Holtzman, Buys, Du, Forbes & Choi 2020, "The
 * Curious Case of Neural Text Degeneration"), after temperature:
 *
 *   p = softmax(x / T); keep i iff  sum_{j : p_j > p_i} p_j < top_p,
 *
 * i.e. the smallest tie-closed set of most probable tokens whose mass
 * reaches top_p (sorted by p, a token is kept when the mass before it is
 * < top_p; tied tokens are all in or all out). The top token is always
 * kept; top_p = 1 keeps every token with p > 0. Hugging Face's
 * TopPLogitsWarper is the same up to ties (it breaks them by the sort).
 * No sort: the threshold comes from three mass histograms over the bits of
 * e (ss_mass_threshold_bits, mass_select.c), masses e_i against top_p * S,
 * with e left in place; if rounding leaves a level without a crossing, the
 * expected-O(n) weighted selection on e in probs (ss_mass_select) decides.
 */
#include "common/impl_pair.h"
#include "registry/kernels.h"
#include "sample/filter.h"
#include "sample/mass_select.h"
#include "sample/sample_internal.h"

static const ss_param_info top_p_params[] = {
    {.name = "p", .type = SS_PARAM_FLOAT, .min = 0.0, .min_open = true, .max = 1.0, .def = 0.9,
     .ui_min = 0.01, .ui_max = 1.0, .help = "keep the most probable tokens until their mass reaches p"},
    SS_SAMPLER_TEMPERATURE_PARAM,
    SS_SAMPLER_SEED_PARAM,
    SS_SAMPLER_DRAWS_PARAM,
};

static float key_id(float a, const void *ctx) { (void)ctx; return a; }
static double mass_id(float a, const void *ctx) { (void)ctx; return (double)a; }

static float top_p_threshold(float *e, size_t n, const ss_filter_ctx *c, bool *permuted) {
  const double p = c->params[0];
  if (p >= 1.0) return 0.0f;
  bool ok;
  const float k = ss_mass_threshold_bits(e, n, p * c->sum, &ok);
  if (ok) return k;
  *permuted = true;
  const ss_mass_spec spec = {key_id, mass_id, NULL};
  return ss_mass_select(e, n, p * c->sum, &spec, NULL);
}

SS_ALWAYS_INLINE ss_status top_p_run(ss_impl impl, const float *x, size_t n, const double *params,
                           float *probs, uint32_t *indices, float *samples) {
  (void)samples;
  return ss_filter_sample(&ss_kernel_top_p, SS_DET_OPS(impl), x, n, params, top_p_threshold, probs, indices);
}

SS_SAMPLE_IMPLS(top_p, top_p_run)

const ss_kernel_info ss_kernel_top_p = {
    .name = "top_p",
    .family = SS_FAMILY_SAMPLER,
    .summary = "nucleus sampling: the most probable tokens until their mass reaches p",
    .formula = "keep i iff sum_{j: p_j > p_i} p_j < p, p = softmax(x/T); q = p on kept / sum_kept p",
    .paper = "Holtzman et al. 2020, The Curious Case of Neural Text Degeneration",
    .nparams = sizeof top_p_params / sizeof top_p_params[0],
    .params = top_p_params,
    .input = SS_INPUT_LOGITS,
    .draws = SS_DRAW_INDEX,
    .sample = SS_IMPLS(top_p),
    .role = SS_ROLE_DECODE_STAGE,
    .stage = 3,
    .stage_param = "p",
};
