/*
 * ssmax — Scalable-Softmax: softmax whose inverse temperature grows with the
 * log of the input length, so the largest output does not fade as n grows:
 *
 *   y_i = n^(s x_i) / sum_j n^(s x_j) = softmax(s log(n) x)_i
 *
 * Nakanishi 2025, "Scalable-Softmax Is Superior for Attention"
 * (arXiv:2501.19399). Checked against the paper: the definition z_i ->
 * n^{s z_i} / sum_j n^{s z_j} = exp((s log n) z_i) / sum_j exp((s log n) z_j)
 * with a learnable scalar s; the paper's Figure 1 uses s = 0.43 (our
 * default) on the vector (-2, ..., -2, +3), where SSMax keeps the maximum
 * near 1 for every n while softmax's fades (tests/c/test_ssmax.c checks that
 * figure against its closed form). The paper also studies s log n + b; the
 * bias is left out, as in its recommended form.
 *
 * n is the number of unmasked entries (x_i > -Inf; adaptive_internal.h): a
 * -Inf-padded row keeps its scale, and n = 1 gives 1 on the single unmasked
 * entry (log 1 = 0 would make every entry equal, but a masked one stays 0).
 *
 * Backward: with beta = s log n, dx = beta y (g - <g, y>).
 * Parameter backward: dy/ds = log n * y (x - <x, y>), so
 *   dL/ds = log n * (sum_i g_i y_i (x_i - m) - <g, y> sum_i y_i (x_i - m))
 * (shifted by m = max x against cancellation; masked entries contribute 0).
 *
 * Implementation: softmax_temperature's passes with beta = fl(s log n):
 * e_i = exp(beta d_i + beta err_i) (TwoSum d_i + err_i = x_i - m). The float
 * beta and the float product beta d_i add up to 2^-24 relative each to the
 * exponent z_i = beta (x_i - m), so the stated bound is
 *   |y_i - y64_i| <= (2e-6 + 2^-23 |z_i|) y64_i   (outputs >= 1e-30),
 * measured 0.71 of it; SIMD vs scalar <= 8 ulp, measured 5
 * (tests/c/test_ssmax.c).
 */
#include <float.h>
#include <math.h>

#include "adaptive/adaptive_internal.h"
#include "common/impl_pair.h"
#include "common/softmax_row.h"

static const ss_param_info ssmax_params[] = {{
    .name = "s",
    .type = SS_PARAM_FLOAT,
    .min = 0.0,
    .max = 100.0,
    .min_open = true,
    .max_open = false,
    .def = 0.43,
    .ui_min = 0.05,
    .ui_max = 3.0,
    .log_scale = true,
    .help = "scaling parameter: y = softmax(s log(n) x), n = unmasked length "
            "(0.43 in the paper's Figure 1); exact over the whole range (a scale "
            "below FLT_MIN is applied in double)",
}};

/* beta = s log n for n >= 2 unmasked entries. Below FLT_MIN (s < ~1e-38)
   the float scale of the exp passes would be 0 or subnormal; the forward
   then runs in double (ss_softmax_tiny_beta), so the whole range of s is
   exact. */
static double ssmax_beta64(double s, size_t n) { return s * log((double)n); }
static float ssmax_beta(double s, size_t n) { return (float)ssmax_beta64(s, n); }

/* ---- forward and VJPs, one body each for both impls (common/impl_pair.h) */

SS_ALWAYS_INLINE ss_status ssmax_run(ss_impl impl, const float *x, size_t n,
                                     const double *params, float *y) {
  float max;
  ss_status st = SS_BY_IMPL(impl, ss_logits_max)(x, n, &max);
  if (st != SS_OK) return st;
  const size_t nu = SS_BY_IMPL(impl, ss_count_unmasked)(x, n);
  if (nu == 1) {
    ss_uniform_unmasked(x, n, 1, y);
    return SS_OK;
  }
  const double beta = ssmax_beta64(params[0], nu);
  if (beta < FLT_MIN) {
    ss_softmax_tiny_beta(x, n, max, beta, y);
    return SS_OK;
  }
  SS_BY_IMPL(impl, ss_exp_normalize)(x, n, max, (float)beta, y);
  return SS_OK;
}

/* n = 1: the output is constant, beta = log 1 = 0 gives dx = 0. */
SS_ALWAYS_INLINE ss_status ssmax_vjp_run(ss_impl impl, const float *x, const float *y,
                                         const float *g, size_t n, const double *params,
                                         float *dx) {
  const size_t nu = SS_BY_IMPL(impl, ss_count_unmasked)(x, n);
  SS_BY_IMPL(impl, ss_softmax_vjp_core)(y, g, n, nu > 1 ? ssmax_beta(params[0], nu) : 0.0f, dx);
  return SS_OK;
}

SS_ALWAYS_INLINE ss_status ssmax_param_vjp_run(ss_impl impl, const float *x, const float *y,
                                               const float *g, size_t n, const double *params,
                                               double *dp) {
  (void)params;
  double mom[3];
  SS_BY_IMPL(impl, ss_shifted_moments)(x, y, g, n, SS_BY_IMPL(impl, ss_row_max)(x, n), mom);
  const size_t nu = SS_BY_IMPL(impl, ss_count_unmasked)(x, n);
  dp[0] = nu > 1 ? log((double)nu) * (mom[0] - mom[2] * mom[1]) : 0.0; /* n = 1: constant */
  return SS_OK;
}

SS_NORMALIZE_IMPLS(ssmax, ssmax_run)
SS_NORMALIZE_VJP_IMPLS(ssmax_vjp, ssmax_vjp_run)
SS_NORMALIZE_PARAM_VJP_IMPLS(ssmax_param_vjp, ssmax_param_vjp_run)

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_ssmax = {
    .name = "ssmax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Scalable-Softmax: softmax(s log(n) x), a peak that does not fade with length",
    .formula = "y_i = n^(s x_i) / sum_j n^(s x_j) = softmax(s log(n) x)_i, n = number of "
               "unmasked entries; VJP: dx = s log(n) y (g - <g, y>)",
    .paper = "Nakanishi 2025, 'Scalable-Softmax Is Superior for Attention' (arXiv:2501.19399)",
    .nparams = 1,
    .params = ssmax_params,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .has_param_backward = true,
    .normalize = SS_IMPLS(ssmax),
    .normalize_vjp = SS_IMPLS(ssmax_vjp),
    .relaxed_simd = SS_RELAXED_EXP_STORE,
    .normalize_param_vjp = SS_IMPLS(ssmax_param_vjp),
};

ss_status ss_ssmax(const float *x, size_t n, double s, float *y) {
  const double params[1] = {s};
  return ss_normalize(&ss_kernel_ssmax, ss_impl_default(), x, n, params, 1, y);
}
