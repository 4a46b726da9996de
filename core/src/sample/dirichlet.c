/*
 * dirichlet -- draws on the simplex from Dirichlet(alpha) (input: the
 * concentrations alpha_i > 0):
 *
 *   G_i ~ Gamma(alpha_i, 1) independently,  y = G / sum_j G_j
 *   E[y_i] = alpha_i / alpha_0,  Var[y_i] = alpha_i (alpha_0 - alpha_i) / (alpha_0^2 (alpha_0 + 1))
 *
 * Gamma by Marsaglia & Tsang 2000 ("A Simple Method for Generating Gamma
 * Variables"): for a >= 1, d = a - 1/3, c = 1 / sqrt(9 d), repeat
 * z ~ N(0, 1), v = (1 + c z)^3 until v > 0 and log U < z^2/2 + d - d v + d log v;
 * G = d v. For alpha < 1 the boost G(alpha) = G(alpha + 1) U^(1/alpha).
 * Everything is kept in logs (log G = log d + log v + log(U) / alpha), and y
 * is normalized from them, so tiny alphas -- whose gammas underflow any
 * float -- still give a valid point on the simplex (nearly a vertex).
 *
 * Random numbers: attempt j of entry i of draw d uses Philox blocks
 * ((d n + i) 2^9 + 2j) (the normal, Box-Muller) and (... + 2j + 1) (the
 * acceptance U and the boost U) of stream SS_STREAM_DIRICHLET, so the draws
 * are a pure function of (seed, d, i). log, sqrt, sin/cos are the Philox
 * module's libm-free ones and exp is exp64 below: the same bits in every
 * build. Rejection sampling does not vectorize; both impls run this code.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "common/check.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/rng.h"
#include "registry/kernels.h"
#include "sample/sample_internal.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

static const ss_param_info dirichlet_params[] = {
    SS_SAMPLER_SEED_PARAM,
    SS_SAMPLER_DRAWS_PARAM,
};

/* exp(x) for x <= 0 in double, from IEEE operations only: x = k ln 2 + r,
   |r| <= ln2 / 2 (ln 2 split so k * hi is exact), a degree-13 Taylor
   polynomial of e^r (truncation < 2e-17 relative), times 2^k. */
static double exp64(double x) {
  if (!(x > -745.0)) return 0.0;
  const double k = floor(x * 1.4426950408889634 + 0.5);
  const double r = (x - k * 0x1.62e42fee00000p-1) - k * 0x1.a39ef35793c76p-33;
  double p = 1.0 / 6227020800.0; /* 1/13! */
  static const double inv_fact[13] = {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                                      1.0 / 362880.0,    1.0 / 40320.0,    1.0 / 5040.0,
                                      1.0 / 720.0,       1.0 / 120.0,      1.0 / 24.0,
                                      1.0 / 6.0,         0.5,              1.0,
                                      1.0};
  for (int j = 0; j < 13; j++) p = p * r + inv_fact[j];
  return ldexp(p, (int)k);
}

/* log G for G ~ Gamma(alpha, 1), entry slot `slot` = d n + i. */
static double log_gamma_draw(double alpha, uint64_t seed, uint64_t slot) {
  const double a = alpha < 1.0 ? alpha + 1.0 : alpha;
  const double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  double lg = ss_philox_log(d); /* the fallback v = 1 (never reached in practice) */
  double boost_u = 0.5;
  for (uint64_t j = 0; j < 256; j++) {
    uint32_t w[4], b[4];
    double z[2];
    ss_philox_block(seed, SS_STREAM_DIRICHLET, (slot << 9) + 2 * j, w);
    ss_philox_normal_pair(w, z);
    const double t = 1.0 + c * z[0];
    if (t <= 0.0) continue;
    const double v = t * t * t, lv = 3.0 * ss_philox_log(t);
    ss_philox_block(seed, SS_STREAM_DIRICHLET, (slot << 9) + 2 * j + 1, b);
    const double u = ss_philox_u01d(b[1], b[0]);
    boost_u = ss_philox_u01d(b[3], b[2]);
    if (ss_philox_log(u) < 0.5 * z[0] * z[0] + d - d * v + d * lv) {
      lg = ss_philox_log(d) + lv;
      break;
    }
  }
  if (alpha < 1.0) lg += ss_philox_log(boost_u) / alpha;
  return lg < -1e300 ? -1e300 : lg;
}

static ss_status dirichlet_sample(const float *x, size_t n, const double *params, float *probs,
                                  uint32_t *indices, float *samples) {
  (void)indices;
  ss_status st = ss_check_finite(x, n);
  if (st != SS_OK) return st;
  double a0 = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (!(x[i] > 0.0f)) return SS_ERR_DOMAIN;
    a0 += (double)x[i];
  }
  for (size_t i = 0; i < n; i++) probs[i] = ss_flush((float)((double)x[i] / a0));
  if (!samples) return SS_OK;
  const uint64_t seed = ss_sampler_seed(&ss_kernel_dirichlet, params);
  const size_t draws = ss_sampler_draws(&ss_kernel_dirichlet, params);
  for (size_t d = 0; d < draws; d++) {
    float *row = samples + d * n;
    /* log G_i rounded to float in the row, max kept in double. A log below
       -FLT_MAX (tiny concentrations: log U / alpha) does not fit the row:
       then the logs are drawn again (a pure function of the slot) and used
       in double against the double max (a float row of -Inf gave NaN). */
    double m = -INFINITY;
    bool wide = false;
    for (size_t i = 0; i < n; i++) {
      const double lg = log_gamma_draw((double)x[i], seed, (uint64_t)d * n + i);
      wide |= lg < -FLT_MAX;
      row[i] = lg < -FLT_MAX ? -FLT_MAX : (float)lg;
      if (lg > m) m = lg;
    }
    double s = 0.0;
    if (!wide) {
      m = -INFINITY;
      for (size_t i = 0; i < n; i++)
        if ((double)row[i] > m) m = (double)row[i];
      for (size_t i = 0; i < n; i++) s += (double)(row[i] = (float)exp64((double)row[i] - m));
    } else {
      for (size_t i = 0; i < n; i++) {
        const double lg = log_gamma_draw((double)x[i], seed, (uint64_t)d * n + i);
        s += (double)(row[i] = (float)exp64(lg - m));
      }
    }
    const float inv = (float)(1.0 / s);
    for (size_t i = 0; i < n; i++) row[i] = ss_flush(row[i] * inv);
  }
  return SS_OK;
}

const ss_kernel_info ss_kernel_dirichlet = {
    .name = "dirichlet",
    .family = SS_FAMILY_SAMPLER,
    .summary = "draws on the simplex from Dirichlet(alpha) (input: alpha > 0)",
    .formula = "y = G / sum G, G_i ~ Gamma(alpha_i) (Marsaglia-Tsang, boost for alpha < 1); "
               "E[y] = alpha / alpha_0",
    .paper = "Marsaglia & Tsang 2000, A Simple Method for Generating Gamma Variables",
    .nparams = sizeof dirichlet_params / sizeof dirichlet_params[0],
    .params = dirichlet_params,
    .input = SS_INPUT_VALUES,
    .draws = SS_DRAW_VECTOR,
    .sample = SS_IMPLS_SHARED(dirichlet_sample),
};
