/*
 * boltzmann — the Boltzmann operator, a soft maximum of a vector:
 *
 *   boltz_b(x) = sum_i x_i e^{b x_i} / sum_j e^{b x_j} = sum_i x_i softmax(b x)_i
 *
 * b -> +inf tends to max x, b = 0 gives the mean, b -> -inf the min. As a
 * normalizer the kernel returns the terms, y_i = x_i softmax(b x)_i (output
 * kind WEIGHTS: they may be negative and sum to boltz_b(x), not to 1);
 * ss_boltzmann() returns the value itself without an output buffer.
 * Kajitsuka & Sato (2024) read softmax attention as this operator rather
 * than as an approximate hardmax; the operator itself is the "Boltzmann
 * softmax operator" of reinforcement learning (Asadi & Littman 2017).
 *
 * Bounds (any b, any row): min x <= boltz_b(x) <= max x, and for b > 0
 *   0 <= max x - boltz_b(x) <= (n - 1) / (e b)
 * since each entry below the max adds d e^{-b d} / (sum of weights >= 1) with
 * d = max - x_i, and d e^{-b d} <= 1 / (e b). Likewise for the min at b < 0.
 *
 * Masked (-Inf) entries: y_i = 0 and they are left out of the value (their
 * weight e^{b x_i} is 0 for b > 0; for b <= 0 the kernel excludes them
 * explicitly, so -Inf padding means the same at every b).
 *
 * Backward (terms): dx_j = p_j (g_j (1 + b x_j) - b <g, y>), p = softmax(b x)
 * (xsoftmax.c). Parameter gradient:
 *   d/db sum_i g_i y_i = sum_i g_i y_i (x_i - sum_j y_j).
 *
 * Implementation: the terms are xsoftmax.c's x-weighted softmax. The value
 * (direct call) is one fused pass without stores, anchored at a = max x
 * (b > 0) or the smallest finite x (b < 0) so no exponent is positive:
 * boltz = a + sum (x_i - a) e_i / sum e_i, the sums in double (f64x2 lanes
 * in the SIMD path: x_i - a overflows float for logits near +-FLT_MAX).
 * The scalar value uses double exp throughout; the SIMD one the float vector
 * exp of common/exp_simd.h with b rounded to float (relative error of the
 * weights ~ |b (x_i - a)| 2^-23).
 * Stated bounds (tests/c/test_boltzmann.c): terms rel err <= 4e-6 +
 * 2^-23 |b (x_i - a)| for outputs >= 1e-30 (measured max 0.34 of it, over
 * b in [-1e3, 1e3]); value |v - v64| <= 2e-6 max|x| (measured 4e-9 max|x|);
 * SIMD vs scalar terms <= 16 ulp, measured 6.
 */
#include <math.h>

#include "common/check.h"
#include "common/exp_simd.h"
#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"
#include "variants/xsoftmax.h"

static const ss_param_info boltzmann_params[] = {{
    .name = "b",
    .type = SS_PARAM_FLOAT,
    .min = -1e3,
    .max = 1e3,
    .def = 1.0,
    .ui_min = -5.0,
    .ui_max = 20.0,
    .help = "inverse temperature b: y_i = x_i softmax(b x)_i; sum y -> max "
            "(b -> inf), mean (b = 0), min (b -> -inf)",
}};

/* Smallest finite entry of a validated row (its max is finite, so one exists). */
static float min_finite(const float *x, size_t n) {
  float m = INFINITY;
  for (size_t i = 0; i < n; i++)
    if (x[i] != -INFINITY && x[i] < m) m = x[i];
  return m;
}

/* ---- scalar reference ------------------------------------------------- */

static ss_status boltzmann_scalar(const float *x, size_t n,
                                  const double *params, float *y) {
  return ss_xsoftmax_scalar(x, n, params[0], y);
}

static ss_status boltzmann_vjp_scalar(const float *x, const float *y,
                                      const float *g, size_t n,
                                      const double *params, float *dx) {
  return ss_xsoftmax_vjp_scalar(x, y, g, n, params[0], dx);
}

static ss_status boltzmann_param_vjp_scalar(const float *x, const float *y,
                                            const float *g, size_t n,
                                            const double *params,
                                            double *dparams) {
  (void)params;
  ss_status s = ss_check_logits(x, n, NULL);
  if (s != SS_OK) return s;
  double v = 0.0, s1 = 0.0, s2 = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) continue;
    v += (double)y[i];
    s1 += (double)g[i] * (double)y[i] * (double)x[i];
    s2 += (double)g[i] * (double)y[i];
  }
  dparams[0] = s1 - v * s2;
  return SS_OK;
}

