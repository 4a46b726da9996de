/*
 * LayerNorm (Ba, Kiros & Hinton 2016, "Layer Normalization";
 * torch.nn.LayerNorm, biased variance), per row of d features:
 *
 *   mu = mean_j x_j,  var = mean_j (x_j - mu)^2,  inv = 1 / sqrt(var + eps)
 *   xhat_j = (x_j - mu) inv,  y_j = xhat_j g_j + b_j
 *
 * backward, given dy (gd_j = g_j dy_j):
 *
 *   dx_j = inv (gd_j - mean_k gd_k - xhat_j mean_k gd_k xhat_k)
 *   dgain_j = sum_rows dy_j xhat_j,  dbias_j = sum_rows dy_j
 *
 * The backward recomputes mu and inv from x, so forward keeps no state.
 * eps = 0 and a constant row is SS_ERR_DOMAIN (0 / 0).
 *
 * Scalar reference: everything in double, each output rounded once. SIMD:
 * mu (ss_sum4_simd) and var in f64x2 lanes (x_j - mu and its square in
 * double), xhat_j rounded to float from double lanes, the rest in float:
 *
 *   |y - y64|       <= 3 2^-24 (|xhat_j g_j| + |b_j|) + 2^-149
 *   |dx - dx64|     <= 8 2^-24 inv (|gd_j| + mean_k |gd_k| + |xhat_j| mean_k |gd_k xhat_k|)
 *   |dgain - dg64|  <= 2 2^-24 sum_rows |dy_j xhat_j|,  |dbias - db64| <= 2^-24 |db64|
 *
 * A SIMD call whose float values could overflow (an output or a term
 * >= 2^127, inv > 2^64: eps ~ 0 and a nearly constant row) is computed by
 * the scalar reference, which gives SS_ERR_DOMAIN for an output beyond
 * FLT_MAX.
 */
#include <string.h>

#include "common/impl_pair.h"
#include "common/sum4.h"
#include "model/layers.h"
#include "model/model_internal.h"

/* inv = 1 / sqrt(sq / d + eps); false for 0 / 0. */
static bool inv_std(double sq, size_t d, double eps, double *inv) {
  const double den = sq / (double)d + eps;
  if (!(den > 0.0)) return false;
  *inv = 1.0 / sqrt(den);
  return true;
}

/* ---- scalar reference ---- */

/* mu and inv of a row; false for 0 / 0. */
static bool moments_scalar(const float *xr, size_t d, double eps, double *mu, double *inv) {
  *mu = ss_sum4_scalar(xr, d) / (double)d;
  double sq = 0.0;
  for (size_t j = 0; j < d; j++) sq += ((double)xr[j] - *mu) * ((double)xr[j] - *mu);
  return inv_std(sq, d, eps, inv);
}

static ss_status forward_scalar(const float *x, size_t rows, size_t d, const float *g,
                                const float *b, double eps, float *y) {
  for (size_t r = 0; r < rows; r++) {
    const float *xr = x + r * d;
    double mu, inv;
    if (!moments_scalar(xr, d, eps, &mu, &inv)) return SS_ERR_DOMAIN;
    for (size_t j = 0; j < d; j++) {
      const double v = ((double)xr[j] - mu) * inv * (double)g[j] + (b ? (double)b[j] : 0.0);
      if (!ss_model_f32(v, &y[r * d + j])) return SS_ERR_DOMAIN;
    }
  }
  return SS_OK;
}

static ss_status backward_scalar(const float *x, size_t rows, size_t d, const float *g,
                                 double eps, const float *dy, float *dx, float *dgain,
                                 float *dbias) {
  double accg[SS_NORM_MAX_D], accb[SS_NORM_MAX_D];
  memset(accg, 0, d * sizeof(double));
  memset(accb, 0, d * sizeof(double));
  for (size_t r = 0; r < rows; r++) {
    const float *xr = x + r * d, *dyr = dy + r * d;
    double mu, inv;
    if (!moments_scalar(xr, d, eps, &mu, &inv)) return SS_ERR_DOMAIN;
    double a = 0.0, c = 0.0;
    for (size_t k = 0; k < d; k++) {
      const double gd = (double)g[k] * (double)dyr[k];
      a += gd;
      c += gd * (((double)xr[k] - mu) * inv);
    }
    a /= (double)d;
    c /= (double)d;
    for (size_t j = 0; j < d; j++) {
      const double xh = ((double)xr[j] - mu) * inv;
      if (!ss_model_f32(inv * ((double)g[j] * (double)dyr[j] - a - xh * c), &dx[r * d + j]))
        return SS_ERR_DOMAIN;
      accg[j] += (double)dyr[j] * xh;
      accb[j] += (double)dyr[j];
    }
  }
  for (size_t j = 0; j < d; j++)
    if ((dgain && !ss_model_f32(accg[j], &dgain[j])) || (dbias && !ss_model_f32(accb[j], &dbias[j])))
      return SS_ERR_DOMAIN;
  return SS_OK;
}

