/*
 * Bias and variance of the gradient estimators for a discrete sample
 * (see ss_estimator_stats in softscope.h), the numbers behind the sampling
 * view's estimator plot. The objective is the toy problem of the ReinMax
 * paper (Liu et al. 2023, Sec. 6.1): z a one-hot draw from
 * pi = softmax(theta), f(z) = sum_i (z_i - t_i)^2.
 *
 * Exact gradient, by enumeration: E f = sum_i pi_i c_i with
 * c_i = f(e_i) = |t|^2 - 2 t_i + 1, so  dE/dtheta = pi (c - <pi, c>)
 *   = -2 pi_i sum_j pi_j (t_i - t_j),
 * the form computed: |t|^2 + 1 cancels, and summing c first lost the
 * gradient to it (target {1e20, 0}: |t|^2 = 1e40 swallowed 2 t_i, exact 0).
 *
 * Estimators (u = grad f at the forward value, J_p^T u = p (u - <p, u>)):
 *   ST        D = onehot(argmax(theta + G)), (1/tau) J_{softmax(theta/tau)}^T 2(D - t)
 *             (Bengio, Leonard & Courville 2013)
 *   GS        y = softmax((theta + G)/tau), (1/tau) J_y^T 2(y - t)   (Jang et al. 2017)
 *   ST-GS     (1/tau) J_y^T 2(D - t)                                  (Jang et al. 2017)
 *   ReinMax   2 J_pi1^T u - J_pi0^T u / 2, pi1 = (softmax(theta/tau) + D)/2, u = 2(D - t)
 * All four use the same draws (common random numbers), so their curves
 * differ by the estimator, not by the noise. Everything is double; the
 * noise is the samplers' Gumbel noise (float), so draws match gumbel_max.
 * Over the whole range of tau, (0, 1e3]: softmax(v / tau) is formed as
 * exp((v - max v) / tau) (v / tau overflowed: NaN at tau = 5e-324), and
 * the (1/tau) J^T u terms as J^T u / tau (1/tau is +Inf below 5.6e-309,
 * and Inf * 0 was NaN), so the tau -> 0 limits come out exactly: J^T u = 0
 * for a one-hot softmax. What float (mean, exact) or double (bias,
 * variance) cannot hold -- (1/tau) times a tie's O(1) Jacobian, a target
 * near FLT_MAX over a small tau -- is SS_ERR_DOMAIN, nothing written.
 */
#include <float.h>
#include <math.h>

#include "common/check.h"
#include "sample/noise.h"
#include "sample/sample_internal.h"

/* p = softmax(v / tau) in double, as exp((v - max v) / tau): no v / tau
   overflows, the max gets exp(0) = 1 at any tau. */
static void softmax64(const double *v, size_t n, double tau, double *p) {
  double m = -INFINITY, s = 0.0;
  for (size_t i = 0; i < n; i++) if (v[i] > m) m = v[i];
  for (size_t i = 0; i < n; i++) s += (p[i] = v[i] == -INFINITY ? 0.0 : exp((v[i] - m) / tau));
  for (size_t i = 0; i < n; i++) p[i] /= s;
}

/* out += w * J_p^T u / div (div = tau: dividing, not multiplying by 1/tau,
   keeps 0 / tau = 0 where 1/tau is +Inf). */
static void jtu(const double *p, const double *u, size_t n, double w, double div, double *out) {
  double pu = 0.0;
  for (size_t i = 0; i < n; i++) pu += p[i] * u[i];
  for (size_t i = 0; i < n; i++) out[i] += w * (p[i] * (u[i] - pu)) / div;
}

