/*
 * entropy — Shannon entropy in nats, and effective_count = exp(H).
 *
 *   H(p) = -sum_i p_i log p_i,   0 log 0 = 0        (Shannon 1948)
 *
 * p is used as given (weights that do not sum to 1 are fine; H is then the
 * same formula, not the entropy of p / sum p).
 *
 * Scalar reference: libm log in double, sum in double.
 * SIMD: float32 log of common/log_simd.h (<= 1 ulp), products and sums in
 * float64 lanes, so |H_simd - H| <= ~1.2e-7 * sum_i p_i |log p_i|
 * (measured 4.7e-8 relative; tests/c/test_measures.c asserts 2e-7).
 *
 * Backward: dH/dp_i = -(log p_i + 1). At p_i = 0 the one-sided derivative is
 * +Inf, so the VJP returns SS_ERR_DOMAIN when any p_i == 0 instead of
 * inventing a finite value (use a strictly positive p, e.g. softmax without
 * underflow, or drop the zero entries); and SS_ERR_NONFINITE when
 * |g| * max_i |log p_i + 1| would overflow float32.
 */
#include <float.h>
#include <math.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/log_simd.h"
#include "common/vec_simd.h"
#include "measure/measure_internal.h"

/* ---- scalar reference ------------------------------------------------- */

double ss_shannon_scalar(const float *p, size_t n) {
  double h = 0.0;
  for (size_t i = 0; i < n; i++)
    if (p[i] > 0.0f) h -= (double)p[i] * log((double)p[i]);
  return h;
}

/* Shared check of the VJP: p > 0 everywhere and a finite float result. */
static ss_status vjp_check(float lo, float hi, double g) {
  if (lo == 0.0f) return SS_ERR_DOMAIN;
  const double a = fabs(log((double)lo) + 1.0), b = fabs(log((double)hi) + 1.0);
  /* 1e-6 margin: the float32 log of the SIMD version may be a little larger */
  if (fabs(g) * (a > b ? a : b) * (1.0 + 1e-6) > FLT_MAX) return SS_ERR_NONFINITE;
  return SS_OK;
}

static ss_status entropy_vjp_scalar(const float *p, size_t n,
                                    const double *params, double g,
                                    float *dp) {
  (void)params;
  float lo, hi;
  ss_status s = ss_probs_minmax_scalar(p, n, &lo, &hi);
  if (s != SS_OK) return s;
  s = vjp_check(lo, hi, g);
  if (s != SS_OK) return s;
  for (size_t i = 0; i < n; i++)
    dp[i] = (float)(-g * (log((double)p[i]) + 1.0));
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* -sum p log p: zero entries are masked to an exact 0 term. */
double ss_shannon_simd(const float *p, size_t n) {
  const v128_t zero = wasm_f32x4_splat(0.0f);
  v128_t lo0 = wasm_f64x2_splat(0.0), hi0 = lo0, lo1 = lo0, hi1 = lo0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t a = wasm_v128_load(p + i), b = wasm_v128_load(p + i + 4);
    const v128_t la = wasm_v128_andnot(ss_log_pos_f32x4(a), wasm_f32x4_eq(a, zero));
    const v128_t lb = wasm_v128_andnot(ss_log_pos_f32x4(b), wasm_f32x4_eq(b, zero));
    ss_acc_mul_f64(&lo0, &hi0, a, la);
    ss_acc_mul_f64(&lo1, &hi1, b, lb);
  }
  for (; i < n; i += 4) { /* tail padded with 0, which adds 0 */
    const v128_t a = n - i >= 4 ? wasm_v128_load(p + i) : ss_load_partial(p + i, n - i, 0.0f);
    const v128_t la = wasm_v128_andnot(ss_log_pos_f32x4(a), wasm_f32x4_eq(a, zero));
    ss_acc_mul_f64(&lo0, &hi0, a, la);
  }
  /* 0.0 - s, not -s: a one-hot p gives +0, as the scalar reference does. */
  return 0.0 - (ss_hsum_f64x2(lo0, hi0) + ss_hsum_f64x2(lo1, hi1));
}

