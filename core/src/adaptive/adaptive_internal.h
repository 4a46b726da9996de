/* Pieces shared by the length-aware normalizers of this folder. */
#ifndef SS_ADAPTIVE_INTERNAL_H
#define SS_ADAPTIVE_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "common/flush.h"
#include "common/simd.h"
#include "common/unmasked.h"
#include "common/vec_simd.h"

/* The length n of a length-aware normalizer counts the unmasked entries
   (x_i > -Inf; ss_count_unmasked_* of common/unmasked.h): a row padded with
   -Inf gets the scale of the row without the padding (the -Inf padding
   property), and in causal attention this is the number of keys the query
   really sees. */

/* The maximum of a row the backward takes as given (x is not validated
   there): the scalar scan skips NaN, the SIMD one (ss_max_simd) returns it. */
static inline float ss_row_max_scalar(const float *x, size_t n) {
  float m = -INFINITY;
  for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  return m;
}

/* The output when every unmasked entry gets the same weight: 1/nu there, 0
   on masked entries. A length-aware scale is 0 at nu = 1 (log 1), and the
   generic exp pass would compute 0 * -Inf = NaN on the masked entries. */
static inline void ss_uniform_unmasked(const float *x, size_t n, size_t nu, float *y) {
  const float v = (float)(1.0 / (double)nu);
  for (size_t i = 0; i < n; i++) y[i] = x[i] == -INFINITY ? 0.0f : v;
}

/* y = softmax(beta x) for a scale beta below FLT_MIN, where the float scale
   of the exp passes would be 0 or subnormal (s = 1e-50 in ssmax): in double,
   one code for both impls. |beta (x_i - max)| <= FLT_MIN 2 FLT_MAX < 8 here,
   so every e_i >= e^-8 is a normal float and the sum cannot underflow. */
static inline void ss_softmax_tiny_beta(const float *x, size_t n, float max, double beta,
                                        float *y) {
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    y[i] = x[i] == -INFINITY ? 0.0f : (float)exp(beta * ((double)x[i] - (double)max));
    sum += y[i];
  }
  ss_scale_flush_scalar(y, n, 1.0 / sum);
}

/* sum_i a_i (x_i - m) over the unmasked entries (a masked a_i is 0, and
   0 * -Inf would be NaN), in double. */
static inline double ss_shifted_dot(const float *a, const float *x, float m, size_t n) {
  double t = 0.0;
  for (size_t i = 0; i < n; i++)
    if (x[i] != -INFINITY) t += (double)a[i] * ((double)x[i] - m);
  return t;
}

/* The sums of a softmax-family gradient with respect to a scale:
   out[0] = sum g_i y_i (x_i - m), out[1] = sum y_i (x_i - m),
   out[2] = sum g_i y_i, over the unmasked entries. ss_shifted_moments_add
   adds the terms of entries [i, n) to out in index order: the scalar form
   from 0, and the SIMD form's tail. */
static inline void ss_shifted_moments_add(const float *x, const float *y, const float *g,
                                          size_t i, size_t n, float m, double out[3]) {
  for (; i < n; i++) {
    if (x[i] == -INFINITY) continue;
    const double yi = y[i], d = (double)x[i] - m;
    out[0] += (double)g[i] * yi * d;
    out[1] += yi * d;
    out[2] += (double)g[i] * yi;
  }
}
static inline void ss_shifted_moments_scalar(const float *x, const float *y, const float *g,
                                             size_t n, float m, double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  ss_shifted_moments_add(x, y, g, 0, n, m, out);
}

#if SS_HAVE_SIMD
static inline float ss_row_max_simd(const float *x, size_t n) { return ss_max_simd(x, n); }

/* SIMD form of ss_shifted_moments_scalar, in f64x2 lanes as the scalar form
   computes it: float lanes overflowed on g y (x - m) for logits and
   gradients near FLT_MAX, SS_ERR_DOMAIN from SIMD where scalar was finite
   (ssmax, s = 2^-1074, x = {0, .., 2^127}). Masked lanes add 0. */
static inline void ss_shifted_moments_simd(const float *x, const float *y, const float *g,
                                           size_t n, float m, double out[3]) {
  const v128_t vm = wasm_f64x2_splat(m), ninf = wasm_f32x4_splat(-INFINITY);
  v128_t va = wasm_f64x2_splat(0.0), vb = va, vg = va;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t xv = wasm_v128_load(x + i), yv = wasm_v128_load(y + i), gv = wasm_v128_load(g + i);
    const v128_t keep = wasm_f32x4_ne(xv, ninf);
    const v128_t xk = wasm_v128_and(xv, keep), yk = wasm_v128_and(yv, keep);
    for (int h = 0; h < 2; h++) {
      const v128_t xs = h ? wasm_i32x4_shuffle(xk, xk, 2, 3, 2, 3) : xk;
      const v128_t ys = h ? wasm_i32x4_shuffle(yk, yk, 2, 3, 2, 3) : yk;
      const v128_t gs = h ? wasm_i32x4_shuffle(gv, gv, 2, 3, 2, 3) : gv;
      /* masked lanes: x and y taken as 0, so d = -m is finite and y d = 0 */
      const v128_t d = wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(xs), vm);
      const v128_t yd = wasm_f64x2_promote_low_f32x4(ys);
      const v128_t gyd = wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(gs), yd);
      va = wasm_f64x2_add(va, wasm_f64x2_mul(gyd, d));
      vb = wasm_f64x2_add(vb, wasm_f64x2_mul(yd, d));
      vg = wasm_f64x2_add(vg, gyd);
    }
  }
  out[0] = wasm_f64x2_extract_lane(va, 0) + wasm_f64x2_extract_lane(va, 1);
  out[1] = wasm_f64x2_extract_lane(vb, 0) + wasm_f64x2_extract_lane(vb, 1);
  out[2] = wasm_f64x2_extract_lane(vg, 0) + wasm_f64x2_extract_lane(vg, 1);
  ss_shifted_moments_add(x, y, g, i, n, m, out);
}
#endif

#endif
