/*
 * Shared pieces of the optimizers (core/src/optim): the parameter
 * descriptions they have in common, bias corrections, and the scalar twins
 * of the SIMD reductions.
 *
 * Every element-wise update is written twice, a scalar loop and a SIMD128
 * loop, doing the same float operations in the same order (no FMA in either),
 * so the two give bit-identical results; only updates that need a norm
 * (LARS, LAMB, SAGE, SAM, perpGrad) differ, by the summation order of that
 * norm (relative 1e-6), taken in double in both (ss_dot64_scalar /
 * ss_dot64_simd: exact products, no overflow or underflow). Constants that depend on the step (bias corrections,
 * bounds) are computed once per step in double and rounded to float.
 */
#ifndef SS_OPTIM_INTERNAL_H
#define SS_OPTIM_INTERNAL_H

#include <float.h>
#include <math.h>

#include "common/dot64.h"
#include "common/impl_pair.h"
#include "common/simd.h"
#include "common/vec_simd.h"
#include "registry/kernels.h"

/* Parameter descriptions (a macro per common hyperparameter; defaults differ
   between optimizers, so each names its own). */
#define SS_P_LR(d)                                                                     \
  {.name = "lr", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e6, .def = (d),          \
   .ui_min = 1e-5, .ui_max = 10.0, .log_scale = true, .help = "learning rate"}
#define SS_P_BETA(nm, d, what)                                                         \
  {.name = nm, .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1.0, .max_open = true,        \
   .def = (d), .ui_min = 0.0, .ui_max = 0.9999, .help = what}
#define SS_P_EPS(d)                                                                    \
  {.name = "eps", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1.0, .min_open = true,     \
   .def = (d), .ui_min = 1e-16, .ui_max = 1e-1, .log_scale = true,                     \
   .help = "added to the denominator for stability; exact over the whole range (below "  \
           "the smallest float it acts as 2^-149)"}
#define SS_P_WD(d, what)                                                               \
  {.name = "weight_decay", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e3, .def = (d), \
   .ui_min = 0.0, .ui_max = 1.0, .help = what}
#define SS_P_MOMENTUM(d)                                                               \
  {.name = "momentum", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1.0, .max_open = true, \
   .def = (d), .ui_min = 0.0, .ui_max = 0.999, .help = "momentum factor mu"}

#define SS_WD_L2 "L2 penalty added to the gradient (g + wd w)"
#define SS_WD_DECOUPLED "decoupled weight decay: w <- w (1 - lr wd) before the step"

/* eps as a float: an eps below the smallest float (the open range (0, 1]
   goes down to 5e-324) would round to 0, and a coordinate whose gradients
   were all 0 would then step 0 / 0 = NaN; the smallest positive float gives
   the same steps as the exact eps to float precision (a nonzero second
   moment is >= 2^-149, its root >= 2^-75), and 0 where m = 0. */
static inline float ss_eps_f(double eps) {
  const float e = (float)eps;
  return e > 0.0f ? e : 0x1p-149f;
}

/* A double constant of a step as a float, saturated at +-FLT_MAX: ratios of
   norms (trust ratios, SAM's rho / |g|, perpGrad's projection) and bounds
   (AdaBound's upper bound as gamma -> 0) can exceed float's range, where a
   plain conversion is undefined behaviour; a saturated factor still makes
   an overflowing step overflow, which ss_optimize reports. NaN stays NaN. */
static inline float ss_f32_sat(double x) {
  return x > FLT_MAX ? FLT_MAX : x < -FLT_MAX ? -FLT_MAX : (float)x;
}

/* 1 - beta^t, in double (t up to 2^53). */
static inline double ss_bias_correction(double beta, uint64_t t) {
  return 1.0 - pow(beta, (double)t);
}


/* The step of an optimizer written as rows (common/impl_pair.h): its
   constants c = consts(p, t), of type T, then name_rows_scalar or
   name_rows_simd (w, g, slots, n, &c) over all of w and its slots. Writes
   name_scalar and name_simd (the scalar states unused). */
#define SS_ROWS_STEP_IMPLS(name, T, consts)                                            \
  SS_ALWAYS_INLINE ss_status name##_run(ss_impl impl, float *w, const float *g, size_t n, \
                                        const double *p, uint64_t t, float *slots,      \
                                        double *sc) {                                   \
    (void)sc;                                                                          \
    const T c = consts(p, t);                                                          \
    SS_BY_IMPL(impl, name##_rows)(w, g, slots, n, &c);                                 \
    return SS_OK;                                                                      \
  }                                                                                    \
  SS_STEP_IMPLS(name, name##_run)

/* The SGD family's update of w[0..n) (sgd.c), shared with SAM's descent
   step: g' = g + wd w; plain: w -= lr g'; heavy: b = mu b + g', w -= lr b;
   nesterov: the same b, w -= lr (g' + mu b). */
enum { SS_SGD_PLAIN = 0, SS_SGD_HEAVY = 1, SS_SGD_NESTEROV = 2 };
void ss_sgd_rows_scalar(float *w, const float *g, float *b, size_t n, float lr, float mu, float wd,
                        int mode);
#if SS_HAVE_SIMD
void ss_sgd_rows_simd(float *w, const float *g, float *b, size_t n, float lr, float mu, float wd,
                      int mode);
#endif

#if SS_HAVE_SIMD
/* sign(x) as +-1, and +0 for +-0 (torch.sign; NaN does not reach here):
   1.0 with x's sign bit, where x != 0. */
static inline v128_t ss_sign_simd(v128_t x) {
  const v128_t one = wasm_f32x4_splat(1.0f), sign = wasm_i32x4_splat((int32_t)0x80000000u);
  const v128_t s = wasm_v128_or(one, wasm_v128_and(x, sign));
  return wasm_v128_and(s, wasm_f32x4_ne(x, wasm_f32x4_splat(0.0f)));
}
#endif
static inline float ss_sign_scalar(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f; }

#endif
