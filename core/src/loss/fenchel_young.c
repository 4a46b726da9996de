/*
 * Fenchel-Young losses of the Tsallis alpha-entropies (Blondel, Martins &
 * Niculae 2020, 'Learning with Fenchel-Young Losses'; sparsemax loss:
 * Martins & Astudillo 2016; entmax losses: Peters, Niculae & Martins 2019):
 *
 *   p      = alpha-entmax(x)      (alpha = 2: sparsemax, 1.5: entmax15)
 *   H_a(p) = (1 - sum_j p_j^alpha) / (alpha (alpha - 1))   (Tsallis entropy)
 *   L(x,t) = <p - e_t, x> + H_a(p) = sum_j p_j (x_j - x_t) + H_a(p)
 *   H_a(p) = sum_j p_j (1 - p_j^(alpha-1)) / (alpha (alpha - 1))   (sum p = 1),
 *            the form taken here: each term by expm1, so alpha -> 1 tends to
 *            Shannon's entropy and the loss to cross-entropy
 *   dL/dx  = p - e_t
 *
 * L >= 0, and L = 0 exactly when p = e_t (all the mass already on the target:
 * both terms vanish). The second form of L uses sum p = 1 to shift by x_t:
 * it is shift invariant like the loss and avoids cancelling two large
 * numbers when the logits are large. Entries with p_j = 0 (including masked
 * -Inf logits) contribute nothing.
 *
 * The projection is the registered normalizer of the same impl, written into
 * grad, so grad is required. A rounding-level negative L is clamped to 0.
 * SIMD: the projection is the SIMD kernel; the two sums are vector passes
 * for alpha = 2 and 1.5 (p^1.5 = p sqrt p); other alphas sum p^alpha with
 * pow in double.
 */
#include <math.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"
#include "loss/loss_internal.h"
#include "registry/kernels.h"

const ss_param_info ss_loss_target_param[1] = {SS_LOSS_TARGET_PARAM};

static const ss_param_info bisect_loss_params[2] = {
    SS_LOSS_TARGET_PARAM,
    {
        .name = "alpha",
        .type = SS_PARAM_FLOAT,
        .min = 1.0,
        .max = 10.0,
        .min_open = true,
        .def = 1.5,
        .ui_min = 1.01,
        .ui_max = 4.0,
        .help = "entmax alpha > 1 (2: sparsemax loss, 1.5: entmax15 loss); exact over the "
                "whole range (alpha -> 1 tends to cross-entropy)",
    },
};

typedef struct fy_sums {
  double dot; /* sum_j p_j (x_j - x_t) */
  double ent; /* sum_j p_j (1 - p_j^(alpha-1)) = 1 - sum_j p_j^alpha */
} fy_sums;

/* p (1 - p^a) / a for a = alpha - 1, by expm1: as a -> 0 it tends to
   -p log p without the cancellation of 1 - p^a (the entropy term of
   entmax_bisect_loss read 0 or 1.6e6 at alpha = 1 + 2^-52 instead of tending
   to cross-entropy's); the same value for every a otherwise. */
static double ent_term(double pj, double alpha) {
  if (alpha == 2.0) return pj * (1.0 - pj);
  if (alpha == 1.5) return pj * (1.0 - sqrt(pj)) / 0.5;
  const double a = alpha - 1.0;
  return pj * -expm1(a * log(pj)) / a;
}

static fy_sums sums_scalar(const float *p, const float *x, float xt, size_t n,
                           double alpha) {
  fy_sums s = {0.0, 0.0};
  for (size_t j = 0; j < n; j++) {
    if (p[j] == 0.0f) continue;
    const double pj = p[j];
    s.dot += pj * ((double)x[j] - (double)xt);
    s.ent += ent_term(pj, alpha);
  }
  return s;
}

#if SS_HAVE_SIMD
static fy_sums sums_simd(const float *p, const float *x, float xt, size_t n,
                         double alpha) {
  if (alpha != 2.0 && alpha != 1.5) return sums_scalar(p, x, xt, n, alpha);
  const bool square = alpha == 2.0;
  const v128_t vxt = wasm_f64x2_splat((double)xt), zero = wasm_f32x4_splat(0.0f);
  const v128_t one = wasm_f32x4_splat(1.0f), scale = wasm_f32x4_splat(square ? 1.0f : 2.0f);
  fy_sums s = {0.0, 0.0};
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t d = wasm_f64x2_splat(0.0), w = zero;
    for (; i + 4 <= end; i += 4) {
      const v128_t vp = wasm_v128_load(p + i);
      /* p = 0 lanes (masked -Inf logits among them) contribute 0, not NaN */
      const v128_t live = wasm_f32x4_gt(vp, zero);
      /* p (x - x_t) in double lanes: x - x_t reaches 2 FLT_MAX (a float
         difference made the SIMD loss +Inf where scalar was finite) */
      const v128_t vx = wasm_v128_bitselect(wasm_v128_load(x + i), zero, live);
      const v128_t vx2 = wasm_i32x4_shuffle(vx, vx, 2, 3, 2, 3), vp2 = wasm_i32x4_shuffle(vp, vp, 2, 3, 2, 3);
      d = wasm_f64x2_add(d, wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(vp),
                                           wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(vx), vxt)));
      d = wasm_f64x2_add(d, wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(vp2),
                                           wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(vx2), vxt)));
      const v128_t pa = square ? vp : wasm_f32x4_sqrt(vp); /* p^(alpha-1) */
      w = wasm_f32x4_add(w, wasm_f32x4_mul(scale, wasm_f32x4_mul(vp, wasm_f32x4_sub(one, pa))));
    }
    s.dot += wasm_f64x2_extract_lane(d, 0) + wasm_f64x2_extract_lane(d, 1);
    s.ent += ss_hsum_f64(w);
    if (i < end) {
      const fy_sums t = sums_scalar(p + i, x + i, xt, end - i, alpha);
      s.dot += t.dot;
      s.ent += t.ent;
      i = end;
    }
  }
  return s;
}
#endif

