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

/* lr, alpha, 1 - alpha, eps, wd */
typedef struct { float lr, a, a1, eps, wd; } rmsprop_consts;

static rmsprop_consts consts(const double *p, uint64_t t) {
  (void)t;
  rmsprop_consts c;
  c.lr = (float)p[0], c.a = (float)p[1], c.a1 = (float)(1.0 - p[1]), c.eps = ss_eps_f(p[2]),
  c.wd = (float)p[3];
  return c;
}

static void rmsprop_tail(float *w, const float *g, float *v, size_t i, size_t n,
                         const rmsprop_consts *c) {
  for (; i < n; i++) {
    const float gi = g[i] + c->wd * w[i];
    const float vi = c->a * v[i] + c->a1 * (gi * gi);
    v[i] = vi;
    w[i] = w[i] - c->lr * gi / (sqrtf(vi) + c->eps);
  }
}

static void rmsprop_rows_scalar(float *w, const float *g, float *v, size_t n,
                                const rmsprop_consts *c) {
  rmsprop_tail(w, g, v, 0, n, c);
}

#if SS_HAVE_SIMD
static void rmsprop_rows_simd(float *w, const float *g, float *v, size_t n,
                              const rmsprop_consts *c) {
  const v128_t lr = wasm_f32x4_splat(c->lr), a = wasm_f32x4_splat(c->a), a1 = wasm_f32x4_splat(c->a1);
  const v128_t eps = wasm_f32x4_splat(c->eps), wd = wasm_f32x4_splat(c->wd);
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
}
#endif

SS_ROWS_STEP_IMPLS(rmsprop, rmsprop_consts, consts)

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
