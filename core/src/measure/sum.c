/*
 * sum — sum of any finite vector, accumulated in double.
 *
 *   sum(x) = sum_i x_i
 *
 * Scalar: one double accumulator. SIMD: float64 lanes
 * (f64x2.promote_low_f32x4), four of them. Both have error
 * <= n 2^-53 sum |x_i| (the float inputs are exact in double), so they agree
 * to ~1e-16 relative for well-conditioned sums; no intermediate overflow
 * (n FLT_MAX << DBL_MAX).
 *
 * Validation is fused into the sum: a double sum of floats is finite exactly
 * when every input is finite (Inf and NaN propagate, and finite inputs cannot
 * overflow), so only a non-finite total needs a scan for which status.
 * NaN -> SS_ERR_NAN, +-Inf -> SS_ERR_NONFINITE; negative values are fine.
 */
#include <math.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"
#include "measure/measure_internal.h"

static ss_status sum_scalar(const float *p, const float *q, size_t n,
                            const double *params, double *out) {
  (void)q;
  (void)params;
  double s = 0.0;
  for (size_t i = 0; i < n; i++) s += p[i];
  if (!isfinite(s)) return ss_check_finite(p, n);
  *out = s;
  return SS_OK;
}

#if SS_HAVE_SIMD
static ss_status sum_simd(const float *p, const float *q, size_t n,
                          const double *params, double *out) {
  (void)q;
  (void)params;
  const double s = ss_sum_f64_simd(p, n);
  if (!isfinite(s)) return ss_finite_scan_simd(p, n);
  *out = s;
  return SS_OK;
}
#endif

const ss_kernel_info ss_kernel_sum = {
    .name = "sum",
    .family = SS_FAMILY_MEASURE,
    .summary = "Sum of a finite vector (any sign), accumulated in double",
    .formula = "sum(x) = sum_i x_i",
    .paper = "Higham 1993, 'The accuracy of floating point summation' "
             "(error bounds of recursive summation)",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_PROBS,
    .has_backward = false,
    .measure = SS_IMPLS(sum),
};
