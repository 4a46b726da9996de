/* The softmax row shared by the softmax-shaped kernels of every family
   (common/softmax_row.c). */
#ifndef SS_COMMON_SOFTMAX_ROW_H
#define SS_COMMON_SOFTMAX_ROW_H

#include <float.h>
#include <stdbool.h>

#include "common/check.h"
#include "common/flush.h"
#include "common/simd.h"
#include "common/vec_simd.h"
#include "softscope.h"

/*
 * The subnormal rule (shared by every build and impl): an output whose exact
 * value is below FLT_MIN = 2^-126 is +0, and no output is ever a denormal.
 * The scalar reference decides on its double result (ss_flush_tiny); the
 * SIMD kernels on the float numerator before the last multiply (e < FLT_MIN S
 * (1 + 2^-21), see ss_softmax_scale_simd), so no denormal is ever formed.
 * Both follow the exact value up to their error bound: scalar, SIMD and
 * relaxed agree on every zero except for outputs within 5e-7 (relative) of
 * FLT_MIN, which one impl may round to FLT_MIN and another flush.
 */
static inline float ss_flush_tiny(double y) { return y < FLT_MIN ? 0.0f : (float)y; }

/* The .relaxed_simd statement of kernels built on ss_exp_store_simd: its
   error, fused or not, stays within softmax's (see softmax.c), so each
   such kernel keeps the SIMD bound its own tests state. */
#define SS_RELAXED_EXP_STORE                                                  \
  "softmax's exp with relaxed_madd (ss_exp_store_simd; fused or not): "       \
  "within this kernel's SIMD error bound in every build"

/* e_i = exp(beta * (x_i - max)) stored to y; returns sum_i e_i (double).
   x_i may be -Inf (gives 0); beta > 0; max is the finite row maximum.
   e_i below FLT_MIN may be +0 (SIMD: always; scalar: a denormal).
   beta == 1: softmax's exp (scalar: expf with the TwoSum correction; SIMD:
   ss_expm_f32x4); otherwise the exponent is formed in double, so neither
   beta nor the product is rounded to float (SIMD: ss_expz_f32x4).
   The SIMD version uses relaxed_madd in the relaxed build: every kernel
   that calls it states SS_RELAXED_EXP_STORE in its descriptor. */
double ss_exp_store_scalar(const float *x, size_t n, float max, double beta,
                           float *y);
/* VJP of y = softmax(beta * x): dx = beta * y (g - <g, y>). */
void ss_softmax_vjp_core_scalar(const float *y, const float *g, size_t n,
                                float beta, float *dx);
/* softmax(beta x) of a validated row (max = its finite maximum), with the
   subnormal rule; shared by softmax and softmax_temperature. */
void ss_softmax_row_scalar(const float *x, size_t n, float max, double beta,
                           float *y);

/* The two steps of a softmax-shaped forward, one pair per impl, so that a
   kernel writes its body once (common/impl_pair.h, SS_BY_IMPL):
   ss_logits_max_*: validate a logit row, its max to *max (the statuses of
   ss_check_logits); ss_exp_normalize_*: y = e / sum e for e =
   exp(beta (x - max)) (ss_exp_store_*) with the subnormal rule (scalar:
   divided in double; SIMD: times the float reciprocal). */
static inline ss_status ss_logits_max_scalar(const float *x, size_t n, float *max) {
  return ss_check_logits(x, n, max);
}
static inline void ss_exp_normalize_scalar(const float *x, size_t n, float max, double beta,
                                           float *y) {
  const double inv = 1.0 / ss_exp_store_scalar(x, n, max, beta, y);
  ss_scale_flush_scalar(y, n, inv);
}

#if SS_HAVE_SIMD
double ss_exp_store_simd(const float *x, size_t n, float max, double beta,
                         float *y);
/* e_i = exp(beta (x_i - m)) stored to y, returns sum e_i: ss_exp_store_simd's
   double-reduced exp (beta != 1) for a double m, which may lie a little
   below the row maximum (beta (x_i - m) <= 88, e.g. m = max - ln2 / beta
   for 2 e^{beta (x_i - max)}: normal down to e = FLT_MIN / 2). */
double ss_expz_store_simd(const float *x, size_t n, double m, double beta, float *y);
void ss_softmax_vjp_core_simd(const float *y, const float *g, size_t n,
                              float beta, float *dx);

static inline ss_status ss_logits_max_simd(const float *x, size_t n, float *max) {
  *max = ss_max_simd(x, n);
  return ss_classify_max(*max);
}
static inline void ss_exp_normalize_simd(const float *x, size_t n, float max, double beta,
                                         float *y) {
  const double sum = ss_exp_store_simd(x, n, max, beta, y);
  ss_scale_flush_simd(y, n, (float)(1.0 / sum), y);
}

/* The max of x (NaN when x holds NaN, for ss_classify_max) and, in *min,
   its smallest element (-Inf when a logit is masked). */
float ss_max_min_simd(const float *x, size_t n, float *min);
/* y = e / S for the numerators e in y, S = their sum (>= 1), +0 where the
   exact output is below FLT_MIN. min_d = (smallest logit) - max, in units
   of the exponent: when exp(min_d) >= FLT_MIN S no output can be that small
   and the compare is skipped. Relaxed build: one laneselect for the flush. */
void ss_softmax_scale_simd(float *y, size_t n, double S, double min_d);
/* Two rows of softmax at once, each bit for bit its single call (rows
   calls, ss_normalize_pair_fn); false, nothing written, when the pair
   must run one row at a time (a max not finite or out of the fast exp's
   range). */
bool ss_softmax_pair_simd(const float *xa, const float *xb, size_t n, float *ya, float *yb);
/* softmax(beta x) of a row with finite max and min (ss_max_min_simd): the
   relaxed-SIMD kernel of softmax (beta == 1) and softmax_temperature. */
void ss_softmax_row_simd(const float *x, size_t n, float max, float min,
                         double beta, float *y);
/* y = min(1, exp(x - c)) for c >= max x, the row's log-sum-exp in double
   (the last pass of two-pass and online softmax): softmax's row-reduced exp
   with SS_EXPM_FLOOR, so an output is +0 iff its exact value is below
   FLT_MIN; the min because c, the log of a rounded sum, can put a single
   dominant entry 1 ulp above 1. False (nothing written) when c is outside
   ss_expm's range. */
bool ss_exp_lse_store_simd(const float *x, size_t n, double c, float *y);
#endif

/* Registry-shaped VJPs of plain softmax (params unused): online and two-pass
   softmax and masked_softmax (on its kept entries) share them. */
ss_status ss_softmax_vjp_scalar(const float *x, const float *y, const float *g,
                                size_t n, const double *params, float *dx);
#if SS_HAVE_SIMD
ss_status ss_softmax_vjp_simd(const float *x, const float *y, const float *g,
                              size_t n, const double *params, float *dx);
#endif

#endif
