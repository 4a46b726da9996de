/* Input scans shared by the measures: validation plus min and max in one
   pass. The SIMD scan uses NaN-propagating f32x4.min/max (wasm semantics,
   kept by SIMDe natively), so a NaN anywhere shows up in the result. */
#include <math.h>

#include "common/check.h"
#include "common/vec_simd.h"
#include "measure/measure_internal.h"

ss_status ss_probs_minmax_scalar(const float *p, size_t n, float *min,
                                 float *max) {
  ss_status s = ss_check_probs(p, n);
  if (s != SS_OK) return s;
  float lo = p[0], hi = p[0];
  for (size_t i = 1; i < n; i++) {
    if (p[i] < lo) lo = p[i];
    if (p[i] > hi) hi = p[i];
  }
  *min = lo;
  *max = hi;
  return SS_OK;
}

#if SS_HAVE_SIMD

/* min and max of p[0..n), NaN if any entry is NaN. */
static void minmax_simd(const float *p, size_t n, float *min, float *max) {
  v128_t mx0 = wasm_f32x4_splat(p[0]), mx1 = mx0, mn0 = mx0, mn1 = mx0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t a = wasm_v128_load(p + i), b = wasm_v128_load(p + i + 4);
    mx0 = wasm_f32x4_max(mx0, a);
    mx1 = wasm_f32x4_max(mx1, b);
    mn0 = wasm_f32x4_min(mn0, a);
    mn1 = wasm_f32x4_min(mn1, b);
  }
  for (; i + 4 <= n; i += 4) {
    const v128_t a = wasm_v128_load(p + i);
    mx0 = wasm_f32x4_max(mx0, a);
    mn0 = wasm_f32x4_min(mn0, a);
  }
  if (i < n) { /* pad with p[0]: neutral for both min and max */
    const v128_t a = ss_load_partial(p + i, n - i, p[0]);
    mx1 = wasm_f32x4_max(mx1, a);
    mn1 = wasm_f32x4_min(mn1, a);
  }
  v128_t mx = wasm_f32x4_max(mx0, mx1), mn = wasm_f32x4_min(mn0, mn1);
  mx = wasm_f32x4_max(mx, wasm_i32x4_shuffle(mx, mx, 2, 3, 0, 1));
  mx = wasm_f32x4_max(mx, wasm_i32x4_shuffle(mx, mx, 1, 0, 3, 2));
  mn = wasm_f32x4_min(mn, wasm_i32x4_shuffle(mn, mn, 2, 3, 0, 1));
  mn = wasm_f32x4_min(mn, wasm_i32x4_shuffle(mn, mn, 1, 0, 3, 2));
  *max = wasm_f32x4_extract_lane(mx, 0);
  *min = wasm_f32x4_extract_lane(mn, 0);
}

ss_status ss_finite_scan_simd(const float *p, size_t n) {
  float lo, hi;
  minmax_simd(p, n, &lo, &hi);
  if (isnan(lo) || isnan(hi)) return SS_ERR_NAN;
  if (isinf(lo) || isinf(hi)) return SS_ERR_NONFINITE;
  return SS_OK;
}

ss_status ss_probs_minmax_simd(const float *p, size_t n, float *min,
                               float *max) {
  float lo, hi;
  minmax_simd(p, n, &lo, &hi);
  if (isnan(lo) || isnan(hi)) return SS_ERR_NAN;
  if (isinf(lo) || isinf(hi)) return SS_ERR_NONFINITE;
  if (lo < 0.0f) return SS_ERR_DOMAIN;
  *min = lo;
  *max = hi;
  return SS_OK;
}

#endif
