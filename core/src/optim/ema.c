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

/* lr, decay, 1 - decay; at step 1 the average starts at the iterate: decay 0. */
typedef struct { float lr, d, dc; } ema_consts;

static ema_consts consts(const double *p, uint64_t t) {
  ema_consts c;
  c.lr = (float)p[0];
  c.d = t == 1 ? 0.0f : (float)p[1];
  c.dc = t == 1 ? 1.0f : (float)(1.0 - p[1]);
  return c;
}

static void ema_tail(float *w, const float *g, float *u, size_t i, size_t n, const ema_consts *c) {
  for (; i < n; i++) {
    const float wi = w[i] - c->lr * g[i];
    w[i] = wi;
    u[i] = c->d * u[i] + c->dc * wi;
  }
}

static void ema_rows_scalar(float *w, const float *g, float *u, size_t n, const ema_consts *c) {
  ema_tail(w, g, u, 0, n, c);
}
#if SS_HAVE_SIMD
static void ema_rows_simd(float *w, const float *g, float *u, size_t n, const ema_consts *c) {
  const v128_t vlr = wasm_f32x4_splat(c->lr), vd = wasm_f32x4_splat(c->d), vdc = wasm_f32x4_splat(c->dc);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t wi = wasm_f32x4_sub(wasm_v128_load(w + i), wasm_f32x4_mul(vlr, wasm_v128_load(g + i)));
    wasm_v128_store(w + i, wi);
    wasm_v128_store(u + i, wasm_f32x4_add(wasm_f32x4_mul(vd, wasm_v128_load(u + i)), wasm_f32x4_mul(vdc, wi)));
  }
  ema_tail(w, g, u, i, n, c);
}
#endif

SS_ROWS_STEP_IMPLS(ema, ema_consts, consts)

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
