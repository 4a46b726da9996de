/*
 * Float64 references for the alpha-entmax tests, written independently of
 * the library (header-only, static):
 *   er_entmax64  : alpha-entmax of double scores by bisection on tau until
 *                  the midpoint equals an end (exact to double resolution),
 *                  then divided by the sum; also reports the distance of the
 *                  threshold to the nearest score ("margin", to pick inputs
 *                  away from support changes for finite differences);
 *   er_sparsemax : alpha = 2 by sorting (Martins & Astudillo 2016, Alg. 1);
 *   er_entmax15  : alpha = 1.5 in closed form by sorting (Peters, Niculae &
 *                  Martins 2019, Alg. 2: for the top-k scores, tau solves
 *                  sum (z - tau)^2 = 1, a quadratic; k is the number of
 *                  sorted scores above their tau_k).
 * Scores are (alpha - 1) x in all three, -Inf is masked.
 */
#ifndef SS_TEST_ENTMAX_REFERENCE_H
#define SS_TEST_ENTMAX_REFERENCE_H

#include <math.h>
#include <stdlib.h>

#include "harness.h"

static inline double er_pow(double u, double alpha) {
  if (alpha == 2.0) return u;
  if (alpha == 1.5) return u * u;
  return pow(u, 1.0 / (alpha - 1.0));
}

/* p = entmax_alpha(x) for double logits; returns the margin. */
static inline double er_entmax64(const double *x, size_t n, double alpha, double *p) {
  const double a = alpha - 1.0;
  double m = -INFINITY;
  size_t ne = 0;
  for (size_t i = 0; i < n; i++) {
    if (x[i] > m) m = x[i];
    ne += x[i] != -INFINITY;
  }
  double lo = -1.0, hi = -pow((double)ne, -a); /* sum p >= 1 at lo, <= 1 at hi */
  for (int it = 0; it < 2000; it++) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
      const double u = a * (x[i] - m) - mid;
      if (u > 0.0) s += er_pow(u, alpha);
    }
    if (s > 1.0) lo = mid;
    else hi = mid;
  }
  const double th = 0.5 * (lo + hi);
  double s = 0.0, margin = INFINITY;
  for (size_t i = 0; i < n; i++) {
    const double u = x[i] == -INFINITY ? -INFINITY : a * (x[i] - m) - th;
    p[i] = u > 0.0 ? er_pow(u, alpha) : 0.0;
    s += p[i];
    if (fabs(u) < margin) margin = fabs(u);
  }
  for (size_t i = 0; i < n; i++) p[i] /= s;
  return margin;
}

static inline double er_entmax64_f(const float *x, size_t n, double alpha, double *p) {
  double *xd = ss_test_alloc(n * sizeof *xd);
  for (size_t i = 0; i < n; i++) xd[i] = x[i];
  const double mg = er_entmax64(xd, n, alpha, p);
  ss_test_free(xd);
  return mg;
}

/* st_model64-shaped: out = entmax_param(x). */
static inline void er_model_entmax(const double *x, size_t n, double alpha, double *out) {
  er_entmax64(x, n, alpha, out);
}

static int er_desc(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x < y) - (x > y);
}

/* Sorted finite scores z = scale * x, descending; returns their count. */
static inline size_t er_sorted(const float *x, size_t n, double scale, double *z) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    if (x[i] != -INFINITY) z[c++] = scale * x[i];
  qsort(z, c, sizeof *z, er_desc);
  return c;
}

static inline void er_sparsemax(const float *x, size_t n, double *p) {
  double *z = ss_test_alloc(n * sizeof *z);
  const size_t c = er_sorted(x, n, 1.0, z);
  double cum = 0.0, tau = 0.0;
  for (size_t k = 1; k <= c; k++) {
    cum += z[k - 1];
    if (1.0 + k * z[k - 1] > cum) tau = (cum - 1.0) / k; /* k is in the support */
  }
  for (size_t i = 0; i < n; i++)
    p[i] = x[i] == -INFINITY ? 0.0 : fmax((double)x[i] - tau, 0.0);
  ss_test_free(z);
}

static inline void er_entmax15(const float *x, size_t n, double *p) {
  double *z = ss_test_alloc(n * sizeof *z);
  const size_t c = er_sorted(x, n, 0.5, z);
  double s1 = 0.0, s2 = 0.0, tau = 0.0;
  for (size_t k = 1; k <= c; k++) {
    s1 += z[k - 1];
    s2 += z[k - 1] * z[k - 1];
    const double mean = s1 / k, ss = s2 - k * mean * mean;
    const double delta = (1.0 - ss) / k;
    const double tk = mean - sqrt(delta > 0.0 ? delta : 0.0);
    if (tk <= z[k - 1]) tau = tk; /* the largest such k wins */
  }
  for (size_t i = 0; i < n; i++) {
    const double u = x[i] == -INFINITY ? 0.0 : 0.5 * x[i] - tau;
    p[i] = u > 0.0 ? u * u : 0.0;
  }
  ss_test_free(z);
}

#endif
