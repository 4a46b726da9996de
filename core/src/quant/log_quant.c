/*
 * pow2 and log_quant -- logarithmic quantizers for non-negative,
 * power-law-like values (post-softmax attention probabilities):
 *
 *   s = max x,  r = x / s in (0, 1],  q = clamp(round(-log_b r), 0, 2^bits - 1),
 *   y = s b^(-q)
 *
 * pow2 is base 2 (the log2 quantizer of FQ-ViT, Lin et al. 2022; the
 * power-of-two base of PTQ4SAM's Adaptive Granularity Quantization, Lv et al.
 * 2024): q comes straight off the float's exponent and mantissa, since
 * -log2 r = -(e + log2 m) with m in [1, 2) rounds to -e - [m > sqrt 2]
 * (m = sqrt 2 is not a float, so there are no ties), and y = s 2^-q is
 * exact -- the codes are exact powers of two.
 * log_quant takes any base in (1, 4] (AdaLog, Wu et al. 2024, which
 * adapts the base to the distribution); base <= 1 (0 by default) searches b = 2^(k/16),
 * k = 2 .. 32, for the smallest squared error (the search of AdaLog /
 * PTQ4SAM, over a fixed grid). Its log and exp are the samplers'
 * deterministic float polynomials (common/det_math.h and their SIMD
 * twins), so scalar and SIMD agree bit for bit.
 * The last code, 2^bits - 1, is an exact zero: x rounds to it when it is
 * below half the smallest power, s b^-(2^bits - 2) / 2 (nearest in value
 * between that power and 0). Without a zero level every near-zero attention
 * weight -- most of a long row -- would cost s b^-(2^bits - 1) each, and a
 * 3- or 4-bit log quantizer would lose to the uniform one it is meant to
 * beat. So codes 0 .. 2^bits - 2 are the powers b^-q and 2^bits - 1 is 0.
 * Negative x is SS_ERR_DOMAIN; an all-zero x gives y = 0.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "common/det_math.h"
#include "common/exp_simd.h"
#include "common/impl_pair.h"
#include "common/log_simd.h"
#include "common/simd.h"
#include "registry/kernels.h"

static const ss_param_info pow2_params[] = {
    {.name = "bits", .type = SS_PARAM_INT, .min = 2.0, .max = 8.0, .def = 4.0, .ui_min = 2.0,
     .ui_max = 8.0, .help = "bits per code: 2^bits - 1 powers of two below the max, and 0"},
};

static const ss_param_info log_params[] = {
    {.name = "bits", .type = SS_PARAM_INT, .min = 2.0, .max = 8.0, .def = 4.0, .ui_min = 2.0,
     .ui_max = 8.0, .help = "bits per code"},
    {.name = "base", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 4.0, .def = 0.0, .ui_min = 0.0,
     .ui_max = 4.0,
     .help = "logarithm base in (1, 4]; any base <= 1 (0, the default) searches 2^(k/16) for "
             "the least error: every value of the range is valid"},
};

/* An all-zero x: every value is the zero level. */
static ss_status all_zero(size_t n, int qmax, int32_t *codes, float *y) {
  for (size_t i = 0; i < n; i++) {
    y[i] = 0.0f;
    if (codes) codes[i] = qmax;
  }
  return SS_OK;
}

static ss_status check_nonneg(const float *x, size_t n, float *mx) {
  float m = 0.0f;
  for (size_t i = 0; i < n; i++) {
    if (x[i] < 0.0f) return SS_ERR_DOMAIN;
    if (x[i] > m) m = x[i];
  }
  *mx = m;
  return SS_OK;
}

/* A row whose max s is below 2^-64: 1 / s overflows float and 0 * Inf is
   NaN (scalar and SIMD then chose different levels for x = 0 next to a
   subnormal max). The levels depend only on x / s, so the row is scaled by
   2^64 into y first (exact: no value can overflow) and the results scaled
   back by 2^-64 at the end (the same correctly rounded value as s b^-q of
   the tiny s). Returns the row to read (x or y). */
