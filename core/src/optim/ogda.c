/*
 * Optimistic gradient descent(-ascent) (Popov 1980; Daskalakis, Ilyas,
 * Syrgkanis & Zeng 2018, "Training GANs with Optimism"): a step with the
 * current gradient plus a correction by the change since the last one,
 *
 *   w <- w - lr (2 g_t - g_{t-1})          (g_0 = g_1: step 1 is plain GD)
 *
 * On the bilinear game min_x max_y x y, simultaneous gradient descent-ascent
 * (sgd on the field (y, -x)) spirals out: each step multiplies the radius by
 * sqrt(1 + lr^2). The optimistic step converges to the equilibrium for
 * small lr. Slot 0 is the previous gradient.
 */
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info ogda_params[] = {SS_P_LR(1e-2)};

/* lr, and whether this is step 1 (g_0 = g_1). */
typedef struct {
  float lr;
  bool first;
} ogda_consts;

static ogda_consts consts(const double *p, uint64_t t) {
  return (ogda_consts){.lr = (float)p[0], .first = t == 1};
}

static void ogda_tail(float *w, const float *g, float *prev, size_t i, size_t n,
                      const ogda_consts *c) {
  for (; i < n; i++) {
    const float gp = c->first ? g[i] : prev[i];
    w[i] = w[i] - c->lr * (2.0f * g[i] - gp);
    prev[i] = g[i];
  }
}

static void ogda_rows_scalar(float *w, const float *g, float *prev, size_t n, const ogda_consts *c) {
  ogda_tail(w, g, prev, 0, n, c);
}
#if SS_HAVE_SIMD
static void ogda_rows_simd(float *w, const float *g, float *prev, size_t n, const ogda_consts *c) {
  const v128_t vlr = wasm_f32x4_splat(c->lr), two = wasm_f32x4_splat(2.0f);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t gi = wasm_v128_load(g + i);
    const v128_t gp = c->first ? gi : wasm_v128_load(prev + i);
    const v128_t d = wasm_f32x4_sub(wasm_f32x4_mul(two, gi), gp);
    wasm_v128_store(w + i, wasm_f32x4_sub(wasm_v128_load(w + i), wasm_f32x4_mul(vlr, d)));
    wasm_v128_store(prev + i, gi);
  }
  ogda_tail(w, g, prev, i, n, c);
}
#endif

SS_ROWS_STEP_IMPLS(ogda, ogda_consts, consts)

const ss_kernel_info ss_kernel_ogda = {
    .name = "ogda",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "optimistic gradient descent-ascent: corrects by the last gradient (games)",
    .formula = "w <- w - lr (2 g_t - g_{t-1})",
    .paper = "Daskalakis, Ilyas, Syrgkanis & Zeng 2018, Training GANs with Optimism",
    .nparams = 1,
    .params = ogda_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(ogda),
    .opt_slots = 1,
};
