/*
 * log_softmax — log-probabilities in three passes, never forming softmax:
 *
 *   m   = max_i x_i
 *   S   = sum_i exp(x_i - m)         (not stored; S >= 1)
 *   c   = m + log S                  (the log-sum-exp, in double)
 *   y_i = x_i - c
 *
 * A -Inf logit gives y_i = -Inf (log 0), exactly. Computing x_i - c directly
 * (not log(softmax)) keeps full relative accuracy for very negative y_i,
 * where softmax has underflowed.
 *
 * Backward: y = x - LSE(x), dLSE/dx = softmax(x) = exp(y), so
 *   dx = g - exp(y) * sum_j g_j.
 *
 * Scalar reference: sum of libm exp in double, y_i = fl(x_i - c) with c in
 * double (correctly rounded up to the rounding of c).
 * SIMD: max, softmax's row-reduced exp summed 32 wide (softmax/logsumexp.c),
 * then y = (x - c_hi) - c_lo with c split into floats: rounded once when
 * |x|, |c| >> |y| (x ~ 1e4: x - c_hi is then exact), at most twice (1 ulp)
 * otherwise. Relaxed build: the exp's multiply-adds are relaxed_madd; only
 * log S depends on them, so the bound holds fused or not.
 * Measured (tests/c/test_log_softmax.c): |y - y_float64| <= 2e-6 * max(1, |y|).
 */
#include <float.h>
#include <math.h>

#include "common/check.h"
#include "common/exp_simd.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"
#include "softmax/logsumexp.h"

/* ---- scalar reference ------------------------------------------------- */

static ss_status log_softmax_scalar(const float *x, size_t n,
                                    const double *params, float *y) {
  (void)params;
  float max;
  ss_status s = ss_check_logits(x, n, &max);
  if (s != SS_OK) return s;
  const double c = (double)max + log(ss_sum_exp_scalar(x, n, max));
  for (size_t i = 0; i < n; i++) y[i] = (float)((double)x[i] - c);
  return SS_OK;
}

/* y must be log-probabilities: NaN is refused, and so is y > 0 (exp(y) > 1
   is no probability; this kernel's forward never gives y > 0 since S >= 1). */
static ss_status check_log_probs(float ymax) {
  if (isnan(ymax)) return SS_ERR_NAN;
  if (ymax > 0.0f) return SS_ERR_DOMAIN;
  return SS_OK;
}

/* dx = g - exp(y) * sum(g), all in double (sum(g) cannot overflow there). */
static void vjp_f64(const float *y, const float *g, size_t n, float *dx) {
  double sg = 0.0;
  for (size_t i = 0; i < n; i++) sg += g[i];
  for (size_t i = 0; i < n; i++)
    dx[i] = (float)((double)g[i] - exp((double)y[i]) * sg);
}

static ss_status log_softmax_vjp_scalar(const float *x, const float *y,
                                        const float *g, size_t n,
                                        const double *params, float *dx) {
  (void)x;
  (void)params;
  float ymax = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    if (isnan(y[i])) return SS_ERR_NAN;
    if (y[i] > ymax) ymax = y[i];
  }
  ss_status s = check_log_probs(ymax);
  if (s != SS_OK) return s;
  vjp_f64(y, g, n, dx);
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* y = (x - c_hi) - c_lo, c = c_hi + c_lo (floats). When |x|, |c| >> |y|
   (x ~ 1e4) x - c_hi is exact (Sterbenz: x and c_hi are within a factor
   of 2), so y is rounded once; otherwise y is rounded twice, <= 1 ulp. A
   masked logit gives -Inf - c = -Inf. Two instructions per vector (TwoSum
   and its -Inf fix-up took eleven). */
static ss_status log_softmax_simd(const float *x, size_t n,
                                  const double *params, float *y) {
  (void)params;
  const float max = ss_max_simd(x, n);
  ss_status s = ss_classify_max(max);
  if (s != SS_OK) return s;
  const double c = (double)max + log(ss_sum_exp_simd(x, n, max));
  const float chi_f = (float)c;
  const v128_t chi = wasm_f32x4_splat(chi_f);
  const v128_t clo = wasm_f32x4_splat((float)(c - (double)chi_f));
#define SS_SUB_C(v) wasm_f32x4_sub(wasm_f32x4_sub((v), chi), clo)
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t y0 = SS_SUB_C(wasm_v128_load(x + i));
    const v128_t y1 = SS_SUB_C(wasm_v128_load(x + i + 4));
    const v128_t y2 = SS_SUB_C(wasm_v128_load(x + i + 8));
    const v128_t y3 = SS_SUB_C(wasm_v128_load(x + i + 12));
    wasm_v128_store(y + i, y0);
    wasm_v128_store(y + i + 4, y1);
    wasm_v128_store(y + i + 8, y2);
    wasm_v128_store(y + i + 12, y3);
  }
  for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, SS_SUB_C(wasm_v128_load(x + i)));
  if (i < n) ss_store_partial(y + i, n - i, SS_SUB_C(ss_load_partial(x + i, n - i, -INFINITY)));
