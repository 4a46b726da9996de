/*
 * Shared plumbing of the samplers (core/src/sample).
 *
 * Determinism contract: a sampler's probs, draws and samples are
 * bit-identical in every build (native, wasm scalar, wasm SIMD) and for both
 * impls. So every value a draw depends on is computed by the same IEEE
 * operations in the same order on both paths:
 *   - exp / log are our own (det_math.h; the SIMD path runs the same
 *     polynomial four lanes at a time);
 *   - sums are "4-lane" sums: element i goes to double accumulator i % 4 in
 *     index order, and the total is (a0 + a1) + (a2 + a3) -- which the SIMD
 *     path does with two f64x2 accumulators and the scalar path with four
 *     doubles;
 *   - decisions that follow (kept sets, the inverse CDF) are scalar code
 *     shared by both paths.
 * The SIMD versions are faster because the elementwise work (divide, exp,
 * compare, scale, noise) runs four lanes at a time, not because they round
 * differently.
 *
 * Random streams (the Philox `stream` word; see common/rng.h): one per use,
 * so that e.g. gumbel_max, gumbel_softmax and gumbel_softmax_hard with the
 * same seed see the same noise and pick the same index.
 */
#ifndef SS_SAMPLE_INTERNAL_H
#define SS_SAMPLE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/impl_pair.h"
#include "common/simd.h"
#include "common/sum4.h" /* ss_sum4_scalar / _simd: the order described above */
#include "sample/noise.h"
#include "softscope.h"

enum {
  SS_STREAM_CATEGORICAL = 1, /* inverse-CDF uniforms, one block per draw */
  SS_STREAM_GUMBEL = 2,      /* Gumbel noise, ceil(n/4) blocks per draw */
  SS_STREAM_LOGISTIC = 3,    /* gumbel_sigmoid's logistic noise */
  SS_STREAM_DIRICHLET = 4,   /* gamma variates */
  SS_STREAM_DARE = 5         /* drop masks */
};

/* Largest accepted `draws`. */
#define SS_MAX_DRAWS ((double)(1u << 24))

/* Philox blocks per draw of n per-entry uniforms. */
static inline uint64_t ss_blocks_per_draw(size_t n) { return ((uint64_t)n + 3) / 4; }

/* y_i = exp(z_i - max z) with z_i = x_i / t (float division; t = 1 skips
   it; where t is below FLT_MIN or x / t overflows, (x_i - max x) / t in
   double), -Inf -> 0; returns the 4-lane sum of y. Validates x like every
   logit input (NaN, +Inf, all -Inf) and returns the status through *st
   (the sum is 0 then, and y is not written). y may alias x. */
double ss_det_exp_scalar(const float *x, size_t n, double t, float *y, ss_status *st);
#if SS_HAVE_SIMD
double ss_det_exp_simd(const float *x, size_t n, double t, float *y, ss_status *st);
#endif

/* y_i = flush(y_i s) (float multiply; the exact-zero rule). */
void ss_det_scale_scalar(float *y, size_t n, float s);
#if SS_HAVE_SIMD
void ss_det_scale_simd(float *y, size_t n, float s);
#endif

/* e_i = 0 where e_i < thr; returns the 4-lane sum of what is kept. */
double ss_det_mask_below_scalar(float *e, size_t n, float thr);
#if SS_HAVE_SIMD
double ss_det_mask_below_simd(float *e, size_t n, float thr);
#endif

/* The k-th largest of e[0..n) (duplicates counted), 1 <= k <= n, by one
   pass with a min-heap of k floats (heap: k floats of scratch): for small k
   (topk_select.c). The same value in both impls. */
float ss_topk_kth_scalar(const float *e, size_t n, size_t k, float *heap);
#if SS_HAVE_SIMD
float ss_topk_kth_simd(const float *e, size_t n, size_t k, float *heap);
#endif

/* The above as one table per impl (bit-identical either way). */
typedef struct ss_det_ops {
  double (*exp)(const float *x, size_t n, double t, float *y, ss_status *st);
  void (*scale)(float *y, size_t n, float s);
  double (*mask_below)(float *e, size_t n, float thr);
  double (*sum4)(const float *w, size_t n);
  /* g[0..n) = Gumbel noise of blocks first.. of (seed, stream) (noise.h) */
  void (*gumbel)(uint64_t seed, uint64_t stream, uint64_t first, size_t n, float *g);
  float (*topk_kth)(const float *e, size_t n, size_t k, float *heap);
} ss_det_ops;

/* The table of an impl for a sampler's body: written once,
   run(impl, x, n, params, probs, indices, samples), and paired into
   name_scalar / name_simd by SS_SAMPLE_IMPLS (common/impl_pair.h). The
   body is inlined with impl a constant and the table a compound literal:
   the calls through it become direct calls, so name_scalar calls only
   scalar code and name_simd the SIMD code (what tests/build-checks.sh
   verifies on the wasm). */
#define SS_DET_OPS_SCALAR                                                          \
  (&(const ss_det_ops){ss_det_exp_scalar, ss_det_scale_scalar, ss_det_mask_below_scalar, \
                       ss_sum4_scalar, ss_gumbel_noise_scalar, ss_topk_kth_scalar})
#if SS_HAVE_SIMD
#define SS_DET_OPS_SIMD                                                            \
  (&(const ss_det_ops){ss_det_exp_simd, ss_det_scale_simd, ss_det_mask_below_simd,   \
                       ss_sum4_simd, ss_gumbel_noise_simd, ss_topk_kth_simd})
#define SS_DET_OPS(impl) ((impl) == SS_IMPL_SIMD ? SS_DET_OPS_SIMD : SS_DET_OPS_SCALAR)
#else
#define SS_DET_OPS(impl) ((void)(impl), SS_DET_OPS_SCALAR)
#endif
/* ss_det_exp_scalar or _simd by a run-time impl (for the tests). */
double ss_det_exp(ss_impl impl, const float *x, size_t n, double t, float *y, ss_status *st);

/* Inverse-CDF categorical draws from non-negative weights (no checks; the
   total must be positive and finite): out[d] for draws first .. first +
   draws - 1 under (seed, stream). Shared scalar code for both impls. */
void ss_draw_weights(const float *w, size_t n, uint64_t seed, uint64_t stream,
                     uint64_t first, size_t draws, uint32_t *out);

/* The `seed` and `draws` parameters of a sampler. */
uint64_t ss_sampler_seed(const ss_kernel_info *k, const double *params);
size_t ss_sampler_draws(const ss_kernel_info *k, const double *params);

/* Registry parameter blocks every sampler ends with (see sample_params.c). */
#define SS_SAMPLER_SEED_PARAM                                                 \
  {.name = "seed", .type = SS_PARAM_INT, .min = 0.0, .max = 0x1p53,          \
   .def = 0.0, .ui_min = 0.0, .ui_max = 1000.0,                              \
   .help = "random seed: the same seed gives the same draws in every build"}
#define SS_SAMPLER_DRAWS_PARAM                                                \
  {.name = "draws", .type = SS_PARAM_INT, .min = 0.0, .max = SS_MAX_DRAWS,   \
   .def = 1.0, .ui_min = 1.0, .ui_max = 10000.0, .log_scale = true,          \
   .help = "number of draws (0: only the distribution)"}
#define SS_SAMPLER_TEMPERATURE_PARAM                                          \
  {.name = "temperature", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e6,    \
   .min_open = true, .def = 1.0, .ui_min = 0.05, .ui_max = 10.0,             \
   .log_scale = true,                                                        \
   .help = "logits are divided by it first; exact over the whole range "     \
           "(T -> 0 is the argmax)"}

#endif
