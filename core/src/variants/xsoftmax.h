/*
 * y = x * softmax(beta x), entrywise: the shared core of sa_softmax (beta = 1,
 * Zheng et al. 2025) and of the Boltzmann operator's terms (any beta,
 * Kajitsuka & Sato 2024). Both files of this folder call these; the formulas
 * and the accuracy statements are in xsoftmax.c.
 */
#ifndef SS_VARIANTS_XSOFTMAX_H
#define SS_VARIANTS_XSOFTMAX_H

#include "common/simd.h"
#include "softscope.h"

/* e_i = exp(beta (x_i - a)) to e; returns sum_i e_i (double). a is max x
   for beta > 0 and the smallest finite x for beta < 0, so no exponent is
   positive; -Inf entries give exactly 0; a beta whose float rounding is 0
   gives 1 for every unmasked entry (softmax(0 x) is uniform). x is a
   validated row (max is its finite maximum); e must not alias x. */
double ss_xs_exp_store_scalar(const float *x, size_t n, float max, double beta,
                              float *e);
/* y_i = x_i * softmax(beta x)_i, 0 for -Inf entries; validates x. */
ss_status ss_xsoftmax_scalar(const float *x, size_t n, double beta, float *y);
/* dx_j = p_j (g_j (1 + beta x_j) - beta <g, y>), p = softmax(beta x)
   recomputed into dx; validates x (an invalid row writes nothing). */
ss_status ss_xsoftmax_vjp_scalar(const float *x, const float *y,
                                 const float *g, size_t n, double beta,
                                 float *dx);

#if SS_HAVE_SIMD
double ss_xs_exp_store_simd(const float *x, size_t n, float max, double beta,
                            float *e);
ss_status ss_xsoftmax_simd(const float *x, size_t n, double beta, float *y);
ss_status ss_xsoftmax_vjp_simd(const float *x, const float *y, const float *g,
                               size_t n, double beta, float *dx);
#endif

#endif
