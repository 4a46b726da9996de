/*
 * AdaBound and AMSBound (Luo, Xiong, Liu & Sun 2019, "Adaptive Gradient
 * Methods with Dynamic Bound of Learning Rate"): Adam (AMSGrad) whose
 * per-coordinate step size is clipped to bounds that both converge to
 * final_lr, so the method turns into SGD (with momentum) over time. As in
 * the authors' code:
 *
 *   g <- g + wd w;  m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
 *   (amsbound: v <- vmax = max(vmax, v))
 *   eta = clip(lr sqrt(1 - b2^t) / (1 - b1^t) / (sqrt(v) + eps), lower, upper)
 *   lower = final_lr (1 - 1 / (gamma t + 1)),  upper = final_lr (1 + 1 / (gamma t))
 *   w <- w - eta m
 *
 * Slots: m, v (and vmax).
 */
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info adabound_params[] = {
    SS_P_LR(1e-3),
    SS_P_BETA("beta1", 0.9, "decay of the first moment m"),
    SS_P_BETA("beta2", 0.999, "decay of the second moment v"),
    SS_P_EPS(1e-8),
    SS_P_WD(0.0, SS_WD_L2),
    {.name = "final_lr", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e6, .def = 0.1,
     .ui_min = 1e-4, .ui_max = 10.0, .log_scale = true,
     .help = "the SGD learning rate both bounds converge to"},
    {.name = "gamma", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e300, .min_open = true,
     .def = 1e-3, .ui_min = 1e-5, .ui_max = 1.0, .log_scale = true,
     .help = "convergence speed of the bounds"},
};

/* b1, 1 - b1, b2, 1 - b2, step size, eps, wd, lower, upper */
typedef struct { float b1, b1c, b2, b2c, step, eps, wd, lo, hi; } bound_consts;

static bound_consts consts(const double *p, uint64_t t) {
  const double tt = (double)t;
  bound_consts c;
  c.b1 = (float)p[1], c.b1c = (float)(1.0 - p[1]), c.b2 = (float)p[2], c.b2c = (float)(1.0 - p[2]);
  c.step = (float)(p[0] * sqrt(ss_bias_correction(p[2], t)) / ss_bias_correction(p[1], t));
  c.eps = ss_eps_f(p[3]), c.wd = (float)p[4];
  c.lo = ss_f32_sat(p[5] * (1.0 - 1.0 / (p[6] * tt + 1.0)));
  c.hi = ss_f32_sat(p[5] * (1.0 + 1.0 / (p[6] * tt))); /* gamma -> 0: FLT_MAX */
  return c;
}

static void bound_tail(float *w, const float *g, float *m, float *v, float *vmax, size_t i,
                       size_t n, const bound_consts *c) {
  for (; i < n; i++) {
    const float gi = g[i] + c->wd * w[i];
    const float mi = c->b1 * m[i] + c->b1c * gi;
    float vi = c->b2 * v[i] + c->b2c * (gi * gi);
    m[i] = mi, v[i] = vi;
    if (vmax) vi = vmax[i] = vi > vmax[i] ? vi : vmax[i];
    float eta = c->step / (sqrtf(vi) + c->eps);
    eta = eta < c->lo ? c->lo : eta;
    eta = eta > c->hi ? c->hi : eta;
    w[i] = w[i] - eta * mi;
  }
}

#if SS_HAVE_SIMD
static void bound_rows_simd(float *w, const float *g, float *m, float *v, float *vmax, size_t n,
                            const bound_consts *c) {
  const v128_t b1 = wasm_f32x4_splat(c->b1), b1c = wasm_f32x4_splat(c->b1c);
  const v128_t b2 = wasm_f32x4_splat(c->b2), b2c = wasm_f32x4_splat(c->b2c);
  const v128_t step = wasm_f32x4_splat(c->step), eps = wasm_f32x4_splat(c->eps);
  const v128_t wd = wasm_f32x4_splat(c->wd), lo = wasm_f32x4_splat(c->lo), hi = wasm_f32x4_splat(c->hi);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t wi = wasm_v128_load(w + i);
    const v128_t gi = wasm_f32x4_add(wasm_v128_load(g + i), wasm_f32x4_mul(wd, wi));
    const v128_t mi = wasm_f32x4_add(wasm_f32x4_mul(b1, wasm_v128_load(m + i)), wasm_f32x4_mul(b1c, gi));
    v128_t vi = wasm_f32x4_add(wasm_f32x4_mul(b2, wasm_v128_load(v + i)),
                               wasm_f32x4_mul(b2c, wasm_f32x4_mul(gi, gi)));
    wasm_v128_store(m + i, mi);
    wasm_v128_store(v + i, vi);
    if (vmax) {
      const v128_t old = wasm_v128_load(vmax + i);
      vi = wasm_v128_bitselect(vi, old, wasm_f32x4_gt(vi, old));
      wasm_v128_store(vmax + i, vi);
    }
    v128_t eta = wasm_f32x4_div(step, wasm_f32x4_add(wasm_f32x4_sqrt(vi), eps));
    eta = wasm_v128_bitselect(lo, eta, wasm_f32x4_lt(eta, lo));
    eta = wasm_v128_bitselect(hi, eta, wasm_f32x4_gt(eta, hi));
    wasm_v128_store(w + i, wasm_f32x4_sub(wi, wasm_f32x4_mul(eta, mi)));
  }
  bound_tail(w, g, m, v, vmax, i, n, c);
}
#endif

static void bound_rows_scalar(float *w, const float *g, float *m, float *v, float *vmax, size_t n,
                              const bound_consts *c) {
  bound_tail(w, g, m, v, vmax, 0, n, c);
}

SS_ALWAYS_INLINE ss_status bound_run(bool ams, ss_impl impl, float *w, const float *g, size_t n,
                                     const double *p, uint64_t t, float *s, double *sc) {
  (void)sc;
  const bound_consts c = consts(p, t);
  SS_BY_IMPL(impl, bound_rows)(w, g, s, s + n, ams ? s + 2 * n : NULL, n, &c);
  return SS_OK;
}

SS_STEP_IMPLS(adabound, bound_run, false)
SS_STEP_IMPLS(amsbound, bound_run, true)

const ss_kernel_info ss_kernel_adabound = {
    .name = "adabound",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "Adam with step sizes clipped to bounds that converge to SGD's final_lr",
    .formula = "eta = clip(lr_t / (sqrt(v) + eps), final_lr (1 - 1/(gamma t + 1)), "
               "final_lr (1 + 1/(gamma t))); w <- w - eta m",
    .paper = "Luo, Xiong, Liu & Sun 2019, Adaptive Gradient Methods with Dynamic Bound of "
             "Learning Rate",
    .nparams = 7,
    .params = adabound_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(adabound),
    .opt_slots = 2,
};

const ss_kernel_info ss_kernel_amsbound = {
    .name = "amsbound",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "AdaBound on AMSGrad's running maximum of v",
    .formula = "vmax <- max(vmax, v); then AdaBound's clipped step with vmax",
    .paper = "Luo, Xiong, Liu & Sun 2019, Adaptive Gradient Methods with Dynamic Bound of "
             "Learning Rate",
    .nparams = 7,
    .params = adabound_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(amsbound),
    .opt_slots = 3,
};
