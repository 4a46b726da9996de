/*
 * softmax — three passes (the textbook numerically safe form):
 *
 *   m   = max_i x_i
 *   e_i = exp(x_i - m),  S = sum_i e_i        (x_i - m <= 0: no overflow)
 *   y_i = e_i / S
 *
 * Backward (vector-Jacobian product): dx = y * (g - <g, y>).
 *
 * Scalar reference: libm expf, sum in double, divide in double.
 * SIMD: NaN-propagating max (validates the row for free), the rr2_p5 exp of
 * common/exp_simd.h unrolled 16 wide with 4 accumulators, block sums into a
 * double (common/vec_simd.h), then one multiply by 1/S.
 * Measured: max relative error <= 2e-6 vs float64 (tests/c/test_softmax.c).
 */
#include <math.h>
#include <stdbool.h>

#include "common/check.h"
#include "common/exp_simd.h"
#include "common/vec_simd.h"
#include "softmax/softmax_internal.h"

/* ---- scalar reference ------------------------------------------------- */

/* d + e = a - b exactly (TwoSum), see common/exp_simd.h for why. */
static inline float two_diff(float a, float b, float *e) {
  const float d = a - b, bb = a - d, da = d + bb;
  *e = (a - da) + (bb - b);
  return d;
}

double ss_exp_store_scalar(const float *x, size_t n, float max, float beta,
                           float *y) {
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    float e = 0.0f;
    if (x[i] != -INFINITY) { /* a masked logit gets exactly 0 */
      float err;
      const float d = two_diff(x[i], max, &err);
      /* exp(beta (d + err)) = exp(beta d) (1 + beta err) to first order */
      e = expf(beta * d);
      /* When x - max overflows to -Inf, err is NaN and e is already 0. */
      if (e != 0.0f) e *= 1.0f + beta * err;
    }
    y[i] = e;
    sum += e;
  }
  return sum;
}

static ss_status softmax_scalar(const float *x, size_t n, const double *params,
                                float *y) {
  (void)params;
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s != SS_OK) return s;
  const double inv = 1.0 / ss_exp_store_scalar(x, n, max, 1.0f, y);
  for (size_t i = 0; i < n; i++) y[i] = (float)((double)y[i] * inv);
  return SS_OK;
}

void ss_softmax_vjp_core_scalar(const float *y, const float *g, size_t n,
                                float beta, float *dx) {
  double dot = 0.0;
  for (size_t i = 0; i < n; i++) dot += (double)g[i] * (double)y[i];
  for (size_t i = 0; i < n; i++)
    dx[i] = (float)((double)beta * (double)y[i] * ((double)g[i] - dot));
}

