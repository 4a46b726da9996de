/*
 * RMSProp (Tieleman & Hinton 2012, Lecture 6.5 of "Neural Networks for
 * Machine Learning"), in torch.optim.RMSprop's form (no momentum, not
 * centered):
 *
 *   g <- g + wd w;  v <- alpha v + (1 - alpha) g^2;  w <- w - lr g / (sqrt(v) + eps)
 *
 * Slot 0 is v.
 */
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info rmsprop_params[] = {
    SS_P_LR(1e-2),
    SS_P_BETA("alpha", 0.99, "smoothing constant of the squared-gradient average"),
    SS_P_EPS(1e-8),
    SS_P_WD(0.0, SS_WD_L2),
};

static void rmsprop_tail(float *w, const float *g, float *v, size_t i, size_t n, const float c[5]) {
  for (; i < n; i++) {
    const float gi = g[i] + c[4] * w[i];
    const float vi = c[1] * v[i] + c[2] * (gi * gi);
    v[i] = vi;
    w[i] = w[i] - c[0] * gi / (sqrtf(vi) + c[3]);
  }
}

/* lr, alpha, 1 - alpha, eps, wd */
static void consts(const double *p, float c[5]) {
  c[0] = (float)p[0], c[1] = (float)p[1], c[2] = (float)(1.0 - p[1]), c[3] = ss_eps_f(p[2]),
  c[4] = (float)p[3];
}

static ss_status rmsprop_scalar(float *w, const float *g, size_t n, const double *p, uint64_t t,
                                float *slots, double *sc) {
  (void)t, (void)sc;
  float c[5];
  consts(p, c);
  rmsprop_tail(w, g, slots, 0, n, c);
  return SS_OK;
}

#if SS_HAVE_SIMD
static ss_status rmsprop_simd(float *w, const float *g, size_t n, const double *p, uint64_t t,
                              float *v, double *sc) {
  (void)t, (void)sc;
  float c[5];
  consts(p, c);
  const v128_t lr = wasm_f32x4_splat(c[0]), a = wasm_f32x4_splat(c[1]), a1 = wasm_f32x4_splat(c[2]);
  const v128_t eps = wasm_f32x4_splat(c[3]), wd = wasm_f32x4_splat(c[4]);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t wi = wasm_v128_load(w + i);
    const v128_t gi = wasm_f32x4_add(wasm_v128_load(g + i), wasm_f32x4_mul(wd, wi));
    const v128_t vi = wasm_f32x4_add(wasm_f32x4_mul(a, wasm_v128_load(v + i)),
                                     wasm_f32x4_mul(a1, wasm_f32x4_mul(gi, gi)));
    wasm_v128_store(v + i, vi);
    const v128_t d = wasm_f32x4_div(wasm_f32x4_mul(lr, gi), wasm_f32x4_add(wasm_f32x4_sqrt(vi), eps));
    wasm_v128_store(w + i, wasm_f32x4_sub(wi, d));
  }
  rmsprop_tail(w, g, v, i, n, c);
  return SS_OK;
}
#endif

const ss_kernel_info ss_kernel_rmsprop = {
    .name = "rmsprop",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "step lr / sqrt(running average of squared gradients)",
    .formula = "v <- alpha v + (1 - alpha) g^2; w <- w - lr g / (sqrt(v) + eps)",
    .paper = "Tieleman & Hinton 2012, Lecture 6.5 - rmsprop (torch.optim.RMSprop)",
    .nparams = 4,
    .params = rmsprop_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(rmsprop),
    .opt_slots = 1,
};
