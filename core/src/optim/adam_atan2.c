/*
 * Adam-atan2 (Everett et al. 2024, "Scaling Exponents Across
 * Parameterizations and Optimizers", section 4.3): Adam without epsilon.
 * The quotient m_hat / (sqrt(v_hat) + eps) becomes a bounded atan2, which
 * is invariant to scaling the gradient (atan2(c y, c x) = atan2(y, x) for
 * c > 0) and never divides by zero:
 *
 *   w <- w (1 - lr wd)
 *   m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
 *   w <- w - lr a atan2(m_hat, b sqrt(v_hat))
 *
 * a = 1.27 and b = 1 as in the paper (a atan2(y, x) ~ y / x near 0 needs
 * a ~ 1; 1.27 ~ 4/pi makes the step at |y| = x equal 1). Checked against
 * the paper and the reference implementations (optax-style adamatan2,
 * lucidrains/adam-atan2-pytorch): same defaults, atan2 of the
 * bias-corrected moments.
 *
 * The SIMD atan2 is the Cephes atanf polynomial after the reduction
 * t = min(|y|, x) / max(|y|, x) in [0, 1] and t > tan(pi/8) ->
 * (t - 1) / (t + 1) + pi/4 (about 2 ulp of atan); x = b sqrt(v_hat) >= 0
 * keeps the result in [-pi/2, pi/2]. The scalar reference calls atan2f.
 * Slots: m, v.
 */
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info adam_atan2_params[] = {
    SS_P_LR(1e-3),
    SS_P_BETA("beta1", 0.9, "decay of the first moment m"),
    SS_P_BETA("beta2", 0.999, "decay of the second moment v"),
    SS_P_WD(0.0, SS_WD_DECOUPLED),
    {.name = "a", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e3, .min_open = true, .def = 1.27,
     .ui_min = 0.1, .ui_max = 4.0, .help = "scale of the atan2 step"},
    {.name = "b", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e3, .min_open = true, .def = 1.0,
     .ui_min = 0.1, .ui_max = 4.0, .help = "scale of sqrt(v_hat) inside atan2"},
};

/* b1, 1 - b1, b2, 1 - b2, 1 / bc1, b / sqrt(bc2), lr a, 1 - lr wd */
typedef struct { float b1, b1c, b2, b2c, inv_bc1, den, step, keep; } atan2_consts;

static atan2_consts consts(const double *p, uint64_t t) {
  atan2_consts c;
  c.b1 = (float)p[1], c.b1c = (float)(1.0 - p[1]), c.b2 = (float)p[2], c.b2c = (float)(1.0 - p[2]);
  c.inv_bc1 = (float)(1.0 / ss_bias_correction(p[1], t));
  c.den = (float)(p[5] / sqrt(ss_bias_correction(p[2], t)));
  c.step = (float)(p[0] * p[4]), c.keep = (float)(1.0 - p[0] * p[3]);
  return c;
}

static void atan2_tail(float *w, const float *g, float *m, float *v, size_t i, size_t n,
                       const atan2_consts *c) {
  for (; i < n; i++) {
    const float mi = c->b1 * m[i] + c->b1c * g[i];
    const float vi = c->b2 * v[i] + c->b2c * (g[i] * g[i]);
    m[i] = mi, v[i] = vi;
    w[i] = c->keep * w[i] - c->step * atan2f(mi * c->inv_bc1, sqrtf(vi) * c->den);
  }
}

static void adam_atan2_rows_scalar(float *w, const float *g, float *s, size_t n,
                                   const atan2_consts *c) {
  atan2_tail(w, g, s, s + n, 0, n, c);
}