ss_status ss_estimator_stats(int estimator, const float *theta, const float *target, size_t n,
                             double tau, uint64_t seed, size_t samples, double *bias,
                             double *variance, float *mean, float *exact) {
  if (!theta || !target || !bias || !variance || !mean || !exact) return SS_ERR_NULL;
  if (n == 0) return SS_ERR_EMPTY;
  if (n > SS_ESTIMATOR_MAX_N) return SS_ERR_TOO_LARGE;
  if (estimator < 0 || estimator >= SS_ESTIMATOR_COUNT) return SS_ERR_PARAM_RANGE;
  if (!(tau > 0.0 && tau <= 1e3) || samples < 1 || samples > (size_t)SS_MAX_DRAWS)
    return SS_ERR_PARAM_RANGE;
  float mx;
  ss_status st = ss_check_logits(theta, n, &mx);
  if (st != SS_OK) return st;
  st = ss_check_finite(target, n);
  if (st != SS_OK) return st;

  double th[SS_ESTIMATOR_MAX_N], pi[SS_ESTIMATOR_MAX_N], q[SS_ESTIMATOR_MAX_N];
  double ex[SS_ESTIMATOR_MAX_N], y[SS_ESTIMATOR_MAX_N];
  double u[SS_ESTIMATOR_MAX_N], est[SS_ESTIMATOR_MAX_N];
  double mu[SS_ESTIMATOR_MAX_N] = {0}, m2[SS_ESTIMATOR_MAX_N] = {0};
  float g[SS_ESTIMATOR_MAX_N];
  for (size_t i = 0; i < n; i++) th[i] = theta[i];
  softmax64(th, n, 1.0, pi);
  softmax64(th, n, tau, q);
  for (size_t i = 0; i < n; i++) { /* -2 pi_i sum_j pi_j (t_i - t_j), see above */
    double acc = 0.0;
    for (size_t j = 0; j < n; j++) acc += pi[j] * ((double)target[i] - (double)target[j]);
    ex[i] = -2.0 * pi[i] * acc;
  }

  for (size_t d = 0; d < samples; d++) {
    ss_gumbel_noise_scalar(seed, SS_STREAM_GUMBEL, (uint64_t)d * ss_blocks_per_draw(n), n, g);
    size_t k = 0;
    float best = -INFINITY;
    for (size_t i = 0; i < n; i++) {
      const float v = theta[i] + g[i]; /* as gumbel_max rounds it */
      if (v > best) best = v, k = i;
    }
    for (size_t i = 0; i < n; i++) u[i] = 2.0 * ((i == k) - (double)target[i]), est[i] = 0.0;
    switch (estimator) {
      case SS_ESTIMATOR_ST: jtu(q, u, n, 1.0, tau, est); break;
      case SS_ESTIMATOR_GUMBEL_SOFTMAX:
      case SS_ESTIMATOR_ST_GUMBEL: {
        double w[SS_ESTIMATOR_MAX_N];
        for (size_t i = 0; i < n; i++) w[i] = th[i] + (double)g[i];
        softmax64(w, n, tau, y);
        if (estimator == SS_ESTIMATOR_GUMBEL_SOFTMAX)
          for (size_t i = 0; i < n; i++) u[i] = 2.0 * (y[i] - (double)target[i]);
        jtu(y, u, n, 1.0, tau, est);
        break;
      }
      default: { /* ReinMax */
        double p1[SS_ESTIMATOR_MAX_N];
        for (size_t i = 0; i < n; i++) p1[i] = 0.5 * (q[i] + (i == k));
        jtu(p1, u, n, 2.0, 1.0, est);
        jtu(pi, u, n, -0.5, 1.0, est);
        break;
      }
    }
    /* Welford: mean and sum of squared deviations per coordinate. */
    const double r = 1.0 / (double)(d + 1);
    for (size_t i = 0; i < n; i++) {
      const double delta = est[i] - mu[i];
      mu[i] += delta * r;
      m2[i] += delta * (est[i] - mu[i]);
    }
  }
  double b = 0.0, v = 0.0;
  bool fits = true; /* every output finite in its type */
  for (size_t i = 0; i < n; i++) {
    b += (mu[i] - ex[i]) * (mu[i] - ex[i]);
    v += m2[i];
    fits &= fabs(mu[i]) <= FLT_MAX && fabs(ex[i]) <= FLT_MAX;
  }
  v /= (double)samples;
  if (!fits || !(b <= DBL_MAX) || !(v <= DBL_MAX)) return SS_ERR_DOMAIN;
  for (size_t i = 0; i < n; i++) {
    mean[i] = (float)mu[i];
    exact[i] = (float)ex[i];
  }
  *bias = sqrt(b);
  *variance = v;
  return SS_OK;
}
