#include <float.h>
#include "common/check.h"
#include "common/simd.h"

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

/* The same answer; in SIMD builds the all-finite case is one SIMD pass
   (|x| <= FLT_MAX is false for NaN and +-Inf), the status of a bad input
   then comes from the scalar scan above. */
ss_status ss_check_finite_fast(const float *x, size_t n) {
#if SS_HAVE_SIMD
  const v128_t mx = wasm_f32x4_splat(FLT_MAX), sign = wasm_f32x4_splat(-0.0f);
  v128_t ok = wasm_i32x4_splat(-1);
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    ok = wasm_v128_and(ok, wasm_f32x4_le(wasm_v128_andnot(wasm_v128_load(x + i), sign), mx));
  bool good = wasm_i32x4_all_true(ok);
  for (; i < n && good; i++) good = fabsf(x[i]) <= FLT_MAX;
  if (good) return SS_OK;
#endif
  return ss_check_finite(x, n);
}

ss_status ss_check_probs(const float *p, size_t n) {
  ss_status s = ss_check_finite(p, n);
  if (s != SS_OK) return s;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < 0.0f) return SS_ERR_DOMAIN;
  }
  return SS_OK;
}