/* The body: project with the normalizer `proj` (its descriptor, named
   directly rather than looked up in the registry, so loss/ never calls back
   into the kernel list) of the same impl into grad,
   then L (its sums by the impl's own sums_scalar / sums_simd) and p - e_t.
   alpha is the entropy's, or 0 for entmax_bisect_loss's own parameter
   params[1], which the projection takes too. */
SS_ALWAYS_INLINE ss_status fy_run(const ss_kernel_info *proj, double alpha, ss_impl impl, const float *x,
                                  size_t n, const double *params, double *loss, float *grad) {
  const bool param_alpha = alpha == 0.0;
  if (param_alpha) alpha = params[1];
  size_t t;
  ss_status s = ss_loss_target(params[0], n, &t);
  if (s != SS_OK) return s;
  /* the row's own errors first, then the masked target (infinite loss),
     before anything is written to grad */
  if ((s = ss_check_logits(x, n, NULL)) != SS_OK) return s;
  if (x[t] == -INFINITY) return SS_ERR_DOMAIN;
  s = ss_normalize(proj, impl, x, n, param_alpha ? params + 1 : NULL, param_alpha ? 1 : 0, grad);
  if (s != SS_OK) return s;
  const fy_sums sums = SS_BY_IMPL(impl, sums)(grad, x, x[t], n, alpha);
  const double l = sums.dot + sums.ent / alpha;
  *loss = l > 0.0 ? l : 0.0;
  grad[t] -= 1.0f;
  return SS_OK;
}

SS_LOSS_IMPLS(sparsemax_loss, fy_run, &ss_kernel_sparsemax, 2.0)
SS_LOSS_IMPLS(entmax15_loss, fy_run, &ss_kernel_entmax15, 1.5)
SS_LOSS_IMPLS(entmax_bisect_loss, fy_run, &ss_kernel_entmax_bisect, 0.0)

#define FY_PAPER                                                            \
  "Blondel, Martins & Niculae 2020, 'Learning with Fenchel-Young Losses'; " \
  "Peters, Niculae & Martins 2019, 'Sparse Sequence-to-Sequence Models'"

/* The descriptor fields the three losses share (their entry points are
   name_scalar / name_simd, written above). */
#define FY_LOSS(kname)                                                      \
  .family = SS_FAMILY_LOSS, .input = SS_INPUT_LOGITS, .has_backward = true, \
  .loss = SS_IMPLS(kname)

const ss_kernel_info ss_kernel_sparsemax_loss = {
    .name = "sparsemax_loss",
    FY_LOSS(sparsemax_loss),
    .summary = "Sparsemax loss: the Fenchel-Young loss of the Gini entropy",
    .formula = "p = sparsemax(x); L = sum_j p_j (x_j - x_t) + (1 - sum_j p_j^2) / 2; "
               "dL/dx = p - e_t",
    .paper = "Martins & Astudillo 2016, 'From Softmax to Sparsemax'; " FY_PAPER,
    .nparams = 1,
    .params = ss_loss_target_param,
};

const ss_kernel_info ss_kernel_entmax15_loss = {
    .name = "entmax15_loss",
    FY_LOSS(entmax15_loss),
    .summary = "Entmax-1.5 loss: the Fenchel-Young loss of the Tsallis 1.5-entropy",
    .formula = "p = entmax15(x); L = sum_j p_j (x_j - x_t) + (1 - sum_j p_j^1.5) / 0.75; "
               "dL/dx = p - e_t",
    .paper = FY_PAPER,
    .nparams = 1,
    .params = ss_loss_target_param,
};

const ss_kernel_info ss_kernel_entmax_bisect_loss = {
    .name = "entmax_bisect_loss",
    FY_LOSS(entmax_bisect_loss),
    .summary = "Alpha-entmax loss (Fenchel-Young, Tsallis alpha-entropy), "
               "projection by bisection",
    .formula = "p = entmax_bisect(x; alpha); L = sum_j p_j (x_j - x_t) + "
               "(1 - sum_j p_j^alpha) / (alpha (alpha - 1)); dL/dx = p - e_t",
    .paper = FY_PAPER,
    .nparams = 2,
    .params = bisect_loss_params,
};
