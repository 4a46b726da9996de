/*
 * The Gumbel samplers' shared pieces (see gumbel.h): the chunked Gumbel-max
 * argmax and the two backward passes.
 *
 * The VJPs recreate each draw's noise from (seed, draw) in chunks instead of
 * storing it, so they need no scratch beyond a chunk on the stack: the
 * Gumbel-Softmax one makes two passes per draw (an online max / sum /
 * <u, exp> pass, then the accumulation), ReinMax one noise pass (the index)
 * and two arithmetic passes. They use the deterministic scalar exp, so a
 * gradient is the same in every build too.
 */
#include <math.h>

#include "common/check.h"
#include "common/det_math.h"
#include "sample/gumbel.h"

/* Noise of draw d for entries c0 .. c0 + len - 1 (c0 a multiple of 4). */
static void chunk(ss_noise_fn noise, uint64_t seed, uint64_t d, size_t n, size_t c0, size_t len,
                  float *buf) {
  noise(seed, SS_STREAM_GUMBEL, d * ss_blocks_per_draw(n) + c0 / 4, len, buf);
}

/* Entries in the chunk that starts at c0. */
static size_t len_at(size_t n, size_t c0) {
  return n - c0 < SS_GUMBEL_CHUNK ? n - c0 : SS_GUMBEL_CHUNK;
}

uint32_t ss_gumbel_argmax(ss_noise_fn noise, const float *x, size_t n, uint64_t seed, uint64_t d) {
  float buf[SS_GUMBEL_CHUNK];
  float best = -INFINITY;
  uint32_t idx = 0;
  for (size_t c0 = 0; c0 < n; c0 += SS_GUMBEL_CHUNK) {
    const size_t len = len_at(n, c0);
    chunk(noise, seed, d, n, c0, len, buf);
    for (size_t j = 0; j < len; j++) {
      const float v = x[c0 + j] + buf[j];
      if (v > best) best = v, idx = (uint32_t)(c0 + j);
    }
  }
  return idx;
}

/* exp((w - m) / tau) in double for w <= m (w may be -Inf): every tau > 0. */
static double ex_t(float w, float m, double tau) {
  return w == -INFINITY ? 0.0 : exp(((double)w - (double)m) / tau);
}

ss_status ss_gumbel_softmax_vjp(const ss_kernel_info *k, const float *x, size_t n,
                                const double *params, const float *g, float *dx) {
  float mx;
  ss_status st = ss_check_logits(x, n, &mx);
  if (st != SS_OK) return st;
  const uint64_t seed = ss_sampler_seed(k, params);
  const size_t draws = ss_sampler_draws(k, params);
  const double tau = ss_param_value(k, params, "tau", 1.0);
  float buf[SS_GUMBEL_CHUNK];
  for (size_t i = 0; i < n; i++) dx[i] = 0.0f;
  for (size_t d = 0; d < draws; d++) {
    const float *u = g + d * n;
    /* w_i = x_i + G_i, as the forward forms it; online softmax of w / tau:
       S = sum exp((w - m) / tau), D = sum u exp((w - m) / tau), rescaled
       when m grows (in double, so any tau > 0 works). */
    float m = -INFINITY;
    double S = 0.0, D = 0.0;
    for (size_t c0 = 0; c0 < n; c0 += SS_GUMBEL_CHUNK) {
      const size_t len = len_at(n, c0);
      chunk(ss_gumbel_noise_scalar, seed, d, n, c0, len, buf);
      for (size_t j = 0; j < len; j++) {
        const float w = x[c0 + j] + buf[j];
        if (w == -INFINITY) continue;
        if (!isfinite(w)) return SS_ERR_DOMAIN; /* x + G overflowed */
        if (w > m) {
          const double r = ex_t(m, w, tau);
          S *= r, D *= r, m = w;
        }
        const double e = ex_t(w, m, tau);
        S += e, D += (double)u[c0 + j] * e;
      }
    }
    const double uy = D / S;
    for (size_t c0 = 0; c0 < n; c0 += SS_GUMBEL_CHUNK) {
      const size_t len = len_at(n, c0);
      chunk(ss_gumbel_noise_scalar, seed, d, n, c0, len, buf);
      for (size_t j = 0; j < len; j++) {
        const size_t i = c0 + j;
        const double e = ex_t(x[i] + buf[j], m, tau);
        if (e == 0.0) continue;
        const float v = (float)(e * ((double)u[i] - uy) / (tau * S));
        if (!isfinite(v) || !isfinite(dx[i] + v)) return SS_ERR_DOMAIN; /* 1/tau at a tie */
        dx[i] += v;
      }
    }
  }
  return SS_OK;
}

ss_status ss_reinmax_vjp(const ss_kernel_info *k, const float *x, size_t n,
                         const double *params, const float *g, float *dx) {
  float m0;
  ss_status st = ss_check_logits(x, n, &m0);
  if (st != SS_OK) return st;
  const uint64_t seed = ss_sampler_seed(k, params);
  const size_t draws = ss_sampler_draws(k, params);
  const double tau = ss_param_value(k, params, "tau", 1.0);
  /* pi0_i = exp(x_i - m0) / S0 and q_i = exp((x_i - m0) / tau) / Sq, the
     latter in double so any tau > 0 works (ReinMax's backward has no 1/tau
     factor: it is finite for every tau). */
  double S0 = 0.0, Sq = 0.0;
  for (size_t i = 0; i < n; i++) S0 += ex_t(x[i], m0, 1.0), Sq += ex_t(x[i], m0, tau);
  for (size_t i = 0; i < n; i++) dx[i] = 0.0f;
  for (size_t d = 0; d < draws; d++) {
    const float *u = g + d * n;
    const uint32_t kd = ss_gumbel_argmax(ss_gumbel_noise_scalar, x, n, seed, d);
    double a = 0.0, b = 0.0; /* <pi0, u>, <q, u> */
    for (size_t i = 0; i < n; i++) {
      a += ex_t(x[i], m0, 1.0) * (double)u[i];
      b += ex_t(x[i], m0, tau) * (double)u[i];
    }
    a /= S0, b /= Sq;
    const double c = 0.5 * (b + (double)u[kd]); /* <pi1, u> */
    for (size_t i = 0; i < n; i++) {
      const double p0 = ex_t(x[i], m0, 1.0) / S0, q = ex_t(x[i], m0, tau) / Sq;
      dx[i] += (float)(q * ((double)u[i] - c) - 0.5 * p0 * ((double)u[i] - a));
    }
    dx[kd] += (float)((double)u[kd] - c);
  }
  double mean = 0.0;
  size_t support = 0;
  for (size_t i = 0; i < n; i++)
    if (x[i] > -INFINITY) mean += (double)dx[i], support++;
  mean /= (double)support;
  for (size_t i = 0; i < n; i++)
    if (x[i] > -INFINITY) dx[i] = (float)((double)dx[i] - mean);
  return SS_OK;
}