/* ---- SIMD ---- */

#if SS_HAVE_SIMD
/* xhat of four lanes: (x - mu) inv in double, rounded to float. */
static inline v128_t xhat_f32x4(v128_t x, v128_t mu, v128_t inv) {
  const v128_t lo = wasm_f64x2_mul(wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(x), mu), inv);
  const v128_t hi = wasm_f64x2_mul(
      wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(x, x, 2, 3, 2, 3)), mu), inv);
  return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0,
                            1, 4, 5);
}

/* mu and inv of a row (f64x2 lanes); false for 0 / 0. */
static bool moments_simd(const float *xr, size_t d, double eps, double *mu, double *inv) {
  *mu = ss_sum4_simd(xr, d) / (double)d;
  const v128_t vm = wasm_f64x2_splat(*mu);
  v128_t s0 = wasm_f64x2_splat(0.0), s1 = s0;
  size_t j = 0;
  for (; j + 4 <= d; j += 4) {
    const v128_t v = wasm_v128_load(xr + j);
    const v128_t lo = wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(v), vm);
    const v128_t hi = wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v, v, 2, 3, 2, 3)), vm);
    s0 = wasm_f64x2_add(s0, wasm_f64x2_mul(lo, lo));
    s1 = wasm_f64x2_add(s1, wasm_f64x2_mul(hi, hi));
  }
  double sq = (wasm_f64x2_extract_lane(s0, 0) + wasm_f64x2_extract_lane(s0, 1)) +
              (wasm_f64x2_extract_lane(s1, 0) + wasm_f64x2_extract_lane(s1, 1));
  for (; j < d; j++) sq += ((double)xr[j] - *mu) * ((double)xr[j] - *mu);
  return inv_std(sq, d, eps, inv);
}

/* SS_OK, SS_ERR_DOMAIN, or SS_DECLINED (common/impl_pair.h). */
static ss_status forward_simd(const float *x, size_t rows, size_t d, const float *g,
                              const float *b, double eps, float *y) {
  for (size_t r = 0; r < rows; r++) {
    const float *xr = x + r * d;
    float *yr = y + r * d;
    double mu, inv;
    if (!moments_simd(xr, d, eps, &mu, &inv)) return SS_ERR_DOMAIN;
    const v128_t vm = wasm_f64x2_splat(mu), vi = wasm_f64x2_splat(inv);
    size_t j = 0;
    for (; j + 4 <= d; j += 4) {
      const v128_t t = wasm_f32x4_mul(xhat_f32x4(wasm_v128_load(xr + j), vm, vi), wasm_v128_load(g + j));
      wasm_v128_store(yr + j, b ? wasm_f32x4_add(t, wasm_v128_load(b + j)) : t);
    }
    for (; j < d; j++) {
      const float t = (float)(((double)xr[j] - mu) * inv) * g[j];
      yr[j] = b ? t + b[j] : t;
    }
  }
  return ss_model_big_simd(y, rows * d) ? SS_DECLINED : SS_OK;
}

