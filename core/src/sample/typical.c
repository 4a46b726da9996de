/*
 * typical -- locally typical sampling (Meister, Pimentel, Wiher & Cotterell
 * 2023, "Locally Typical Sampling", TACL), after temperature:
 *
 *   p = softmax(x / T),  H = -sum_j p_j log p_j,  d_i = | -log p_i - H |,
 *   keep i iff  sum_{j : d_j < d_i} p_j < p   (tokens in order of increasing
 *   d until their mass reaches p; tie-closed; at least the most typical).
 *
 * Hugging Face's TypicalLogitsWarper sorts by d and keeps the prefix whose
 * cumulative mass first reaches p -- the same set up to ties. The key d is
 * not monotone in p, so the kept set is not a threshold on e: the selection
 * runs on s_i = -log p_i - H (signed, so that p_i = exp(-H - s_i) is
 * recoverable) stored in probs, keyed by -|s_i|, then e is recomputed and
 * filtered by the same key. Logs are det_math.h's (scalar, shared by both
 * impls) and the entropy sum is sequential double: the kept set is the same
 * bits in every build. masses exp(-H - s) are p up to float rounding.
 */
#include <math.h>

#include "common/det_math.h"
#include "common/impl_pair.h"
#include "common/rng.h"
#include "registry/kernels.h"
#include "sample/mass_select.h"
#include "sample/sample_internal.h"

static const ss_param_info typical_params[] = {
    {.name = "p", .type = SS_PARAM_FLOAT, .min = 0.0, .min_open = true, .max = 1.0, .def = 0.95,
     .ui_min = 0.01, .ui_max = 1.0, .help = "keep the most typical tokens until their mass reaches p"},
    SS_SAMPLER_TEMPERATURE_PARAM,
    SS_SAMPLER_SEED_PARAM,
    SS_SAMPLER_DRAWS_PARAM,
};

typedef struct typical_ctx {
  double log_s, h;
} typical_ctx;

/* s_i = -log p_i - H = log S - log e_i - H (+Inf for e_i = 0). */
static float surprise_gap(float e, const typical_ctx *c) {
  if (!(e > 0.0f)) return INFINITY;
  return (float)(c->log_s - (double)ss_det_log_pos(e) - c->h);
}
static float key_typical(float s, const void *ctx) { (void)ctx; return -fabsf(s); }
static double mass_typical(float s, const void *ctx) {
  const typical_ctx *c = ctx;
  if (s == INFINITY) return 0.0;
  float l = (float)(-c->h - (double)s); /* log p_i */
  if (l > 0.0f) l = 0.0f;
  return (double)ss_det_exp_nonpos_corr(l, 0.0f);
}

SS_ALWAYS_INLINE ss_status typical_run(ss_impl impl, const float *x, size_t n, const double *params,
                             float *probs, uint32_t *indices, float *samples) {
  (void)samples;
  const ss_det_ops *ops = SS_DET_OPS(impl);
  const double p = params[0];
  const double t = params[1];
  ss_status st;
  double sum = ops->exp(x, n, t, probs, &st);
  if (st != SS_OK) return st;
  typical_ctx c = {ss_philox_log(sum), 0.0};
  double el = 0.0; /* sum e log e */
  for (size_t i = 0; i < n; i++)
    if (probs[i] > 0.0f) el += (double)probs[i] * (double)ss_det_log_pos(probs[i]);
  c.h = c.log_s - el / sum;
  if (p < 1.0) {
    double total = 0.0;
    for (size_t i = 0; i < n; i++) {
      probs[i] = surprise_gap(probs[i], &c);
      total += mass_typical(probs[i], &c);
    }
    const ss_mass_spec spec = {key_typical, mass_typical, &c};
    const float kstar = ss_mass_select(probs, n, p * total, &spec, NULL);
    sum = ops->exp(x, n, t, probs, &st);
    for (size_t i = 0; i < n; i++)
      if (probs[i] > 0.0f && -fabsf(surprise_gap(probs[i], &c)) < kstar) probs[i] = 0.0f;
    sum = ops->sum4(probs, n);
  }
  ops->scale(probs, n, (float)(1.0 / sum));
  if (indices)
    ss_draw_weights(probs, n, ss_sampler_seed(&ss_kernel_typical, params), SS_STREAM_CATEGORICAL, 0,
                    ss_sampler_draws(&ss_kernel_typical, params), indices);
  return SS_OK;
}

SS_SAMPLE_IMPLS(typical, typical_run)

const ss_kernel_info ss_kernel_typical = {
    .name = "typical",
    .family = SS_FAMILY_SAMPLER,
    .summary = "locally typical sampling: tokens whose surprise is closest to the entropy, up to mass p",
    .formula = "d_i = |-log p_i - H(p)|; keep i iff sum_{j: d_j < d_i} p_j < p; q = p on kept / sum_kept p",
    .paper = "Meister, Pimentel, Wiher & Cotterell 2023, Locally Typical Sampling (TACL)",
    .nparams = sizeof typical_params / sizeof typical_params[0],
    .params = typical_params,
    .input = SS_INPUT_LOGITS,
    .draws = SS_DRAW_INDEX,
    .sample = SS_IMPLS(typical),
    .role = SS_ROLE_DECODE_STAGE,
    .stage = 5,
    .stage_param = "p",
};
