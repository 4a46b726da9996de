/*
 * perpGrad (Prieto, Barsbey, Mediano & Birdal 2025, "Grokking at the Edge of
 * Numerical Stability"): gradient descent on the part of the gradient
 * orthogonal to the weights. Moving along w only rescales the logits (naive
 * loss minimization, the road to softmax collapse); removing that component
 * keeps training on the directions that change the function:
 *
 *   g_perp = g - (g . w / |w|^2) w       (g when w = 0)
 *   w <- w - lr g_perp
 *
 * so (w_new - w) . w = 0 up to rounding. No state.
 */
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info perpgrad_params[] = {SS_P_LR(1e-3)};

typedef double (*dot_fn)(const float *, const float *, size_t);

static void perp_tail(float *w, const float *g, size_t i, size_t n, float lr, float c) {
  for (; i < n; i++) w[i] = w[i] - lr * (g[i] - c * w[i]);
}
#if SS_HAVE_SIMD
static void perp_rows_simd(float *w, const float *g, size_t n, float lr, float c) {
  const v128_t vlr = wasm_f32x4_splat(lr), vc = wasm_f32x4_splat(c);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t wi = wasm_v128_load(w + i);
    const v128_t gp = wasm_f32x4_sub(wasm_v128_load(g + i), wasm_f32x4_mul(vc, wi));
    wasm_v128_store(w + i, wasm_f32x4_sub(wi, wasm_f32x4_mul(vlr, gp)));
  }
  perp_tail(w, g, i, n, lr, c);
}
#endif

/* g . w / |w|^2 (0 when w = 0). */
static float projection(dot_fn dot, const float *w, const float *g, size_t n) {
  const double ww = dot(w, w, n);
  return ww > 0.0 ? ss_f32_sat(dot(g, w, n) / ww) : 0.0f;
}

static ss_status perpgrad_scalar(float *w, const float *g, size_t n, const double *p, uint64_t t,
                                 float *s, double *sc) {
  (void)t, (void)s, (void)sc;
  perp_tail(w, g, 0, n, (float)p[0], projection(ss_dot64_scalar, w, g, n));
  return SS_OK;
}
#if SS_HAVE_SIMD
static ss_status perpgrad_simd(float *w, const float *g, size_t n, const double *p, uint64_t t,
                               float *s, double *sc) {
  (void)t, (void)s, (void)sc;
  perp_rows_simd(w, g, n, (float)p[0], projection(ss_dot64_simd, w, g, n));
  return SS_OK;
}
#endif

const ss_kernel_info ss_kernel_perpgrad = {
    .name = "perpgrad",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "gradient descent on the gradient's component orthogonal to w",
    .formula = "w <- w - lr (g - (g.w / |w|^2) w)",
    .paper = "Prieto, Barsbey, Mediano & Birdal 2025, Grokking at the Edge of Numerical Stability",
    .nparams = 1,
    .params = perpgrad_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(perpgrad),
};
