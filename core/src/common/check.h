/* Input validation shared by the kernels. */
#ifndef SS_COMMON_CHECK_H
#define SS_COMMON_CHECK_H

#include <math.h>
#include <stddef.h>

#include "softscope.h"

/* n in [1, SS_MAX_N]. */
static inline ss_status ss_check_n(size_t n) {
  if (n == 0) return SS_ERR_EMPTY;
  if (n > SS_MAX_N) return SS_ERR_TOO_LARGE;
  return SS_OK;
}

/* Classify a row by its maximum, computed with NaN-propagating max: the SIMD
   kernels validate their input for free in the max pass this way. */
static inline ss_status ss_classify_max(float m) {
  if (isnan(m)) return SS_ERR_NAN;
  if (m == INFINITY) return SS_ERR_POS_INF;
  if (m == -INFINITY) return SS_ERR_ALL_MASKED;
  return SS_OK;
}

/* Scalar scan: NaN first, then +Inf, then all -Inf. Also returns the max. */
ss_status ss_check_logits(const float *x, size_t n, float *max_out);
/* Every value finite (gradients, second inputs). */
ss_status ss_check_finite(const float *x, size_t n);
/* ss_check_finite with a SIMD pass for the common all-finite case. */
ss_status ss_check_finite_fast(const float *x, size_t n);
/* A non-negative finite vector (probabilities or weights). */
ss_status ss_check_probs(const float *p, size_t n);

#endif
