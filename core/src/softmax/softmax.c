/*
 * softmax — three passes (the textbook numerically safe form):
 *
 *   m   = max_i x_i
 *   e_i = exp(x_i - m),  S = sum_i e_i        (x_i - m <= 0: no overflow)
 *   y_i = e_i / S
 *
 * Backward (vector-Jacobian product): dx = y * (g - <g, y>).
 *
 * Scalar reference: libm expf with the TwoSum correction, sum in double,
 * divide in double.
 * SIMD: one pass for max and min (NaN-propagating: validates the row), the
 * row-reduced exp of common/exp_simd.h (ss_expm_f32x4: XNNPACK's instruction
 * count without its 3.8e-6 error for |x - m| large) 32 wide, pairwise sums
 * into two float accumulators per block of SS_SUM_BLOCK, blocks into a
 * double; then one multiply by 1/S. Rows with a max outside about [-266,
 * 354] use the TwoSum-corrected exp (ss_exp_diff_f32x4) instead.
 * Relaxed build: the exp's multiply-adds are relaxed_madd and the flush a
 * laneselect; the bound below holds fused or not (tested in both builds).
 * Subnormal rule: outputs whose exact value is below FLT_MIN are +0 in every
 * impl, never denormal (common/softmax_row.h; tests/c/test_softmax.c).
 * The row itself (exp pass, scale, VJP) is common/softmax_row.c, shared with
 * every softmax-shaped kernel of the other families.
 * Bound: max relative error <= 2e-6 vs float64 for outputs >= 1e-30
 * (tests/c/test_softmax.c; measured 3e-7), in every build.
 */
#include <math.h>
#include <stdbool.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"

/* ---- scalar reference ------------------------------------------------- */

static ss_status softmax_scalar(const float *x, size_t n, const double *params,
                                float *y) {
  (void)params;
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s != SS_OK) return s;
  ss_softmax_row_scalar(x, n, max, 1.0, y);
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

static ss_status softmax_simd(const float *x, size_t n, const double *params,
                              float *y) {
  (void)params;
  float min;
  const float max = ss_max_min_simd(x, n, &min);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  ss_softmax_row_simd(x, n, max, min, 1.0, y);
  return SS_OK;
}

/* Rows: two at a time (common/softmax_row.c, ss_softmax_pair_simd). */
static bool softmax_pair_simd(const float *xa, const float *xb, size_t n,
                              const double *params, float *ya, float *yb) {
  (void)params;
  return ss_softmax_pair_simd(xa, xb, n, ya, yb);
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
    .in_place = true,
    .normalize = SS_IMPLS(softmax),
    .normalize_vjp = SS_IMPLS(ss_softmax_vjp),
    .normalize_pair = {NULL, SS_SIMD(softmax_pair_simd)},
    .relaxed_simd = "relaxed_madd exp (fused or not): rel err <= 2e-6 vs float64 "
                    "for outputs >= 1e-30, <= 8 ulp vs scalar; zeros as scalar",
};

ss_status ss_softmax(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_softmax, ss_impl_default(), x, n, NULL, 0, y);
}
