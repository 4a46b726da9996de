/* Pieces shared by the softmax-family kernels of this folder. */
#ifndef SS_SOFTMAX_INTERNAL_H
#define SS_SOFTMAX_INTERNAL_H

#include "common/simd.h"
#include "softscope.h"

/* e_i = exp(beta * (x_i - max)) stored to y; returns sum_i e_i (double).
   x_i may be -Inf (gives 0); beta > 0; max is the finite row maximum. */
double ss_exp_store_scalar(const float *x, size_t n, float max, float beta,
                           float *y);
/* VJP of y = softmax(beta * x): dx = beta * y (g - <g, y>). */
void ss_softmax_vjp_core_scalar(const float *y, const float *g, size_t n,
                                float beta, float *dx);

#if SS_HAVE_SIMD
double ss_exp_store_simd(const float *x, size_t n, float max, float beta,
                         float *y);
void ss_softmax_vjp_core_simd(const float *y, const float *g, size_t n,
                              float beta, float *dx);
#endif

/* Registry-shaped VJPs of plain softmax (params unused): online and two-pass
   softmax compute the same function, so they share them. */
ss_status ss_softmax_vjp_scalar(const float *x, const float *y, const float *g,
                                size_t n, const double *params, float *dx);
#if SS_HAVE_SIMD
ss_status ss_softmax_vjp_simd(const float *x, const float *y, const float *g,
                              size_t n, const double *params, float *dx);
#endif

#endif
