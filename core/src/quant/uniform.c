/*
 * uniform -- b-bit uniform (integer) quantization, per tensor or per group
 * (Jacob et al. 2018, "Quantization and Training of Neural Networks for
 * Efficient Integer-Arithmetic-Only Inference"):
 *
 *   symmetric:  s = max|x| / (2^(b-1) - 1),  q = clamp(round(x / s), -Q, Q),  y = q s
 *   asymmetric: lo = min(min x, 0), hi = max(max x, 0), s = (hi - lo) / (2^b - 1),
 *               z = round(-lo / s),  q = clamp(round(x / s) + z, 0, 2^b - 1),  y = (q - z) s
 *
 * round is to nearest, ties to even (rintf / f32x4.nearest), of x (1/s)
 * (a multiply, not a divide: both impls round the same), so
 * |y - x| <= s / 2 for every x in range (to a float rounding). The range includes 0 (so 0 is
 * exact and z is an integer code), as PyTorch's MinMax observers do.
 * b = 2 symmetric is ternary {-s, 0, s}. Stochastic rounding (Gupta et al.
 * 2015) rounds v = x / s up with probability frac(v): q = floor(v) +
 * [u < frac(v)], u the Philox uniforms of (seed, stream 1), element i =
 * number i -- unbiased, E[q] = v, and the same draws in every build.
 * An all-zero group gets s = 1 (codes 0). group = 0 means the whole
 * tensor; otherwise it must divide n (SS_ERR_LENGTH). Codes are the
 * integers q (asymmetric: 0 .. 2^b - 1; symmetric: -Q .. Q). Values up to
 * +-FLT_MAX: the asymmetric range hi - lo is taken in double, and a y that
 * rounds past FLT_MAX is held at it (it stands for x within s / 2).
 */
#include <float.h>
#include <math.h>

#include "common/impl_pair.h"
#include "common/rng.h"
#include "common/simd.h"
#include "quant/quant_internal.h"
#include "registry/kernels.h"

enum { STREAM_STOCHASTIC = 1 };

static const ss_param_info uniform_params[] = {
    {.name = "bits", .type = SS_PARAM_INT, .min = 2.0, .max = 8.0, .def = 8.0, .ui_min = 2.0,
     .ui_max = 8.0, .help = "bits per code (2 .. 8)"},
    {.name = "symmetric", .type = SS_PARAM_BOOL, .min = 0.0, .max = 1.0, .def = 1.0,
     .ui_min = 0.0, .ui_max = 1.0, .help = "1: scale only, codes -Q..Q; 0: scale and zero point"},
    {.name = "group", .type = SS_PARAM_INT, .n_bound = SS_N_BOUND_LE, .min = 0.0,
     .max = (double)SS_MAX_N, .def = 0.0, .ui_min = 0.0, .ui_max = 256.0,
     .help = "values per scale (0: the whole tensor); must divide n"},
    {.name = "rounding", .type = SS_PARAM_INT, .min = 0.0, .max = 1.0, .def = 0.0, .ui_min = 0.0,
     .ui_max = 1.0, .help = "nearest (ties to even) or stochastic (unbiased, seeded)",
     .choices = "nearest|stochastic"},
    {.name = "seed", .type = SS_PARAM_INT, .min = 0.0, .max = 0x1p53, .def = 0.0, .ui_min = 0.0,
     .ui_max = 1000.0, .help = "seed of stochastic rounding"},
};

/* One group's grid: y = (q - z) s with q in [qlo, qhi] (shared with adaround.c). */
typedef ss_quant_grid grid;

ss_quant_grid ss_uniform_grid(float mn, float mx, int bits, bool symmetric) {
  grid g;
  if (symmetric) {
    const float a = fmaxf(fabsf(mn), fabsf(mx));
    g.qhi = (float)((1 << (bits - 1)) - 1);
    g.qlo = -g.qhi;
    g.s = a / g.qhi;
    g.z = 0.0f;
  } else {
    const float lo = fminf(mn, 0.0f), hi = fmaxf(mx, 0.0f);
    g.qlo = 0.0f;
    g.qhi = (float)((1 << bits) - 1);
    /* hi - lo in double: up to 2 FLT_MAX (a float difference was +Inf, and
       every value NaN); / (2^b - 1) >= 3 brings it back into float */
    g.s = (float)(((double)hi - (double)lo) / g.qhi);
    if (!(g.s > 0.0f)) g.s = 1.0f;
    g.z = rintf(-lo / g.s);
  }
  if (!(g.s > 0.0f)) g.s = 1.0f;
  g.inv = 1.0f / g.s;
  if (!(g.inv <= 0x1p127f)) g.inv = 0x1p127f; /* subnormal s */
  return g;
}

/* q for v = x / s: nearest, or stochastic with uniform u. */
static float code_of(float v, float z, float u, bool stochastic, const grid *g) {
  float q;
  if (stochastic) {
    const float f = floorf(v);
    q = f + (u < v - f ? 1.0f : 0.0f);
  } else {
    q = rintf(v);
  }
  q = q + z;
  return fminf(fmaxf(q, g->qlo), g->qhi);
}

static void group_scalar(const float *x, size_t m, const grid *g, bool stochastic, int32_t *codes,
                         float *y) {
  for (size_t i = 0; i < m; i++) {
    const float q = code_of(x[i] * g->inv, g->z, y[i], stochastic, g);
    if (codes) codes[i] = (int32_t)q;
    y[i] = ss_quant_dequant(g, q);
  }
}

static void minmax_scalar(const float *x, size_t m, float *mn, float *mx) {
  float a = x[0], b = x[0];
  for (size_t i = 1; i < m; i++) a = fminf(a, x[i]), b = fmaxf(b, x[i]);
  *mn = a, *mx = b;
}

