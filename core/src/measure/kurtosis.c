/*
 * kurtosis — Pearson's kurtosis of a vector of values (Pearson 1905):
 *
 *   K(x) = m4 / m2^2,   m_k = (1/n) sum_i (x_i - mu)^k,   mu = (1/n) sum_i x_i
 *
 * (population moments; a normal sample gives 3, a uniform one 1.8, two equal
 * halves +-a give the minimum 1, and one outlier among n values gives ~n).
 * Softpick (Zuhri, Fuadi & Aji 2025) reports it for the hidden states of a
 * transformer: 33,510 with softmax attention against 340 with softpick,
 * the heavy tail being the "massive activations" (max_median_ratio.c).
 *
 * Domain: any finite values (NaN -> SS_ERR_NAN, +-Inf -> SS_ERR_NONFINITE);
 * a constant vector (m2 = 0, which includes n = 1) has no kurtosis and is
 * SS_ERR_DOMAIN.
 *
 * Numerics: two passes in double (the mean, then the central powers, then
 * re-centred on the rounding error of the mean), so no cancellation
 * between raw moments and no loss for values far from 0; the float inputs are exact in
 * double, (x - mu)^4 <= (2 FLT_MAX)^4 ~ 2e155 cannot overflow and
 * (2^-149)^4 cannot underflow. A constant vector gives mu exactly equal to
 * its value (n v is exact in double for n <= 2^26), hence m2 = 0 exactly.
 * The SIMD version runs the same formulas in f64x2 lanes (4 accumulators
 * instead of 1), so the two agree to ~n 2^-53 relative.
 *
 * Backward: with d_i = x_i - mu (and sum_i d_i = 0),
 *   dm2/dx_i = (2/n) d_i,   dm4/dx_i = (4/n) (d_i^3 - m3),
 *   dK/dx_i  = (4 / (n m2^2)) (d_i^3 - m3 - K m2 d_i).
 * The gradient sums to 0 (shift invariance) and sum_i x_i dK/dx_i = 0
 * (scale invariance). SS_ERR_NONFINITE when g dK/dx would overflow float
 * (a nearly constant vector: the gradient grows like 1/sigma).
 */
#include <float.h>
#include <math.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"
#include "measure/measure_internal.h"

/* ---- scalar reference ------------------------------------------------- */

/* The moments about mu + c from the power sums a_k = sum d^k of the
   deviations d = x - mu from the computed mean mu (c = a1 / cnt, the
   rounding error of mu, tiny): the binomial re-centring
     M2 = m2 - c^2,  M3 = m3 - 3 c m2 + 2 c^3,  M4 = m4 - 4 c m3 + 6 c^2 m2 - 3 c^4
   (m_k = a_k / cnt) removes the first-order effect of that error on m4,
   which would otherwise cost ~|mu| / sigma ulps (values far from 0). */
static void center_moments(double mu, double cnt, double a1, double a2, double a3, double a4,
                              ss_moments *mo) {
  const double c = a1 / cnt, m2 = a2 / cnt, m3 = a3 / cnt, m4 = a4 / cnt, c2 = c * c;
  mo->mean = mu + c;
  mo->m2 = m2 - c2;
  mo->m3 = m3 - 3.0 * c * m2 + 2.0 * c2 * c;
  mo->m4 = m4 - 4.0 * c * m3 + 6.0 * c2 * m2 - 3.0 * c2 * c2;
}

void ss_moments_scalar(const float *x, size_t rows, size_t cols, size_t stride, ss_moments *mo) {
  double s = 0.0;
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) s += x[r * stride + c];
  const double cnt = (double)rows * (double)cols, mu = s / cnt;
  double a1 = 0.0, a2 = 0.0, a3 = 0.0, a4 = 0.0;
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) {
      const double d = (double)x[r * stride + c] - mu, d2 = d * d;
      a1 += d, a2 += d2, a3 += d2 * d, a4 += d2 * d2;
    }
  center_moments(mu, cnt, a1, a2, a3, a4, mo);
}

