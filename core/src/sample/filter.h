/*
 * The skeleton every decoding filter shares (filter.c):
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
 * not monotone in e, gives its own keep predicate instead.
 */
#ifndef SS_SAMPLE_FILTER_H
#define SS_SAMPLE_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "softscope.h"

typedef struct ss_filter_ctx {
  ss_impl impl;
  const double *params; /* the kernel's, registry order */
  double sum;           /* S = 4-lane sum of e */
} ss_filter_ctx;

/* The threshold on e. e[0..n) may be permuted (then set *permuted, and the
   skeleton recomputes e). A threshold <= 0 keeps everything. */
typedef float (*ss_filter_threshold_fn)(float *e, size_t n, const ss_filter_ctx *c,
                                        bool *permuted);
/* Or a keep predicate applied in place (zero the dropped e_i); e is not
   permuted. Returns SS_OK or a status. */
typedef ss_status (*ss_filter_keep_fn)(float *e, size_t n, const ss_filter_ctx *c);

/* Runs the skeleton for kernel k (its `temperature`, `seed`, `draws`
   parameters are read by name; a kernel without `temperature` uses 1).
   Exactly one of thr / keep is non-NULL, or both NULL (keep everything:
   the `temperature` and `categorical` kernels). */
ss_status ss_filter_sample(const ss_kernel_info *k, ss_impl impl, const float *x,
                           size_t n, const double *params, ss_filter_threshold_fn thr,
                           ss_filter_keep_fn keep, float *probs, uint32_t *indices);

#endif
