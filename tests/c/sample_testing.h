/*
 * Shared tools of the sampler tests:
 *   st_chi2_test      Pearson's chi-square goodness of fit of draws against
 *                     probabilities (cells with expected count < 5 pooled),
 *                     against the Wilson-Hilferty critical value at a stated
 *                     significance level. The seeds are fixed, so a test is
 *                     deterministic: it cannot flake, and a wrong sampler
 *                     (off by more than ~sqrt(cells / draws)) fails.
 *   st_sample         one registry call by name with named parameters.
 *   st_softmax_t64    float64 softmax(x / t), the independent reference.
 */
#ifndef SS_TEST_SAMPLE_TESTING_H
#define SS_TEST_SAMPLE_TESTING_H

#include <math.h>
#include <string.h>

#include "harness.h"
#include "softmax_testing.h"

/* One-sided standard-normal quantiles for the levels the tests use. */
#define ST_ALPHA_1E3 3.090232306167813 /* alpha = 1e-3 */
#define ST_ALPHA_1E6 4.753424308822899 /* alpha = 1e-6 */

/* Upper alpha critical value of chi-square with dof degrees of freedom
   (Wilson & Hilferty 1931; relative error < 1% for dof >= 3). */
static inline double st_chi2_critical(double dof, double z_alpha) {
  const double a = 2.0 / (9.0 * dof);
  const double c = 1.0 - a + z_alpha * sqrt(a);
  return dof * c * c * c;
}

/* Statistic over cells with expected >= 5 plus one pooled cell of the rest;
   *dof = cells - 1. A draw with p == 0 makes it +Inf. */
static inline double st_chi2_stat(const uint32_t *draws, size_t nd, const double *p, size_t n,
                                  size_t *dof) {
  double *cnt = ss_test_alloc(n * sizeof *cnt);
  for (size_t i = 0; i < n; i++) cnt[i] = 0.0;
  for (size_t d = 0; d < nd; d++) {
    if (draws[d] >= n || p[draws[d]] == 0.0) return INFINITY;
    cnt[draws[d]] += 1.0;
  }
  double stat = 0.0, pool_e = 0.0, pool_o = 0.0;
  size_t cells = 0;
  for (size_t i = 0; i < n; i++) {
    const double e = p[i] * (double)nd;
    if (e >= 5.0) {
      stat += (cnt[i] - e) * (cnt[i] - e) / e;
      cells++;
    } else {
      pool_e += e;
      pool_o += cnt[i];
    }
  }
  if (pool_e > 0.0) {
    stat += (pool_o - pool_e) * (pool_o - pool_e) / pool_e;
    cells++;
  }
  ss_test_free(cnt);
  *dof = cells > 1 ? cells - 1 : 1;
  return stat;
}

/* True when the draws fit p at level z_alpha; *stat, *crit for messages. */
static inline bool st_chi2_test(const uint32_t *draws, size_t nd, const double *p, size_t n,
                                double z_alpha, double *stat, double *crit) {
  size_t dof;
  *stat = st_chi2_stat(draws, nd, p, n, &dof);
  *crit = st_chi2_critical((double)dof, z_alpha);
  return *stat <= *crit;
}

/* float64 softmax(x / t) (-Inf -> 0). */
static inline void st_softmax_t64(const float *x, size_t n, double t, double *p) {
  double m = -INFINITY, s = 0.0;
  for (size_t i = 0; i < n; i++) if ((double)x[i] / t > m) m = (double)x[i] / t;
  for (size_t i = 0; i < n; i++) {
    p[i] = x[i] == -INFINITY ? 0.0 : exp((double)x[i] / t - m);
    s += p[i];
  }
  for (size_t i = 0; i < n; i++) p[i] /= s;
}

/* Parameters by name for a registry sampler: names[i] = values[i], the rest
   defaults. Returns the count written into params (k->nparams). */
static inline size_t st_params(const ss_kernel_info *k, double *params, size_t count,
                               const char *const *names, const double *values) {
  for (size_t i = 0; i < k->nparams; i++) {
    params[i] = k->params[i].def;
    for (size_t j = 0; j < count; j++)
      if (strcmp(k->params[i].name, names[j]) == 0) params[i] = values[j];
  }
  return k->nparams;
}

#endif
