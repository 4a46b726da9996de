/*
 * fp8_e4m3 and fp8_e5m2 -- casts to the 8-bit floating-point formats of
 * Micikevicius et al. 2022 ("FP8 Formats for Deep Learning"; the OCP 8-bit
 * floating point spec), round to nearest even, saturating:
 *
 *   E4M3: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities,
 *         S.1111.111 is NaN, so the largest finite value is 448 (S.1111.110)
 *   E5M2: 1 sign, 5 exponent (bias 15), 2 mantissa bits; IEEE-like, largest
 *         finite 57344 (S.11110.11)
 *   y = scale * fp8(x / scale), |x / scale| past the largest finite value
 *   saturates to it (the "satfinite" conversion of ML frameworks).
 *
 * The rounding is done in float: step = 2^(max(e, emin) - M) for the
 * binade e of |v|, q = round_even(|v| / step) step (exact: step is a power
 * of two), then min(q, max). The code is read back off q's bits. The SIMD
 * path does the same with integer lane operations on the exponent and
 * f32x4.nearest; codes and values are bit-identical. Codes are the 8-bit
 * patterns 0 .. 255 (sign in bit 7). x / scale beyond FLT_MAX saturates;
 * a scale below FLT_MIN (not a normal float) is applied in double.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/impl_pair.h"
#include "common/simd.h"
#include "registry/kernels.h"

typedef struct fp8_format {
  int mbits, bias;
  float max; /* largest finite */
} fp8_format;

/* the largest finite values: the formats' and their descriptors' cast_max */
#define E4M3_MAX 448.0f
#define E5M2_MAX 57344.0f
static const fp8_format E4M3 = {3, 7, E4M3_MAX};
static const fp8_format E5M2 = {2, 15, E5M2_MAX};

static const ss_param_info fp8_params[] = {
    {.name = "scale", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e30, .min_open = true,
     .def = 1.0, .ui_min = 1e-3, .ui_max = 1e3, .log_scale = true,
     .help = "x is divided by it before the cast and multiplied after; exact over the whole "
             "range (below FLT_MIN in double)"},
};

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* |v| rounded onto the format's grid (saturated), and its code (no sign). */
static float round_fp8(float a, const fp8_format *f, int32_t *code) {
  const int emin = 1 - f->bias; /* smallest normal exponent */
  a = fminf(a, FLT_MAX); /* x / scale overflowed: it saturates like any value past max */
  int e = (int)((f2u(a) >> 23) & 0xFF) - 127;
  if (e < emin) e = emin;
  const float step = u2f((uint32_t)(e - f->mbits + 127) << 23);
  const float inv = u2f((uint32_t)(127 - (e - f->mbits)) << 23);
  float q = rintf(a * inv) * step;
  if (q > f->max) q = f->max;
  /* code of q: normal -> ((E + bias) << M) | mantissa; subnormal -> q / 2^(emin - M) */
  const int eq = (int)((f2u(q) >> 23) & 0xFF) - 127;
  if (eq < emin || q == 0.0f)
    *code = (int32_t)(q * u2f((uint32_t)(127 - (emin - f->mbits)) << 23));
  else
    *code = ((eq + f->bias) << f->mbits) | (int32_t)((f2u(q) >> (23 - f->mbits)) & ((1u << f->mbits) - 1));
  return q;
}

/* A scale below FLT_MIN is 0 or subnormal as a float (1e-50: x / 0 gave
   Inf and NaN and codes above 255): x / scale and q scale in double, the
   quotient clamped to float's range (beyond it every value saturates),
   one code for both impls. */
static void cast_tiny_scale(const fp8_format *f, const float *x, size_t n, double scale,
                            int32_t *codes, float *y) {
  for (size_t i = 0; i < n; i++) {
    const double v = (double)x[i] / scale;
    int32_t c;
    const float q = round_fp8((float)fmin(fabs(v), FLT_MAX), f, &c);
    const bool neg = signbit(x[i]);
    if (codes) codes[i] = c | (neg ? 0x80 : 0);
    y[i] = (float)((neg ? -(double)q : (double)q) * scale);
  }
}

static void cast_scalar(const fp8_format *f, const float *x, size_t n, float scale, int32_t *codes,
                        float *y) {
  for (size_t i = 0; i < n; i++) {
    const float v = x[i] / scale;
    int32_t c;
    const float q = round_fp8(fabsf(v), f, &c);
    const bool neg = signbit(v);
    if (codes) codes[i] = c | (neg ? 0x80 : 0);
    y[i] = (neg ? -q : q) * scale;
  }
}

