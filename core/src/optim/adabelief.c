/*
 * AdaBelief (Zhuang et al. 2020, "AdaBelief Optimizer: Adapting Stepsizes by
 * the Belief in Observed Gradients"): Adam whose second moment is that of
 * the gradient's deviation from its prediction m, (g - m)^2, so the step is
 * large where the gradient is as predicted. As in the authors'
 * adabelief-pytorch 0.2 (decoupled weight decay, no rectification):
 *
 *   w <- w (1 - lr wd);  m <- b1 m + (1 - b1) g
 *   s <- b2 s + (1 - b2) (g - m)^2 + eps
 *   w <- w - (lr / (1 - b1^t)) m / (sqrt(s) / sqrt(1 - b2^t) + eps)
 *
 * Slots: m, s.
 */
#include "optim/optim_internal.h"

static const ss_param_info adabelief_params[] = {
    SS_P_LR(1e-3),
    SS_P_BETA("beta1", 0.9, "decay of the first moment m"),
    SS_P_BETA("beta2", 0.999, "decay of the belief s = EMA of (g - m)^2"),
    SS_P_EPS(1e-16),
    SS_P_WD(0.0, SS_WD_DECOUPLED),
};

/* b1, 1 - b1, b2, 1 - b2, lr / bc1, 1 / sqrt(bc2), eps, 1 - lr wd */
typedef struct { float b1, b1c, b2, b2c, step, inv_bc2, eps, keep; } belief_consts;

static belief_consts consts(const double *p, uint64_t t) {
  belief_consts c;
  c.b1 = (float)p[1], c.b1c = (float)(1.0 - p[1]), c.b2 = (float)p[2], c.b2c = (float)(1.0 - p[2]);
  c.step = (float)(p[0] / ss_bias_correction(p[1], t));
  c.inv_bc2 = (float)(1.0 / sqrt(ss_bias_correction(p[2], t)));
  c.eps = (float)p[3], c.keep = (float)(1.0 - p[0] * p[4]);
  return c;
}

static void belief_tail(float *w, const float *g, float *m, float *s, size_t i, size_t n,
                        const belief_consts *c) {
  for (; i < n; i++) {
    const float wi = c->keep * w[i];
    const float mi = c->b1 * m[i] + c->b1c * g[i];
    const float r = g[i] - mi;
    const float si = (c->b2 * s[i] + c->b2c * (r * r)) + c->eps;
    m[i] = mi, s[i] = si;
    w[i] = wi - c->step * (mi / (sqrtf(si) * c->inv_bc2 + c->eps));
  }
}

static ss_status adabelief_scalar(float *w, const float *g, size_t n, const double *p, uint64_t t,
                                  float *slots, double *sc) {
  (void)sc;
  const belief_consts c = consts(p, t);
  belief_tail(w, g, slots, slots + n, 0, n, &c);
  return SS_OK;
}

#if SS_HAVE_SIMD
static ss_status adabelief_simd(float *w, const float *g, size_t n, const double *p, uint64_t t,
                                float *slots, double *sc) {
  (void)sc;
  const belief_consts c = consts(p, t);
  float *m = slots, *s = slots + n;
  const v128_t b1 = wasm_f32x4_splat(c.b1), b1c = wasm_f32x4_splat(c.b1c);
  const v128_t b2 = wasm_f32x4_splat(c.b2), b2c = wasm_f32x4_splat(c.b2c);
  const v128_t step = wasm_f32x4_splat(c.step), ib = wasm_f32x4_splat(c.inv_bc2);
  const v128_t eps = wasm_f32x4_splat(c.eps), keep = wasm_f32x4_splat(c.keep);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t wi = wasm_f32x4_mul(keep, wasm_v128_load(w + i)), gi = wasm_v128_load(g + i);
    const v128_t mi = wasm_f32x4_add(wasm_f32x4_mul(b1, wasm_v128_load(m + i)), wasm_f32x4_mul(b1c, gi));
    const v128_t r = wasm_f32x4_sub(gi, mi);
    const v128_t si = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(b2, wasm_v128_load(s + i)),
                                                    wasm_f32x4_mul(b2c, wasm_f32x4_mul(r, r))),
                                     eps);
    wasm_v128_store(m + i, mi);
    wasm_v128_store(s + i, si);
    const v128_t den = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_sqrt(si), ib), eps);
    wasm_v128_store(w + i, wasm_f32x4_sub(wi, wasm_f32x4_mul(step, wasm_f32x4_div(mi, den))));
  }
  belief_tail(w, g, m, s, i, n, &c);
  return SS_OK;
}
#endif

const ss_kernel_info ss_kernel_adabelief = {
    .name = "adabelief",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "Adam with the second moment of (g - m): big steps where g is as predicted",
    .formula = "m <- b1 m + (1-b1) g; s <- b2 s + (1-b2)(g - m)^2 + eps; "
               "w <- w - lr m_hat / (sqrt(s_hat) + eps)",
    .paper = "Zhuang et al. 2020, AdaBelief Optimizer: Adapting Stepsizes by the Belief in "
             "Observed Gradients",
    .nparams = 5,
    .params = adabelief_params,
    .input = SS_INPUT_VALUES,
    .step = {adabelief_scalar, SS_SIMD(adabelief_simd)},
    .opt_slots = 2,
};
