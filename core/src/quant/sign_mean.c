/*
 * sign_mean -- 1-bit quantization of a weight delta as sign times mean
 * magnitude (BitDelta, Liu et al. 2024, "BitDelta: Your Fine-Tune May Only
 * Be Worth One Bit"):
 *
 *   alpha = mean_i |x_i| (per tensor or per group),  y_i = alpha sign(x_i)
 *
 * alpha is the scale that minimizes |y - x|^2 among alpha sign(x) (set the
 * derivative of sum (alpha s_i - x_i)^2 to 0: alpha = sum |x_i| / n).
 * The code is the sign, +1 or -1 (x = 0 gets +1: one bit has no zero);
 * ss_pack stores them at 2 bits per code (pack.c). The sum of
 * |x| is the 4-lane double sum (common/sum4.h), so both impls give the same
 * alpha.
 */
#include <math.h>

#include "common/impl_pair.h"
#include "common/sum4.h"
#include "registry/kernels.h"

static const ss_param_info sign_mean_params[] = {
    {.name = "group", .type = SS_PARAM_INT, .n_bound = SS_N_BOUND_LE, .min = 0.0,
     .max = (double)SS_MAX_N, .def = 0.0, .ui_min = 0.0, .ui_max = 256.0,
     .help = "values per scale (0: the whole tensor); must divide n"},
};

static void abs_row(const float *x, size_t m, float *y) {
  for (size_t i = 0; i < m; i++) y[i] = fabsf(x[i]);
}

static void sign_row_scalar(const float *x, size_t m, float a, int32_t *codes, float *y) {
  for (size_t i = 0; i < m; i++) {
    const bool neg = x[i] < 0.0f;
    if (codes) codes[i] = neg ? -1 : 1;
    y[i] = neg ? -a : a;
  }
}

#if SS_HAVE_SIMD
static void sign_row_simd(const float *x, size_t m, float a, int32_t *codes, float *y) {
  const v128_t va = wasm_f32x4_splat(a), na = wasm_f32x4_splat(-a), zero = wasm_f32x4_splat(0.0f);
  const v128_t one = wasm_i32x4_splat(1), mone = wasm_i32x4_splat(-1);
  size_t i = 0;
  for (; i + 4 <= m; i += 4) {
    const v128_t neg = wasm_f32x4_lt(wasm_v128_load(x + i), zero);
    if (codes) wasm_v128_store(codes + i, wasm_v128_bitselect(mone, one, neg));
    wasm_v128_store(y + i, wasm_v128_bitselect(na, va, neg));
  }
  sign_row_scalar(x + i, m - i, a, codes ? codes + i : NULL, y + i);
}
#endif

typedef double (*sum_fn)(const float *, size_t);
typedef void (*row_fn)(const float *, size_t, float, int32_t *, float *);

static inline __attribute__((always_inline)) ss_status run(sum_fn sum, row_fn row, const float *x,
                                                           size_t n, const double *params,
                                                           int32_t *codes, float *y) {
  const size_t group = params[0] > 0.0 ? (size_t)params[0] : n;
  if (n % group) return SS_ERR_LENGTH;
  for (size_t g0 = 0; g0 < n; g0 += group) {
    abs_row(x + g0, group, y + g0); /* y is scratch for |x| */
    const float a = (float)(sum(y + g0, group) / (double)group);
    row(x + g0, group, a, codes ? codes + g0 : NULL, y + g0);
  }
  return SS_OK;
}

static ss_status sign_mean_scalar(const float *x, size_t n, const double *params, int32_t *codes,
                                  float *y) {
  return run(ss_sum4_scalar, sign_row_scalar, x, n, params, codes, y);
}
#if SS_HAVE_SIMD
static ss_status sign_mean_simd(const float *x, size_t n, const double *params, int32_t *codes,
                                float *y) {
  return run(ss_sum4_simd, sign_row_simd, x, n, params, codes, y);
}
#endif

const ss_kernel_info ss_kernel_sign_mean = {
    .name = "sign_mean",
    .family = SS_FAMILY_QUANTIZER,
    .summary = "1-bit sign times mean |x| (BitDelta), per tensor or group",
    .formula = "alpha = mean |x|, y = alpha sign(x) (the least-squares scale); codes +-1",
    .paper = "Liu et al. 2024, BitDelta: Your Fine-Tune May Only Be Worth One Bit",
    .nparams = 1,
    .params = sign_mean_params,
    .input = SS_INPUT_VALUES,
    .quantize = SS_IMPLS(sign_mean),
};
