/* The decoding-filter skeleton (see filter.h). */
#include "sample/filter.h"

#include "sample/sample_internal.h"

ss_status ss_filter_sample(const ss_kernel_info *k, ss_impl impl, const float *x,
                           size_t n, const double *params, ss_filter_threshold_fn thr,
                           ss_filter_keep_fn keep, float *probs, uint32_t *indices) {
  const float t = (float)ss_param_value(k, params, "temperature", 1.0);
  ss_status s;
  double sum = ss_det_exp(impl, x, n, t, probs, &s);
  if (s != SS_OK) return s;
  const ss_filter_ctx c = {impl, params, sum};
  if (thr) {
    bool permuted = false;
    const float v = thr(probs, n, &c, &permuted);
    if (permuted) sum = ss_det_exp(impl, x, n, t, probs, &s);
    if (v > 0.0f) sum = ss_det_mask_below(impl, probs, n, v);
  } else if (keep) {
    s = keep(probs, n, &c);
    if (s != SS_OK) return s;
    sum = ss_sum4_scalar(probs, n);
  }
  /* sum >= 1: the maximum has e = 1 and every filter keeps it. */
  ss_det_scale(impl, probs, n, (float)(1.0 / sum));
  if (indices)
    ss_draw_weights(probs, n, ss_sampler_seed(k, params), SS_STREAM_CATEGORICAL, 0,
                    ss_sampler_draws(k, params), indices);
  return SS_OK;
}
