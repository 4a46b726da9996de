/*
 * reinmax -- ReinMax, the second-order straight-through estimator (Liu,
 * Zhu, Gao & Han 2023, "Bridging Discrete and Backpropagation:
 * Straight-Through and Beyond"):
 *
 *   forward  D = onehot(i), i ~ softmax(x)   (here by Gumbel-max: gumbel.h)
 *   backward pi0 = softmax(x), pi1 = (softmax(x / tau) + D) / 2,
 *            dx = 2 J_pi1^T u - J_pi0^T u / 2,  J_p^T u = p (u - <p, u>)
 *
 * i.e. Heun's method in place of the straight-through estimator's Euler
 * step, approximating the gradient of E[f(D)] to second order. As in the
 * authors' code the gradient's mean is removed (a softmax input is
 * shift-invariant); here over the support, so masked logits get 0.
 */
#include "common/impl_pair.h"
#include "registry/kernels.h"
#include "sample/gumbel.h"

static const ss_param_info reinmax_params[] = {
    SS_GUMBEL_TAU_PARAM,
    SS_SAMPLER_SEED_PARAM,
    SS_SAMPLER_DRAWS_PARAM,
};

SS_ALWAYS_INLINE ss_status reinmax_run(ss_impl impl, const float *x, size_t n,
                                       const double *params, float *probs, uint32_t *indices,
                                       float *samples) {
  return ss_gumbel_run(SS_DET_OPS(impl), &ss_kernel_reinmax, SS_GUMBEL_ONE_HOT_ROW, x, n, params, probs,
                       indices, samples);
}

SS_SAMPLE_IMPLS(reinmax, reinmax_run)

static ss_status reinmax_vjp(const float *x, size_t n, const double *params, const float *g,
                             float *dx) {
  return ss_reinmax_vjp(&ss_kernel_reinmax, x, n, params, g, dx);
}

const ss_kernel_info ss_kernel_reinmax = {
    .name = "reinmax",
    .family = SS_FAMILY_SAMPLER,
    .summary = "ReinMax: one-hot draws with a second-order straight-through gradient",
    .formula = "forward onehot(argmax(x + G)); backward 2 J_pi1^T u - J_pi0^T u / 2, "
               "pi0 = softmax(x), pi1 = (softmax(x/tau) + D) / 2",
    .paper = "Liu, Zhu, Gao & Han 2023, Bridging Discrete and Backpropagation: Straight-Through and Beyond",
    .nparams = sizeof reinmax_params / sizeof reinmax_params[0],
    .params = reinmax_params,
    .input = SS_INPUT_LOGITS,
    .draws = SS_DRAW_RELAXED,
    .has_backward = true,
    .sample = SS_IMPLS(reinmax),
    .sample_vjp = SS_IMPLS_SHARED(reinmax_vjp),
};
