/* The attention entry points: shape and argument checks shared by every
   attention kernel, scratch sizes, and the row / head measures. */
#include <stdint.h>
#include <string.h>

#include "attention/linear_internal.h"
#include "common/check.h"
#include "measure/measure_internal.h"

/* 0 for what no call accepts: a wrong kernel, parameters out of their
   ranges (a NaN or huge `features` was cast to size_t: undefined
   behaviour), heads not fitting d, shapes past SS_MAX_N / SS_ATTN_MAX_DIM,
   or a size whose bytes overflow size_t. */
size_t ss_attention_scratch_size(const ss_kernel_info *k, const ss_attention_io *io,
                                 const double *params) {
  if (!k || k->family != SS_FAMILY_ATTENTION || !io || !params || !k->attend_scratch) return 0;
  if (ss_params_check(k, params, k->nparams) != SS_OK) return 0;
  if (!io->heads || io->heads > io->d || io->heads > io->dv || io->m > SS_MAX_N ||
      io->d > SS_ATTN_MAX_DIM || io->dv > SS_ATTN_MAX_DIM)
    return 0;
  const uint64_t floats = k->attend_scratch(io, params); /* 64-bit: m F overflows a 32-bit size_t */
  return floats <= SIZE_MAX / sizeof(float) ? (size_t)floats : 0;
}

ss_status ss_attend(const ss_kernel_info *k, ss_impl impl, const ss_attention_io *io,
                    const double *params, size_t nparams) {
  if (!k || !io || !io->q || !io->k || !io->v || !io->out || !io->scratch) return SS_ERR_NULL;
  if (k->family != SS_FAMILY_ATTENTION) return SS_ERR_FAMILY;
  if ((unsigned)impl >= SS_IMPL_COUNT || !ss_impl_available(impl)) return SS_ERR_UNSUPPORTED;
  ss_status s = ss_params_check(k, params, nparams);
  if (s != SS_OK) return s;
  if (!k->attend[impl]) return SS_ERR_UNSUPPORTED;
  const size_t heads = (size_t)params[0];
  if (io->heads != heads) return SS_ERR_LENGTH;
  if (!io->n || !io->m || !io->d || !io->dv) return SS_ERR_EMPTY;
  if (io->d > SS_ATTN_MAX_DIM || io->dv > SS_ATTN_MAX_DIM || io->n > SS_MAX_N / io->m)
    return SS_ERR_TOO_LARGE;
  /* every buffer's float count fits size_t bytes (a 32-bit size_t holds
     n d = 2^38 only as a wrapped value) */
  const uint64_t cap = SIZE_MAX / sizeof(float), n = io->n, m = io->m;
  if (n * io->d > cap || m * io->d > cap || m * io->dv > cap || n * io->dv > cap ||
      (io->attn && (uint64_t)io->heads * n * m > cap))
    return SS_ERR_TOO_LARGE;
  if (io->d % heads || io->dv % heads) return SS_ERR_LENGTH;
  if ((s = ss_check_finite_fast(io->q, io->n * io->d)) != SS_OK ||
      (s = ss_check_finite_fast(io->k, io->m * io->d)) != SS_OK ||
      (s = ss_check_finite_fast(io->v, io->m * io->dv)) != SS_OK)
    return s;
  /* |q|, |k| <= SS_ATTN_QK_MAX: a score's float dot product then cannot
     overflow in any summation order (d q k scale < 2^128), so the scalar
     and SIMD paths (which add in different orders) agree on every status */
  if (!ss_attn_within(io->q, io->n * io->d, SS_ATTN_QK_MAX) || !ss_attn_within(io->k, io->m * io->d, SS_ATTN_QK_MAX))
    return SS_ERR_DOMAIN;
  if (!strcmp(k->name, "sdpa")) {
    const ss_kernel_info *nk = io->normalizer;
    if (!nk) return SS_ERR_NULL;
    if (nk->family != SS_FAMILY_NORMALIZER) return SS_ERR_FAMILY;
    if (nk->output == SS_OUTPUT_LOG_PROBS) return SS_ERR_DOMAIN; /* weights, not log-weights */
    if ((s = ss_params_check(nk, io->norm_params, io->norm_nparams)) != SS_OK) return s;
  }
  /* every query must see a key (a padding mask with none kept, or causal
     queries before the first key) */
  const bool causal = ss_param_value(k, params, "causal", 0) != 0;
  for (size_t i = 0; i < io->n; i++) {
    const size_t lim = ss_attn_limit(io, causal, i);
    size_t j = 0;
    while (j < lim && !ss_attn_key_ok(io, j)) j++;
    if (j == lim) return SS_ERR_ALL_MASKED;
    if (!causal) break; /* the same keys for every query */
  }
  s = k->attend[impl](io, params);
  if (s != SS_OK) return s;
  /* an intermediate that overflowed float (|Q K^T| or feature sums beyond
     FLT_MAX): out or the weights not finite */
  if (ss_check_finite_fast(io->out, io->n * io->dv) != SS_OK ||
      (io->attn && ss_check_finite_fast(io->attn, io->heads * io->n * io->m) != SS_OK))
    return SS_ERR_DOMAIN;
  return SS_OK;
}

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
