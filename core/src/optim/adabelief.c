/*
 * AdaBelief (Zhuang et al. 2020, "AdaBelief Optimizer: Adapting Stepsizes by
 * the Belief in Observed Gradients"): Adam whose second moment is that of
 * the gradient's deviation from its prediction m, (g - m)^2, so the step is
 * large where the gradient is as predicted. As in the authors'
 * adabelief-pytorch 0.2 (decoupled weight decay, eps added to s in place):
 *
 *   w <- w (1 - lr wd);  m <- b1 m + (1 - b1) g
 *   s <- b2 s + (1 - b2) (g - m)^2 + eps
 *   rectify = 0:  w <- w - (lr / (1 - b1^t)) m / (sqrt(s) / sqrt(1 - b2^t) + eps)
 *   rectify = 1 (the package's default, with degenerated_to_sgd): RAdam's
 *     variance rectification (Liu et al. 2020, "On the Variance of the
 *     Adaptive Learning Rate and Beyond"), with
 *       rho_inf = 2 / (1 - b2) - 1,  rho_t = rho_inf - 2 t b2^t / (1 - b2^t)
 *     rho_t >= 5:  r_t = sqrt((1 - b2^t) (rho_t - 4) (rho_t - 2) rho_inf /
 *                             ((rho_inf - 4) (rho_inf - 2) rho_t)) / (1 - b1^t),
 *                  w <- w - lr r_t m / (sqrt(s) + eps)
 *     rho_t < 5:   w <- w - (lr / (1 - b1^t)) m      (momentum SGD while the
 *                  variance estimate has too few effective samples)
 *
 * rho_t is a difference of two terms of size 2 / (1 - b2): for b2 near 1
 * (1 - b2 = 2^-53 is in range) it is taken from its series in a = 1 - b2,
 *   rho_t = t + a (1 - t^2) / 6 + a^2 (1 - t^2) / 12
 *             + a^3 (t^4 / 360 - t^2 / 18 + 19 / 360) + O(a^4 t^6),
 * where a t < 1e-3 (the direct form otherwise loses < 4 digits).
 * Slots: m, s.
 */
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info adabelief_params[] = {
    SS_P_LR(1e-3),
    SS_P_BETA("beta1", 0.9, "decay of the first moment m"),
    SS_P_BETA("beta2", 0.999, "decay of the belief s = EMA of (g - m)^2"),
    SS_P_EPS(1e-16),
    SS_P_WD(0.0, SS_WD_DECOUPLED),
    {.name = "rectify", .type = SS_PARAM_BOOL, .min = 0.0, .max = 1.0, .def = 1.0, .ui_min = 0.0,
     .ui_max = 1.0,
     .help = "RAdam's variance rectification: momentum SGD while rho_t < 5, then the "
             "rectified step (1, the default of adabelief-pytorch 0.2); 0: plain AdaBelief"},
};

/* b1, 1 - b1, b2, 1 - b2, step, 1 / sqrt(bc2), eps of the denominator,
   1 - lr wd, eps added to s. The step is m step / (sqrt(s) inv_bc2 + deps):
   plain: lr / bc1, 1 / sqrt(bc2), eps; rectified: lr r_t, 1, eps; momentum
   SGD: lr / bc1, 0, 1 (the denominator is exactly 1). */
typedef struct { float b1, b1c, b2, b2c, step, inv_bc2, deps, keep, eps; } belief_consts;

/* rho_t of RAdam (see the header), accurate for every b2 in [0, 1). */
static double rho_t(double b2, uint64_t t) {
  const double a = 1.0 - b2, tt = (double)t;
  if (a * tt < 1e-3) {
    const double t2 = tt * tt;
    return tt + a * ((1.0 - t2) / 6.0 +
                     a * ((1.0 - t2) / 12.0 + a * (t2 * t2 / 360.0 - t2 / 18.0 + 19.0 / 360.0)));
  }
  const double bt = pow(b2, tt);
  return (2.0 / a - 1.0) - 2.0 * tt * bt / (1.0 - bt);
}

static belief_consts consts(const double *p, uint64_t t) {
  belief_consts c;
  c.b1 = (float)p[1], c.b1c = (float)(1.0 - p[1]), c.b2 = (float)p[2], c.b2c = (float)(1.0 - p[2]);
  c.eps = ss_eps_f(p[3]), c.keep = (float)(1.0 - p[0] * p[4]);
  const double bc1 = ss_bias_correction(p[1], t);
  c.step = (float)(p[0] / bc1);
  c.inv_bc2 = (float)(1.0 / sqrt(ss_bias_correction(p[2], t)));
  c.deps = c.eps;
  if (p[5] != 0.0) {
    const double rho = rho_t(p[2], t);
    if (rho >= 5.0) {
      const double rinf = 2.0 / (1.0 - p[2]) - 1.0;
      const double r = sqrt(ss_bias_correction(p[2], t) * (rho - 4.0) * (rho - 2.0) * rinf /
                            ((rinf - 4.0) * (rinf - 2.0) * rho)) / bc1;
      c.step = ss_f32_sat(p[0] * r), c.inv_bc2 = 1.0f;
    } else {
      c.inv_bc2 = 0.0f, c.deps = 1.0f;
    }
  }
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
    w[i] = wi - c->step * (mi / (sqrtf(si) * c->inv_bc2 + c->deps));
  }
}

static void adabelief_rows_scalar(float *w, const float *g, float *slots, size_t n,
                                  const belief_consts *c) {
  belief_tail(w, g, slots, slots + n, 0, n, c);
}

#if SS_HAVE_SIMD
static void adabelief_rows_simd(float *w, const float *g, float *slots, size_t n,
                                const belief_consts *c) {
  float *m = slots, *s = slots + n;
  const v128_t b1 = wasm_f32x4_splat(c->b1), b1c = wasm_f32x4_splat(c->b1c);
  const v128_t b2 = wasm_f32x4_splat(c->b2), b2c = wasm_f32x4_splat(c->b2c);
  const v128_t step = wasm_f32x4_splat(c->step), ib = wasm_f32x4_splat(c->inv_bc2);
  const v128_t eps = wasm_f32x4_splat(c->eps), keep = wasm_f32x4_splat(c->keep);
  const v128_t deps = wasm_f32x4_splat(c->deps);
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
    const v128_t den = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_sqrt(si), ib), deps);
    wasm_v128_store(w + i, wasm_f32x4_sub(wi, wasm_f32x4_mul(step, wasm_f32x4_div(mi, den))));
  }
  belief_tail(w, g, m, s, i, n, c);
}
#endif

SS_ROWS_STEP_IMPLS(adabelief, belief_consts, consts)

const ss_kernel_info ss_kernel_adabelief = {
    .name = "adabelief",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "Adam with the second moment of (g - m): big steps where g is as predicted",
    .formula = "m <- b1 m + (1-b1) g; s <- b2 s + (1-b2)(g - m)^2 + eps; "
               "w <- w - lr m_hat / (sqrt(s_hat) + eps); rectify: RAdam's r_t, momentum SGD "
               "while rho_t < 5",
    .paper = "Zhuang et al. 2020, AdaBelief Optimizer: Adapting Stepsizes by the Belief in "
             "Observed Gradients",
    .nparams = 6,
    .params = adabelief_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(adabelief),
    .opt_slots = 2,
};