#if SS_HAVE_SIMD
static void cast_simd(const fp8_format *f, const float *x, size_t n, float scale, int32_t *codes,
                      float *y) {
  const int emin = 1 - f->bias;
  const v128_t vs = wasm_f32x4_splat(scale), sign = wasm_i32x4_splat((int32_t)0x80000000);
  const v128_t vemin = wasm_i32x4_splat(emin), vmax = wasm_f32x4_splat(f->max);
  const v128_t sub = wasm_f32x4_splat(u2f((uint32_t)(127 - (emin - f->mbits)) << 23));
  const v128_t mmask = wasm_i32x4_splat((1 << f->mbits) - 1);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_f32x4_div(wasm_v128_load(x + i), vs);
    const v128_t s = wasm_v128_and(v, sign);
    /* |v| held at FLT_MAX (an overflowing x / scale saturates) */
    const v128_t a = wasm_f32x4_pmin(wasm_f32x4_splat(FLT_MAX), wasm_v128_andnot(v, sign));
    v128_t e = wasm_i32x4_sub(wasm_u32x4_shr(a, 23), wasm_i32x4_splat(127));
    e = wasm_i32x4_max(e, vemin);
    const v128_t em = wasm_i32x4_sub(e, wasm_i32x4_splat(f->mbits));
    const v128_t step = wasm_i32x4_shl(wasm_i32x4_add(em, wasm_i32x4_splat(127)), 23);
    const v128_t inv = wasm_i32x4_shl(wasm_i32x4_sub(wasm_i32x4_splat(127), em), 23);
    v128_t q = wasm_f32x4_mul(wasm_f32x4_nearest(wasm_f32x4_mul(a, inv)), step);
    q = wasm_f32x4_pmin(vmax, q);
    if (codes) {
      const v128_t eq = wasm_i32x4_sub(wasm_u32x4_shr(q, 23), wasm_i32x4_splat(127));
      const v128_t normal = wasm_i32x4_ge(eq, vemin);
      const v128_t cn = wasm_v128_or(
          wasm_i32x4_shl(wasm_i32x4_add(eq, wasm_i32x4_splat(f->bias)), (uint32_t)f->mbits),
          wasm_v128_and(wasm_u32x4_shr(q, (uint32_t)(23 - f->mbits)), mmask));
      const v128_t cs = wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_mul(q, sub));
      const v128_t c = wasm_v128_bitselect(cn, cs, normal);
      wasm_v128_store(codes + i, wasm_v128_or(c, wasm_u32x4_shr(s, 24)));
    }
    wasm_v128_store(y + i, wasm_f32x4_mul(wasm_v128_or(q, s), vs));
  }
  cast_scalar(f, x + i, n - i, scale, codes ? codes + i : NULL, y + i);
}
#endif

/* The float cast where scale is a normal float, the double one below
   FLT_MIN. */
SS_ALWAYS_INLINE ss_status fp8_run(const fp8_format *fmt, ss_impl impl, const float *x, size_t n,
                                   const double *params, int32_t *codes, float *y) {
  if ((float)params[0] < FLT_MIN)
    cast_tiny_scale(fmt, x, n, params[0], codes, y);
  else
    SS_BY_IMPL(impl, cast)(fmt, x, n, (float)params[0], codes, y);
  return SS_OK;
}

SS_QUANTIZE_IMPLS(e4m3, fp8_run, &E4M3)
SS_QUANTIZE_IMPLS(e5m2, fp8_run, &E5M2)

const ss_kernel_info ss_kernel_fp8_e4m3 = {
    .name = "fp8_e4m3",
    .family = SS_FAMILY_QUANTIZER,
    .summary = "cast to FP8 E4M3 (bias 7, max 448, no inf), nearest-even, saturating",
    .formula = "y = scale * rne_sat_e4m3(x / scale); codes = the 8-bit patterns",
    .paper = "Micikevicius et al. 2022, FP8 Formats for Deep Learning",
    .nparams = 1,
    .params = fp8_params,
    .input = SS_INPUT_VALUES,
    .quantize = SS_IMPLS(e4m3),
    .cast_max = E4M3_MAX,
};

const ss_kernel_info ss_kernel_fp8_e5m2 = {
    .name = "fp8_e5m2",
    .family = SS_FAMILY_QUANTIZER,
    .summary = "cast to FP8 E5M2 (bias 15, max 57344), nearest-even, saturating",
    .formula = "y = scale * rne_sat_e5m2(x / scale); codes = the 8-bit patterns",
    .paper = "Micikevicius et al. 2022, FP8 Formats for Deep Learning",
    .nparams = 1,
    .params = fp8_params,
    .input = SS_INPUT_VALUES,
    .quantize = SS_IMPLS(e5m2),
    .cast_max = E5M2_MAX,
};
