/*
 * Stochastic gradient descent, with heavy-ball momentum (Polyak 1964) and
 * Nesterov momentum (Nesterov 1983; Sutskever et al. 2013, "On the
 * importance of initialization and momentum in deep learning"), in PyTorch's
 * form (torch.optim.SGD, dampening 0):
 *
 *   g <- g + wd w                      (L2 weight decay)
 *   b <- mu b + g                      (b = g at the first step: b starts at 0)
 *   sgd:      w <- w - lr g
 *   momentum: w <- w - lr b
 *   nesterov: w <- w - lr (g + mu b)
 *
 * Slot 0 is the momentum buffer b.
 */
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

enum { PLAIN = SS_SGD_PLAIN, HEAVY = SS_SGD_HEAVY, NESTEROV = SS_SGD_NESTEROV };

static const ss_param_info sgd_params[] = {
    SS_P_LR(1e-3),
    SS_P_WD(0.0, SS_WD_L2),
};
static const ss_param_info momentum_params[] = {
    SS_P_LR(1e-3),
    SS_P_MOMENTUM(0.9),
    SS_P_WD(0.0, SS_WD_L2),
};

static void sgd_tail(float *w, const float *g, float *b, size_t i, size_t n, float lr, float mu,
                     float wd, int mode) {
  for (; i < n; i++) {
    const float gi = g[i] + wd * w[i];
    if (mode == PLAIN) {
      w[i] = w[i] - lr * gi;
      continue;
    }
    const float bi = mu * b[i] + gi;
    b[i] = bi;
    w[i] = w[i] - lr * (mode == HEAVY ? bi : gi + mu * bi);
  }
}

void ss_sgd_rows_scalar(float *w, const float *g, float *b, size_t n, float lr, float mu, float wd,
                        int mode) {
  sgd_tail(w, g, b, 0, n, lr, mu, wd, mode);
}

#if SS_HAVE_SIMD
void ss_sgd_rows_simd(float *w, const float *g, float *b, size_t n, float lr, float mu, float wd,
                      int mode) {
  const v128_t vlr = wasm_f32x4_splat(lr), vmu = wasm_f32x4_splat(mu), vwd = wasm_f32x4_splat(wd);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t wi = wasm_v128_load(w + i);
    const v128_t gi = wasm_f32x4_add(wasm_v128_load(g + i), wasm_f32x4_mul(vwd, wi));
    v128_t d = gi;
    if (mode != PLAIN) {
      const v128_t bi = wasm_f32x4_add(wasm_f32x4_mul(vmu, wasm_v128_load(b + i)), gi);
      wasm_v128_store(b + i, bi);
      d = mode == HEAVY ? bi : wasm_f32x4_add(gi, wasm_f32x4_mul(vmu, bi));
    }
    wasm_v128_store(w + i, wasm_f32x4_sub(wi, wasm_f32x4_mul(vlr, d)));
  }
  sgd_tail(w, g, b, i, n, lr, mu, wd, mode);
}
#endif

/* One body for the three: momentum mu (0 for sgd) and weight decay wd are
   params 1 and 2, sgd's wd param 1. */
SS_ALWAYS_INLINE ss_status sgd_run(int mode, ss_impl impl, float *w, const float *g, size_t n,
                                   const double *p, uint64_t t, float *slots, double *sc) {
  (void)t, (void)sc;
  const float mu = mode == PLAIN ? 0.0f : (float)p[1];
  const float wd = (float)p[mode == PLAIN ? 1 : 2];
  SS_BY_IMPL(impl, ss_sgd_rows)(w, g, slots, n, (float)p[0], mu, wd, mode);
  return SS_OK;
}

SS_STEP_IMPLS(sgd, sgd_run, PLAIN)
SS_STEP_IMPLS(momentum, sgd_run, HEAVY)
SS_STEP_IMPLS(nesterov, sgd_run, NESTEROV)

const ss_kernel_info ss_kernel_sgd = {
    .name = "sgd",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "plain gradient descent",
    .formula = "g <- g + wd w; w <- w - lr g",
    .paper = "Robbins & Monro 1951, A Stochastic Approximation Method (torch.optim.SGD)",
    .nparams = 2,
    .params = sgd_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(sgd),
};

const ss_kernel_info ss_kernel_momentum = {
    .name = "momentum",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "SGD with heavy-ball momentum",
    .formula = "b <- mu b + g; w <- w - lr b  (b = g at step 1)",
    .paper = "Polyak 1964, Some methods of speeding up the convergence of iteration methods "
             "(torch.optim.SGD momentum)",
    .nparams = 3,
    .params = momentum_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(momentum),
    .opt_slots = 1,
};

const ss_kernel_info ss_kernel_nesterov = {
    .name = "nesterov",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "SGD with Nesterov momentum (look-ahead on the momentum)",
    .formula = "b <- mu b + g; w <- w - lr (g + mu b)",
    .paper = "Sutskever et al. 2013, On the importance of initialization and momentum in deep "
             "learning (torch.optim.SGD nesterov=True)",
    .nparams = 3,
    .params = momentum_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(nesterov),
    .opt_slots = 1,
};
