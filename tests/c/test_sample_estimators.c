/*
 * ss_estimator_stats (core/src/sample/estimators.c):
 *   - the exact gradient equals central finite differences of the
 *     enumerated objective sum_i softmax(theta)_i f(e_i) (float64, 1e-6);
 *   - with one sample, each estimator equals an independent float64
 *     transcription of its formula on the noise ss_gumbel returns (the mean
 *     is that estimate and the variance 0), within 1e-5;
 *   - with many samples: Gumbel-Softmax's bias shrinks as tau falls (0.1 vs
 *     2) while its variance grows; ReinMax is less biased than
 *     straight-through at tau = 1 (Liu et al. 2023's claim, on their toy
 *     objective); every estimate of a zero-sum gradient sums to ~0;
 *   - bad arguments get their status.
 */
#include <string.h>

#include "fd.h"
#include "harness.h"
#include "sample_testing.h"

enum { EN = 4 };
static const float THETA[EN] = {0.3f, -0.8f, 1.1f, 0.2f};
static const float TARGET[EN] = {0.45f, 0.1f, 0.25f, 0.2f};

static double objective(const double *th, size_t n) {
  double m = -INFINITY, s = 0.0, e = 0.0, tt = 0.0;
  for (size_t i = 0; i < n; i++) if (th[i] > m) m = th[i];
  for (size_t i = 0; i < n; i++) tt += (double)TARGET[i] * TARGET[i];
  for (size_t i = 0; i < n; i++) {
    const double w = exp(th[i] - m);
    s += w, e += w * (tt - 2.0 * TARGET[i] + 1.0);
  }
  return e / s;
}

static double objective_of(const double *th, size_t n, const void *ctx) {
  (void)ctx;
  return objective(th, n);
}

TEST(estimator_exact_gradient_matches_finite_differences) {
  float mean[EN], exact[EN];
  double bias, var;
  CHECK_STATUS(ss_estimator_stats(SS_ESTIMATOR_ST, THETA, TARGET, EN, 1.0, 1, 10, &bias, &var,
                                  mean, exact), SS_OK);
  for (size_t i = 0; i < EN; i++) {
    double th[EN];
    for (size_t j = 0; j < EN; j++) th[j] = THETA[j];
    const double fd = fd_central64(objective_of, NULL, th, EN, i, 1e-5);
    CHECK(fabs(exact[i] - fd) < 1e-6, "exact[%zu] %g, finite differences %g", i, exact[i], fd);
  }
}

static void jtu(const double *p, const double *u, double w, double *out) {
  double pu = 0.0;
  for (size_t i = 0; i < EN; i++) pu += p[i] * u[i];
  for (size_t i = 0; i < EN; i++) out[i] += w * p[i] * (u[i] - pu);
}

TEST(single_sample_estimates_match_their_formulas) {
  const double tau = 0.7;
  const uint64_t seed = 12;
  float g[EN];
  CHECK_STATUS(ss_gumbel(seed, 2, 0, EN, g), SS_OK); /* draw 0 */
  size_t k = 0;
  for (size_t i = 1; i < EN; i++) if (THETA[i] + g[i] > THETA[k] + g[k]) k = i;
  double pi[EN], q[EN], y[EN], u[EN], w[EN];
  st_softmax_t64(THETA, EN, 1.0, pi);
  st_softmax_t64(THETA, EN, tau, q);
  double m = -INFINITY, s = 0.0;
  for (size_t i = 0; i < EN; i++) if ((w[i] = ((double)THETA[i] + g[i]) / tau) > m) m = w[i];
  for (size_t i = 0; i < EN; i++) s += (y[i] = exp(w[i] - m));
  for (size_t i = 0; i < EN; i++) y[i] /= s, u[i] = 2.0 * ((i == k) - (double)TARGET[i]);
  double want[SS_ESTIMATOR_COUNT][EN] = {{0}};
  jtu(q, u, 1.0 / tau, want[SS_ESTIMATOR_ST]);
  double uy[EN];
  for (size_t i = 0; i < EN; i++) uy[i] = 2.0 * (y[i] - (double)TARGET[i]);
  jtu(y, uy, 1.0 / tau, want[SS_ESTIMATOR_GUMBEL_SOFTMAX]);
  jtu(y, u, 1.0 / tau, want[SS_ESTIMATOR_ST_GUMBEL]);
  double p1[EN];
  for (size_t i = 0; i < EN; i++) p1[i] = 0.5 * (q[i] + (i == k));
  jtu(p1, u, 2.0, want[SS_ESTIMATOR_REINMAX]);
  jtu(pi, u, -0.5, want[SS_ESTIMATOR_REINMAX]);
  for (int e = 0; e < SS_ESTIMATOR_COUNT; e++) {
    float mean[EN], exact[EN];
    double bias, var;
    CHECK_STATUS(ss_estimator_stats(e, THETA, TARGET, EN, tau, seed, 1, &bias, &var, mean, exact),
                 SS_OK);
    CHECK(var == 0.0, "estimator %d: variance %g of one sample", e, var);
    double b = 0.0;
    for (size_t i = 0; i < EN; i++) {
      CHECK(fabs(mean[i] - want[e][i]) < 1e-5, "estimator %d [%zu]: %g vs %g", e, i, mean[i],
            want[e][i]);
      b += (want[e][i] - exact[i]) * (want[e][i] - exact[i]);
    }
    CHECK(fabs(bias - sqrt(b)) < 1e-5, "estimator %d: bias %g vs %g", e, bias, sqrt(b));
  }
}

