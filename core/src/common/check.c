#include "common/check.h"

ss_status ss_check_logits(const float *x, size_t n, float *max_out) {
  float m = -INFINITY;
  bool pos_inf = false;
  for (size_t i = 0; i < n; i++) {
    const float v = x[i];
    if (isnan(v)) return SS_ERR_NAN;
    if (v == INFINITY) pos_inf = true;
    if (v > m) m = v;
  }
  if (pos_inf) return SS_ERR_POS_INF;
  if (m == -INFINITY) return SS_ERR_ALL_MASKED;
  if (max_out) *max_out = m;
  return SS_OK;
}

ss_status ss_check_finite(const float *x, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (isnan(x[i])) return SS_ERR_NAN;
  }
  for (size_t i = 0; i < n; i++) {
    if (isinf(x[i])) return SS_ERR_NONFINITE;
  }
  return SS_OK;
}

ss_status ss_check_probs(const float *p, size_t n) {
  ss_status s = ss_check_finite(p, n);
  if (s != SS_OK) return s;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < 0.0f) return SS_ERR_DOMAIN;
  }
  return SS_OK;
}