/* K from the moments; SS_ERR_DOMAIN for a constant vector. */
static ss_status kurtosis_of(const ss_moments *mo, double *out) {
  if (!(mo->m2 > 0.0)) return SS_ERR_DOMAIN;
  *out = mo->m4 / (mo->m2 * mo->m2);
  return SS_OK;
}

static ss_status kurtosis_scalar(const float *p, const float *q, size_t n, const double *params,
                                 double *out) {
  (void)q, (void)params;
  ss_status s = ss_check_finite(p, n);
  if (s != SS_OK) return s;
  ss_moments mo;
  ss_moments_scalar(p, 1, n, n, &mo);
  return kurtosis_of(&mo, out);
}

/* The VJP's factor c = 4 g / (n m2^2), K m2 and m3, after checking that no
   entry of c (d^3 - m3 - K m2 d) overflows float (max |d| <= dmax). */
typedef struct { double c, km2, m3, mean; } vjp_consts;

static ss_status vjp_setup(const ss_moments *mo, size_t n, double g, double dmax, vjp_consts *v) {
  double k;
  ss_status s = kurtosis_of(mo, &k);
  if (s != SS_OK) return s;
  v->c = 4.0 * g / ((double)n * mo->m2 * mo->m2);
  v->km2 = k * mo->m2, v->m3 = mo->m3, v->mean = mo->mean;
  const double bound = fabs(v->c) * (dmax * dmax * dmax + fabs(v->m3) + v->km2 * dmax);
  if (!(bound * (1.0 + 1e-6) <= FLT_MAX)) return SS_ERR_NONFINITE;
  return SS_OK;
}

static ss_status kurtosis_vjp_scalar(const float *p, size_t n, const double *params, double g,
                                     float *dp) {
  (void)params;
  ss_status s = ss_check_finite(p, n);
  if (s != SS_OK) return s;
  ss_moments mo;
  ss_moments_scalar(p, 1, n, n, &mo);
  double dmax = 0.0;
  for (size_t i = 0; i < n; i++) dmax = fmax(dmax, fabs((double)p[i] - mo.mean));
  vjp_consts v;
  if ((s = vjp_setup(&mo, n, g, dmax, &v)) != SS_OK) return s;
  for (size_t i = 0; i < n; i++) {
    const double d = (double)p[i] - v.mean;
    dp[i] = (float)(v.c * (d * d * d - v.m3 - v.km2 * d));
  }
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* The four lanes of a float vector as two f64x2 minus mu. */
SS_ALWAYS_INLINE void dev_f64(v128_t a, v128_t mu, v128_t *lo, v128_t *hi) {
  *lo = wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(a), mu);
  *hi = wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(a, a, 2, 3, 2, 3)), mu);
}

SS_ALWAYS_INLINE void acc_powers(v128_t d, v128_t *a1, v128_t *a2, v128_t *a3, v128_t *a4) {
  const v128_t d2 = wasm_f64x2_mul(d, d);
  *a1 = wasm_f64x2_add(*a1, d);
  *a2 = wasm_f64x2_add(*a2, d2);
  *a3 = wasm_f64x2_add(*a3, wasm_f64x2_mul(d2, d));
  *a4 = wasm_f64x2_add(*a4, wasm_f64x2_mul(d2, d2));
}

/* Contiguous moments; returns SS_ERR_NAN / SS_ERR_NONFINITE for a
   non-finite input (a double sum of floats is finite iff every input is). */