/* The value in double: a + sum (x_i - a) e_i / sum e_i, e_i = exp(b (x_i - a)). */
static ss_status boltzmann_value_scalar(const float *x, size_t n, double b,
                                        double *value) {
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s != SS_OK) return s;
  const double a = b > 0.0 ? (double)max : (double)min_finite(x, n);
  double se = 0.0, sd = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) continue;
    const double d = (double)x[i] - a, e = exp(b * d);
    se += e;
    sd += d * e;
  }
  *value = a + sd / se;
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

static ss_status boltzmann_simd(const float *x, size_t n, const double *params,
                                float *y) {
  return ss_xsoftmax_simd(x, n, params[0], y);
}

static ss_status boltzmann_vjp_simd(const float *x, const float *y,
                                    const float *g, size_t n,
                                    const double *params, float *dx) {
  return ss_xsoftmax_vjp_simd(x, y, g, n, params[0], dx);
}

/* Four lanes of x as two f64x2 (masked lanes as 0: their y is 0). */
static inline void promote4(v128_t v, v128_t *lo, v128_t *hi) {
  *lo = wasm_f64x2_promote_low_f32x4(v);
  *hi = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
}

static ss_status boltzmann_param_vjp_simd(const float *x, const float *y,
                                          const float *g, size_t n,
                                          const double *params,
                                          double *dparams) {
  (void)params;
  ss_status s = ss_classify_max(ss_max_simd(x, n));
  if (s != SS_OK) return s;
  const v128_t ninf = wasm_f32x4_splat(-INFINITY), zero = wasm_f64x2_splat(0.0);
  v128_t v = zero, s1 = zero, s2 = zero;
  for (size_t i = 0; i < n; i += 4) {
    const size_t rem = n - i < 4 ? n - i : 4;
    v128_t vx = rem == 4 ? wasm_v128_load(x + i) : ss_load_partial(x + i, rem, 0.0f);
    const v128_t vy = rem == 4 ? wasm_v128_load(y + i) : ss_load_partial(y + i, rem, 0.0f);
    const v128_t vg = rem == 4 ? wasm_v128_load(g + i) : ss_load_partial(g + i, rem, 0.0f);
    const v128_t keep = wasm_v128_not(wasm_f32x4_eq(vx, ninf));
    vx = wasm_v128_and(vx, keep);
    /* g y in double lanes: a float product of a weight near FLT_MAX and a
       large g overflowed (SIMD SS_ERR_DOMAIN where scalar was finite) */
    const v128_t gk = wasm_v128_and(vg, keep), yk = wasm_v128_and(vy, keep);
    v128_t xl, xh, gl, gh, yl, yh, ggl, ggh;
    promote4(vx, &xl, &xh);
    promote4(gk, &ggl, &ggh);
    promote4(yk, &yl, &yh);
    gl = wasm_f64x2_mul(ggl, yl), gh = wasm_f64x2_mul(ggh, yh);
    v = wasm_f64x2_add(v, wasm_f64x2_add(yl, yh));
    s2 = wasm_f64x2_add(s2, wasm_f64x2_add(gl, gh));
    s1 = wasm_f64x2_add(s1, wasm_f64x2_add(wasm_f64x2_mul(gl, xl), wasm_f64x2_mul(gh, xh)));
  }
  const double tv = wasm_f64x2_extract_lane(v, 0) + wasm_f64x2_extract_lane(v, 1);
  const double t1 = wasm_f64x2_extract_lane(s1, 0) + wasm_f64x2_extract_lane(s1, 1);
  const double t2 = wasm_f64x2_extract_lane(s2, 0) + wasm_f64x2_extract_lane(s2, 1);
  dparams[0] = t1 - tv * t2;
  return SS_OK;
}