#if SS_HAVE_SIMD
/* atan2(y, x) for x >= 0 (atan2(0, 0) = 0). */
static inline v128_t atan2_xpos_simd(v128_t y, v128_t x) {
  const v128_t sign = wasm_i32x4_splat((int32_t)0x80000000u);
  const v128_t ay = wasm_v128_andnot(y, sign), zero = wasm_f32x4_splat(0.0f);
  const v128_t swap = wasm_f32x4_gt(ay, x);
  const v128_t lo = wasm_v128_bitselect(x, ay, swap), hi = wasm_v128_bitselect(ay, x, swap);
  v128_t t = wasm_f32x4_div(lo, hi);
  t = wasm_v128_andnot(t, wasm_f32x4_eq(hi, zero)); /* 0 / 0 -> 0 */
  const v128_t one = wasm_f32x4_splat(1.0f);
  const v128_t big = wasm_f32x4_gt(t, wasm_f32x4_splat(0.4142135623730950f));
  t = wasm_v128_bitselect(wasm_f32x4_div(wasm_f32x4_sub(t, one), wasm_f32x4_add(t, one)), t, big);
  const v128_t z = wasm_f32x4_mul(t, t);
  v128_t q = wasm_f32x4_splat(8.05374449538e-2f);
  q = wasm_f32x4_sub(wasm_f32x4_mul(q, z), wasm_f32x4_splat(1.38776856032e-1f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, z), wasm_f32x4_splat(1.99777106478e-1f));
  q = wasm_f32x4_sub(wasm_f32x4_mul(q, z), wasm_f32x4_splat(3.33329491539e-1f));
  v128_t r = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_mul(q, z), t), t);
  r = wasm_f32x4_add(r, wasm_v128_and(big, wasm_f32x4_splat(0.78539816339744831f)));
  r = wasm_v128_bitselect(wasm_f32x4_sub(wasm_f32x4_splat(1.5707963267948966f), r), r, swap);
  return wasm_v128_or(r, wasm_v128_and(y, sign));
}

static void adam_atan2_rows_simd(float *w, const float *g, float *s, size_t n,
                                 const atan2_consts *c) {
  float *m = s, *v = s + n;
  const v128_t b1 = wasm_f32x4_splat(c->b1), b1c = wasm_f32x4_splat(c->b1c);
  const v128_t b2 = wasm_f32x4_splat(c->b2), b2c = wasm_f32x4_splat(c->b2c);
  const v128_t ib1 = wasm_f32x4_splat(c->inv_bc1), den = wasm_f32x4_splat(c->den);
  const v128_t step = wasm_f32x4_splat(c->step), keep = wasm_f32x4_splat(c->keep);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t gi = wasm_v128_load(g + i);
    const v128_t mi = wasm_f32x4_add(wasm_f32x4_mul(b1, wasm_v128_load(m + i)), wasm_f32x4_mul(b1c, gi));
    const v128_t vi = wasm_f32x4_add(wasm_f32x4_mul(b2, wasm_v128_load(v + i)),
                                     wasm_f32x4_mul(b2c, wasm_f32x4_mul(gi, gi)));
    wasm_v128_store(m + i, mi);
    wasm_v128_store(v + i, vi);
    const v128_t a = atan2_xpos_simd(wasm_f32x4_mul(mi, ib1), wasm_f32x4_mul(wasm_f32x4_sqrt(vi), den));
    wasm_v128_store(w + i, wasm_f32x4_sub(wasm_f32x4_mul(keep, wasm_v128_load(w + i)), wasm_f32x4_mul(step, a)));
  }
  atan2_tail(w, g, m, v, i, n, c);
}
#endif

SS_ROWS_STEP_IMPLS(adam_atan2, atan2_consts, consts)

const ss_kernel_info ss_kernel_adam_atan2 = {
    .name = "adam_atan2",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "epsilon-free Adam: a bounded atan2 step, invariant to the gradient's scale",
    .formula = "w <- w - lr a atan2(m_hat, b sqrt(v_hat)), a = 1.27, b = 1",
    .paper = "Everett et al. 2024, Scaling Exponents Across Parameterizations and Optimizers",
    .nparams = 6,
    .params = adam_atan2_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(adam_atan2),
    .opt_slots = 2,
};