static ss_status moments_simd(const float *p, size_t n, ss_moments *mo) {
  const double s = ss_sum_f64_simd(p, n);
  if (!isfinite(s)) return ss_finite_scan_simd(p, n);
  size_t i;
  const double mu = s / (double)n;
  const v128_t vmu = wasm_f64x2_splat(mu), z = wasm_f64x2_splat(0.0);
  v128_t a1 = z, a2 = z, a3 = z, a4 = z, b1 = z, b2 = z, b3 = z, b4 = z;
  for (i = 0; i + 4 <= n; i += 4) {
    v128_t dl, dh;
    dev_f64(wasm_v128_load(p + i), vmu, &dl, &dh);
    acc_powers(dl, &a1, &a2, &a3, &a4);
    acc_powers(dh, &b1, &b2, &b3, &b4);
  }
  double t1 = ss_hsum_f64x2(a1, b1), t2 = ss_hsum_f64x2(a2, b2), t3 = ss_hsum_f64x2(a3, b3),
         t4 = ss_hsum_f64x2(a4, b4);
  for (; i < n; i++) {
    const double d = (double)p[i] - mu, d2 = d * d;
    t1 += d, t2 += d2, t3 += d2 * d, t4 += d2 * d2;
  }
  center_moments(mu, (double)n, t1, t2, t3, t4, mo);
  return SS_OK;
}

static ss_status kurtosis_simd(const float *p, const float *q, size_t n, const double *params,
                               double *out) {
  (void)q, (void)params;
  ss_moments mo;
  ss_status s = moments_simd(p, n, &mo);
  if (s != SS_OK) return s;
  return kurtosis_of(&mo, out);
}

static ss_status kurtosis_vjp_simd(const float *p, size_t n, const double *params, double g,
                                   float *dp) {
  (void)params;
  ss_moments mo;
  ss_status s = moments_simd(p, n, &mo);
  if (s != SS_OK) return s;
  /* max |d| from min and max of p */
  float lo = p[0], hi = p[0];
  for (size_t i = 1; i < n; i++) lo = fminf(lo, p[i]), hi = fmaxf(hi, p[i]);
  vjp_consts v;
  if ((s = vjp_setup(&mo, n, g, fmax(fabs(lo - mo.mean), fabs(hi - mo.mean)), &v)) != SS_OK) return s;
  const v128_t vmu = wasm_f64x2_splat(v.mean), c = wasm_f64x2_splat(v.c);
  const v128_t m3 = wasm_f64x2_splat(v.m3), km2 = wasm_f64x2_splat(v.km2);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    v128_t dl, dh;
    dev_f64(wasm_v128_load(p + i), vmu, &dl, &dh);
    const v128_t tl = wasm_f64x2_sub(wasm_f64x2_sub(wasm_f64x2_mul(wasm_f64x2_mul(dl, dl), dl), m3),
                                     wasm_f64x2_mul(km2, dl));
    const v128_t th = wasm_f64x2_sub(wasm_f64x2_sub(wasm_f64x2_mul(wasm_f64x2_mul(dh, dh), dh), m3),
                                     wasm_f64x2_mul(km2, dh));
    const v128_t rl = wasm_f32x4_demote_f64x2_zero(wasm_f64x2_mul(c, tl));
    const v128_t rh = wasm_f32x4_demote_f64x2_zero(wasm_f64x2_mul(c, th));
    wasm_v128_store(dp + i, wasm_i32x4_shuffle(rl, rh, 0, 1, 4, 5));
  }
  for (; i < n; i++) {
    const double d = (double)p[i] - v.mean;
    dp[i] = (float)(v.c * (d * d * d - v.m3 - v.km2 * d));
  }
  return SS_OK;
}
#endif

const ss_kernel_info ss_kernel_kurtosis = {
    .name = "kurtosis",
    .family = SS_FAMILY_MEASURE,
    .summary = "Pearson kurtosis of a vector of values (normal: 3); heavy tails, massive "
               "activations",
    .formula = "K = m4 / m2^2,  m_k = (1/n) sum_i (x_i - mean)^k",
    .paper = "Pearson 1905; as an outlier measure of hidden states: Zuhri, Fuadi & Aji 2025, "
             "'Softpick: No Attention Sink, No Massive Activations with Rectified Softmax' "
             "(340 vs 33,510)",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_VALUES,
    .has_backward = true,
    .measure = SS_IMPLS(kurtosis),
    .measure_vjp = SS_IMPLS(kurtosis_vjp),
};