ss_status ss_softmax_vjp_scalar(const float *x, const float *y, const float *g,
                                size_t n, const double *params, float *dx) {
  (void)x;
  (void)params;
  ss_softmax_vjp_core_scalar(y, g, n, 1.0f, dx);
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* The exp-and-sum pass. `scaled` is a compile-time constant after inlining:
   plain softmax skips the two multiplies by beta. */
static inline v128_t exp_lane(v128_t vx, v128_t vmax, v128_t vbeta,
                              bool scaled, const ss_exp_consts *c) {
  if (!scaled) return ss_exp_diff_f32x4(vx, vmax, c);
  v128_t e;
  const v128_t d = ss_two_diff(vx, vmax, &e);
  return ss_exp_nonpos_corr_f32x4(wasm_f32x4_mul(d, vbeta),
                                  wasm_f32x4_mul(e, vbeta), c);
}

static inline double exp_store_simd(const float *x, size_t n, float max,
                                    float beta, bool scaled, float *y) {
  const ss_exp_consts c = ss_exp_consts_load();
  const v128_t vmax = wasm_f32x4_splat(max);
  const v128_t vb = wasm_f32x4_splat(beta);
  double total = 0.0;
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0, s2 = s0, s3 = s0;
    for (; i + 16 <= end; i += 16) {
      const v128_t e0 = exp_lane(wasm_v128_load(x + i), vmax, vb, scaled, &c);
      const v128_t e1 = exp_lane(wasm_v128_load(x + i + 4), vmax, vb, scaled, &c);
      const v128_t e2 = exp_lane(wasm_v128_load(x + i + 8), vmax, vb, scaled, &c);
      const v128_t e3 = exp_lane(wasm_v128_load(x + i + 12), vmax, vb, scaled, &c);
      wasm_v128_store(y + i, e0);
      wasm_v128_store(y + i + 4, e1);
      wasm_v128_store(y + i + 8, e2);
      wasm_v128_store(y + i + 12, e3);
      s0 = wasm_f32x4_add(s0, e0);
      s1 = wasm_f32x4_add(s1, e1);
      s2 = wasm_f32x4_add(s2, e2);
      s3 = wasm_f32x4_add(s3, e3);
    }
    for (; i + 4 <= end; i += 4) {
      const v128_t e = exp_lane(wasm_v128_load(x + i), vmax, vb, scaled, &c);
      wasm_v128_store(y + i, e);
      s0 = wasm_f32x4_add(s0, e);
    }
    if (i < end) { /* tail: pad with -Inf, whose exp is exactly 0 */
      const size_t rem = end - i;
      const v128_t e = exp_lane(ss_load_partial(x + i, rem, -INFINITY), vmax, vb, scaled, &c);
      ss_store_partial(y + i, rem, e);
      s1 = wasm_f32x4_add(s1, e);
      i = end;
    }
    total += ss_hsum_f64(wasm_f32x4_add(wasm_f32x4_add(s0, s1), wasm_f32x4_add(s2, s3)));
  }
  return total;
}

double ss_exp_store_simd(const float *x, size_t n, float max, float beta,
                         float *y) {
  return beta == 1.0f ? exp_store_simd(x, n, max, 1.0f, false, y)
                      : exp_store_simd(x, n, max, beta, true, y);
}

static ss_status softmax_simd(const float *x, size_t n, const double *params,
                              float *y) {
  (void)params;
  const float max = ss_max_simd(x, n);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  const double sum = ss_exp_store_simd(x, n, max, 1.0f, y);
  ss_scale_simd(y, n, (float)(1.0 / sum), y);
  return SS_OK;
}

void ss_softmax_vjp_core_simd(const float *y, const float *g, size_t n,
                              float beta, float *dx) {
  const float dot = (float)ss_dot_simd(g, y, n);
  const v128_t vdot = wasm_f32x4_splat(dot), vbeta = wasm_f32x4_splat(beta);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t vy = wasm_v128_load(y + i);
    const v128_t d = wasm_f32x4_sub(wasm_v128_load(g + i), vdot);
    wasm_v128_store(dx + i, wasm_f32x4_mul(wasm_f32x4_mul(vy, vbeta), d));
  }
  for (; i < n; i++) dx[i] = y[i] * beta * (g[i] - dot);
}

ss_status ss_softmax_vjp_simd(const float *x, const float *y, const float *g,
                              size_t n, const double *params, float *dx) {
  (void)x;
  (void)params;
  ss_softmax_vjp_core_simd(y, g, n, 1.0f, dx);
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_softmax = {
    .name = "softmax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Softmax, three passes: max, exp and sum, scale",
    .formula = "y_i = exp(x_i - max x) / sum_j exp(x_j - max x)",
    .paper = "Bridle 1990; three-pass form as in Dukhan & Ablavatski 2020, "
             "'The Two-Pass Softmax Algorithm'",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_LOGITS,
    .has_backward = true,
    .normalize = {softmax_scalar, SS_SIMD(softmax_simd)},
    .normalize_vjp = {ss_softmax_vjp_scalar, SS_SIMD(ss_softmax_vjp_simd)},
};

ss_status ss_softmax(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_softmax, ss_impl_default(), x, n, NULL, 0, y);
}
