/*
 * Shared pieces of the attention kernels (core/src/attention): the row
 * primitives every form is built from, each as a scalar reference and a
 * SIMD128 version (a table of function pointers per impl, so one kernel body
 * serves both), and the parameter descriptions the kernels share. The
 * causal / padding visibility rule is in common/attn_rules.h (the generic
 * entry point checks it too).
 *
 * Layout: Q (n x d), K (m x d), V (m x dv) row-major; head h owns the
 * columns [h dh, (h + 1) dh) of Q and K (dh = d / heads) and
 * [h dvh, (h + 1) dvh) of V and out (dvh = dv / heads).
 */
#ifndef SS_ATTENTION_INTERNAL_H
#define SS_ATTENTION_INTERNAL_H

#include <math.h>

#include "common/attn_rules.h"
#include "common/simd.h"
#include "registry/kernels.h"

typedef struct ss_attn_ops {
  /* sum_t a[t] b[t] over len (float accumulation; SIMD: 4 lanes x 2) */
  float (*dot)(const float *a, const float *b, size_t len);
  /* y[c] += s x[c] */
  void (*axpy)(float *y, const float *x, size_t len, float s);
  /* KV[r][c] += a[r] v[c] for r < rows, c < cols (KV row stride cols) */
  void (*outer)(float *kv, const float *a, const float *v, size_t rows, size_t cols);
  /* y[c] = sum_r a[r] KV[r][c] (y overwritten) */
  void (*row_times)(float *y, const float *a, const float *kv, size_t rows, size_t cols);
} ss_attn_ops;


static inline float attn_dot_scalar(const float *a, const float *b, size_t len) {
  float s = 0.0f;
  for (size_t t = 0; t < len; t++) s += a[t] * b[t];
  return s;
}
static inline void attn_axpy_scalar(float *y, const float *x, size_t len, float s) {
  for (size_t c = 0; c < len; c++) y[c] += s * x[c];
}
static inline void attn_outer_scalar(float *kv, const float *a, const float *v, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; r++) attn_axpy_scalar(kv + r * cols, v, cols, a[r]);
}
static inline void attn_row_times_scalar(float *y, const float *a, const float *kv, size_t rows, size_t cols) {
  for (size_t c = 0; c < cols; c++) y[c] = 0.0f;
  for (size_t r = 0; r < rows; r++) attn_axpy_scalar(y, kv + r * cols, cols, a[r]);
}

static const ss_attn_ops ss_attn_ops_scalar = {attn_dot_scalar, attn_axpy_scalar, attn_outer_scalar, attn_row_times_scalar};

#if SS_HAVE_SIMD
static inline float attn_dot_simd(const float *a, const float *b, size_t len) {
  v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0;
  size_t t = 0;
  for (; t + 8 <= len; t += 8) {
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(a + t), wasm_v128_load(b + t)));
    s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(wasm_v128_load(a + t + 4), wasm_v128_load(b + t + 4)));
  }
  for (; t + 4 <= len; t += 4)
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(a + t), wasm_v128_load(b + t)));
  s0 = wasm_f32x4_add(s0, s1);
  float s = (wasm_f32x4_extract_lane(s0, 0) + wasm_f32x4_extract_lane(s0, 1)) +
            (wasm_f32x4_extract_lane(s0, 2) + wasm_f32x4_extract_lane(s0, 3));
  for (; t < len; t++) s += a[t] * b[t];
  return s;
}
static inline void attn_axpy_simd(float *y, const float *x, size_t len, float s) {
  const v128_t vs = wasm_f32x4_splat(s);
  size_t c = 0;
  for (; c + 4 <= len; c += 4)
    wasm_v128_store(y + c, wasm_f32x4_add(wasm_v128_load(y + c), wasm_f32x4_mul(vs, wasm_v128_load(x + c))));
  for (; c < len; c++) y[c] += s * x[c];
}
static inline void attn_outer_simd(float *kv, const float *a, const float *v, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; r++) attn_axpy_simd(kv + r * cols, v, cols, a[r]);
}
static inline void attn_row_times_simd(float *y, const float *a, const float *kv, size_t rows, size_t cols) {
  for (size_t c = 0; c < cols; c++) y[c] = 0.0f;
  for (size_t r = 0; r < rows; r++) attn_axpy_simd(y, kv + r * cols, cols, a[r]);
}

static const ss_attn_ops ss_attn_ops_simd = {attn_dot_simd, attn_axpy_simd, attn_outer_simd, attn_row_times_simd};
#endif

/* The table of an impl. The primitives are static inline and the tables
   static const, so a kernel body (SS_ALWAYS_INLINE, paired by
   SS_ATTEND_IMPLS: common/impl_pair.h) calls them directly once impl is a
   constant (the compiler folds the table): each _simd entry point holds
   its SIMD code, as tests/build-checks.sh checks. */
#if SS_HAVE_SIMD
#define SS_ATTN_OPS(impl) ((impl) == SS_IMPL_SIMD ? &ss_attn_ops_simd : &ss_attn_ops_scalar)
#else
#define SS_ATTN_OPS(impl) ((void)(impl), &ss_attn_ops_scalar)
#endif

/* Per-head dimensions. */
typedef struct { size_t heads, dh, dvh; } ss_attn_dims;
static inline ss_attn_dims ss_attn_dims_of(const ss_attention_io *io) {
  return (ss_attn_dims){io->heads, io->d / io->heads, io->dv / io->heads};
}

#define SS_ATTN_P_HEADS                                                                      \
  {.name = "heads", .type = SS_PARAM_INT, .min = 1, .max = SS_ATTN_MAX_DIM, .def = 1,       \
   .ui_min = 1, .ui_max = 16, .help = "attention heads (must divide d and dv)"}
#define SS_ATTN_P_CAUSAL                                                                     \
  {.name = "causal", .type = SS_PARAM_BOOL, .min = 0, .max = 1, .def = 0, .ui_min = 0,       \
   .ui_max = 1, .help = "query i sees keys j <= i (+ m - n) only"}
#define SS_ATTN_P_SCALE                                                                      \
  {.name = "scale", .type = SS_PARAM_FLOAT, .min = 0, .max = 1e6, .def = 0, .ui_min = 0,     \
   .ui_max = 2, .help = "score scale (0: 1 / sqrt(d_head))"}

/* The score scale: params' scale, or 1 / sqrt(dh) for 0. */
static inline float ss_attn_scale(double scale, size_t dh) {
  return (float)(scale > 0 ? scale : 1.0 / sqrt((double)dh));
}

#endif
