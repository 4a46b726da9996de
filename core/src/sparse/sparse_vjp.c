/* The VJP of sparsemax and 1.5-entmax (see sparse/threshold.h): dx = s (g -
   <s, g> / sum s) with the weights s_i = 1{y_i > 0} (sparsemax) or
   sqrt(y_i) (entmax15). Each impl's body is written once for both kernels
   and instantiated per kernel, so the weights are constants of the loops. */
#include <math.h>
#include <stdbool.h>

#include "common/vec_simd.h"
#include "sparse/threshold.h"

/* ---- scalar reference ------------------------------------------------- */

/* sparsemax's s_i is 1 on the support, else 0; entmax15's sqrt(y_i). */
static inline double weight1(bool square, float y) {
  return square ? sqrt((double)y) : y > 0.0f ? 1.0 : 0.0;
}

SS_ALWAYS_INLINE void vjp_scalar(bool square, const float *y, const float *g, size_t n,
                                 float *dx) {
  double ss = 0.0, sg = 0.0;
  for (size_t i = 0; i < n; i++) {
    const double s = weight1(square, y[i]);
    ss += s;
    sg += s * (double)g[i];
  }
  const double c = ss > 0.0 ? sg / ss : 0.0;
  for (size_t i = 0; i < n; i++) {
    const double s = weight1(square, y[i]);
    /* +0 off sparsemax's support (0 (g - c) could be -0) */
    dx[i] = square || s > 0.0 ? (float)(s * ((double)g[i] - c)) : 0.0f;
  }
}

void ss_sparse_vjp_scalar(ss_sparse_kind kind, const float *y, const float *g, size_t n,
                          float *dx) {
  if (kind == SS_SPARSE_ENTMAX15)
    vjp_scalar(true, y, g, n, dx);
  else
    vjp_scalar(false, y, g, n, dx);
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* The weights of four lanes: sparsemax's support mask (lanes all ones where
   y > 0), entmax15's sqrt(y). */
static inline v128_t weight4(bool square, v128_t y) {
  return square ? wasm_f32x4_sqrt(y) : wasm_f32x4_gt(y, wasm_f32x4_splat(0.0f));
}
/* s v: a product, or for the mask its lanes of v (+0 elsewhere). */
static inline v128_t times4(bool square, v128_t s, v128_t v) {
  return square ? wasm_f32x4_mul(s, v) : wasm_v128_and(v, s);
}
/* The running sum of s: float lanes of sqrt(y); for the mask, i32 lanes
   counting the support (a true mask lane is -1). */
static inline v128_t count4(bool square, v128_t a, v128_t s) {
  return square ? wasm_f32x4_add(a, s) : wasm_i32x4_sub(a, s);
}
static inline double count_total(bool square, v128_t a0, v128_t a1) {
  return square ? ss_hsum_f64(wasm_f32x4_add(a0, a1))
                : (double)ss_sparse_count_lanes(wasm_i32x4_add(a0, a1));
}

/* sum s and sum s g in float lanes within SS_SUM_BLOCK blocks, double
   across (the count exactly); then dx = s (g - c). */
SS_ALWAYS_INLINE void vjp_simd(bool square, const float *y, const float *g, size_t n,
                               float *dx) {
  const v128_t zero = wasm_f32x4_splat(0.0f);
  double ss = 0.0, sg = 0.0;
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t a0 = zero, a1 = zero, b0 = zero, b1 = zero;
    for (; i + 8 <= end; i += 8) {
      const v128_t s0 = weight4(square, wasm_v128_load(y + i));
      const v128_t s1 = weight4(square, wasm_v128_load(y + i + 4));
      a0 = count4(square, a0, s0);
      a1 = count4(square, a1, s1);
      b0 = wasm_f32x4_add(b0, times4(square, s0, wasm_v128_load(g + i)));
      b1 = wasm_f32x4_add(b1, times4(square, s1, wasm_v128_load(g + i + 4)));
    }
    if (i + 4 <= end) {
      const v128_t s0 = weight4(square, wasm_v128_load(y + i));
      a0 = count4(square, a0, s0);
      b0 = wasm_f32x4_add(b0, times4(square, s0, wasm_v128_load(g + i)));
      i += 4;
    }
    if (i < end) { /* tail: y padded with 0 gives s = 0 */
      const size_t rem = end - i;
      const v128_t s0 = weight4(square, ss_load_partial(y + i, rem, 0.0f));
      a1 = count4(square, a1, s0);
      b1 = wasm_f32x4_add(b1, times4(square, s0, ss_load_partial(g + i, rem, 0.0f)));
      i = end;
    }
    ss += count_total(square, a0, a1);
    sg += ss_hsum_f64(wasm_f32x4_add(b0, b1));
  }
  const v128_t vc = wasm_f32x4_splat(ss > 0.0 ? (float)(sg / ss) : 0.0f);
  for (i = 0; i + 4 <= n; i += 4) {
    const v128_t s = weight4(square, wasm_v128_load(y + i));
    wasm_v128_store(dx + i, times4(square, s, wasm_f32x4_sub(wasm_v128_load(g + i), vc)));
  }
  if (i < n) {
    const size_t rem = n - i;
    const v128_t s = weight4(square, ss_load_partial(y + i, rem, 0.0f));
    ss_store_partial(dx + i, rem,
                     times4(square, s, wasm_f32x4_sub(ss_load_partial(g + i, rem, 0.0f), vc)));
  }
}

void ss_sparse_vjp_simd(ss_sparse_kind kind, const float *y, const float *g, size_t n,
                        float *dx) {
  if (kind == SS_SPARSE_ENTMAX15)
    vjp_simd(true, y, g, n, dx);
  else
    vjp_simd(false, y, g, n, dx);
}

#endif /* SS_HAVE_SIMD */