static const float *tiny_max_prescale(const float *x, size_t n, float *s, float *y, bool *scaled) {
  *scaled = *s < 0x1p-64f;
  if (!*scaled) return x;
  for (size_t i = 0; i < n; i++) y[i] = x[i] * 0x1p64f;
  *s *= 0x1p64f;
  return y;
}
static void tiny_max_unscale(float *y, size_t n, bool scaled) {
  if (scaled)
    for (size_t i = 0; i < n; i++) y[i] *= 0x1p-64f;
}

/* ---- pow2 ---------------------------------------------------------------- */

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static void pow2_scalar_row(const float *x, size_t n, float s, float inv_s, int qmax, int32_t *codes,
                            float *y) {
  for (size_t i = 0; i < n; i++) {
    const float r = x[i] * inv_s; /* exact when s is a power of two, else rounded once */
    int q;
    /* zero level below 2^-(qmax - 1) / 2 = 2^-qmax (qmax <= 255 < 126 + 23 is
       not guaranteed, hence the normal-range guard) */
    if (!(r >= 0x1p-126f) || (int)(f2u(r) >> 23) - 127 < -qmax) {
      q = qmax;
    } else {
      const uint32_t b = f2u(r);
      const int e = (int)(b >> 23) - 127;
      q = -e - ((b & 0x7FFFFF) > 0x3504F3 ? 1 : 0); /* m > sqrt 2 = 1.3504F3p0 */
      if (q < 0) q = 0;
      if (q > qmax - 1) q = qmax - 1;
    }
    if (codes) codes[i] = q;
    y[i] = q == qmax ? 0.0f : ldexpf(s, -q);
  }
}

static inline __attribute__((always_inline)) ss_status pow2_run(const float *x, size_t n, const double *params, int32_t *codes, float *y,
                          bool simd) {
  float s;
  const ss_status st = check_nonneg(x, n, &s);
  if (st != SS_OK) return st;
  const int qmax = (1 << (int)params[0]) - 1;
  if (s == 0.0f) return all_zero(n, qmax, codes, y);
  bool scaled;
  x = tiny_max_prescale(x, n, &s, y, &scaled);
  const float inv_s = 1.0f / s;
  size_t i = 0;
#if SS_HAVE_SIMD
  if (simd) {
    const v128_t vinv = wasm_f32x4_splat(inv_s), vs = wasm_i32x4_splat((int32_t)f2u(s));
    const v128_t vq = wasm_i32x4_splat(qmax), vq1 = wasm_i32x4_splat(qmax - 1);
    const v128_t zero = wasm_i32x4_splat(0);
    for (; i + 4 <= n; i += 4) {
      const v128_t r = wasm_f32x4_mul(wasm_v128_load(x + i), vinv);
      const v128_t e = wasm_i32x4_sub(wasm_u32x4_shr(r, 23), wasm_i32x4_splat(127));
      const v128_t up = wasm_i32x4_gt(wasm_v128_and(r, wasm_i32x4_splat(0x7FFFFF)),
                                      wasm_i32x4_splat(0x3504F3));
      v128_t q = wasm_i32x4_add(wasm_i32x4_neg(e), up); /* up is -1 where m > sqrt 2 */
      q = wasm_i32x4_min(wasm_i32x4_max(q, zero), vq1);
      const v128_t zl = wasm_v128_or(wasm_f32x4_lt(r, wasm_f32x4_splat(0x1p-126f)),
                                     wasm_i32x4_lt(e, wasm_i32x4_neg(vq)));
      q = wasm_v128_bitselect(vq, q, zl);
      if (codes) wasm_v128_store(codes + i, q);
      /* s 2^-q by exponent arithmetic, exact while it stays normal */
      const v128_t ey = wasm_i32x4_sub(wasm_u32x4_shr(vs, 23), q);
      const v128_t normal = wasm_v128_or(wasm_i32x4_gt(ey, zero), zl);
      const v128_t yn = wasm_v128_andnot(wasm_i32x4_sub(vs, wasm_i32x4_shl(q, 23)), zl);
      if (wasm_v128_any_true(wasm_v128_not(normal))) {
        float tmp[4];
        pow2_scalar_row(x + i, 4, s, inv_s, qmax, NULL, tmp);
        wasm_v128_store(y + i, wasm_v128_bitselect(yn, wasm_v128_load(tmp), normal));
      } else {
        wasm_v128_store(y + i, yn);
      }
    }
  }
#else
  (void)simd;
#endif
  pow2_scalar_row(x + i, n - i, s, inv_s, qmax, codes ? codes + i : NULL, y + i);
  tiny_max_unscale(y, n, scaled);
  return SS_OK;
}

