/*
 * x-weighted softmax, the shared core of sa_softmax and boltzmann:
 *
 *   p = softmax(beta x),   y_i = x_i p_i            (y_i = 0 where x_i = -Inf)
 *
 * beta may have either sign (the Boltzmann operator with beta < 0 is a soft
 * minimum) or be 0 (p uniform over the unmasked entries, sum y = their mean).
 *
 * Exponentials: for beta > 0 the softmax passes of softmax/softmax.c are
 * reused as they are (ss_exp_store_*, exponent beta (x_i - max) <= 0). For
 * beta < 0, softmax(beta x) = softmax(|beta| (-x)): the row is negated into
 * the output buffer (masked entries stay -Inf, so they stay masked) and the
 * same passes run there, anchored at max(-x) = -min x. A beta whose float
 * rounding is 0 (|beta| < 7e-46) takes the uniform path: there float beta
 * times a -Inf logit would be NaN in the vector exp.
 *
 * Exact zeros (common/flush.h's rule, one for every build): p_i follows
 * softmax's rule (+0 below FLT_MIN) before the product, and the product
 * is flushed too, so y_i = 0 exactly where p_i or x_i p_i is below FLT_MIN.
 * Before, the SIMD exp wrote +0 for p_i < FLT_MIN while the scalar kept the
 * denormal p_i and a normal x_i p_i (boltzmann of [0, -88]: SIMD [0, 0],
 * scalar [0, -5.33e-37]): the support differed between builds.
 *
 * Backward: dy_i/dx_j = delta_ij p_i (1 + beta x_i) - beta x_i p_i p_j, so
 *   dx_j = p_j (g_j (1 + beta x_j) - beta <g, y>).
 * The VJP recomputes p into dx (the caller passes only x, y, g) and uses the
 * given y for <g, y>.
 *
 * Accuracy: p is the library's softmax of beta x (rel err <= 2e-6 at beta = 1,
 * plus ~|beta (x_i - a)| 2^-23 for beta != 1 from the float beta, as for
 * softmax_temperature); the product with x_i adds one rounding in the SIMD
 * path (the scalar multiplies in double). Stated and measured bounds in
 * sa_softmax.c and boltzmann.c (tests/c/test_sa_softmax.c, test_boltzmann.c).
 */
#include "variants/xsoftmax.h"

#include <math.h>

#include "common/check.h"
#include "common/flush.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"

/* ---- scalar reference ------------------------------------------------- */

double ss_xs_exp_store_scalar(const float *x, size_t n, float max, double beta,
                              float *e) {
  const float fb = (float)beta;
  if (fb > 0.0f) return ss_exp_store_scalar(x, n, max, fb, e);
  if (fb == 0.0f) {
    double count = 0.0;
    for (size_t i = 0; i < n; i++) {
      e[i] = x[i] == -INFINITY ? 0.0f : 1.0f;
      count += e[i];
    }
    return count;
  }
  float m = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    e[i] = x[i] == -INFINITY ? -INFINITY : -x[i];
    if (e[i] > m) m = e[i];
  }
  return ss_exp_store_scalar(e, n, m, -fb, e);
}

ss_status ss_xsoftmax_scalar(const float *x, size_t n, double beta, float *y) {
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s != SS_OK) return s;
  const double inv = 1.0 / ss_xs_exp_store_scalar(x, n, max, beta, y);
  for (size_t i = 0; i < n; i++) /* p_i by softmax's exact-zero rule, then x_i p_i by it */
    y[i] = x[i] == -INFINITY ? 0.0f : ss_flush((float)((double)x[i] * ss_flush_tiny((double)y[i] * inv)));
  return SS_OK;
}

ss_status ss_xsoftmax_vjp_scalar(const float *x, const float *y,
                                 const float *g, size_t n, double beta,
                                 float *dx) {
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s != SS_OK) return s;
  double dot = 0.0;
  for (size_t i = 0; i < n; i++) dot += (double)g[i] * (double)y[i];
  const double inv = 1.0 / ss_xs_exp_store_scalar(x, n, max, beta, dx);
  for (size_t j = 0; j < n; j++) {
    if (x[j] == -INFINITY) { /* p_j = 0; 1 + beta x_j would be infinite */
      dx[j] = 0.0f;
      continue;
    }
    /* g_j (1 + beta x_j) - beta <g, y> regrouped as g_j + beta (g_j x_j - <g, y>):
       with |beta x_j| beyond 2^53 the 1 was lost in 1 + beta x_j and the two
       huge terms cancelled to 0 (boltzmann, b = -1000, one unmasked x of
       4.8e36: dx was 0 in scalar and NaN in SIMD, g exactly) */
    const double p = (double)dx[j] * inv;
    dx[j] = (float)(p * ((double)g[j] + beta * ((double)g[j] * (double)x[j] - dot)));
  }
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* e_i = 1 for unmasked entries, 0 for -Inf; returns their count. */
static double uniform_store_simd(const float *x, size_t n, float *e) {
  const v128_t ninf = wasm_f32x4_splat(-INFINITY), one = wasm_f32x4_splat(1.0f);
  v128_t masked = wasm_i32x4_splat(0); /* lanes count the -Inf entries */
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t m = wasm_f32x4_eq(wasm_v128_load(x + i), ninf);
    wasm_v128_store(e + i, wasm_v128_andnot(one, m));
    masked = wasm_i32x4_sub(masked, m); /* a true lane is -1 */
  }
  double count = (double)i - ((double)(uint32_t)wasm_i32x4_extract_lane(masked, 0) +
                               (double)(uint32_t)wasm_i32x4_extract_lane(masked, 1) +
                               (double)(uint32_t)wasm_i32x4_extract_lane(masked, 2) +
                               (double)(uint32_t)wasm_i32x4_extract_lane(masked, 3));
  for (; i < n; i++) {
    e[i] = x[i] == -INFINITY ? 0.0f : 1.0f;
    count += e[i];
  }
  return count;
}