static double stats(int e, double tau, double *var, double *sum) {
  float mean[EN], exact[EN];
  double bias;
  if (ss_estimator_stats(e, THETA, TARGET, EN, tau, 5, 40000, &bias, var, mean, exact) != SS_OK)
    return NAN;
  *sum = 0.0;
  for (size_t i = 0; i < EN; i++) *sum += mean[i];
  return bias;
}

TEST(estimator_bias_and_variance_behave_as_the_papers_say) {
  double v_lo, v_hi, s;
  const double b_lo = stats(SS_ESTIMATOR_GUMBEL_SOFTMAX, 0.1, &v_lo, &s);
  CHECK(fabs(s) < 1e-5, "GS mean sums to %g", s);
  const double b_hi = stats(SS_ESTIMATOR_GUMBEL_SOFTMAX, 2.0, &v_hi, &s);
  CHECK(b_lo < b_hi, "GS bias at tau 0.1 (%g) not below tau 2 (%g)", b_lo, b_hi);
  CHECK(v_lo > v_hi, "GS variance at tau 0.1 (%g) not above tau 2 (%g)", v_lo, v_hi);
  double v_st, v_rm;
  const double b_st = stats(SS_ESTIMATOR_ST, 1.0, &v_st, &s);
  const double b_rm = stats(SS_ESTIMATOR_REINMAX, 1.0, &v_rm, &s);
  CHECK(fabs(s) < 1e-5, "ReinMax mean sums to %g", s);
  CHECK(b_rm < b_st, "ReinMax bias %g not below straight-through %g at tau 1", b_rm, b_st);
}

TEST(estimator_stats_errors) {
  float mean[EN], exact[EN], bad[EN];
  double b, v;
  CHECK_STATUS(ss_estimator_stats(4, THETA, TARGET, EN, 1, 0, 10, &b, &v, mean, exact), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_estimator_stats(0, THETA, TARGET, EN, 0, 0, 10, &b, &v, mean, exact), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_estimator_stats(0, THETA, TARGET, EN, NAN, 0, 10, &b, &v, mean, exact), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_estimator_stats(0, THETA, TARGET, EN, 1, 0, 0, &b, &v, mean, exact), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_estimator_stats(0, THETA, TARGET, 0, 1, 0, 10, &b, &v, mean, exact), SS_ERR_EMPTY);
  CHECK_STATUS(ss_estimator_stats(0, THETA, TARGET, SS_ESTIMATOR_MAX_N + 1, 1, 0, 10, &b, &v, mean, exact),
               SS_ERR_TOO_LARGE);
  CHECK_STATUS(ss_estimator_stats(0, NULL, TARGET, EN, 1, 0, 10, &b, &v, mean, exact), SS_ERR_NULL);
  memcpy(bad, THETA, sizeof bad), bad[1] = NAN;
  CHECK_STATUS(ss_estimator_stats(0, bad, TARGET, EN, 1, 0, 10, &b, &v, mean, exact), SS_ERR_NAN);
  CHECK_STATUS(ss_estimator_stats(0, THETA, bad, EN, 1, 0, 10, &b, &v, mean, exact), SS_ERR_NAN);
}
