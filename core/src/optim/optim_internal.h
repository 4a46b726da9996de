/*
 * Shared pieces of the optimizers (core/src/optim): the parameter
 * descriptions they have in common, bias corrections, and the scalar twins
 * of the SIMD reductions.
 *
 * Every element-wise update is written twice, a scalar loop and a SIMD128
 * loop, doing the same float operations in the same order (no FMA in either),
 * so the two give bit-identical results; only updates that need a norm
 * (LARS, LAMB, SAGE, SAM, perpGrad) differ, by the summation order of that
 * norm (relative 1e-6). Constants that depend on the step (bias corrections,
 * bounds) are computed once per step in double and rounded to float.
 */
#ifndef SS_OPTIM_INTERNAL_H
#define SS_OPTIM_INTERNAL_H

#include <math.h>

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
   .help = "added to the denominator for stability"}
#define SS_P_WD(d, what)                                                               \
  {.name = "weight_decay", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e3, .def = (d), \
   .ui_min = 0.0, .ui_max = 1.0, .help = what}
#define SS_P_MOMENTUM(d)                                                               \
  {.name = "momentum", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1.0, .max_open = true, \
   .def = (d), .ui_min = 0.0, .ui_max = 0.999, .help = "momentum factor mu"}

#define SS_WD_L2 "L2 penalty added to the gradient (g + wd w)"
#define SS_WD_DECOUPLED "decoupled weight decay: w <- w (1 - lr wd) before the step"

/* 1 - beta^t, in double (t up to 2^53). */
static inline double ss_bias_correction(double beta, uint64_t t) {
  return 1.0 - pow(beta, (double)t);
}

/* sum a_i b_i in double, in index order: the scalar twin of ss_dot_simd. */
static inline double ss_dot_scalar(const float *a, const float *b, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; i++) s += (double)a[i] * (double)b[i];
  return s;
}

/* The SGD family's update over entries [i, n) (sgd.c), shared with SAM's
   descent step: g' = g + wd w; plain: w -= lr g'; heavy: b = mu b + g',
   w -= lr b; nesterov: the same b, w -= lr (g' + mu b). */
enum { SS_SGD_PLAIN = 0, SS_SGD_HEAVY = 1, SS_SGD_NESTEROV = 2 };
void ss_sgd_rows_scalar(float *w, const float *g, float *b, size_t i, size_t n, float lr, float mu,
                        float wd, int mode);
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