/* Smallest finite entry, four lanes at a time (-Inf read as +Inf). */
static float min_finite_simd(const float *x, size_t n) {
  const v128_t ninf = wasm_f32x4_splat(-INFINITY), pinf = wasm_f32x4_splat(INFINITY);
  v128_t m = pinf;
  for (size_t i = 0; i < n; i += 4) {
    const v128_t a = n - i >= 4 ? wasm_v128_load(x + i) : ss_load_partial(x + i, n - i, INFINITY);
    m = wasm_f32x4_pmin(m, wasm_v128_bitselect(pinf, a, wasm_f32x4_eq(a, ninf)));
  }
  m = wasm_f32x4_pmin(m, wasm_i32x4_shuffle(m, m, 2, 3, 0, 1));
  m = wasm_f32x4_pmin(m, wasm_i32x4_shuffle(m, m, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(m, 0);
}

static ss_status boltzmann_value_simd(const float *x, size_t n, double b,
                                      double *value) {
  const float max = ss_max_simd(x, n);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  const float fb = (float)b, a = fb > 0.0f ? max : min_finite_simd(x, n);
  const bool uniform = fb == 0.0f; /* fb * (x - a) could be 0 * Inf */
  const ss_exp_consts c = ss_exp_consts_load();
  const v128_t va = wasm_f32x4_splat(a), vb = wasm_f32x4_splat(fb);
  const v128_t ninf = wasm_f32x4_splat(-INFINITY), one = wasm_f32x4_splat(1.0f);
  const v128_t da = wasm_f64x2_splat((double)a);
  v128_t se = wasm_f64x2_splat(0.0), sd = se;
  for (size_t i = 0; i < n; i += 4) {
    const size_t rem = n - i < 4 ? n - i : 4;
    const v128_t raw = rem == 4 ? wasm_v128_load(x + i) : ss_load_partial(x + i, rem, -INFINITY);
    const v128_t masked = wasm_f32x4_eq(raw, ninf);
    const v128_t vx = wasm_v128_bitselect(va, raw, masked); /* masked lanes: exp(0), dropped */
    v128_t e = one;
    if (!uniform) {
      v128_t err;
      const v128_t d = ss_two_diff(vx, va, &err);
      e = ss_exp_nonpos_corr_f32x4(wasm_f32x4_mul(d, vb), wasm_f32x4_mul(err, vb), &c);
    }
    e = wasm_v128_andnot(e, masked);
    v128_t xl, xh, el, eh;
    promote4(vx, &xl, &xh);
    promote4(e, &el, &eh);
    se = wasm_f64x2_add(se, wasm_f64x2_add(el, eh));
    sd = wasm_f64x2_add(sd, wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_sub(xl, da), el),
                                           wasm_f64x2_mul(wasm_f64x2_sub(xh, da), eh)));
  }
  const double tse = wasm_f64x2_extract_lane(se, 0) + wasm_f64x2_extract_lane(se, 1);
  const double tsd = wasm_f64x2_extract_lane(sd, 0) + wasm_f64x2_extract_lane(sd, 1);
  *value = (double)a + tsd / tse;
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_boltzmann = {
    .name = "boltzmann",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Boltzmann operator terms x_i softmax(b x)_i: they sum to a soft "
               "maximum (b > 0), the mean (b = 0) or a soft minimum (b < 0)",
    .formula = "y_i = x_i exp(b x_i) / sum_j exp(b x_j); sum_i y_i = boltz_b(x), "
               "max x - boltz_b(x) <= (n - 1) / (e b) for b > 0; -Inf -> 0, excluded",
    .paper = "Kajitsuka & Sato 2024, 'Are Transformers with One Layer "
             "Self-Attention Using Low-Rank Weight Matrices Universal "
             "Approximators?' (ICLR 2024); the operator: Asadi & Littman 2017, "
             "'An Alternative Softmax Operator for Reinforcement Learning'",
    .nparams = 1,
    .params = boltzmann_params,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_WEIGHTS,
    .has_backward = true,
    .has_param_backward = true,
    .normalize = SS_IMPLS(boltzmann),
    .normalize_vjp = SS_IMPLS(boltzmann_vjp),
    .relaxed_simd = SS_RELAXED_EXP_STORE,
    .normalize_param_vjp = SS_IMPLS(boltzmann_param_vjp),
};

ss_status ss_boltzmann(const float *x, size_t n, double b, double *value) {
  if (!x || !value) return SS_ERR_NULL;
  ss_status s = ss_check_n(n);
  if (s != SS_OK) return s;
  s = ss_params_check(&ss_kernel_boltzmann, &b, 1);
  if (s != SS_OK) return s;
  return SS_BY_IMPL(ss_impl_default(), boltzmann_value)(x, n, b, value);
}
