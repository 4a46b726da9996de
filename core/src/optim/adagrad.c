/*
 * AdaGrad (Duchi, Hazan & Singer 2011, "Adaptive Subgradient Methods for
 * Online Learning and Stochastic Optimization"), in torch.optim.Adagrad's
 * form (lr_decay 0, initial accumulator 0):
 *
 *   g <- g + wd w;  s <- s + g^2;  w <- w - lr g / (sqrt(s) + eps)
 *
 * AdaGrad-Norm (Ward, Wu & Bottou 2019, "AdaGrad stepsizes: sharp
 * convergence over nonconvex landscapes"): one step size for the whole
 * vector, from the accumulated squared gradient norm,
 *
 *   b^2 <- b^2 + |g|_2^2  (b^2 starts at b0^2);  w <- w - lr g / b
 *
 * Slot 0 of adagrad is s; adagrad_norm keeps b^2 - b0^2 in scalars[0].
 */
#include <float.h>

#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info adagrad_params[] = {
    SS_P_LR(1e-2),
    SS_P_EPS(1e-10),
    SS_P_WD(0.0, SS_WD_L2),
};
static const ss_param_info adagrad_norm_params[] = {
    SS_P_LR(1.0),
    {.name = "b0", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e6, .min_open = true, .def = 1e-2,
     .ui_min = 1e-4, .ui_max = 10.0, .log_scale = true,
     .help = "initial accumulator b0 (b^2 starts at b0^2)"},
};

/* lr, eps, wd */
typedef struct { float lr, eps, wd; } adagrad_consts;

static adagrad_consts consts(const double *p, uint64_t t) {
  (void)t;
  return (adagrad_consts){.lr = (float)p[0], .eps = ss_eps_f(p[1]), .wd = (float)p[2]};
}

static void adagrad_tail(float *w, const float *g, float *s, size_t i, size_t n,
                         const adagrad_consts *c) {
  for (; i < n; i++) {
    const float gi = g[i] + c->wd * w[i];
    const float si = s[i] + gi * gi;
    s[i] = si;
    w[i] = w[i] - c->lr * gi / (sqrtf(si) + c->eps);
  }
}

static void adagrad_rows_scalar(float *w, const float *g, float *s, size_t n,
                                const adagrad_consts *c) {
  adagrad_tail(w, g, s, 0, n, c);
}

#if SS_HAVE_SIMD
static void adagrad_rows_simd(float *w, const float *g, float *s, size_t n,
                              const adagrad_consts *c) {
  const v128_t vlr = wasm_f32x4_splat(c->lr), veps = wasm_f32x4_splat(c->eps), vwd = wasm_f32x4_splat(c->wd);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t wi = wasm_v128_load(w + i);
    const v128_t gi = wasm_f32x4_add(wasm_v128_load(g + i), wasm_f32x4_mul(vwd, wi));
    const v128_t si = wasm_f32x4_add(wasm_v128_load(s + i), wasm_f32x4_mul(gi, gi));
    wasm_v128_store(s + i, si);
    const v128_t d = wasm_f32x4_div(wasm_f32x4_mul(vlr, gi), wasm_f32x4_add(wasm_f32x4_sqrt(si), veps));
    wasm_v128_store(w + i, wasm_f32x4_sub(wi, d));
  }
  adagrad_tail(w, g, s, i, n, c);
}
#endif

SS_ROWS_STEP_IMPLS(adagrad, adagrad_consts, consts)

static void axpy_scalar(float *w, const float *g, size_t n, float c) {
  for (size_t i = 0; i < n; i++) w[i] = w[i] - c * g[i];
}
#if SS_HAVE_SIMD
static void axpy_simd(float *w, const float *g, size_t n, float c) {
  const v128_t vc = wasm_f32x4_splat(c);
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    wasm_v128_store(w + i, wasm_f32x4_sub(wasm_v128_load(w + i), wasm_f32x4_mul(vc, wasm_v128_load(g + i))));
  axpy_scalar(w + i, g + i, n - i, c);
}
#endif

/* The step lr g_i / b has |g_i| <= b, so it is at most lr; but lr / b alone
   overflows float when b is below ~1e-32 (b0 near its open 0 with tiny
   gradients), and b = 0 (b0^2 underflowing, every gradient 0) would give
   0 / 0. Then the quotient is taken per entry in double (one code for both
   impls), and b = 0 is no step. */
static void axpy_tiny_b(float *w, const float *g, size_t n, double lr, double b) {
  if (b == 0.0) return;
  for (size_t i = 0; i < n; i++) w[i] = ss_f32_sat((double)w[i] - lr * ((double)g[i] / b));
}

/* One body for both impls (common/impl_pair.h). */
SS_ALWAYS_INLINE ss_status norm_run(ss_impl impl, float *w, const float *g, size_t n,
                                    const double *p, uint64_t t, float *slots, double *sc) {
  (void)t, (void)slots;
  sc[0] += SS_BY_IMPL(impl, ss_dot64)(g, g, n);
  const double b = sqrt(p[1] * p[1] + sc[0]);
  if (!(p[0] / b <= FLT_MAX)) axpy_tiny_b(w, g, n, p[0], b);
  else SS_BY_IMPL(impl, axpy)(w, g, n, (float)(p[0] / b));
  return SS_OK;
}

SS_STEP_IMPLS(adagrad_norm, norm_run)

const ss_kernel_info ss_kernel_adagrad = {
    .name = "adagrad",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "per-coordinate step lr / sqrt(sum of squared gradients)",
    .formula = "s <- s + g^2; w <- w - lr g / (sqrt(s) + eps)",
    .paper = "Duchi, Hazan & Singer 2011, Adaptive Subgradient Methods for Online Learning and "
             "Stochastic Optimization (torch.optim.Adagrad)",
    .nparams = 3,
    .params = adagrad_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(adagrad),
    .opt_slots = 1,
};

const ss_kernel_info ss_kernel_adagrad_norm = {
    .name = "adagrad_norm",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "one AdaGrad step size for the whole vector, from the gradient norms",
    .formula = "b^2 <- b^2 + |g|^2 (from b0^2); w <- w - lr g / b",
    .paper = "Ward, Wu & Bottou 2019, AdaGrad stepsizes: sharp convergence over nonconvex "
             "landscapes",
    .nparams = 2,
    .params = adagrad_norm_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(adagrad_norm),
};
