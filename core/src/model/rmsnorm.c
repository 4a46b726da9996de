/*
 * RMSNorm (Zhang & Sennrich 2019, "Root Mean Square Layer Normalization";
 * torch.nn.RMSNorm), per row of d features:
 *
 *   inv = 1 / sqrt(mean_j x_j^2 + eps),  xhat_j = x_j inv,  y_j = xhat_j g_j
 *
 * backward, given dy (c = mean_k g_k dy_k xhat_k):
 *
 *   dx_j = inv (g_j dy_j - xhat_j c),    dgain_j = sum_rows dy_j xhat_j
 *
 * The backward recomputes inv from x (one pass over the row), so forward
 * keeps no state. eps = 0 and a zero row is SS_ERR_DOMAIN (0 / 0).
 *
 * Scalar reference: everything in double, each output rounded once
 * (|y - y64| <= 2^-24 |y64|). SIMD: sum x^2 in f64x2 lanes (exact squares,
 * ss_dot64_simd), inv in double rounded to float, the rest in float:
 *
 *   |y - y64|        <= 4 2^-24 |y64| + 2^-149 (1 + |g_j|)
 *   |dx - dx64|      <= 8 2^-24 inv (|g_j dy_j| + |xhat_j| mean_k |g_k dy_k xhat_k|)
 *   |dgain - dg64|   <= 4 2^-24 sum_rows |dy_j xhat_j|   (sums in double)
 *
 * (with 2^-149-sized underflow terms for tiny values). A SIMD call whose
 * float values could overflow (an output or a term >= 2^127, inv > 2^64:
 * eps ~ 0 and a tiny row) is computed by the scalar reference, which gives
 * SS_ERR_DOMAIN for an output beyond FLT_MAX.
 */
#include <string.h>

#include "common/dot64.h"
#include "common/impl_pair.h"
#include "model/layers.h"
#include "model/model_internal.h"

/* inv = 1 / sqrt(ss / d + eps); false for 0 / 0. */
static bool inv_rms(double ss, size_t d, double eps, double *inv) {
  const double den = ss / (double)d + eps;
  if (!(den > 0.0)) return false;
  *inv = 1.0 / sqrt(den);
  return true;
}

/* ---- scalar reference ---- */

static ss_status forward_scalar(const float *x, size_t rows, size_t d, const float *g, double eps,
                                float *y) {
  for (size_t r = 0; r < rows; r++) {
    const float *xr = x + r * d;
    double inv;
    if (!inv_rms(ss_dot64_scalar(xr, xr, d), d, eps, &inv)) return SS_ERR_DOMAIN;
    for (size_t j = 0; j < d; j++)
      if (!ss_model_f32((double)xr[j] * inv * (double)g[j], &y[r * d + j])) return SS_ERR_DOMAIN;
  }
  return SS_OK;
}

static ss_status backward_scalar(const float *x, size_t rows, size_t d, const float *g,
                                 double eps, const float *dy, float *dx, float *dgain) {
  double acc[SS_NORM_MAX_D];
  memset(acc, 0, d * sizeof(double));
  for (size_t r = 0; r < rows; r++) {
    const float *xr = x + r * d, *dyr = dy + r * d;
    double inv;
    if (!inv_rms(ss_dot64_scalar(xr, xr, d), d, eps, &inv)) return SS_ERR_DOMAIN;
    double c = 0.0;
    for (size_t k = 0; k < d; k++) c += (double)g[k] * (double)dyr[k] * ((double)xr[k] * inv);
    c /= (double)d;
    for (size_t j = 0; j < d; j++) {
      const double xh = (double)xr[j] * inv;
      if (!ss_model_f32(inv * ((double)g[j] * (double)dyr[j] - xh * c), &dx[r * d + j]))
        return SS_ERR_DOMAIN;
      acc[j] += (double)dyr[j] * xh;
    }
  }
  if (dgain)
    for (size_t j = 0; j < d; j++)
      if (!ss_model_f32(acc[j], &dgain[j])) return SS_ERR_DOMAIN;
  return SS_OK;
}

/* ---- SIMD ---- */

#if SS_HAVE_SIMD
/* Float inv of a row: SS_OK, SS_ERR_DOMAIN for 0 / 0, or SS_DECLINED
   when inv exceeds 2^64. */
static ss_status inv_simd(const float *xr, size_t d, double eps, float *inv) {
  double v;
  if (!inv_rms(ss_dot64_simd(xr, xr, d), d, eps, &v)) return SS_ERR_DOMAIN;
  if (!(v <= 0x1p64)) return SS_DECLINED;
  *inv = (float)v;
  return SS_OK;
}

