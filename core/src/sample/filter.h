/*
 * The skeleton every decoding filter shares (filter.h):
 *
 *   z = x / temperature            (float division; skipped for 1)
 *   e = exp(z - max z)             (det_exp: e_max = 1 exactly)
 *   thr = the filter's threshold on e, from e and S = sum e
 *   kept = {i : e_i >= thr}        (every filter's kept set is tie-closed)
 *   probs = e on kept, 0 elsewhere, divided by its sum
 *   draws = inverse-CDF draws from probs (stream SS_STREAM_CATEGORICAL)
 *
 * A threshold on e is the common form because each filter in the
 * literature keeps the entries above some value of a monotone function of
 * the probability (top-k, top-p, min-p) -- typical sampling, whose key is
 * not monotone in e, has its own body (typical.c).
 */
#ifndef SS_SAMPLE_FILTER_H
#define SS_SAMPLE_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "sample/sample_internal.h"
#include "softscope.h"

typedef struct ss_filter_ctx {
  const double *params;   /* the kernel's, registry order */
  double sum;             /* S = 4-lane sum of e */
  const ss_det_ops *ops;  /* the impl's table (a threshold's own passes) */
} ss_filter_ctx;

/* The threshold on e. e[0..n) may be permuted (then set *permuted, and the
   skeleton recomputes e). A threshold <= 0 keeps everything. */
typedef float (*ss_filter_threshold_fn)(float *e, size_t n, const ss_filter_ctx *c,
                                        bool *permuted);
/* Runs the skeleton for kernel k (its `temperature`, `seed`, `draws`
   parameters are read by name; a kernel without `temperature` uses 1).
   thr NULL keeps everything (the `temperature` kernel). Inlined into each entry point (see
   SS_ALWAYS_INLINE in sample_internal.h). */
SS_ALWAYS_INLINE ss_status ss_filter_sample(const ss_kernel_info *k, const ss_det_ops *ops,
                                            const float *x, size_t n, const double *params,
                                            ss_filter_threshold_fn thr,
                                            float *probs, uint32_t *indices) {
  const double t = ss_param_value(k, params, "temperature", 1.0);
  ss_status s;
  double sum = ops->exp(x, n, t, probs, &s);
  if (s != SS_OK) return s;
  const ss_filter_ctx c = {params, sum, ops};
  if (thr) {
    bool permuted = false;
    const float v = thr(probs, n, &c, &permuted);
    if (permuted) sum = ops->exp(x, n, t, probs, &s);
    if (v > 0.0f) sum = ops->mask_below(probs, n, v);
  }
  /* sum >= 1: the maximum has e = 1 and every filter keeps it. */
  ops->scale(probs, n, (float)(1.0 / sum));
  if (indices)
    ss_draw_weights(probs, n, ss_sampler_seed(k, params), SS_STREAM_CATEGORICAL, 0,
                    ss_sampler_draws(k, params), indices);
  return SS_OK;
}

#endif
