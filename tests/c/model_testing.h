/*
 * Test helpers for the model layers (core/src/model): float64 copies of
 * float inputs and the bounds' unit (their finite differences: fd.h).
 * Header-only (static), like the other *_testing.h.
 */
#ifndef SS_TEST_MODEL_TESTING_H
#define SS_TEST_MODEL_TESTING_H

#include "harness.h"
#include "softmax_testing.h"

#define MT_U 0x1p-24 /* float's unit roundoff */

static inline void mt_widen(const float *x, size_t n, double *out) {
  for (size_t i = 0; i < n; i++) out[i] = x[i];
}

/* Whether every value is finite (the "never NaN or Inf with SS_OK" checks). */
static inline bool mt_all_finite(const float *y, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(y[i])) return false;
  return true;
}

#endif
