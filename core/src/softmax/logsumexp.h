/* The sum of exponentials shared by logsumexp and log_softmax. */
#ifndef SS_SOFTMAX_LOGSUMEXP_H
#define SS_SOFTMAX_LOGSUMEXP_H

#include <stddef.h>

#include "common/simd.h"

/* S = sum_i exp(x_i - max) in double, nothing stored. x_i may be -Inf
   (contributes 0); max is the finite row maximum, so S >= 1. */
double ss_sum_exp_scalar(const float *x, size_t n, float max);
#if SS_HAVE_SIMD
double ss_sum_exp_simd(const float *x, size_t n, float max);
#endif

#endif
