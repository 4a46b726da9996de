/*
 * Lion (Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms"):
 * the sign of an interpolation between the momentum and the gradient, with
 * decoupled weight decay; the momentum itself decays with beta2:
 *
 *   c = b1 m + (1 - b1) g
 *   w <- w (1 - lr wd) - lr sign(c)          (sign(0) = 0)
 *   m <- b2 m + (1 - b2) g
 *
 * Slot 0 is m.
 */
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info lion_params[] = {
    SS_P_LR(1e-4),
    SS_P_BETA("beta1", 0.9, "weight of m in the update direction"),
    SS_P_BETA("beta2", 0.99, "decay of the momentum m"),
    SS_P_WD(0.0, SS_WD_DECOUPLED),
};

/* b1, 1 - b1, b2, 1 - b2, lr, 1 - lr wd */
typedef struct { float b1, b1c, b2, b2c, lr, keep; } lion_consts;

static lion_consts consts(const double *p, uint64_t t) {
  (void)t;
  lion_consts c;
  c.b1 = (float)p[1], c.b1c = (float)(1.0 - p[1]), c.b2 = (float)p[2], c.b2c = (float)(1.0 - p[2]);
  c.lr = (float)p[0], c.keep = (float)(1.0 - p[0] * p[3]);
  return c;
}

static void lion_tail(float *w, const float *g, float *m, size_t i, size_t n,
                      const lion_consts *c) {
  for (; i < n; i++) {
    const float d = ss_sign_scalar(c->b1 * m[i] + c->b1c * g[i]);
    w[i] = c->keep * w[i] - c->lr * d;
    m[i] = c->b2 * m[i] + c->b2c * g[i];
  }
}

static void lion_rows_scalar(float *w, const float *g, float *m, size_t n, const lion_consts *c) {
  lion_tail(w, g, m, 0, n, c);
}

#if SS_HAVE_SIMD
static void lion_rows_simd(float *w, const float *g, float *m, size_t n, const lion_consts *c) {
  const v128_t b1 = wasm_f32x4_splat(c->b1), b1c = wasm_f32x4_splat(c->b1c);
  const v128_t b2 = wasm_f32x4_splat(c->b2), b2c = wasm_f32x4_splat(c->b2c);
  const v128_t lr = wasm_f32x4_splat(c->lr), keep = wasm_f32x4_splat(c->keep);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t mi = wasm_v128_load(m + i), gi = wasm_v128_load(g + i);
    const v128_t d = ss_sign_simd(wasm_f32x4_add(wasm_f32x4_mul(b1, mi), wasm_f32x4_mul(b1c, gi)));
    wasm_v128_store(w + i, wasm_f32x4_sub(wasm_f32x4_mul(keep, wasm_v128_load(w + i)), wasm_f32x4_mul(lr, d)));
    wasm_v128_store(m + i, wasm_f32x4_add(wasm_f32x4_mul(b2, mi), wasm_f32x4_mul(b2c, gi)));
  }
  lion_tail(w, g, m, i, n, c);
}
#endif

SS_ROWS_STEP_IMPLS(lion, lion_consts, consts)

const ss_kernel_info ss_kernel_lion = {
    .name = "lion",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "sign of an interpolated momentum (EvoLved Sign Momentum)",
    .formula = "w <- w (1 - lr wd) - lr sign(b1 m + (1-b1) g); m <- b2 m + (1-b2) g",
    .paper = "Chen et al. 2023, Symbolic Discovery of Optimization Algorithms",
    .nparams = 4,
    .params = lion_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(lion),
    .opt_slots = 1,
};