/* dp = -g (log p + 1): float32 log, the product by g in double (g may be
   beyond float range while the product is not). */
static ss_status entropy_vjp_simd(const float *p, size_t n,
                                  const double *params, double g, float *dp) {
  (void)params;
  float lo, hi;
  ss_status s = ss_probs_minmax_simd(p, n, &lo, &hi);
  if (s != SS_OK) return s;
  s = vjp_check(lo, hi, g);
  if (s != SS_OK) return s;
  const v128_t one = wasm_f32x4_splat(1.0f), mg = wasm_f64x2_splat(-g);
  size_t i = 0;
  for (; i < n; i += 4) {
    const size_t rem = n - i;
    const v128_t a = rem >= 4 ? wasm_v128_load(p + i) : ss_load_partial(p + i, rem, 1.0f);
    const v128_t t = wasm_f32x4_add(ss_log_pos_f32x4(a), one);
    const v128_t th = wasm_i32x4_shuffle(t, t, 2, 3, 2, 3);
    const v128_t rl = wasm_f32x4_demote_f64x2_zero(
        wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(t), mg));
    const v128_t rh = wasm_f32x4_demote_f64x2_zero(
        wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(th), mg));
    const v128_t r = wasm_i32x4_shuffle(rl, rh, 0, 1, 4, 5);
    if (rem >= 4)
      wasm_v128_store(dp + i, r);
    else
      ss_store_partial(dp + i, rem, r);
  }
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- both impls (one body each, common/impl_pair.h) -------------------- */

SS_ALWAYS_INLINE ss_status entropy_run(ss_impl impl, const float *p, const float *q, size_t n,
                                       const double *params, double *out) {
  (void)q, (void)params;
  ss_status s = SS_BY_IMPL(impl, ss_probs_check)(p, n);
  if (s != SS_OK) return s;
  *out = SS_BY_IMPL(impl, ss_shannon)(p, n);
  return SS_OK;
}

SS_ALWAYS_INLINE ss_status effective_count_run(ss_impl impl, const float *p, const float *q,
                                               size_t n, const double *params, double *out) {
  double h;
  ss_status s = entropy_run(impl, p, q, n, params, &h);
  if (s != SS_OK) return s;
  *out = exp(h);
  return SS_OK;
}

SS_MEASURE_IMPLS(entropy, entropy_run)
SS_MEASURE_IMPLS(effective_count, effective_count_run)

/* ---- registry entries --------------------------------------------------- */

const ss_kernel_info ss_kernel_entropy = {
    .name = "entropy",
    .family = SS_FAMILY_MEASURE,
    .summary = "Shannon entropy in nats (0 log 0 = 0); p used as given, "
               "need not sum to 1. Backward needs every p_i > 0",
    .formula = "H(p) = -sum_i p_i log p_i;  dH/dp_i = -(log p_i + 1)",
    .paper = "Shannon 1948, 'A Mathematical Theory of Communication'",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_PROBS,
    .has_backward = true,
    .measure = SS_IMPLS(entropy),
    .measure_vjp = SS_IMPLS(entropy_vjp),
};

const ss_kernel_info ss_kernel_effective_count = {
    .name = "effective_count",
    .family = SS_FAMILY_MEASURE,
    .summary = "Effective number of outcomes, exp of the Shannon entropy "
               "(n for a uniform p, 1 for one-hot)",
    .formula = "exp(H(p)) = exp(-sum_i p_i log p_i)",
    .paper = "Shannon 1948; as the perplexity / Hill number of order 1 "
             "(Hill 1973, 'Diversity and Evenness')",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_PROBS,
    .has_backward = false,
    .measure = SS_IMPLS(effective_count),
};
