/* Measures of attention (ss_attention_measures, ss_attention_head_measures):
   per-row and per-head numbers of the weights and outputs of an attention
   call, built from this folder's moments and median (kurtosis.c,
   max_median_ratio.c). */
#include <math.h>

#include "common/check.h"
#include "measure/measure_internal.h"

ss_status ss_attention_measures(const float *attn, size_t heads, size_t n, size_t m, float *rows,
                                double *dist) {
  if (!attn || !rows) return SS_ERR_NULL;
  if (!heads || !n || !m) return SS_ERR_EMPTY;
  if (n > SS_MAX_N / m || heads > SS_MAX_N / (n * m)) return SS_ERR_TOO_LARGE;
  for (size_t t = 0; t < heads * n * m; t++)
    if (!isfinite(attn[t])) return isnan(attn[t]) ? SS_ERR_NAN : SS_ERR_NONFINITE;
  for (size_t h = 0; h < heads; h++)
    for (size_t i = 0; i < n; i++) {
      const float *a = attn + (h * n + i) * m;
      double sum = 0, mx = -INFINITY, zeros = 0, ent = 0;
      for (size_t j = 0; j < m; j++) {
        sum += fabs((double)a[j]);
        if (a[j] > mx) mx = a[j];
        zeros += a[j] == 0.0f;
      }
      for (size_t j = 0; j < m; j++) {
        const double q = sum > 0 ? fabs((double)a[j]) / sum : 0;
        if (q > 0) ent -= q * log(q);
      }
      float *out = rows + 4 * (h * n + i);
      out[0] = (float)ent, out[1] = (float)(zeros / (double)m), out[2] = (float)mx;
      out[3] = (float)(sum > 0 ? a[0] / sum : 0);
    }
  if (dist)
    for (size_t a = 0; a < heads; a++)
      for (size_t b = 0; b < heads; b++) {
        double tot = 0;
        for (size_t i = 0; i < n; i++) {
          const float *pa = attn + (a * n + i) * m, *pb = attn + (b * n + i) * m;
          double tv = 0;
          for (size_t j = 0; j < m; j++) tv += fabs((double)pa[j] - pb[j]);
          tot += 0.5 * tv;
        }
        dist[a * heads + b] = tot / (double)n;
      }
  return SS_OK;
}

ss_status ss_attention_head_measures(const float *out, const float *attn, size_t heads, size_t n,
                                     size_t m, size_t dv, double sink_eps, double *head) {
  if (!out || !head) return SS_ERR_NULL;
  if (!heads || !n || !m || !dv) return SS_ERR_EMPTY;
  if (n > SS_MAX_N / m || n > SS_MAX_N / dv || heads > SS_MAX_N / (n * m)) return SS_ERR_TOO_LARGE;
  if (dv % heads) return SS_ERR_LENGTH;
  if (!(sink_eps >= 0.0 && sink_eps <= 1.0)) return SS_ERR_PARAM_RANGE;
  ss_status s = ss_check_finite(out, n * dv);
  if (s != SS_OK || (attn && (s = ss_check_finite(attn, heads * n * m)) != SS_OK)) return s;
  const size_t dvh = dv / heads;
  for (size_t h = 0; h < heads; h++) {
    double *r = head + 4 * h;
    ss_moments mo;
    ss_moments_scalar(out + h * dvh, n, dvh, dv, &mo);
    r[0] = mo.m2 > 0.0 ? mo.m4 / (mo.m2 * mo.m2) : 0.0;
    float mx;
    const double med = ss_abs_median_scalar(out + h * dvh, n, dvh, dv, &mx);
    r[1] = med > 0.0 ? (double)mx / med : 0.0;
    double a0 = 0.0;
    if (attn)
      for (size_t i = 0; i < n; i++) a0 += attn[(h * n + i) * m];
    r[2] = a0 / (double)n;
    r[3] = r[2] > sink_eps;
  }
  return SS_OK;
}