#if SS_HAVE_SIMD
static void minmax_simd(const float *x, size_t m, float *mn, float *mx) {
  v128_t a = wasm_f32x4_splat(x[0]), b = a;
  size_t i = 0;
  for (; i + 4 <= m; i += 4) {
    const v128_t v = wasm_v128_load(x + i);
    a = wasm_f32x4_pmin(a, v), b = wasm_f32x4_pmax(b, v);
  }
  float lo = fminf(fminf(wasm_f32x4_extract_lane(a, 0), wasm_f32x4_extract_lane(a, 1)),
                   fminf(wasm_f32x4_extract_lane(a, 2), wasm_f32x4_extract_lane(a, 3)));
  float hi = fmaxf(fmaxf(wasm_f32x4_extract_lane(b, 0), wasm_f32x4_extract_lane(b, 1)),
                   fmaxf(wasm_f32x4_extract_lane(b, 2), wasm_f32x4_extract_lane(b, 3)));
  for (; i < m; i++) lo = fminf(lo, x[i]), hi = fmaxf(hi, x[i]);
  *mn = lo, *mx = hi;
}

static void group_simd(const float *x, size_t m, const grid *g, bool stochastic, int32_t *codes,
                       float *y) {
  const v128_t s = wasm_f32x4_splat(g->s), inv = wasm_f32x4_splat(g->inv), z = wasm_f32x4_splat(g->z);
  const v128_t lo = wasm_f32x4_splat(g->qlo), hi = wasm_f32x4_splat(g->qhi);
  const v128_t one = wasm_f32x4_splat(1.0f);
  const v128_t maxf = wasm_f32x4_splat(FLT_MAX), nmaxf = wasm_f32x4_splat(-FLT_MAX);
  size_t i = 0;
  for (; i + 4 <= m; i += 4) {
    const v128_t v = wasm_f32x4_mul(wasm_v128_load(x + i), inv);
    v128_t q;
    if (stochastic) {
      const v128_t f = wasm_f32x4_floor(v);
      const v128_t up = wasm_f32x4_lt(wasm_v128_load(y + i), wasm_f32x4_sub(v, f));
      q = wasm_f32x4_add(f, wasm_v128_and(up, one));
    } else {
      q = wasm_f32x4_nearest(v);
    }
    q = wasm_f32x4_min(wasm_f32x4_max(wasm_f32x4_add(q, z), lo), hi);
    if (codes) wasm_v128_store(codes + i, wasm_i32x4_trunc_sat_f32x4(q));
    const v128_t v2 = wasm_f32x4_mul(wasm_f32x4_sub(q, z), s);
    wasm_v128_store(y + i, wasm_f32x4_pmax(nmaxf, wasm_f32x4_pmin(maxf, v2)));
  }
  for (; i < m; i++) {
    const float q = code_of(x[i] * g->inv, g->z, y[i], stochastic, g);
    if (codes) codes[i] = (int32_t)q;
    y[i] = ss_quant_dequant(g, q);
  }
}
#endif

typedef void (*minmax_fn)(const float *, size_t, float *, float *);
typedef void (*group_fn)(const float *, size_t, const grid *, bool, int32_t *, float *);

/* Inlined into both entry points, so each calls its own impl directly. */
static inline __attribute__((always_inline)) ss_status run(minmax_fn minmax, group_fn quant, void (*unif)(uint64_t, uint64_t, uint64_t, size_t, float *),
                     const float *x, size_t n, const double *params, int32_t *codes, float *y) {
  const int bits = (int)params[0];
  const bool symmetric = params[1] != 0.0, stochastic = params[3] != 0.0;
  const size_t group = params[2] > 0.0 ? (size_t)params[2] : n;
  if (n % group) return SS_ERR_LENGTH;
  /* y holds the uniforms of stochastic rounding until it is overwritten. */
  if (stochastic) unif((uint64_t)params[4], STREAM_STOCHASTIC, 0, n, y);
  for (size_t g0 = 0; g0 < n; g0 += group) {
    float mn, mx;
    minmax(x + g0, group, &mn, &mx);
    const grid g = ss_uniform_grid(mn, mx, bits, symmetric);
    quant(x + g0, group, &g, stochastic, codes ? codes + g0 : NULL, y + g0);
  }
  return SS_OK;
}

static ss_status uniform_scalar(const float *x, size_t n, const double *params, int32_t *codes,
                                float *y) {
  return run(minmax_scalar, group_scalar, ss_philox_uniform_f32_scalar, x, n, params, codes, y);
}

#if SS_HAVE_SIMD
static ss_status uniform_simd(const float *x, size_t n, const double *params, int32_t *codes,
                              float *y) {
  return run(minmax_simd, group_simd, ss_philox_uniform_f32_simd, x, n, params, codes, y);
}
#endif

const ss_kernel_info ss_kernel_uniform = {
    .name = "uniform",
    .family = SS_FAMILY_QUANTIZER,
    .summary = "b-bit uniform quantization, symmetric or with a zero point, per tensor or group",
    .formula = "s = max|x| / (2^(b-1) - 1), q = clamp(round(x/s)); or s = (hi - lo) / (2^b - 1), "
               "z = round(-lo/s), q = clamp(round(x/s) + z); y = (q - z) s",
    .paper = "Jacob et al. 2018, Quantization and Training of Neural Networks for Efficient "
             "Integer-Arithmetic-Only Inference",
    .nparams = sizeof uniform_params / sizeof uniform_params[0],
    .params = uniform_params,
    .input = SS_INPUT_VALUES,
    .quantize = SS_IMPLS(uniform),
};
