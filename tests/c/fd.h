/*
 * Central finite differences, the one way the tests difference a function:
 * a scalar function of a vector, at float64 (the float64 models, where a
 * step can be as fine as the truncation/rounding trade-off wants) or at
 * float32 (a kernel's own inputs, where the step taken is what rounding
 * leaves of the one asked for, so the quotient divides by that step).
 *
 *   fd_central64  (f(v + h e_i) - f(v - h e_i)) / 2h, float64 v
 *   fd_central32  (f(v+) - f(v-)) / (v+_i - v-_i), v+- = float(v_i +- h)
 *   fd_along32    (f(v + h d) - f(v - h d)) / 2h along a direction d, and
 *                 the analytic gradient's prediction of that same quotient
 *                 over the float steps taken, <grad, v+ - v-> / 2h
 *
 * Where a test cannot bound the truncation error in advance it takes the
 * differences at h, h/2, h/4 and checks only where they agree (fd_steady):
 * disagreement means a kink or a support change within the steps. The
 * comparison with the analytic gradient is fd_agrees: |grad - fd| <=
 * rel * scale + abs, the bound each test states.
 */
#ifndef SS_TEST_FD_H
#define SS_TEST_FD_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

/* A scalar function of n values (ctx: the data of the caller); NAN on failure. */
typedef double (*fd_fn64)(const double *v, size_t n, const void *ctx);
typedef double (*fd_fn32)(const float *v, size_t n, const void *ctx);

/* The central difference of f in v[i] at step h; v is restored. */
double fd_central64(fd_fn64 f, const void *ctx, double *v, size_t n, size_t i, double h);

/* The central difference of f in v[i], v[i] moved to float(v[i] +- h), the
   quotient over the step taken (exact when h is a float-exact step); v is
   restored. */
double fd_central32(fd_fn32 f, const void *ctx, float *v, size_t n, size_t i, double h);

/* The central difference of f along d at step h: v +- h d rounded to float
   (a -Inf entry, a masked one, stays), over 2h. *pred (if pred) gets the
   gradient's prediction <grad, v+ - v-> / 2h over the masked-out entries
   skipped. work: 2n floats. */
double fd_along32(fd_fn32 f, const void *ctx, const float *v, size_t n, const float *d, double h,
                  const float *grad, double *pred, float *work);

/* Three differences est[e] at steps h0 / 2^e agree: all finite, and
   neighbours within `smooth`. */
static inline bool fd_steady(const double est[3], double smooth) {
  return isfinite(est[0]) && isfinite(est[1]) && isfinite(est[2]) &&
         fabs(est[0] - est[1]) <= smooth && fabs(est[1] - est[2]) <= smooth;
}

/* The analytic derivative agrees with its difference: |grad - fd| <=
   rel * scale + abs (NaN never agrees). */
static inline bool fd_agrees(double grad, double fd, double rel, double scale, double abs) {
  return fabs(grad - fd) <= rel * scale + abs;
}

#endif
