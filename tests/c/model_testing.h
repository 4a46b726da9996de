/*
 * Test helpers for the model layers (core/src/model): float64 copies of
 * float inputs, central finite differences of a float64 loss, and the
 * bounds' unit. Header-only (static), like the other *_testing.h.
 */
#ifndef SS_TEST_MODEL_TESTING_H
#define SS_TEST_MODEL_TESTING_H

#include "harness.h"
#include "softmax_testing.h"

#define MT_U 0x1p-24 /* float's unit roundoff */

/* A float64 loss of the inputs v (all of a layer's inputs, one after another). */
typedef double (*mt_loss)(const double *v, const void *ctx);

/* (L(v + h e_i) - L(v - h e_i)) / 2h; v is restored. */
static inline double mt_fd(mt_loss f, double *v, size_t i, double h, const void *ctx) {
  const double s = v[i];
  v[i] = s + h;
  const double a = f(v, ctx);
  v[i] = s - h;
  const double b = f(v, ctx);
  v[i] = s;
  return (a - b) / (2.0 * h);
}

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
