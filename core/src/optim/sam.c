/*
 * Sharpness-Aware Minimization (Foret, Kleiner, Mobahi & Neyshabur 2021,
 * "Sharpness-Aware Minimization for Efficiently Improving Generalization"):
 * minimize the worst loss in a ball of radius rho. One step takes two
 * gradients:
 *
 *   ascent:   e = rho g / |g|_2,  w_adv = w + e          (ss_sam_perturb)
 *   descent:  g_adv = grad L(w_adv);  SGD (momentum) step from w with g_adv
 *
 *   b <- mu b + g_adv + wd w;  w <- w - lr b   (heavy-ball SGD, sgd.c)
 *
 * The registry kernel is the descent step (its `lookahead` flag tells the
 * trajectory engine and the JS API to take the gradient at ss_sam_perturb's
 * point). rho = 0 is plain SGD. Slot 0 is the momentum buffer b.
 */
#include "common/check.h"
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info sam_params[] = {
    SS_P_LR(1e-3),
    {.name = "rho", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e3, .def = 0.05, .ui_min = 0.0,
     .ui_max = 1.0, .help = "radius of the ascent step"},
    SS_P_MOMENTUM(0.0),
    SS_P_WD(0.0, SS_WD_L2),
};

/* The descent step is heavy-ball SGD (sgd.c): with momentum 0, b = g' and
   the step is plain SGD's. */
SS_ALWAYS_INLINE ss_status sam_run(ss_impl impl, float *w, const float *g, size_t n,
                                   const double *p, uint64_t t, float *b, double *sc) {
  (void)t, (void)sc;
  SS_BY_IMPL(impl, ss_sgd_rows)(w, g, b, n, (float)p[0], (float)p[2], (float)p[3], SS_SGD_HEAVY);
  return SS_OK;
}

SS_STEP_IMPLS(sam, sam_run)

/* ---- the ascent point ---- */

/* out = w + s g over [i, n): the tail of the SIMD rows, the whole scalar ones. */
static void perturb_tail(const float *w, const float *g, size_t i, size_t n, float s, float *out) {
  for (; i < n; i++) out[i] = w[i] + s * g[i];
}

static void perturb_rows_scalar(const float *w, const float *g, size_t n, float s, float *out) {
  perturb_tail(w, g, 0, n, s, out);
}

#if SS_HAVE_SIMD
static void perturb_rows_simd(const float *w, const float *g, size_t n, float s, float *out) {
  const v128_t vs = wasm_f32x4_splat(s);
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    wasm_v128_store(out + i, wasm_f32x4_add(wasm_v128_load(w + i), wasm_f32x4_mul(vs, wasm_v128_load(g + i))));
  perturb_tail(w, g, i, n, s, out);
}
#endif

/* w_adv = w + (rho / |g|_2) g, |g|_2 from the impl's exact double dot (no
   step for g = 0). */
SS_ALWAYS_INLINE void perturb(ss_impl impl, const float *w, const float *g, size_t n, double rho,
                              float *out) {
  const double gn = sqrt(SS_BY_IMPL(impl, ss_dot64)(g, g, n));
  const float s = gn > 0.0 ? ss_f32_sat(rho / gn) : 0.0f;
  SS_BY_IMPL(impl, perturb_rows)(w, g, n, s, out);
}

ss_status ss_sam_perturb(ss_impl impl, const float *w, const float *g, size_t n, double rho,
                         float *w_adv) {
  if (!w || !g || !w_adv) return SS_ERR_NULL;
  if ((unsigned)impl >= SS_IMPL_COUNT || !ss_impl_available(impl)) return SS_ERR_UNSUPPORTED;
  ss_status s = ss_check_n(n);
  if (s != SS_OK) return s;
  if (!(rho >= 0.0 && rho <= 1e3)) return SS_ERR_PARAM_RANGE;
  if ((s = ss_check_finite_fast(w, n)) != SS_OK || (s = ss_check_finite_fast(g, n)) != SS_OK)
    return s;
  perturb(impl, w, g, n, rho, w_adv);
  return SS_OK;
}

const ss_kernel_info ss_kernel_sam = {
    .name = "sam",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "sharpness-aware: SGD with the gradient taken after an ascent step of radius rho",
    .formula = "w_adv = w + rho g / |g|; w <- w - lr grad L(w_adv)",
    .paper = "Foret, Kleiner, Mobahi & Neyshabur 2021, Sharpness-Aware Minimization for "
             "Efficiently Improving Generalization",
    .nparams = 4,
    .params = sam_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(sam),
    .opt_slots = 1,
    .lookahead = true,
};
