/*
 * logsumexp — a measure of a logit vector:
 *
 *   LSE(x) = m + log sum_i exp(x_i - m),   m = max_i x_i
 *
 * (subtracting m keeps every exponent <= 0: no overflow, and the max entry
 * contributes exactly 1, so the sum is >= 1 and its log >= 0). Hence
 * m <= LSE(x) <= m + log n. -Inf entries (masks) contribute 0.
 *
 * Gradient: d LSE / d x_i = softmax(x)_i, so the measure VJP is dp = g * softmax(x).
 *
 * Scalar reference: libm exp in double of the double difference x_i - m,
 * summed in double. SIMD: NaN-propagating max (validates the row), then
 * softmax's row-reduced exp (ss_expm_f32x4 of common/exp_simd.h; the TwoSum
 * exp for a max outside its range) unrolled 32 wide, float block sums added
 * into a double (common/vec_simd.h); the result is computed in double.
 * Measured (tests/c/test_log_softmax.c): |LSE - LSE_float64| <= 1e-6 * max(1, |LSE|).
 */
#include <float.h>
#include <math.h>

#include "common/check.h"
#include "common/exp_simd.h"
#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"
#include "softmax/logsumexp.h"

/* ---- scalar reference ------------------------------------------------- */

double ss_sum_exp_scalar(const float *x, size_t n, float max) {
  double sum = 0.0;
  for (size_t i = 0; i < n; i++)
    if (x[i] != -INFINITY) sum += exp((double)x[i] - (double)max);
  return sum;
}

static ss_status lse_scalar(const float *x, const float *q, size_t n,
                            const double *params, double *out) {
  (void)q;
  (void)params;
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s != SS_OK) return s;
  *out = (double)max + log(ss_sum_exp_scalar(x, n, max));
  return SS_OK;
}

/* dp is float32: a g beyond the float range would overflow it (and turn the
   masked zeros into NaN in the SIMD scale), so it is refused. */
static ss_status check_g(double g) {
  return fabs(g) <= FLT_MAX ? SS_OK : SS_ERR_NONFINITE;
}

static ss_status lse_vjp_scalar(const float *x, size_t n, const double *params,
                                double g, float *dp) {
  (void)params;
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s == SS_OK) s = check_g(g);
  if (s != SS_OK) return s;
  /* The reference recomputes exp in double rather than storing floats:
     dp_i = g exp(x_i - m) / S, one rounding. */
  const double scale = g / ss_sum_exp_scalar(x, n, max);
  for (size_t i = 0; i < n; i++)
    dp[i] = x[i] == -INFINITY
                ? 0.0f
                : (float)(exp((double)x[i] - (double)max) * scale);
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* The sum pass, one template for softmax's two exps (ss_expm_f32x4 when the
   max is in its range, else the TwoSum exp): 12 vectors per step as
   softmax's exp-and-store pass, pairwise into two float accumulators per
   block of SS_SUM_BLOCK, blocks into a double. */
SS_ALWAYS_INLINE v128_t sum_lane(v128_t x, const ss_expm *em, const ss_exp_consts *c,
                                 v128_t vmax, bool row) {
  return row ? ss_expm_f32x4(x, em) : ss_exp_diff_f32x4(x, vmax, c);
}

SS_ALWAYS_INLINE double sum_exp(const float *x, size_t n, const ss_expm *em,
                                const ss_exp_consts *c, v128_t vmax, bool row) {
  double total = 0.0;
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0;
    for (; i + 48 <= end; i += 48) {
      v128_t e[12];
#pragma GCC unroll 12
      for (int j = 0; j < 12; j++) e[j] = sum_lane(wasm_v128_load(x + i + 4 * j), em, c, vmax, row);
#pragma GCC unroll 12
      for (int j = 0; j < 12; j += 4) {
        s0 = wasm_f32x4_add(s0, wasm_f32x4_add(e[j], e[j + 1]));
        s1 = wasm_f32x4_add(s1, wasm_f32x4_add(e[j + 2], e[j + 3]));
      }
    }
    for (; i + 4 <= end; i += 4)
      s0 = wasm_f32x4_add(s0, sum_lane(wasm_v128_load(x + i), em, c, vmax, row));
    if (i < end) { /* tail: pad with -Inf, whose exp is exactly 0 */
      s1 = wasm_f32x4_add(s1, sum_lane(ss_load_partial(x + i, end - i, -INFINITY), em, c, vmax, row));
      i = end;
    }
    total += ss_hsum_f64(wasm_f32x4_add(s0, s1));
  }
  return total;
}

/* The max entry contributes exp(0) = 1 exactly (SS_EXPM_ONE), so S >= 1:
   LSE >= max and log_softmax <= 0 hold exactly. */
double ss_sum_exp_simd(const float *x, size_t n, float max) {
  ss_expm em;
  const ss_exp_consts c = ss_exp_consts_load();
  const v128_t vmax = wasm_f32x4_splat(max);
  if (ss_expm_init(max, SS_EXPM_ONE, &em)) return sum_exp(x, n, &em, &c, vmax, true);
  return sum_exp(x, n, &em, &c, vmax, false);
}

static ss_status lse_simd(const float *x, const float *q, size_t n,
                          const double *params, double *out) {
  (void)q;
  (void)params;
  const float max = ss_max_simd(x, n);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  *out = (double)max + log(ss_sum_exp_simd(x, n, max));
  return SS_OK;
}

static ss_status lse_vjp_simd(const float *x, size_t n, const double *params,
                              double g, float *dp) {
  (void)params;
  const float max = ss_max_simd(x, n);
  ss_status s = ss_classify_max(max);
  if (s == SS_OK) s = check_g(g);
  if (s != SS_OK) return s;
  const double sum = ss_exp_store_simd(x, n, max, 1.0f, dp);
  ss_scale_simd(dp, n, (float)(g / sum), dp);
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_logsumexp = {
    .name = "logsumexp",
    .family = SS_FAMILY_MEASURE,
    .summary = "Log-sum-exp of the logits, max-shifted; its gradient is softmax",
    .formula = "LSE(x) = m + log sum_i exp(x_i - m), m = max x; "
               "d LSE / dx = softmax(x); m <= LSE <= m + log n",
    .paper = "The max-shift trick as in Blanchard, Higham & Higham 2021, "
             "'Accurately computing the log-sum-exp and softmax functions'",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_LOGITS,
    .has_backward = true,
    .measure = SS_IMPLS(lse),
    .measure_vjp = SS_IMPLS(lse_vjp),
    .relaxed_simd = "softmax's exp with relaxed_madd (fused or not): "
                    "|LSE - LSE_float64| <= 5e-7, gradient as softmax",
};

ss_status ss_logsumexp(const float *x, size_t n, double *out) {
  return ss_measure(&ss_kernel_logsumexp, ss_impl_default(), x, NULL, n, NULL,
                    0, out);
}