/* SS_OK, SS_ERR_DOMAIN, or SS_DECLINED (common/impl_pair.h). */
static ss_status forward_simd(const float *x, size_t rows, size_t d, const float *g, double eps,
                              float *y) {
  for (size_t r = 0; r < rows; r++) {
    const float *xr = x + r * d;
    float *yr = y + r * d;
    float inv;
    const ss_status st = inv_simd(xr, d, eps, &inv);
    if (st != SS_OK) return st;
    const v128_t vi = wasm_f32x4_splat(inv);
    size_t j = 0;
    for (; j + 4 <= d; j += 4)
      wasm_v128_store(yr + j, wasm_f32x4_mul(wasm_f32x4_mul(wasm_v128_load(xr + j), vi),
                                             wasm_v128_load(g + j)));
    for (; j < d; j++) yr[j] = (xr[j] * inv) * g[j];
  }
  return ss_model_big_simd(y, rows * d) ? SS_DECLINED : SS_OK;
}

static ss_status backward_simd(const float *x, size_t rows, size_t d, const float *g, double eps,
                               const float *dy, float *dx, float *dgain) {
  double acc[SS_NORM_MAX_D];
  memset(acc, 0, d * sizeof(double));
  for (size_t r = 0; r < rows; r++) {
    const float *xr = x + r * d, *dyr = dy + r * d;
    float *dxr = dx + r * d;
    float inv;
    const ss_status st = inv_simd(xr, d, eps, &inv);
    if (st != SS_OK) return st;
    const v128_t vi = wasm_f32x4_splat(inv);
    /* dxr = g dy for now, and the dgain terms dy xhat (double sums) */
    size_t j = 0;
    for (; j + 4 <= d; j += 4) {
      const v128_t vdy = wasm_v128_load(dyr + j);
      const v128_t xh = wasm_f32x4_mul(wasm_v128_load(xr + j), vi);
      wasm_v128_store(dxr + j, wasm_f32x4_mul(wasm_v128_load(g + j), vdy));
      const v128_t t = wasm_f32x4_mul(vdy, xh);
      wasm_v128_store(acc + j, wasm_f64x2_add(wasm_v128_load(acc + j), wasm_f64x2_promote_low_f32x4(t)));
      wasm_v128_store(acc + j + 2, wasm_f64x2_add(wasm_v128_load(acc + j + 2),
                                                  wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(t, t, 2, 3, 2, 3))));
    }
    for (; j < d; j++) {
      dxr[j] = g[j] * dyr[j];
      acc[j] += (double)(dyr[j] * (xr[j] * inv));
    }
    /* c = (inv / d) sum g dy x */
    float c;
    if (!ss_model_f32_small(ss_dot64_simd(dxr, xr, d) * (double)inv / (double)d, &c))
      return SS_DECLINED;
    const v128_t vc = wasm_f32x4_splat(c);
    for (j = 0; j + 4 <= d; j += 4) {
      const v128_t xh = wasm_f32x4_mul(wasm_v128_load(xr + j), vi);
      wasm_v128_store(dxr + j, wasm_f32x4_mul(vi, wasm_f32x4_sub(wasm_v128_load(dxr + j),
                                                                 wasm_f32x4_mul(xh, vc))));
    }
    for (; j < d; j++) dxr[j] = inv * (dxr[j] - (xr[j] * inv) * c);
  }
  if (ss_model_big_simd(dx, rows * d)) return SS_DECLINED;
  if (dgain)
    for (size_t j = 0; j < d; j++)
      if (!ss_model_f32_small(acc[j], &dgain[j])) return SS_DECLINED;
  return SS_OK;
}
#endif

/* ---- entry points ---- */

ss_status ss_rmsnorm(ss_impl impl, const float *x, size_t rows, size_t d, const float *gain,
                     double eps, float *y) {
  if (!x || !gain || !y) return SS_ERR_NULL;
  ss_status s = ss_model_check_norm_inputs(impl, x, rows, d, gain, eps, NULL);
  if (s != SS_OK) return s;
  return ss_rmsnorm_run(impl, x, rows, d, gain, eps, y);
}

ss_status ss_rmsnorm_run(ss_impl impl, const float *x, size_t rows, size_t d, const float *gain,
                         double eps, float *y) {
  SS_RETURN_BY_IMPL(impl, forward, (x, rows, d, gain, eps, y));
}

ss_status ss_rmsnorm_backward(ss_impl impl, const float *x, size_t rows, size_t d,
                              const float *gain, double eps, const float *dy, float *dx,
                              float *dgain) {
  if (!x || !gain || !dy || !dx) return SS_ERR_NULL;
  ss_status s = ss_model_check_norm_inputs(impl, x, rows, d, gain, eps, dy);
  if (s != SS_OK) return s;
  return ss_rmsnorm_backward_run(impl, x, rows, d, gain, eps, dy, dx, dgain);
}

ss_status ss_rmsnorm_backward_run(ss_impl impl, const float *x, size_t rows, size_t d,
                                  const float *gain, double eps, const float *dy, float *dx,
                                  float *dgain) {
  SS_RETURN_BY_IMPL(impl, backward, (x, rows, d, gain, eps, dy, dx, dgain));
}