static ss_status pow2_scalar(const float *x, size_t n, const double *params, int32_t *codes, float *y) {
  return pow2_run(x, n, params, codes, y, false);
}
#if SS_HAVE_SIMD
static ss_status pow2_simd(const float *x, size_t n, const double *params, int32_t *codes, float *y) {
  return pow2_run(x, n, params, codes, y, true);
}
#endif

/* ---- log_quant ------------------------------------------------------------ */

/* q = clamp(round(-ln(r) / ln b)), y = s exp(-q ln b) in float; returns the
   squared error (double) of the row. */
/* r below this is the zero level: half the smallest power b^-(qmax - 1). */
static float zero_below(float lnb, int qmax) {
  return 0.5f * ss_det_exp_nonpos_corr(-(float)(qmax - 1) * lnb, 0.0f);
}

static double log_row_scalar(const float *x, size_t n, float s, float inv_s, float lnb, int qmax,
                             int32_t *codes, float *y) {
  const float zt = zero_below(lnb, qmax);
  double se = 0.0;
  for (size_t i = 0; i < n; i++) {
    const float r = x[i] * inv_s;
    const bool z = !(r >= zt) || !(r > 0x1p-126f);
    float qf = z ? (float)qmax : rintf(-ss_det_log_pos(r) / lnb);
    if (!z) qf = fminf(fmaxf(qf, 0.0f), (float)(qmax - 1));
    const float v = z ? 0.0f : s * ss_det_exp_nonpos_corr(-qf * lnb, 0.0f);
    if (codes) codes[i] = (int32_t)qf;
    if (y) y[i] = v;
    se += ((double)v - x[i]) * ((double)v - x[i]);
  }
  return se;
}

#if SS_HAVE_SIMD
static double log_row_simd(const float *x, size_t n, float s, float inv_s, float lnb, int qmax,
                           int32_t *codes, float *y) {
  const ss_exp_consts c = ss_exp_consts_load();
  const v128_t vinv = wasm_f32x4_splat(inv_s), vs = wasm_f32x4_splat(s), vl = wasm_f32x4_splat(lnb);
  const v128_t vq = wasm_f32x4_splat((float)qmax), zero = wasm_f32x4_splat(0.0f);
  const v128_t tiny = wasm_f32x4_splat(0x1p-126f), sign = wasm_f32x4_splat(-0.0f);
  const v128_t zt = wasm_f32x4_splat(zero_below(lnb, qmax)), vq1 = wasm_f32x4_splat((float)(qmax - 1));
  double se = 0.0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t xv = wasm_v128_load(x + i);
    const v128_t r = wasm_f32x4_mul(xv, vinv);
    const v128_t big = wasm_v128_and(wasm_f32x4_gt(r, tiny), wasm_f32x4_ge(r, zt));
    /* log of a clamped r keeps the masked lanes finite */
    const v128_t l = ss_log_pos_f32x4(wasm_v128_bitselect(r, wasm_f32x4_splat(1.0f), big));
    v128_t qf = wasm_f32x4_nearest(wasm_f32x4_div(wasm_v128_xor(l, sign), vl));
    qf = wasm_f32x4_min(wasm_f32x4_max(qf, zero), vq1);
    qf = wasm_v128_bitselect(qf, vq, big);
    const v128_t v = wasm_v128_and(big, wasm_f32x4_mul(
        vs, ss_exp_nonpos_corr_f32x4(wasm_v128_xor(wasm_f32x4_mul(qf, vl), sign), zero, &c)));
    if (codes) wasm_v128_store(codes + i, wasm_i32x4_trunc_sat_f32x4(qf));
    if (y) wasm_v128_store(y + i, v);
    float vv[4];
    wasm_v128_store(vv, v);
    for (int j = 0; j < 4; j++) se += ((double)vv[j] - x[i + j]) * ((double)vv[j] - x[i + j]);
  }
  return se + log_row_scalar(x + i, n - i, s, inv_s, lnb, qmax, codes ? codes + i : NULL,
                             y ? y + i : NULL);
}
#endif

