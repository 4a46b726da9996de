/*
 * sa_softmax — Self-Adjust Softmax (Zheng et al. 2025): the softmax output
 * reweighted by the logit itself, so the gradient of a dominant entry does
 * not vanish as its probability approaches 1:
 *
 *   plain:       y_i = x_i softmax(x)_i
 *   normalized:  y_i = w_i softmax(x)_i,  w_i = (x_i - lo) / (hi - lo),
 *                lo = min(min x, 0),  hi = max(max x, 0)       (w_i in [0, 1])
 *
 * Output kind WEIGHTS: neither form sums to 1, and the plain form is
 * negative where x_i < 0.
 *
 * Definitions where the formula is silent:
 *   - a -Inf logit (a masked entry) gets y_i = 0: 0 * (-Inf) is taken as 0,
 *     the limit of x e^x; min x in lo is over the finite entries, so padding
 *     a row with -Inf changes no other output.
 *   - normalized form with hi = lo, i.e. every finite x_i is 0: w_i = 0/0,
 *     taken as 0 (every entry sits at the bottom of the range lo = 0, and
 *     it is what the eps-guarded quotient gives), so y = 0 and dx = 0.
 *
 * Backward, plain (the x-weighted softmax of xsoftmax.c at beta = 1):
 *   dx_j = p_j (g_j (1 + x_j) - <g, y>).
 * Normalized, with p = softmax(x), R = hi - lo, A = <g, p>, B = <g, y>:
 *   dx_j = p_j (g_j (w_j + 1/R) - B)
 *          + [j = argmin, min x < 0] (B - A) / R - [j = argmax, max x > 0] B / R
 * (lo and hi move with the smallest / largest entry; at a tie the first
 * index takes the whole subgradient, at min x = 0 or max x = 0 lo or hi is
 * the constant 0).
 *
 * Implementation: the softmax passes of softmax/softmax.c (p written to y
 * or, in the VJP, to dx as scratch), then one pass for the weights. The
 * weights of the normalized form are computed in double in both impls
 * (f64x2 in the SIMD one): x_i - lo overflows float for logits near
 * +-FLT_MAX.
 * Accuracy (tests/c/test_sa_softmax.c): |y_i - y64_i| <= 1e-6 |y64_i| for
 * |y64_i| >= 1e-30, measured 1.9e-7 (scalar) and 3.4e-7 (SIMD) over logits
 * up to +-3e37; SIMD vs scalar <= 16 ulp, measured 7.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "common/check.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"
#include "variants/xsoftmax.h"

static const ss_param_info sa_params[] = {{
    .name = "normalized",
    .type = SS_PARAM_BOOL,
    .min = 0.0,
    .max = 1.0,
    .def = 0.0,
    .ui_min = 0.0,
    .ui_max = 1.0,
    .help = "0: y = x softmax(x); 1: y = (x - lo)/(hi - lo) softmax(x), "
            "lo = min(min x, 0), hi = max(max x, 0)",
}};

/* Range of the normalized form: lo = min(min of the finite x, 0), hi =
   max(max, 0); the first indices of the extremes that move lo / hi (or
   SIZE_MAX when lo = 0 / hi = 0 are constants). */
typedef struct sa_range {
  double lo, hi;
  size_t jmin, jmax;
} sa_range;

static sa_range range_of(const float *x, size_t n, float max) {
  float mn = INFINITY;
  size_t jmin = SIZE_MAX, jmax = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    if (x[i] != -INFINITY && x[i] < mn) {
      mn = x[i];
      jmin = i;
    }
    if (jmax == SIZE_MAX && x[i] == max) jmax = i;
  }
  sa_range r = {mn < 0.0f ? mn : 0.0, max > 0.0f ? max : 0.0, jmin, jmax};
  if (!(mn < 0.0f)) r.jmin = SIZE_MAX;
  if (!(max > 0.0f)) r.jmax = SIZE_MAX;
  return r;
}

/* ---- scalar reference ------------------------------------------------- */

static ss_status sa_norm_scalar(const float *x, size_t n, float *y) {
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s != SS_OK) return s;
  const sa_range r = range_of(x, n, max);
  const double range = r.hi - r.lo;
  if (range == 0.0) { /* every finite x_i is 0: w = 0 (see the header) */
    for (size_t i = 0; i < n; i++) y[i] = 0.0f;
    return SS_OK;
  }
  const double inv = 1.0 / ss_exp_store_scalar(x, n, max, 1.0f, y);
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) {
      y[i] = 0.0f;
      continue;
    }
    const double w = ((double)x[i] - r.lo) / range;
    y[i] = ss_flush((float)(w * ((double)y[i] * inv)));
  }
  return SS_OK;
}

static ss_status sa_scalar(const float *x, size_t n, const double *params,
                           float *y) {
  return params[0] != 0.0 ? sa_norm_scalar(x, n, y) : ss_xsoftmax_scalar(x, n, 1.0, y);
}

static ss_status sa_norm_vjp_scalar(const float *x, const float *y,
                                    const float *g, size_t n, float *dx) {
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s != SS_OK) return s;
  const sa_range r = range_of(x, n, max);
  const double range = r.hi - r.lo;
  if (range == 0.0) {
    for (size_t i = 0; i < n; i++) dx[i] = 0.0f;
    return SS_OK;
  }
  const double inv = 1.0 / ss_exp_store_scalar(x, n, max, 1.0f, dx); /* dx = e */
  double a = 0.0, b = 0.0;
  for (size_t i = 0; i < n; i++) {
    a += (double)g[i] * ((double)dx[i] * inv);
    b += (double)g[i] * (double)y[i];
  }
  for (size_t j = 0; j < n; j++) {
    double d = 0.0;
    if (x[j] != -INFINITY) {
      const double p = (double)dx[j] * inv, w = ((double)x[j] - r.lo) / range;
      d = p * ((double)g[j] * (w + 1.0 / range) - b);
    }
    if (j == r.jmin) d += (b - a) / range;
    if (j == r.jmax) d -= b / range;
    dx[j] = (float)d;
  }
  return SS_OK;
}

static ss_status sa_vjp_scalar(const float *x, const float *y, const float *g,
                               size_t n, const double *params, float *dx) {
  return params[0] != 0.0 ? sa_norm_vjp_scalar(x, y, g, n, dx)
                          : ss_xsoftmax_vjp_scalar(x, y, g, n, 1.0, dx);
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* w = (x - lo) / range for four logits, in double, rounded to float. */
static inline v128_t weight4(v128_t vx, v128_t vlo, v128_t vrange) {
  const v128_t a = wasm_f64x2_div(wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(vx), vlo), vrange);
  const v128_t hi = wasm_i32x4_shuffle(vx, vx, 2, 3, 0, 1);
  const v128_t b = wasm_f64x2_div(wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(hi), vlo), vrange);
  return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(a), wasm_f32x4_demote_f64x2_zero(b), 0,
                            1, 4, 5);
}

static inline v128_t load_n(const float *p, size_t rem) {
  return rem == 4 ? wasm_v128_load(p) : ss_load_partial(p, rem, 0.0f);
}
static inline void store_n(float *p, size_t rem, v128_t v) {
  if (rem == 4) wasm_v128_store(p, v);
  else ss_store_partial(p, rem, v);
}

/* Smallest finite entry of a validated row (one exists: its max is finite). */
static float min_finite_simd(const float *x, size_t n) {
  const v128_t ninf = wasm_f32x4_splat(-INFINITY), pinf = wasm_f32x4_splat(INFINITY);
  v128_t m0 = pinf, m1 = pinf;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t a = wasm_v128_load(x + i), b = wasm_v128_load(x + i + 4);
    m0 = wasm_f32x4_pmin(m0, wasm_v128_bitselect(pinf, a, wasm_f32x4_eq(a, ninf)));
    m1 = wasm_f32x4_pmin(m1, wasm_v128_bitselect(pinf, b, wasm_f32x4_eq(b, ninf)));
  }
  for (; i < n; i += 4) {
    const v128_t a = ss_load_partial(x + i, n - i < 4 ? n - i : 4, INFINITY);
    m0 = wasm_f32x4_pmin(m0, wasm_v128_bitselect(pinf, a, wasm_f32x4_eq(a, ninf)));
  }
  m0 = wasm_f32x4_pmin(m0, m1);
  m0 = wasm_f32x4_pmin(m0, wasm_i32x4_shuffle(m0, m0, 2, 3, 0, 1));
  m0 = wasm_f32x4_pmin(m0, wasm_i32x4_shuffle(m0, m0, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(m0, 0);
}

static ss_status sa_norm_simd(const float *x, size_t n, float *y) {
  const float max = ss_max_simd(x, n);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  const float mn = min_finite_simd(x, n);
  const sa_range r = {mn < 0.0f ? mn : 0.0, max > 0.0f ? max : 0.0, SIZE_MAX, SIZE_MAX};
  const double range = r.hi - r.lo;
  if (range == 0.0) {
    for (size_t i = 0; i < n; i++) y[i] = 0.0f;
    return SS_OK;
  }
  const v128_t vinv = wasm_f32x4_splat((float)(1.0 / ss_exp_store_simd(x, n, max, 1.0f, y)));
  const v128_t vlo = wasm_f64x2_splat(r.lo), vr = wasm_f64x2_splat(range);
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  for (size_t i = 0; i < n; i += 4) {
    const size_t rem = n - i < 4 ? n - i : 4;
    const v128_t vx = load_n(x + i, rem);
    const v128_t p = wasm_f32x4_mul(load_n(y + i, rem), vinv);
    const v128_t v = wasm_f32x4_mul(weight4(vx, vlo, vr), p);
    store_n(y + i, rem, ss_flush_f32x4(wasm_v128_andnot(v, wasm_f32x4_eq(vx, ninf))));
  }
  return SS_OK;
}

static ss_status sa_simd(const float *x, size_t n, const double *params,
                         float *y) {
  return params[0] != 0.0 ? sa_norm_simd(x, n, y) : ss_xsoftmax_simd(x, n, 1.0, y);
}

static ss_status sa_norm_vjp_simd(const float *x, const float *y,
                                  const float *g, size_t n, float *dx) {
  const float max = ss_max_simd(x, n);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  const sa_range r = range_of(x, n, max);
  const double range = r.hi - r.lo;
  if (range == 0.0) {
    for (size_t i = 0; i < n; i++) dx[i] = 0.0f;
    return SS_OK;
  }
  /* The float lanes below form 1 / R, g (w + 1 / R) and b = <g, y> (|b| <=
     max|g|): with 1 / R or max|g| (1 + 1 / R) beyond 2^64 (subnormal
     logits, or a tiny range with large g) they overflow float where the
     exact gradient may not: the scalar VJP's double arithmetic
     gives the gradient (or its overflow). */
  double gmax = 0.0;
  for (size_t i = 0; i < n; i++) gmax = fmax(gmax, fabs((double)g[i]));
  if (!(1.0 / range <= 0x1p64 && gmax * (1.0 + 1.0 / range) <= 0x1p64))
    return sa_norm_vjp_scalar(x, y, g, n, dx);
  const double sum = ss_exp_store_simd(x, n, max, 1.0f, dx);
  ss_scale_simd(dx, n, (float)(1.0 / sum), dx); /* dx = p */
  const double a = ss_dot_simd(g, dx, n), b = ss_dot_simd(g, y, n);
  const v128_t vlo = wasm_f64x2_splat(r.lo), vr = wasm_f64x2_splat(range);
  const v128_t vir = wasm_f32x4_splat((float)(1.0 / range)), vb = wasm_f32x4_splat((float)b);
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  for (size_t i = 0; i < n; i += 4) {
    const size_t rem = n - i < 4 ? n - i : 4;
    const v128_t vx = load_n(x + i, rem), vg = load_n(g + i, rem);
    const v128_t t = wasm_f32x4_sub(
        wasm_f32x4_mul(vg, wasm_f32x4_add(weight4(vx, vlo, vr), vir)), vb);
    const v128_t v = wasm_f32x4_mul(load_n(dx + i, rem), t);
    store_n(dx + i, rem, wasm_v128_andnot(v, wasm_f32x4_eq(vx, ninf)));
  }
  if (r.jmin != SIZE_MAX) dx[r.jmin] = (float)((double)dx[r.jmin] + (b - a) / range);
  if (r.jmax != SIZE_MAX) dx[r.jmax] = (float)((double)dx[r.jmax] - b / range);
  return SS_OK;
}

static ss_status sa_vjp_simd(const float *x, const float *y, const float *g,
                             size_t n, const double *params, float *dx) {
  return params[0] != 0.0 ? sa_norm_vjp_simd(x, y, g, n, dx)
                          : ss_xsoftmax_vjp_simd(x, y, g, n, 1.0, dx);
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_sa_softmax = {
    .name = "sa_softmax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Self-Adjust Softmax: softmax reweighted by the logit "
               "(x softmax(x), or its range-normalized form); need not sum "
               "to 1, the plain form is negative for x < 0",
    .formula = "y_i = x_i softmax(x)_i; normalized: y_i = (x_i - lo) / (hi - lo) "
               "softmax(x)_i, lo = min(min x, 0), hi = max(max x, 0); -Inf -> 0",
    .paper = "Zheng, Gao, Chen, Shi, Xiong, Ren, Huang, Jiang, Li & Li 2025, "
             "'Self-Adjust Softmax' (arXiv:2502.18277)",
    .nparams = 1,
    .params = sa_params,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_WEIGHTS,
    .has_backward = true,
    .normalize = SS_IMPLS(sa),
    .normalize_vjp = SS_IMPLS(sa_vjp),
    .relaxed_simd = SS_RELAXED_EXP_STORE,
};

ss_status ss_sa_softmax(const float *x, size_t n, bool normalized, float *y) {
  const double params[1] = {normalized ? 1.0 : 0.0};
  return ss_normalize(&ss_kernel_sa_softmax, ss_impl_default(), x, n, params, 1, y);
}
