/*
 * gumbel_softmax and gumbel_softmax_hard -- the Concrete / Gumbel-Softmax
 * relaxation of a categorical draw (Jang, Gu & Poole 2017; Maddison, Mnih &
 * Teh 2017, "The Concrete Distribution"):
 *
 *   y = softmax((x + G) / tau),  G_i i.i.d. Gumbel(0, 1)
 *   dy/dx: J^T u = (1/tau) y (u - <u, y>)
 *
 * y lies on the simplex, tends to the one-hot of argmax(x + G) -- a draw
 * from softmax(x) -- as tau -> 0 and to uniform as tau -> inf.
 * gumbel_softmax_hard is the straight-through variant: the forward sample is
 * exactly that one-hot, the backward is the soft gradient above (y - sg(y)
 * + onehot in the paper's notation). Both report the index argmax(x + G),
 * the same as gumbel_max's for the same seed (gumbel.h).
 */
#include "common/impl_pair.h"
#include "registry/kernels.h"
#include "sample/gumbel.h"

static const ss_param_info gumbel_softmax_params[] = {
    SS_GUMBEL_TAU_PARAM,
    SS_SAMPLER_SEED_PARAM,
    SS_SAMPLER_DRAWS_PARAM,
};

SS_ALWAYS_INLINE ss_status soft_run(ss_impl impl, const float *x, size_t n,
                                    const double *params, float *probs, uint32_t *indices,
                                    float *samples) {
  return ss_gumbel_run(SS_DET_OPS(impl), &ss_kernel_gumbel_softmax, SS_GUMBEL_SOFT_ROW, x, n, params, probs,
                       indices, samples);
}

SS_ALWAYS_INLINE ss_status hard_run(ss_impl impl, const float *x, size_t n,
                                    const double *params, float *probs, uint32_t *indices,
                                    float *samples) {
  return ss_gumbel_run(SS_DET_OPS(impl), &ss_kernel_gumbel_softmax_hard, SS_GUMBEL_ONE_HOT_ROW, x, n, params,
                       probs, indices, samples);
}

SS_SAMPLE_IMPLS(gumbel_softmax, soft_run)
SS_SAMPLE_IMPLS(gumbel_softmax_hard, hard_run)

static ss_status soft_vjp(const float *x, size_t n, const double *params, const float *g,
                          float *dx) {
  return ss_gumbel_softmax_vjp(&ss_kernel_gumbel_softmax, x, n, params, g, dx);
}

static ss_status hard_vjp(const float *x, size_t n, const double *params, const float *g,
                          float *dx) {
  return ss_gumbel_softmax_vjp(&ss_kernel_gumbel_softmax_hard, x, n, params, g, dx);
}

const ss_kernel_info ss_kernel_gumbel_softmax = {
    .name = "gumbel_softmax",
    .family = SS_FAMILY_SAMPLER,
    .summary = "Gumbel-Softmax (Concrete) relaxed one-hot draws",
    .formula = "y = softmax((x + G) / tau), G_i = -log(-log U_i); index = argmax(x + G)",
    .paper = "Jang, Gu & Poole 2017, Categorical Reparameterization with Gumbel-Softmax",
    .nparams = sizeof gumbel_softmax_params / sizeof gumbel_softmax_params[0],
    .params = gumbel_softmax_params,
    .input = SS_INPUT_LOGITS,
    .draws = SS_DRAW_RELAXED,
    .has_backward = true,
    .sample = SS_IMPLS(gumbel_softmax),
    .sample_vjp = SS_IMPLS_SHARED(soft_vjp),
};

const ss_kernel_info ss_kernel_gumbel_softmax_hard = {
    .name = "gumbel_softmax_hard",
    .family = SS_FAMILY_SAMPLER,
    .summary = "straight-through Gumbel-Softmax: one-hot forward, soft backward",
    .formula = "forward onehot(argmax(x + G)); backward J^T u = (1/tau) y (u - <u, y>), "
               "y = softmax((x + G) / tau)",
    .paper = "Jang, Gu & Poole 2017, Categorical Reparameterization with Gumbel-Softmax",
    .nparams = sizeof gumbel_softmax_params / sizeof gumbel_softmax_params[0],
    .params = gumbel_softmax_params,
    .input = SS_INPUT_LOGITS,
    .draws = SS_DRAW_RELAXED,
    .has_backward = true,
    .sample = SS_IMPLS(gumbel_softmax_hard),
    .sample_vjp = SS_IMPLS_SHARED(hard_vjp),
};