#undef SS_SUB_C
  return SS_OK;
}

static ss_status log_softmax_vjp_simd(const float *x, const float *y,
                                      const float *g, size_t n,
                                      const double *params, float *dx) {
  (void)x;
  (void)params;
  /* Pass 1: sum of g (float blocks into double) and NaN-propagating max of y. */
  double sg = 0.0;
  v128_t m0 = wasm_f32x4_splat(-INFINITY), m1 = m0;
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0, s2 = s0, s3 = s0;
    for (; i + 16 <= end; i += 16) {
      s0 = wasm_f32x4_add(s0, wasm_v128_load(g + i));
      s1 = wasm_f32x4_add(s1, wasm_v128_load(g + i + 4));
      s2 = wasm_f32x4_add(s2, wasm_v128_load(g + i + 8));
      s3 = wasm_f32x4_add(s3, wasm_v128_load(g + i + 12));
      m0 = wasm_f32x4_max(m0, wasm_f32x4_max(wasm_v128_load(y + i), wasm_v128_load(y + i + 4)));
      m1 = wasm_f32x4_max(m1, wasm_f32x4_max(wasm_v128_load(y + i + 8), wasm_v128_load(y + i + 12)));
    }
    for (; i + 4 <= end; i += 4) {
      s0 = wasm_f32x4_add(s0, wasm_v128_load(g + i));
      m0 = wasm_f32x4_max(m0, wasm_v128_load(y + i));
    }
    for (; i < end; i++) {
      sg += g[i];
      m1 = wasm_f32x4_max(m1, wasm_f32x4_splat(y[i]));
    }
    sg += ss_hsum_f64(wasm_f32x4_add(wasm_f32x4_add(s0, s1), wasm_f32x4_add(s2, s3)));
  }
  m0 = wasm_f32x4_max(m0, m1);
  m0 = wasm_f32x4_max(m0, wasm_i32x4_shuffle(m0, m0, 2, 3, 0, 1));
  m0 = wasm_f32x4_max(m0, wasm_i32x4_shuffle(m0, m0, 1, 0, 3, 2));
  ss_status s = check_log_probs(wasm_f32x4_extract_lane(m0, 0));
  if (s != SS_OK) return s;
  /* A sum beyond the float range (or a float block sum that overflowed)
     would make 0 * Inf = NaN for masked entries; double arithmetic gives the
     honest result (+-Inf only where dx itself overflows) instead. */
  if (!(fabs(sg) <= FLT_MAX)) {
    vjp_f64(y, g, n, dx);
    return SS_OK;
  }
  /* Pass 2: dx = g - exp(y) * sum(g); y <= 0 and exp(-Inf) = 0. */
  const ss_exp_consts c = ss_exp_consts_load();
  const v128_t vs = wasm_f32x4_splat((float)sg);
#define SS_LSM_DX(k)                                                         \
  wasm_v128_store(dx + i + (k),                                              \
                  wasm_f32x4_sub(wasm_v128_load(g + i + (k)),                \
                                 wasm_f32x4_mul(ss_exp_nonpos_f32x4(          \
                                                    wasm_v128_load(y + i + (k)), &c), \
                                                vs)))
  for (i = 0; i + 16 <= n; i += 16) {
    SS_LSM_DX(0);
    SS_LSM_DX(4);
    SS_LSM_DX(8);
    SS_LSM_DX(12);
  }
  for (; i + 4 <= n; i += 4) SS_LSM_DX(0);
#undef SS_LSM_DX
  if (i < n) {
    const size_t rem = n - i;
    const v128_t p = ss_exp_nonpos_f32x4(ss_load_partial(y + i, rem, -INFINITY), &c);
    ss_store_partial(dx + i, rem,
                     wasm_f32x4_sub(ss_load_partial(g + i, rem, 0.0f),
                                    wasm_f32x4_mul(p, vs)));
  }
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_log_softmax = {
    .name = "log_softmax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Log-softmax: log-probabilities x - logsumexp(x), three passes",
    .formula = "y_i = x_i - m - log sum_j exp(x_j - m), m = max x; "
               "VJP: dx = g - exp(y) sum_j g_j",
    .paper = "Blanchard, Higham & Higham 2021, 'Accurately computing the "
             "log-sum-exp and softmax functions'",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_LOG_PROBS,
    .has_backward = true,
    .in_place = true,
    .normalize = SS_IMPLS(log_softmax),
    .normalize_vjp = SS_IMPLS(log_softmax_vjp),
    .relaxed_simd = "softmax's exp with relaxed_madd in log S (fused or not): "
                    "|y - y_float64| <= 5e-7 max(1, |y|)",
};

ss_status ss_log_softmax(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_log_softmax, ss_impl_default(), x, n, NULL, 0,
                      y);
}
