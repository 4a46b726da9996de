/*
 * Adam (Kingma & Ba 2015, "Adam: A Method for Stochastic Optimization"),
 * AdamW (Loshchilov & Hutter 2019, "Decoupled Weight Decay Regularization")
 * and AMSGrad (Reddi, Kale & Kumar 2018, "On the Convergence of Adam and
 * Beyond"), in torch.optim.Adam / AdamW's form:
 *
 *   adam:    g <- g + wd w                     (L2)
 *   adamw:   w <- w (1 - lr wd)                (decoupled)
 *   m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
 *   amsgrad: vmax <- max(vmax, v), used for v below
 *   w <- w - (lr / (1 - b1^t)) m / (sqrt(v) / sqrt(1 - b2^t) + eps)
 *
 * i.e. lr m_hat / (sqrt(v_hat) + eps) with eps added after the square root
 * of the bias-corrected v. Slots: m, v (and vmax).
 */
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info adam_params[] = {
    SS_P_LR(1e-3),
    SS_P_BETA("beta1", 0.9, "decay of the first moment m"),
    SS_P_BETA("beta2", 0.999, "decay of the second moment v"),
    SS_P_EPS(1e-8),
    SS_P_WD(0.0, SS_WD_L2),
};
static const ss_param_info adamw_params[] = {
    SS_P_LR(1e-3),
    SS_P_BETA("beta1", 0.9, "decay of the first moment m"),
    SS_P_BETA("beta2", 0.999, "decay of the second moment v"),
    SS_P_EPS(1e-8),
    SS_P_WD(1e-2, SS_WD_DECOUPLED),
};

enum { ADAM = 0, ADAMW = 1, AMSGRAD = 2 };

/* The step's constants: b1, 1 - b1, b2, 1 - b2, lr / bc1, 1 / sqrt(bc2),
   eps, L2 factor, decoupled factor 1 - lr wd. */
typedef struct { float b1, b1c, b2, b2c, step, inv_bc2, eps, l2, keep; } adam_consts;

static adam_consts consts(const double *p, uint64_t t, int mode) {
  adam_consts c;
  c.b1 = (float)p[1], c.b1c = (float)(1.0 - p[1]), c.b2 = (float)p[2], c.b2c = (float)(1.0 - p[2]);
  c.step = (float)(p[0] / ss_bias_correction(p[1], t));
  c.inv_bc2 = (float)(1.0 / sqrt(ss_bias_correction(p[2], t)));
  c.eps = ss_eps_f(p[3]);
  c.l2 = mode == ADAMW ? 0.0f : (float)p[4];
  c.keep = mode == ADAMW ? (float)(1.0 - p[0] * p[4]) : 1.0f;
  return c;
}

static void adam_tail(float *w, const float *g, float *m, float *v, float *vmax, size_t i,
                      size_t n, const adam_consts *c) {
  for (; i < n; i++) {
    const float wi = c->keep * w[i];
    const float gi = g[i] + c->l2 * wi;
    const float mi = c->b1 * m[i] + c->b1c * gi;
    float vi = c->b2 * v[i] + c->b2c * (gi * gi);
    m[i] = mi, v[i] = vi;
    if (vmax) vi = vmax[i] = vi > vmax[i] ? vi : vmax[i];
    w[i] = wi - c->step * (mi / (sqrtf(vi) * c->inv_bc2 + c->eps));
  }
}

#if SS_HAVE_SIMD
SS_ALWAYS_INLINE v128_t adam4(v128_t wi, v128_t gi, float *m, float *v, float *vmax, const v128_t *k) {
  wi = wasm_f32x4_mul(k[8], wi);
  gi = wasm_f32x4_add(gi, wasm_f32x4_mul(k[7], wi));
  const v128_t mi = wasm_f32x4_add(wasm_f32x4_mul(k[0], wasm_v128_load(m)), wasm_f32x4_mul(k[1], gi));
  v128_t vi = wasm_f32x4_add(wasm_f32x4_mul(k[2], wasm_v128_load(v)),
                             wasm_f32x4_mul(k[3], wasm_f32x4_mul(gi, gi)));
  wasm_v128_store(m, mi);
  wasm_v128_store(v, vi);
  if (vmax) {
    const v128_t old = wasm_v128_load(vmax);
    vi = wasm_v128_bitselect(vi, old, wasm_f32x4_gt(vi, old));
    wasm_v128_store(vmax, vi);
  }
  const v128_t den = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_sqrt(vi), k[5]), k[6]);
  return wasm_f32x4_sub(wi, wasm_f32x4_mul(k[4], wasm_f32x4_div(mi, den)));
}

