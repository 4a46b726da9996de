/*
 * softmax_temperature — softmax of the logits divided by a temperature T > 0:
 *
 *   y_i = exp((x_i - m) / T) / sum_j exp((x_j - m) / T),   m = max x
 *
 * T = 1 is softmax; T -> 0 tends to the argmax one-hot (tied maxima share
 * the mass equally); T -> inf tends to the uniform distribution (over the
 * unmasked entries; a -Inf logit keeps probability 0 at every T).
 *
 * Backward: with beta = 1/T, dx = beta * y * (g - <g, y>).
 *
 * Implementation: the softmax passes of softmax/softmax.c with beta = 1/T in
 * double: e_i = exp(beta (x_i - m)) with the exponent formed in double
 * (x_i - m exact there, the product rounded to 2^-53) and reduced there, so
 * neither beta nor beta (x_i - m) is rounded to float (which cost up to
 * 2^-24 |z_i| each, 5e-6 relative for the smallest outputs). SIMD: the
 * double-reduced exp of common/exp_simd.h (ss_expz_f32x4), about twice the
 * instructions of softmax's; at T = 1 the SIMD path is the plain softmax
 * code (bitwise equal). Subnormal rule and bound as softmax: rel err <= 2e-6
 * vs float64 for outputs >= 1e-30 at every T (tests/c/test_temperature.c).
 * When 1/T exceeds the float range (T < 2.9e-39) beta is no float, so the
 * kernel computes z_i = (x_i - m) / T by a division in double instead (rows
 * of tiny logits, where x_i - m ~ 1e-45, are not one-hot even then), and
 * the VJP divides by T in double instead of multiplying by an infinite beta.
 */
#include <float.h>
#include <math.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"

static const ss_param_info temperature_params[] = {{
    .name = "temperature",
    .type = SS_PARAM_FLOAT,
    .min = 0.0,
    .max = 1e4,
    .min_open = true,
    .max_open = false,
    .def = 1.0,
    .ui_min = 0.05,
    .ui_max = 20.0,
    .log_scale = true,
    .help = "T: y = softmax(x / T); T -> 0 is argmax, T -> inf uniform",
}};

/* y_i = exp((x_i - m) / T) / S in double, for T so small that 1/T is no
   float: the quotient goes to -Inf (exp 0) except where x_i - m is tiny,
   and tied maxima get exactly 1/c each. */
static void softmax_divide_f64(const float *x, size_t n, float max, double t,
                               float *y) {
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) sum += exp(((double)x[i] - (double)max) / t);
  for (size_t i = 0; i < n; i++)
    y[i] = ss_flush_tiny(exp(((double)x[i] - (double)max) / t) / sum);
}

/* dx = y (g - <g, y>) / T in double, for T so small that 1/T is no float. */
static void vjp_divide(const float *y, const float *g, size_t n, double t,
                       float *dx) {
  double dot = 0.0;
  for (size_t i = 0; i < n; i++) dot += (double)g[i] * (double)y[i];
  for (size_t i = 0; i < n; i++)
    dx[i] = (float)((double)y[i] * ((double)g[i] - dot) / t);
}

/* ---- scalar reference ------------------------------------------------- */

static ss_status softmax_temperature_scalar(const float *x, size_t n,
                                    const double *params, float *y) {
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s != SS_OK) return s;
  const double beta = 1.0 / params[0];
  if (!(beta <= FLT_MAX)) {
    softmax_divide_f64(x, n, max, params[0], y);
    return SS_OK;
  }
  ss_softmax_row_scalar(x, n, max, beta, y);
  return SS_OK;
}


/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

static ss_status softmax_temperature_simd(const float *x, size_t n,
                                  const double *params, float *y) {
  float min;
  const float max = ss_max_min_simd(x, n, &min);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  const double beta = 1.0 / params[0];
  if (!(beta <= FLT_MAX)) {
    softmax_divide_f64(x, n, max, params[0], y);
    return SS_OK;
  }
  /* beta == 1 is softmax's own path. */
  ss_softmax_row_simd(x, n, max, min, beta, y);
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- backward (one body, both impls) ----------------------------------- */

SS_ALWAYS_INLINE ss_status vjp_run(ss_impl impl, const float *x, const float *y, const float *g,
                                   size_t n, const double *params, float *dx) {
  (void)x;
  const double beta = 1.0 / params[0];
  if (beta <= FLT_MAX)
    SS_BY_IMPL(impl, ss_softmax_vjp_core)(y, g, n, (float)beta, dx);
  else
    vjp_divide(y, g, n, params[0], dx);
  return SS_OK;
}

SS_NORMALIZE_VJP_IMPLS(softmax_temperature_vjp, vjp_run)

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_softmax_temperature = {
    .name = "softmax_temperature",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Softmax of x / T: sharper below T = 1, flatter above",
    .formula = "y_i = exp((x_i - max x) / T) / sum_j exp((x_j - max x) / T); "
               "VJP: dx = y (g - <g, y>) / T",
    .paper = "Hinton, Vinyals & Dean 2015, 'Distilling the Knowledge in a "
             "Neural Network' (temperature); Ackley, Hinton & Sejnowski 1985 "
             "(Boltzmann distribution)",
    .nparams = 1,
    .params = temperature_params,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .in_place = true,
    .normalize = SS_IMPLS(softmax_temperature),
    .normalize_vjp = SS_IMPLS(softmax_temperature_vjp),
    .relaxed_simd = "relaxed_madd exp polynomial (fused or not): rel err <= 2e-6 "
                    "vs float64 for outputs >= 1e-30 at every T; zeros as scalar",
};

ss_status ss_softmax_temperature(const float *x, size_t n, double temperature,
                                 float *y) {
  const double params[1] = {temperature};
  return ss_normalize(&ss_kernel_softmax_temperature, ss_impl_default(), x, n,
                      params, 1, y);
}
