/*
 * cross_entropy — softmax cross-entropy of logits x against a target class t:
 *
 *   L(x, t) = -log softmax(x)_t = (m - x_t) + log sum_j exp(x_j - m),  m = max x
 *   dL/dx   = softmax(x) - e_t
 *
 * It is the Fenchel-Young loss of the Shannon negentropy (Blondel, Martins &
 * Niculae 2020), the alpha -> 1 end of the entmax losses in fenchel_young.c.
 * L >= 0; it tends to 0 as the target's margin grows but reaches 0 only when
 * the other terms of the sum vanish against exp(0) = 1 in the float block
 * sums (a margin beyond ~17 nats), where float32 softmax is one-hot too.
 *
 * Data checks: NaN / +Inf / all -Inf logits as for normalizers; the target
 * index must be < n (SS_ERR_LENGTH, from its n_bound)
 * and its logit finite (SS_ERR_DOMAIN: a masked target has infinite loss).
 * grad is required: it holds exp(x - m) during the computation.
 */
#include <math.h>

#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"
#include "loss/loss_internal.h"

/* grad /= S (grad holding exp(x - m), S their sum): the scalar reference
   multiplies by 1 / S in double, SIMD by its float rounding. */
static void divide_scalar(float *grad, size_t n, double sum) {
  const double inv = 1.0 / sum;
  for (size_t i = 0; i < n; i++) grad[i] = (float)((double)grad[i] * inv);
}

#if SS_HAVE_SIMD
static void divide_simd(float *grad, size_t n, double sum) {
  ss_scale_simd(grad, n, (float)(1.0 / sum), grad);
}
#endif

/* The loss and grad = softmax - e_t, once for both impls (common/impl_pair.h). */
SS_ALWAYS_INLINE ss_status ce_run(ss_impl impl, const float *x, size_t n, const double *params,
                                  double *loss, float *grad) {
  size_t t;
  ss_status s = ss_loss_target(params[0], n, &t);
  if (s != SS_OK) return s;
  float max;
  s = SS_BY_IMPL(impl, ss_logits_max)(x, n, &max);
  if (s != SS_OK) return s;
  if (x[t] == -INFINITY) return SS_ERR_DOMAIN;
  const double sum = SS_BY_IMPL(impl, ss_exp_store)(x, n, max, 1.0f, grad);
  SS_BY_IMPL(impl, divide)(grad, n, sum);
  grad[t] -= 1.0f;
  const double l = ((double)max - (double)x[t]) + log(sum);
  *loss = l > 0.0 ? l : 0.0; /* rounding can give -1e-17 at one-hot */
  return SS_OK;
}

SS_LOSS_IMPLS(ce, ce_run)

const ss_kernel_info ss_kernel_cross_entropy = {
    .name = "cross_entropy",
    .family = SS_FAMILY_LOSS,
    .summary = "Softmax cross-entropy -log softmax(x)_target",
    .formula = "L = log sum_j exp(x_j) - x_t; dL/dx = softmax(x) - e_t",
    .paper = "Bridle 1990; as a Fenchel-Young loss: Blondel, Martins & "
             "Niculae 2020, 'Learning with Fenchel-Young Losses'",
    .nparams = 1,
    .params = ss_loss_target_param,
    .input = SS_INPUT_LOGITS,
    .has_backward = true,
    .loss = SS_IMPLS(ce),
    .relaxed_simd = SS_RELAXED_EXP_STORE,
};