typedef double (*log_row_fn)(const float *, size_t, float, float, float, int, int32_t *, float *);

static inline __attribute__((always_inline)) ss_status log_run(log_row_fn row, const float *x,
                                                               size_t n, const double *params,
                                                               int32_t *codes, float *y) {
  float s;
  const ss_status st = check_nonneg(x, n, &s);
  if (st != SS_OK) return st;
  const int qmax = (1 << (int)params[0]) - 1;
  const double base = params[1]; /* <= 1: search (a base in (0, 1] has no meaning of its own) */
  if (s == 0.0f) return all_zero(n, qmax, codes, y);
  bool scaled;
  x = tiny_max_prescale(x, n, &s, y, &scaled);
  const float inv_s = 1.0f / s;
  float lnb = (float)log(base); /* a parameter, not per element: libm's log is fine here */
  if (!(base > 1.0)) { /* search b = 2^(k/16) */
    double best = INFINITY;
    for (int k = 2; k <= 32; k++) {
      const float l = (float)(0.6931471805599453 * k / 16.0);
      const double se = row(x, n, s, inv_s, l, qmax, NULL, NULL);
      if (se < best) best = se, lnb = l;
    }
  }
  row(x, n, s, inv_s, lnb, qmax, codes, y); /* x may be y (prescaled): read before written */
  tiny_max_unscale(y, n, scaled);
  return SS_OK;
}

static ss_status log_scalar(const float *x, size_t n, const double *params, int32_t *codes, float *y) {
  return log_run(log_row_scalar, x, n, params, codes, y);
}
#if SS_HAVE_SIMD
static ss_status log_simd(const float *x, size_t n, const double *params, int32_t *codes, float *y) {
  return log_run(log_row_simd, x, n, params, codes, y);
}
#endif

const ss_kernel_info ss_kernel_pow2 = {
    .name = "pow2",
    .family = SS_FAMILY_QUANTIZER,
    .summary = "power-of-two (log2) quantizer for non-negative values: y = max(x) 2^-q",
    .formula = "q = clamp(round(-log2(x / max x)), 0, 2^bits - 2), y = max(x) 2^-q; "
               "code 2^bits - 1 = 0 for x below max(x) 2^-(2^bits - 1)",
    .paper = "Lv et al. 2024, PTQ4SAM: Post-Training Quantization for Segment Anything "
             "(power-of-two base; log2 quantizer of FQ-ViT, Lin et al. 2022)",
    .nparams = 1,
    .params = pow2_params,
    .input = SS_INPUT_VALUES,
    .quantize = SS_IMPLS(pow2),
    .nonnegative = true,
};

const ss_kernel_info ss_kernel_log_quant = {
    .name = "log_quant",
    .family = SS_FAMILY_QUANTIZER,
    .summary = "logarithmic quantizer with a chosen or searched base",
    .formula = "q = clamp(round(-log_b(x / max x)), 0, 2^bits - 2), y = max(x) b^-q, last code 0; "
               "base <= 1: b = argmin_{2^(k/16)} |y - x|^2",
    .paper = "Wu et al. 2024, AdaLog: Post-Training Quantization for Vision Transformers with "
             "Adaptive Logarithm Quantizer",
    .nparams = 2,
    .params = log_params,
    .input = SS_INPUT_VALUES,
    .quantize = SS_IMPLS(log),
    .nonnegative = true,
};
