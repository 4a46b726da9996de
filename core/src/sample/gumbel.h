/*
 * What the Gumbel samplers share (gumbel.c): the Gumbel-max trick and the
 * Gumbel-Softmax relaxation of one draw.
 *
 * Draw d of an n-vector uses the Gumbel noise G_d,i of stream
 * SS_STREAM_GUMBEL at Philox blocks d * ss_blocks_per_draw(n) + i / 4, so
 *   index_d  = argmax_i (x_i + G_d,i)                 (lowest index on ties)
 *   soft_d   = softmax((x + G_d) / tau)               (Jang et al. 2017)
 * and gumbel_max, gumbel_softmax, gumbel_softmax_hard and reinmax with the
 * same seed pick the same index in every draw. The sums x_i + G_d,i are the
 * same float additions on every path, so the argmax of the soft sample's
 * logits and the chunked argmax (which regenerates the noise SS_GUMBEL_CHUNK
 * entries at a time, needing no n-sized scratch) agree.
 */
#ifndef SS_SAMPLE_GUMBEL_H
#define SS_SAMPLE_GUMBEL_H

#include <math.h>

#include "sample/noise.h"
#include "sample/sample_internal.h"

enum { SS_GUMBEL_CHUNK = 512 }; /* a multiple of 4: chunks start on a block */

/* The relaxation temperature of Gumbel-Softmax / ReinMax. */
#define SS_GUMBEL_TAU_PARAM                                                   \
  {.name = "tau", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e3,            \
   .min_open = true, .def = 1.0, .ui_min = 0.05, .ui_max = 10.0,             \
   .log_scale = true,                                                        \
   .help = "relaxation temperature: -> 0 one-hot, -> inf uniform; exact over the whole range"}

/* argmax_i (x_i + G_d,i); x has a finite entry. */
uint32_t ss_gumbel_argmax(ss_noise_fn noise, const float *x, size_t n, uint64_t seed, uint64_t d);

/* What one draw of a Gumbel sampler writes into its samples row. */
typedef enum { SS_GUMBEL_NO_ROW, SS_GUMBEL_SOFT_ROW, SS_GUMBEL_ONE_HOT_ROW } ss_gumbel_row;

/* The body of gumbel_max / gumbel_softmax / gumbel_softmax_hard / reinmax:
   probs = softmax(x) (the law of every draw's index), then per draw its
   index and row. tau is read by name (the soft row only). */
SS_ALWAYS_INLINE ss_status ss_gumbel_run(const ss_det_ops *ops, const ss_kernel_info *k,
                                         ss_gumbel_row mode, const float *x, size_t n,
                                         const double *params, float *probs,
                                         uint32_t *indices, float *samples) {
  ss_status st;
  const double sum = ops->exp(x, n, 1.0f, probs, &st);
  if (st != SS_OK) return st;
  ops->scale(probs, n, (float)(1.0 / sum));
  if (!indices && !samples) return SS_OK; /* only the distribution was asked for */
  const uint64_t seed = ss_sampler_seed(k, params);
  const size_t draws = ss_sampler_draws(k, params);
  const double tau = ss_param_value(k, params, "tau", 1.0);
  if (!samples) mode = SS_GUMBEL_NO_ROW;
  for (size_t d = 0; d < draws; d++) {
    uint32_t idx;
    if (mode == SS_GUMBEL_SOFT_ROW) {
      float *row = samples + d * n;
      ops->gumbel(seed, SS_STREAM_GUMBEL, (uint64_t)d * ss_blocks_per_draw(n), n, row);
      float best = -INFINITY;
      idx = 0;
      for (size_t i = 0; i < n; i++) {
        row[i] = x[i] + row[i];
        if (row[i] > best) best = row[i], idx = (uint32_t)i;
      }
      /* softmax((x + G) / tau) for every tau > 0 (det_exp's limit form takes
         over where the quotient is not a float); +Inf only from x + G
         itself overflowing (x within ~17 of FLT_MAX) */
      const double s = ops->exp(row, n, tau, row, &st);
      if (st != SS_OK) return SS_ERR_DOMAIN;
      ops->scale(row, n, (float)(1.0 / s));
    } else {
      idx = ss_gumbel_argmax(ops->gumbel, x, n, seed, d);
      if (mode == SS_GUMBEL_ONE_HOT_ROW) {
        float *row = samples + d * n;
        for (size_t i = 0; i < n; i++) row[i] = 0.0f;
        row[idx] = 1.0f;
      }
    }
    if (indices) indices[d] = idx;
  }
  return SS_OK;
}

/* VJPs (scalar, shared by both impls; the noise is regenerated). tau, seed
   and draws are read from k's params by name. dx = sum_d J_d^T g_d.
   Gumbel-Softmax's J carries 1/tau: at a tie of the largest x + G with tau
   far below 1 the true gradient can exceed FLT_MAX, which is SS_ERR_DOMAIN
   (dx is then unspecified). */
/* Gumbel-Softmax: J^T u = (1/tau) y (u - <u, y>), y the soft sample (also
   the straight-through gradient of gumbel_softmax_hard). */
ss_status ss_gumbel_softmax_vjp(const ss_kernel_info *k, const float *x, size_t n,
                                const double *params, const float *g, float *dx);
/* ReinMax (Liu et al. 2023), the authors' backward with D the one-hot draw:
   pi0 = softmax(x), pi1 = (softmax(x / tau) + D) / 2,
   dx = 2 pi1 (u - <pi1, u>) - pi0 (u - <pi0, u>) / 2, minus its mean over
   the support (the finite x_i). */
ss_status ss_reinmax_vjp(const ss_kernel_info *k, const float *x, size_t n,
                         const double *params, const float *g, float *dx);

#endif
