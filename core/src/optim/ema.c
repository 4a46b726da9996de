/*
 * Weight EMA (Polyak & Juditsky 1992, "Acceleration of Stochastic
 * Approximation by Averaging"; the exponential form as in
 * torch.optim.swa_utils.get_ema_multi_avg_fn): SGD on w, plus an
 * exponential moving average of the iterates, which is the model one
 * evaluates. Noise in the iterates averages out of the EMA.
 *
 *   w <- w - lr g
 *   u <- w at step 1, then u <- decay u + (1 - decay) w
 *
 * Slot 0 is u; the kernel's `averaged` flag makes the trajectory engine
 * report u rather than w.
 */
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info ema_params[] = {
    SS_P_LR(1e-3),
    SS_P_BETA("decay", 0.999, "decay of the average of the weights"),
};

static void ema_tail(float *w, const float *g, float *u, size_t i, size_t n, float lr, float d,
                     float dc) {
  for (; i < n; i++) {
    const float wi = w[i] - lr * g[i];
    w[i] = wi;
    u[i] = d * u[i] + dc * wi;
  }
}

/* At step 1 the average starts at the iterate: decay 0. */
static void ema_consts(const double *p, uint64_t t, float *d, float *dc) {
  *d = t == 1 ? 0.0f : (float)p[1];
  *dc = t == 1 ? 1.0f : (float)(1.0 - p[1]);
}

static ss_status ema_scalar(float *w, const float *g, size_t n, const double *p, uint64_t t,
                            float *u, double *sc) {
  (void)sc;
  float d, dc;
  ema_consts(p, t, &d, &dc);
  ema_tail(w, g, u, 0, n, (float)p[0], d, dc);
  return SS_OK;
}
#if SS_HAVE_SIMD
static ss_status ema_simd(float *w, const float *g, size_t n, const double *p, uint64_t t,
                          float *u, double *sc) {
  (void)sc;
  float d, dc;
  ema_consts(p, t, &d, &dc);
  const float lr = (float)p[0];
  const v128_t vlr = wasm_f32x4_splat(lr), vd = wasm_f32x4_splat(d), vdc = wasm_f32x4_splat(dc);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t wi = wasm_f32x4_sub(wasm_v128_load(w + i), wasm_f32x4_mul(vlr, wasm_v128_load(g + i)));
    wasm_v128_store(w + i, wi);
    wasm_v128_store(u + i, wasm_f32x4_add(wasm_f32x4_mul(vd, wasm_v128_load(u + i)), wasm_f32x4_mul(vdc, wi)));
  }
  ema_tail(w, g, u, i, n, lr, d, dc);
  return SS_OK;
}
#endif

const ss_kernel_info ss_kernel_ema = {
    .name = "ema",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "SGD plus an exponential moving average of the weights (the averaged model)",
    .formula = "w <- w - lr g; u <- decay u + (1 - decay) w (u = w at step 1); report u",
    .paper = "Polyak & Juditsky 1992, Acceleration of Stochastic Approximation by Averaging",
    .nparams = 2,
    .params = ema_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(ema),
    .opt_slots = 1,
    .averaged = true,
};