double ss_xs_exp_store_simd(const float *x, size_t n, float max, double beta,
                            float *e) {
  const float fb = (float)beta;
  if (fb > 0.0f) return ss_exp_store_simd(x, n, max, fb, e);
  if (fb == 0.0f) return uniform_store_simd(x, n, e);
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(x + i);
    wasm_v128_store(e + i, wasm_v128_bitselect(ninf, wasm_f32x4_neg(v), wasm_f32x4_eq(v, ninf)));
  }
  for (; i < n; i++) e[i] = x[i] == -INFINITY ? -INFINITY : -x[i];
  return ss_exp_store_simd(e, n, ss_max_simd(e, n), -fb, e);
}

ss_status ss_xsoftmax_simd(const float *x, size_t n, double beta, float *y) {
  const float max = ss_max_simd(x, n);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  /* The sum is >= 1 (the anchor entry contributes exp(0)), so 1/sum is a float. */
  const v128_t vinv = wasm_f32x4_splat((float)(1.0 / ss_xs_exp_store_simd(x, n, max, beta, y)));
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t vx = wasm_v128_load(x + i);
    const v128_t r = wasm_f32x4_mul(vx, ss_flush_f32x4(wasm_f32x4_mul(wasm_v128_load(y + i), vinv)));
    wasm_v128_store(y + i, ss_flush_f32x4(wasm_v128_andnot(r, wasm_f32x4_eq(vx, ninf))));
  }
  if (i < n) {
    const size_t rem = n - i;
    const v128_t vx = ss_load_partial(x + i, rem, 0.0f);
    const v128_t r =
        wasm_f32x4_mul(vx, ss_flush_f32x4(wasm_f32x4_mul(ss_load_partial(y + i, rem, 0.0f), vinv)));
    ss_store_partial(y + i, rem, ss_flush_f32x4(wasm_v128_andnot(r, wasm_f32x4_eq(vx, ninf))));
  }
  return SS_OK;
}

ss_status ss_xsoftmax_vjp_simd(const float *x, const float *y, const float *g,
                               size_t n, double beta, float *dx) {
  const float max = ss_max_simd(x, n);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  /* <g, y> and the bracket g_j + beta (g_j x_j - <g, y>) in f64x2 lanes, as
     the scalar path computes them (see there): float products of logits
     near FLT_MAX with beta or g overflow where the gradient is finite */
  double dot = 0.0;
  for (size_t i = 0; i < n; i++) dot += (double)g[i] * (double)y[i];
  const v128_t vinv = wasm_f32x4_splat((float)(1.0 / ss_xs_exp_store_simd(x, n, max, beta, dx)));
  const v128_t vb = wasm_f64x2_splat(beta), vdot = wasm_f64x2_splat(dot);
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  size_t i = 0;
  for (; i < n; i += 4) {
    const size_t rem = n - i < 4 ? n - i : 4;
    const v128_t vx = rem == 4 ? wasm_v128_load(x + i) : ss_load_partial(x + i, rem, 0.0f);
    const v128_t ve = rem == 4 ? wasm_v128_load(dx + i) : ss_load_partial(dx + i, rem, 0.0f);
    const v128_t vg = rem == 4 ? wasm_v128_load(g + i) : ss_load_partial(g + i, rem, 0.0f);
    const v128_t p = wasm_f32x4_mul(ve, vinv);
    v128_t half[2];
    for (int h = 0; h < 2; h++) {
      const v128_t sx = h ? wasm_i32x4_shuffle(vx, vx, 2, 3, 2, 3) : vx;
      const v128_t sg = h ? wasm_i32x4_shuffle(vg, vg, 2, 3, 2, 3) : vg;
      const v128_t sp = h ? wasm_i32x4_shuffle(p, p, 2, 3, 2, 3) : p;
      const v128_t gd = wasm_f64x2_promote_low_f32x4(sg), xd = wasm_f64x2_promote_low_f32x4(sx);
      const v128_t t = wasm_f64x2_add(gd, wasm_f64x2_mul(vb, wasm_f64x2_sub(wasm_f64x2_mul(gd, xd), vdot)));
      half[h] = wasm_f32x4_demote_f64x2_zero(wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(sp), t));
    }
    v128_t r = wasm_i32x4_shuffle(half[0], half[1], 0, 1, 4, 5);
    r = wasm_v128_andnot(r, wasm_f32x4_eq(vx, ninf)); /* 0 * Inf there */
    if (rem == 4) wasm_v128_store(dx + i, r);
    else ss_store_partial(dx + i, rem, r);
  }
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */
