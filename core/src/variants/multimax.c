/*
 * multimax — MultiMax (Zhou, Fritz & Keuper, ICML 2024): softmax of the
 * logits passed through a piecewise modulator ("Segmented ReLU"), which can
 * flatten the low range (sparser outputs) while leaving the top range, and
 * with it several similar peaks, intact (multi-modality):
 *
 *   z_i = x_i + t0 relu(r0 - x_i) + t1 relu(x_i - r1)
 *             + t2 relu(r2 - x_i)^2 + t3 relu(x_i - r3)^2
 *   y   = softmax(z)
 *
 * Checked against the authors' code (github.com/ZhouYuxuanYX/MultiMax,
 * vision_transformer.py, SeLU(x, ranges, ts)): exactly these four terms, the
 * two linear ones first, the squares outside the relu, all added to x; the
 * parameters are learned per layer and start near 0 (trunc_normal std 0.02).
 * Here they are params t0..t3, r0..r3 (registry order t0, t1, t2, t3, r0,
 * r1, r2, r3); the defaults t = 0, r = 0 make the modulator the identity,
 * and at t = 0 the output is bitwise softmax's (z = x exactly, then
 * softmax's own passes). z is a function of each x_i alone, so equal logits
 * keep equal outputs (two equal peaks stay equal).
 *
 * Backward: dx_i = phi'(x_i) * [y_i (g_i - <g, y>)], the softmax VJP in z
 * times the modulator's slope
 *   phi'(x) = 1 - t0 [x < r0] + t1 [x > r1] - 2 t2 relu(r2 - x) + 2 t3 relu(x - r3)
 * (at a kink x = r the one-sided slope of relu at 0 is taken as 0).
 * Parameter gradient, v_i = y_i (g_i - <g, y>):
 *   dt0 = sum v relu(r0 - x), dt1 = sum v relu(x - r1), dt2 = sum v relu(r2 - x)^2,
 *   dt3 = sum v relu(x - r3)^2, dr0 = t0 sum v [x < r0], dr1 = -t1 sum v [x > r1],
 *   dr2 = 2 t2 sum v relu(r2 - x), dr3 = -2 t3 sum v relu(x - r3).
 *
 * Masked (-Inf) logits stay -Inf (the modulator is not applied to them): y = 0
 * and the rest is the MultiMax of the unmasked entries. A finite logit whose
 * z is not a finite float (|t| x^2 beyond FLT_MAX, e.g. t3 = 1 and
 * x = 1e20) is SS_ERR_DOMAIN: softmax of an infinite logit is undefined.
 *
 * Implementation: z in double (f64x2 lanes in the SIMD path, the same
 * operations in the same order, so both impls round z identically), first
 * in a pass that only finds max z and checks it (nothing is written on an
 * error), then written to y, then softmax's exp-and-sum pass
 * (ss_exp_store_*) in place on y and its scaling. Accuracy: softmax's
 * (rel err <= 2e-6 vs float64 softmax of the float z); vs the exact z the
 * stated bound is 2e-6 + 3 2^-24 max|z| (rounding z to float), measured
 * 2.2e-6 at max|z| ~ 36, 0.4e-6 at max|z| ~ 6. SIMD vs scalar <= 16 ulp,
 * measured 9 (tests/c/test_multimax.c).
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "common/check.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"

#define T_PARAM(nm, hlp)                                                      \
  {.name = nm, .type = SS_PARAM_FLOAT, .min = -1e3, .max = 1e3, .def = 0.0,   \
   .ui_min = -2.0, .ui_max = 2.0, .help = hlp}
#define R_PARAM(nm, hlp)                                                      \
  {.name = nm, .type = SS_PARAM_FLOAT, .min = -1e4, .max = 1e4, .def = 0.0,   \
   .ui_min = -5.0, .ui_max = 5.0, .help = hlp}

static const ss_param_info multimax_params[] = {
    T_PARAM("t0", "slope change below r0: + t0 relu(r0 - x)"),
    T_PARAM("t1", "slope change above r1: + t1 relu(x - r1)"),
    T_PARAM("t2", "quadratic term below r2: + t2 relu(r2 - x)^2"),
    T_PARAM("t3", "quadratic term above r3: + t3 relu(x - r3)^2"),
    R_PARAM("r0", "threshold of the t0 term"),
    R_PARAM("r1", "threshold of the t1 term"),
    R_PARAM("r2", "threshold of the t2 term"),
    R_PARAM("r3", "threshold of the t3 term"),
};

static inline double relu(double v) { return v > 0.0 ? v : 0.0; }

/* z = phi(x) in double; the SIMD lanes do the same operations in this order. */
static inline double modulate(double x, const double *p) {
  const double a = relu(p[4] - x), b = relu(x - p[5]);
  const double c = relu(p[6] - x), d = relu(x - p[7]);
  return (((x + p[0] * a) + p[1] * b) + p[2] * (c * c)) + p[3] * (d * d);
}

static inline double slope(double x, const double *p) {
  return 1.0 - (x < p[4] ? p[0] : 0.0) + (x > p[5] ? p[1] : 0.0) -
         2.0 * p[2] * relu(p[6] - x) + 2.0 * p[3] * relu(x - p[7]);
}

/* ---- scalar reference ------------------------------------------------- */

static ss_status multimax_scalar(const float *x, size_t n,
                                 const double *params, float *y) {
  ss_status s = ss_check_logits(x, n, NULL);
  if (s != SS_OK) return s;
  float zmax = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) continue;
    const float z = (float)modulate(x[i], params);
    if (!isfinite(z)) return SS_ERR_DOMAIN;
    if (z > zmax) zmax = z;
  }
  for (size_t i = 0; i < n; i++)
    y[i] = x[i] == -INFINITY ? -INFINITY : (float)modulate(x[i], params);
  const double inv = 1.0 / ss_exp_store_scalar(y, n, zmax, 1.0f, y);
  ss_scale_flush_scalar(y, n, inv);
  return SS_OK;
}

static ss_status multimax_vjp_scalar(const float *x, const float *y,
                                     const float *g, size_t n,
                                     const double *params, float *dx) {
  ss_status s = ss_check_logits(x, n, NULL);
  if (s != SS_OK) return s;
  ss_softmax_vjp_core_scalar(y, g, n, 1.0f, dx);
  for (size_t i = 0; i < n; i++)
    dx[i] = x[i] == -INFINITY ? 0.0f : (float)((double)dx[i] * slope(x[i], params));
  return SS_OK;
}

/* Each parameter sum is sum_i v_i f(x_i) with sum_i v_i = 0 (v is the
   softmax VJP in z), so f may be shifted by its value at the row maximum:
   sum_i v_i (f(x_i) - f(x_max)). In float y, sum v is only ~1e-7 of
   sum |v|, and far thresholds (r = 1e4: f ~ 1e4 everywhere) would turn that
   into the whole result; the shifted terms are bounded by the row's spread. */
typedef struct mm_ref {
  double a, b, c, d, lt, gt;
} mm_ref;

static mm_ref mm_ref_at(float xm, const double *p) {
  const double x = xm;
  return (mm_ref){relu(p[4] - x), relu(x - p[5]), relu(p[6] - x), relu(x - p[7]),
                  x < p[4] ? 1.0 : 0.0, x > p[5] ? 1.0 : 0.0};
}

static ss_status multimax_param_vjp_scalar(const float *x, const float *y,
                                           const float *g, size_t n,
                                           const double *p, double *dp) {
  float xm;
  ss_status s = ss_check_logits(x, n, &xm);
  if (s != SS_OK) return s;
  double dot = 0.0;
  for (size_t i = 0; i < n; i++) dot += (double)g[i] * (double)y[i];
  const mm_ref ref = mm_ref_at(xm, p);
  double acc[8] = {0};
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) continue;
    const double v = (double)y[i] * ((double)g[i] - dot), xi = x[i];
    const double a = relu(p[4] - xi), b = relu(xi - p[5]);
    const double c = relu(p[6] - xi), d = relu(xi - p[7]);
    acc[0] += v * (a - ref.a);
    acc[1] += v * (b - ref.b);
    acc[2] += v * ((c - ref.c) * (c + ref.c));
    acc[3] += v * ((d - ref.d) * (d + ref.d));
    acc[4] += v * ((xi < p[4] ? 1.0 : 0.0) - ref.lt);
    acc[5] += v * ((xi > p[5] ? 1.0 : 0.0) - ref.gt);
    acc[6] += v * (c - ref.c);
    acc[7] += v * (d - ref.d);
  }
  dp[0] = acc[0], dp[1] = acc[1], dp[2] = acc[2], dp[3] = acc[3];
  dp[4] = p[0] * acc[4];
  dp[5] = -p[1] * acc[5];
  dp[6] = 2.0 * p[2] * acc[6];
  dp[7] = -2.0 * p[3] * acc[7];
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

typedef struct mm_consts {
  v128_t t0, t1, t2, t3, r0, r1, r2, r3, zero, one, two;
} mm_consts;

static mm_consts mm_load(const double *p) {
  mm_consts c;
  c.t0 = wasm_f64x2_splat(p[0]), c.t1 = wasm_f64x2_splat(p[1]);
  c.t2 = wasm_f64x2_splat(p[2]), c.t3 = wasm_f64x2_splat(p[3]);
  c.r0 = wasm_f64x2_splat(p[4]), c.r1 = wasm_f64x2_splat(p[5]);
  c.r2 = wasm_f64x2_splat(p[6]), c.r3 = wasm_f64x2_splat(p[7]);
  c.zero = wasm_f64x2_splat(0.0), c.one = wasm_f64x2_splat(1.0), c.two = wasm_f64x2_splat(2.0);
  return c;
}

/* relu in f64x2: pmax(0, v) = 0 < v ? v : 0, like relu() above. */
static inline v128_t relu2(v128_t v, const mm_consts *c) { return wasm_f64x2_pmax(c->zero, v); }

static inline v128_t modulate2(v128_t x, const mm_consts *c) {
  const v128_t a = relu2(wasm_f64x2_sub(c->r0, x), c), b = relu2(wasm_f64x2_sub(x, c->r1), c);
  const v128_t d2 = relu2(wasm_f64x2_sub(c->r2, x), c), d3 = relu2(wasm_f64x2_sub(x, c->r3), c);
  v128_t z = wasm_f64x2_add(x, wasm_f64x2_mul(c->t0, a));
  z = wasm_f64x2_add(z, wasm_f64x2_mul(c->t1, b));
  z = wasm_f64x2_add(z, wasm_f64x2_mul(c->t2, wasm_f64x2_mul(d2, d2)));
  return wasm_f64x2_add(z, wasm_f64x2_mul(c->t3, wasm_f64x2_mul(d3, d3)));
}

static inline v128_t slope2(v128_t x, const mm_consts *c) {
  v128_t s = wasm_f64x2_sub(c->one, wasm_v128_and(c->t0, wasm_f64x2_lt(x, c->r0)));
  s = wasm_f64x2_add(s, wasm_v128_and(c->t1, wasm_f64x2_gt(x, c->r1)));
  s = wasm_f64x2_sub(s, wasm_f64x2_mul(wasm_f64x2_mul(c->two, c->t2),
                                       relu2(wasm_f64x2_sub(c->r2, x), c)));
  return wasm_f64x2_add(s, wasm_f64x2_mul(wasm_f64x2_mul(c->two, c->t3),
                                          relu2(wasm_f64x2_sub(x, c->r3), c)));
}

/* f(x) for four float lanes, evaluated in two f64x2 halves, rounded to float. */
#define MM_APPLY4(f, v, c)                                                      \
  wasm_i32x4_shuffle(                                                           \
      wasm_f32x4_demote_f64x2_zero(f(wasm_f64x2_promote_low_f32x4(v), c)),      \
      wasm_f32x4_demote_f64x2_zero(                                             \
          f(wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v, v, 2, 3, 0, 1)), c)), \
      0, 1, 4, 5)

static inline v128_t load4(const float *p, size_t rem, float pad) {
  return rem == 4 ? wasm_v128_load(p) : ss_load_partial(p, rem, pad);
}
static inline void store4(float *p, size_t rem, v128_t v) {
  if (rem == 4) wasm_v128_store(p, v);
  else ss_store_partial(p, rem, v);
}

static ss_status multimax_simd(const float *x, size_t n, const double *params,
                               float *y) {
  ss_status s = ss_classify_max(ss_max_simd(x, n));
  if (s != SS_OK) return s;
  const mm_consts c = mm_load(params);
  const v128_t ninf = wasm_f32x4_splat(-INFINITY), fzero = wasm_f32x4_splat(0.0f);
  v128_t vmax = ninf, bad = wasm_i32x4_splat(0);
  for (size_t i = 0; i < n; i += 4) { /* max z and the overflow check; no stores */
    const size_t rem = n - i < 4 ? n - i : 4;
    const v128_t vx = load4(x + i, rem, -INFINITY);
    const v128_t masked = wasm_f32x4_eq(vx, ninf);
    const v128_t z = wasm_v128_bitselect(ninf, MM_APPLY4(modulate2, vx, &c), masked);
    /* z - z is NaN exactly for +-Inf (and NaN) z */
    bad = wasm_v128_or(bad, wasm_v128_andnot(wasm_f32x4_ne(wasm_f32x4_sub(z, z), fzero), masked));
    vmax = wasm_f32x4_pmax(vmax, z);
  }
  if (wasm_v128_any_true(bad)) return SS_ERR_DOMAIN;
  vmax = wasm_f32x4_pmax(vmax, wasm_i32x4_shuffle(vmax, vmax, 2, 3, 0, 1));
  vmax = wasm_f32x4_pmax(vmax, wasm_i32x4_shuffle(vmax, vmax, 1, 0, 3, 2));
  const float zmax = wasm_f32x4_extract_lane(vmax, 0);
  for (size_t i = 0; i < n; i += 4) {
    const size_t rem = n - i < 4 ? n - i : 4;
    const v128_t vx = load4(x + i, rem, -INFINITY);
    store4(y + i, rem,
           wasm_v128_bitselect(ninf, MM_APPLY4(modulate2, vx, &c), wasm_f32x4_eq(vx, ninf)));
  }
  const double sum = ss_exp_store_simd(y, n, zmax, 1.0f, y);
  ss_scale_flush_simd(y, n, (float)(1.0 / sum), y);
  return SS_OK;
}

/* A bound on |dx_i| = |v_i slope(x_i)|, v the softmax VJP in z:
   |v_i| <= y_i (|g_i| + |<g, y>|) <= 2 max|g|, and |slope| <= 1 + |t0| +
   |t1| + 2 |t2| relu(r2 - min x) + 2 |t3| relu(max x - r3) over the finite
   x. Where it may pass FLT_MAX / 2, the cancellation in v decides between a
   finite result and an overflow (g = -2^123 on every entry, slope ~1e9:
   scalar SS_ERR_DOMAIN, SIMD SS_OK), so the scalar reference answers. */
static double vjp_bound(const float *x, const float *g, size_t n, float xmax, const double *p) {
  float xmin = xmax, gmax = 0.0f;
  for (size_t i = 0; i < n; i++) {
    if (x[i] != -INFINITY) xmin = fminf(xmin, x[i]);
    gmax = fmaxf(gmax, fabsf(g[i]));
  }
  const double sl = 1.0 + fabs(p[0]) + fabs(p[1]) + 2.0 * fabs(p[2]) * relu(p[6] - (double)xmin) +
                    2.0 * fabs(p[3]) * relu((double)xmax - p[7]);
  return 2.0 * (double)gmax * sl;
}

static ss_status multimax_vjp_simd(const float *x, const float *y,
                                   const float *g, size_t n,
                                   const double *params, float *dx) {
  const float xmax = ss_max_simd(x, n);
  ss_status s = ss_classify_max(xmax);
  if (s != SS_OK) return s;
  if (!(vjp_bound(x, g, n, xmax, params) < 0.5 * FLT_MAX))
    return multimax_vjp_scalar(x, y, g, n, params, dx);
  ss_softmax_vjp_core_simd(y, g, n, 1.0f, dx);
  const mm_consts c = mm_load(params);
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  for (size_t i = 0; i < n; i += 4) {
    const size_t rem = n - i < 4 ? n - i : 4;
    const v128_t vx = load4(x + i, rem, 0.0f);
    const v128_t v = wasm_f32x4_mul(load4(dx + i, rem, 0.0f), MM_APPLY4(slope2, vx, &c));
    store4(dx + i, rem, wasm_v128_andnot(v, wasm_f32x4_eq(vx, ninf)));
  }
  return SS_OK;
}

/* The eight parameter sums over two lanes (x finite, v the z-gradient),
   each term shifted by its value at the row maximum (see mm_ref). */
static inline void param_acc2(v128_t x, v128_t v, const mm_consts *c, const v128_t ref[6],
                              v128_t acc[8]) {
  const v128_t a = relu2(wasm_f64x2_sub(c->r0, x), c), b = relu2(wasm_f64x2_sub(x, c->r1), c);
  const v128_t d2 = relu2(wasm_f64x2_sub(c->r2, x), c), d3 = relu2(wasm_f64x2_sub(x, c->r3), c);
  const v128_t lt = wasm_v128_and(c->one, wasm_f64x2_lt(x, c->r0));
  const v128_t gt = wasm_v128_and(c->one, wasm_f64x2_gt(x, c->r1));
  const v128_t e2 = wasm_f64x2_sub(d2, ref[2]), e3 = wasm_f64x2_sub(d3, ref[3]);
  acc[0] = wasm_f64x2_add(acc[0], wasm_f64x2_mul(v, wasm_f64x2_sub(a, ref[0])));
  acc[1] = wasm_f64x2_add(acc[1], wasm_f64x2_mul(v, wasm_f64x2_sub(b, ref[1])));
  acc[2] = wasm_f64x2_add(acc[2], wasm_f64x2_mul(v, wasm_f64x2_mul(e2, wasm_f64x2_add(d2, ref[2]))));
  acc[3] = wasm_f64x2_add(acc[3], wasm_f64x2_mul(v, wasm_f64x2_mul(e3, wasm_f64x2_add(d3, ref[3]))));
  acc[4] = wasm_f64x2_add(acc[4], wasm_f64x2_mul(v, wasm_f64x2_sub(lt, ref[4])));
  acc[5] = wasm_f64x2_add(acc[5], wasm_f64x2_mul(v, wasm_f64x2_sub(gt, ref[5])));
  acc[6] = wasm_f64x2_add(acc[6], wasm_f64x2_mul(v, e2));
  acc[7] = wasm_f64x2_add(acc[7], wasm_f64x2_mul(v, e3));
}

static ss_status multimax_param_vjp_simd(const float *x, const float *y,
                                         const float *g, size_t n,
                                         const double *p, double *dp) {
  const float xm = ss_max_simd(x, n);
  ss_status s = ss_classify_max(xm);
  if (s != SS_OK) return s;
  const mm_consts c = mm_load(p);
  const mm_ref r = mm_ref_at(xm, p);
  const v128_t ref[6] = {wasm_f64x2_splat(r.a), wasm_f64x2_splat(r.b), wasm_f64x2_splat(r.c),
                         wasm_f64x2_splat(r.d), wasm_f64x2_splat(r.lt), wasm_f64x2_splat(r.gt)};
  const v128_t vdot = wasm_f64x2_splat(ss_dot_simd(g, y, n));
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  v128_t acc[8];
  for (int k = 0; k < 8; k++) acc[k] = c.zero;
  for (size_t i = 0; i < n; i += 4) {
    const size_t rem = n - i < 4 ? n - i : 4;
    v128_t vx = load4(x + i, rem, 0.0f);
    const v128_t keep = wasm_v128_not(wasm_f32x4_eq(vx, ninf));
    vx = wasm_v128_and(vx, keep); /* masked lanes: x = 0, y = 0, so v = 0 */
    const v128_t vy = wasm_v128_and(load4(y + i, rem, 0.0f), keep);
    const v128_t vg = load4(g + i, rem, 0.0f);
    const v128_t sx = wasm_i32x4_shuffle(vx, vx, 2, 3, 0, 1);
    const v128_t sy = wasm_i32x4_shuffle(vy, vy, 2, 3, 0, 1);
    const v128_t sg = wasm_i32x4_shuffle(vg, vg, 2, 3, 0, 1);
    const v128_t v0 = wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(vy),
                                     wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(vg), vdot));
    const v128_t v1 = wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(sy),
                                     wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(sg), vdot));
    param_acc2(wasm_f64x2_promote_low_f32x4(vx), v0, &c, ref, acc);
    param_acc2(wasm_f64x2_promote_low_f32x4(sx), v1, &c, ref, acc);
  }
  double t[8];
  for (int k = 0; k < 8; k++)
    t[k] = wasm_f64x2_extract_lane(acc[k], 0) + wasm_f64x2_extract_lane(acc[k], 1);
  dp[0] = t[0], dp[1] = t[1], dp[2] = t[2], dp[3] = t[3];
  dp[4] = p[0] * t[4];
  dp[5] = -p[1] * t[5];
  dp[6] = 2.0 * p[2] * t[6];
  dp[7] = -2.0 * p[3] * t[7];
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_multimax = {
    .name = "multimax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "MultiMax: softmax of piecewise-modulated logits, flattening "
               "chosen ranges (sparser) while keeping several peaks (multi-modal)",
    .formula = "z = x + t0 relu(r0 - x) + t1 relu(x - r1) + t2 relu(r2 - x)^2 + "
               "t3 relu(x - r3)^2; y = softmax(z); t = 0 is softmax",
    .paper = "Zhou, Fritz & Keuper 2024, 'MultiMax: Sparse and Multi-Modal "
             "Attention Learning' (ICML 2024)",
    .nparams = 8,
    .params = multimax_params,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .has_param_backward = true,
    .normalize = SS_IMPLS(multimax),
    .normalize_vjp = SS_IMPLS(multimax_vjp),
    .relaxed_simd = SS_RELAXED_EXP_STORE,
    .normalize_param_vjp = SS_IMPLS(multimax_param_vjp),
};

ss_status ss_multimax(const float *x, size_t n, const double t[4],
                      const double r[4], float *y) {
  if (!t || !r) return SS_ERR_NULL;
  const double params[8] = {t[0], t[1], t[2], t[3], r[0], r[1], r[2], r[3]};
  return ss_normalize(&ss_kernel_multimax, ss_impl_default(), x, n, params, 8, y);
}