static void adam_rows_simd(float *w, const float *g, float *m, float *v, float *vmax, size_t n,
                           const adam_consts *c) {
  const v128_t k[9] = {wasm_f32x4_splat(c->b1),   wasm_f32x4_splat(c->b1c),
                       wasm_f32x4_splat(c->b2),   wasm_f32x4_splat(c->b2c),
                       wasm_f32x4_splat(c->step), wasm_f32x4_splat(c->inv_bc2),
                       wasm_f32x4_splat(c->eps),  wasm_f32x4_splat(c->l2),
                       wasm_f32x4_splat(c->keep)};
  size_t i = 0;
  /* two vectors per iteration: two independent sqrt/div chains in flight */
  for (; i + 8 <= n; i += 8) {
    const v128_t w0 = adam4(wasm_v128_load(w + i), wasm_v128_load(g + i), m + i, v + i,
                            vmax ? vmax + i : NULL, k);
    const v128_t w1 = adam4(wasm_v128_load(w + i + 4), wasm_v128_load(g + i + 4), m + i + 4,
                            v + i + 4, vmax ? vmax + i + 4 : NULL, k);
    wasm_v128_store(w + i, w0);
    wasm_v128_store(w + i + 4, w1);
  }
  for (; i + 4 <= n; i += 4)
    wasm_v128_store(w + i, adam4(wasm_v128_load(w + i), wasm_v128_load(g + i), m + i, v + i,
                                 vmax ? vmax + i : NULL, k));
  adam_tail(w, g, m, v, vmax, i, n, c);
}
#endif

static void adam_rows_scalar(float *w, const float *g, float *m, float *v, float *vmax, size_t n,
                             const adam_consts *c) {
  adam_tail(w, g, m, v, vmax, 0, n, c);
}

SS_ALWAYS_INLINE ss_status adam_run(int mode, ss_impl impl, float *w, const float *g, size_t n,
                                    const double *p, uint64_t t, float *s, double *sc) {
  (void)sc;
  const adam_consts c = consts(p, t, mode);
  SS_BY_IMPL(impl, adam_rows)(w, g, s, s + n, mode == AMSGRAD ? s + 2 * n : NULL, n, &c);
  return SS_OK;
}

SS_STEP_IMPLS(adam, adam_run, ADAM)
SS_STEP_IMPLS(adamw, adam_run, ADAMW)
SS_STEP_IMPLS(amsgrad, adam_run, AMSGRAD)

const ss_kernel_info ss_kernel_adam = {
    .name = "adam",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "adaptive moments with bias correction (L2 weight decay)",
    .formula = "m <- b1 m + (1-b1) g; v <- b2 v + (1-b2) g^2; "
               "w <- w - lr m_hat / (sqrt(v_hat) + eps)",
    .paper = "Kingma & Ba 2015, Adam: A Method for Stochastic Optimization (torch.optim.Adam)",
    .nparams = 5,
    .params = adam_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(adam),
    .opt_slots = 2,
};

const ss_kernel_info ss_kernel_adamw = {
    .name = "adamw",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "Adam with decoupled weight decay",
    .formula = "w <- w (1 - lr wd); then the Adam step",
    .paper = "Loshchilov & Hutter 2019, Decoupled Weight Decay Regularization (torch.optim.AdamW)",
    .nparams = 5,
    .params = adamw_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(adamw),
    .opt_slots = 2,
};

const ss_kernel_info ss_kernel_amsgrad = {
    .name = "amsgrad",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "Adam with the running maximum of v (non-increasing step sizes)",
    .formula = "vmax <- max(vmax, v); w <- w - lr m_hat / (sqrt(vmax / (1-b2^t)) + eps)",
    .paper = "Reddi, Kale & Kumar 2018, On the Convergence of Adam and Beyond "
             "(torch.optim.Adam amsgrad=True)",
    .nparams = 5,
    .params = adam_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(amsgrad),
    .opt_slots = 3,
};