static ss_status backward_simd(const float *x, size_t rows, size_t d, const float *g, double eps,
                               const float *dy, float *dx, float *dgain, float *dbias) {
  double accg[SS_NORM_MAX_D], accb[SS_NORM_MAX_D];
  memset(accg, 0, d * sizeof(double));
  memset(accb, 0, d * sizeof(double));
  for (size_t r = 0; r < rows; r++) {
    const float *xr = x + r * d, *dyr = dy + r * d;
    float *dxr = dx + r * d;
    double mu, inv;
    if (!moments_simd(xr, d, eps, &mu, &inv)) return SS_ERR_DOMAIN;
    if (inv > 0x1p64) return SS_DECLINED;
    const v128_t vm = wasm_f64x2_splat(mu), vi = wasm_f64x2_splat(inv);
    /* dxr = xhat for now; sums of gd, gd xhat (double lanes) and the
       dgain / dbias terms (exact products in double) */
    v128_t sa0 = wasm_f64x2_splat(0.0), sa1 = sa0, sc0 = sa0, sc1 = sa0;
    size_t j = 0;
    for (; j + 4 <= d; j += 4) {
      const v128_t vdy = wasm_v128_load(dyr + j);
      const v128_t xh = xhat_f32x4(wasm_v128_load(xr + j), vm, vi);
      wasm_v128_store(dxr + j, xh);
      const v128_t gd = wasm_f32x4_mul(wasm_v128_load(g + j), vdy);
      const v128_t gdl = wasm_f64x2_promote_low_f32x4(gd);
      const v128_t gdh = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(gd, gd, 2, 3, 2, 3));
      const v128_t xhl = wasm_f64x2_promote_low_f32x4(xh);
      const v128_t xhh = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(xh, xh, 2, 3, 2, 3));
      const v128_t dyl = wasm_f64x2_promote_low_f32x4(vdy);
      const v128_t dyh = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(vdy, vdy, 2, 3, 2, 3));
      sa0 = wasm_f64x2_add(sa0, gdl);
      sa1 = wasm_f64x2_add(sa1, gdh);
      sc0 = wasm_f64x2_add(sc0, wasm_f64x2_mul(gdl, xhl));
      sc1 = wasm_f64x2_add(sc1, wasm_f64x2_mul(gdh, xhh));
      wasm_v128_store(accg + j, wasm_f64x2_add(wasm_v128_load(accg + j), wasm_f64x2_mul(dyl, xhl)));
      wasm_v128_store(accg + j + 2, wasm_f64x2_add(wasm_v128_load(accg + j + 2), wasm_f64x2_mul(dyh, xhh)));
      wasm_v128_store(accb + j, wasm_f64x2_add(wasm_v128_load(accb + j), dyl));
      wasm_v128_store(accb + j + 2, wasm_f64x2_add(wasm_v128_load(accb + j + 2), dyh));
    }
    double a = (wasm_f64x2_extract_lane(sa0, 0) + wasm_f64x2_extract_lane(sa0, 1)) +
               (wasm_f64x2_extract_lane(sa1, 0) + wasm_f64x2_extract_lane(sa1, 1));
    double c = (wasm_f64x2_extract_lane(sc0, 0) + wasm_f64x2_extract_lane(sc0, 1)) +
               (wasm_f64x2_extract_lane(sc1, 0) + wasm_f64x2_extract_lane(sc1, 1));
    for (; j < d; j++) {
      const float xh = (float)(((double)xr[j] - mu) * inv), gd = g[j] * dyr[j];
      dxr[j] = xh;
      a += (double)gd;
      c += (double)gd * (double)xh;
      accg[j] += (double)dyr[j] * (double)xh;
      accb[j] += (double)dyr[j];
    }
    float af, cf;
    if (!ss_model_f32_small(a / (double)d, &af) || !ss_model_f32_small(c / (double)d, &cf))
      return SS_DECLINED;
    const float fi = (float)inv;
    const v128_t va = wasm_f32x4_splat(af), vc = wasm_f32x4_splat(cf), vfi = wasm_f32x4_splat(fi);
    for (j = 0; j + 4 <= d; j += 4) {
      const v128_t gd = wasm_f32x4_mul(wasm_v128_load(g + j), wasm_v128_load(dyr + j));
      const v128_t t = wasm_f32x4_sub(wasm_f32x4_sub(gd, va), wasm_f32x4_mul(wasm_v128_load(dxr + j), vc));
      wasm_v128_store(dxr + j, wasm_f32x4_mul(vfi, t));
    }
    for (; j < d; j++) dxr[j] = fi * ((g[j] * dyr[j] - af) - dxr[j] * cf);
  }
  if (ss_model_big_simd(dx, rows * d)) return SS_DECLINED;
  float tg, tb;
  for (size_t j = 0; j < d; j++)
    if (!ss_model_f32_small(accg[j], &tg) || !ss_model_f32_small(accb[j], &tb))
      return SS_DECLINED;
  for (size_t j = 0; j < d; j++) {
    if (dgain) dgain[j] = (float)accg[j];
    if (dbias) dbias[j] = (float)accb[j];
  }
  return SS_OK;
}
#endif

/* ---- entry points ---- */

ss_status ss_layernorm(ss_impl impl, const float *x, size_t rows, size_t d, const float *gain,
                       const float *bias, double eps, float *y) {
  if (!x || !gain || !y) return SS_ERR_NULL;
  ss_status s = ss_model_check_norm_inputs(impl, x, rows, d, gain, eps, NULL);
  if (s != SS_OK || (bias && (s = ss_check_finite_fast(bias, d)) != SS_OK)) return s;
  return ss_layernorm_run(impl, x, rows, d, gain, bias, eps, y);
}

ss_status ss_layernorm_run(ss_impl impl, const float *x, size_t rows, size_t d, const float *gain,
                           const float *bias, double eps, float *y) {
  SS_RETURN_BY_IMPL(impl, forward, (x, rows, d, gain, bias, eps, y));
}

ss_status ss_layernorm_backward(ss_impl impl, const float *x, size_t rows, size_t d,
                                const float *gain, double eps, const float *dy, float *dx,
                                float *dgain, float *dbias) {
  if (!x || !gain || !dy || !dx) return SS_ERR_NULL;
  ss_status s = ss_model_check_norm_inputs(impl, x, rows, d, gain, eps, dy);
  if (s != SS_OK) return s;
  return ss_layernorm_backward_run(impl, x, rows, d, gain, eps, dy, dx, dgain, dbias);
}

ss_status ss_layernorm_backward_run(ss_impl impl, const float *x, size_t rows, size_t d,
                                    const float *gain, double eps, const float *dy, float *dx,
                                    float *dgain, float *dbias) {
  SS_RETURN_BY_IMPL(impl, backward, (x, rows, d, gain, eps, dy, dx, dgain, dbias));
}
