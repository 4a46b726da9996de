/* The 4-lane double sum (see sum4.h). */
#include "common/sum4.h"

double ss_sum4_scalar(const float *w, size_t n) {
  /* Four named accumulators (an array of four would be kept in a v128 by
     the wasm backend); element i goes to accumulator i % 4. */
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a0 += (double)w[i];
    a1 += (double)w[i + 1];
    a2 += (double)w[i + 2];
    a3 += (double)w[i + 3];
  }
  if (i < n) a0 += (double)w[i++];
  if (i < n) a1 += (double)w[i++];
  if (i < n) a2 += (double)w[i];
  return (a0 + a1) + (a2 + a3);
}

#if SS_HAVE_SIMD
double ss_sum4_simd(const float *w, size_t n) {
  v128_t a01 = wasm_f64x2_splat(0.0), a23 = a01;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) ss_sum4_acc(wasm_v128_load(w + i), &a01, &a23);
  return ss_sum4_fold(a01, a23, w, i, n);
}
#endif
