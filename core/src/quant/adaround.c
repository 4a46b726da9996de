/*
 * adaround -- learned up/down rounding of a layer's weights (Nagel, Amjad,
 * van Baalen, Louizos & Blankevoort 2020, "Up or Down? Adaptive Rounding for
 * Post-Training Quantization", ICML).
 *
 * Rounding to nearest minimizes each weight's own error, not the layer's.
 * AdaRound keeps the grid of b-bit uniform quantization (uniform.c: scale s,
 * zero point z, codes in [qlo, qhi]) and learns, per weight, whether to
 * round down or up by minimizing the reconstruction of the layer's output
 * on calibration inputs X (cols x batch):
 *
 *   min_V  (1 / (rows batch)) |(W - W~) X^|_F^2 / s^2  +  lambda sum_ij (1 - |2 h(V_ij) - 1|^beta)
 *   W~ = s (clip(floor(W / s) + z + h(V), qlo, qhi) - z)
 *   h(V) = clip(sigmoid(V) (zeta - gamma) + gamma, 0, 1),   zeta = 1.1, gamma = -0.1
 *
 * (the rectified sigmoid of Louizos et al. 2018: it reaches 0 and 1 exactly,
 * where its gradient vanishes and h stays). zeta, gamma, the regularizer
 * and beta going from 20 to 2 are the paper's; the schedule's shape is the
 * authors' implementation (Qualcomm AIMET): V starts where h(V) = frac(W / s), i.e.
 * V = log((frac - gamma) / (zeta - frac)); the first 20 % of the iterations
 * optimize the reconstruction alone (warm start); then the regularizer is
 * on, with beta annealed from 20 to 2 along a cosine,
 *   beta = 2 + (20 - 2) (1 + cos(pi r)) / 2,  r = (it - 0.2 iters) / (0.8 iters),
 * so early on (large beta, the regularizer flat but near 0 and 1) most h
 * adapt freely to the reconstruction, and late (beta -> 2) every h is
 * pulled to 0 or 1; at the end h is rounded (h >= 1/2 -> up).
 * The optimizer is the library's Adam (optim/adam.c, its registry step,
 * beta1 0.9, beta2 0.999, eps 1e-8) with learning rate `lr`, as the
 * authors use Adam.
 *
 * Two normalizations make the decisions independent of the units of W and
 * X (a choice of ours): the reconstruction is measured in grid steps
 * (divided by s^2) and X^ = X / rms(X), so lambda weighs one regularizer
 * term against the mean squared output error per grid step. The paper's
 * lambda = 0.01 goes with its own loss scale (a mean over outputs in the
 * layer's units); in these units 0.01 left 15 % of the h strictly between 0
 * and 1 after 1000 - 5000 iterations (16 x 16, 4 bits), while the default
 * 0.1 drives every h to 0 or 1 and gives a lower error. The reported
 * errors are the plain |W X - W~ X|_F^2 in float64, for AdaRound and for
 * nearest rounding (uniform.c's rule on the same grid), on the same X.
 *
 * Every code is floor(W / s) + z or that + 1 (clipping to [qlo, qhi] never
 * leaves that pair, as W / s + z lies within half a step of the range).
 * Weights up to +-FLT_MAX: a W~ that rounds past FLT_MAX (the top code
 * times s) is held at it, as in uniform.c, never +-Inf.
 * Deterministic: the elementwise part (sigmoid, powers of the regularizer,
 * the cosine of the schedule) uses the library's own exp / log / sincos
 * (no libm), and the SIMD version only vectorizes the two products with X
 * in the scalar reference's order of additions (across the batch: lanes
 * are batch columns; within a dot: four lane partial sums, combined as
 * (l0 + l1) + (l2 + l3)), so both impls give the same bits in every build.
 * Work: 2 rows cols batch multiply-adds per iteration.
 */
#include <math.h>
#include <string.h>

#include "common/check.h"
#include "common/det_math.h" /* ss_det_exp_nonpos_corr, ss_det_log_pos; no FMA contraction */
#include "common/impl_pair.h"
#include "common/rng.h"
#include "common/simd.h"
#include "quant/quant_internal.h"
#include "registry/kernels.h"

#define ZETA 1.1f
#define GAMMA (-0.1f)
#define BETA_START 20.0
#define BETA_END 2.0
#define WARM_START 0.2

enum { STREAM_X = 1 };

/* Registry form: its state on the stack. */
#define REG_MAX_N 8192
#define REG_MAX_COLS 128
#define REG_MAX_BATCH 128

static const ss_param_info adaround_params[] = {
    {.name = "bits", .type = SS_PARAM_INT, .min = 2.0, .max = 8.0, .def = 4.0, .ui_min = 2.0,
     .ui_max = 8.0, .help = "bits per code (2 .. 8)"},
    {.name = "symmetric", .type = SS_PARAM_BOOL, .min = 0.0, .max = 1.0, .def = 1.0,
     .ui_min = 0.0, .ui_max = 1.0, .help = "1: scale only, codes -Q..Q; 0: scale and zero point"},
    {.name = "cols", .type = SS_PARAM_INT, .n_bound = SS_N_BOUND_LE, .min = 1.0, .max = REG_MAX_COLS,
     .def = 16.0, .ui_min = 1.0, .ui_max = REG_MAX_COLS, .log_scale = true,
     .help = "inputs of the layer: x is rows of cols weights (a shorter last row reads the first inputs)"},
    {.name = "batch", .type = SS_PARAM_INT, .min = 1.0, .max = REG_MAX_BATCH, .def = 64.0, .ui_min = 1.0,
     .ui_max = REG_MAX_BATCH, .log_scale = true, .help = "calibration inputs, drawn under seed"},
    {.name = "corr", .type = SS_PARAM_FLOAT, .min = -1.0, .max = 1.0, .def = 0.5, .ui_min = 0.0, .ui_max = 0.99,
     .help = "correlation of neighbouring inputs (AR(1); each input stays N(0, 1)); 0: i.i.d."},
    {.name = "iters", .type = SS_PARAM_INT, .min = 1.0, .max = 20000.0, .def = 1000.0, .ui_min = 10.0,
     .ui_max = 10000.0, .log_scale = true, .help = "Adam steps (the first 20 % without the regularizer)"},
    {.name = "lambda", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1000.0, .def = 0.1, .ui_min = 1e-4,
     .ui_max = 1.0, .log_scale = true, .help = "weight of the rounding regularizer"},
    {.name = "lr", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 10.0, .min_open = true, .def = 0.01,
     .ui_min = 1e-4, .ui_max = 0.1, .log_scale = true, .help = "Adam's learning rate on V"},
    {.name = "seed", .type = SS_PARAM_INT, .min = 0.0, .max = 0x1p53, .def = 0.0, .ui_min = 0.0,
     .ui_max = 1000.0, .help = "seed of the calibration inputs"},
};

/* ---- the elementwise part (shared by both impls: the same bits) -------- */

static inline float sigmoid_det(float v) {
  const float e = ss_det_exp_nonpos_corr(-fabsf(v), 0.0f);
  return v >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
}

/* h(V) unclipped (0 < it < 1 is the active region of the clip). */
static inline float h_raw(float sig) { return sig * (ZETA - GAMMA) + GAMMA; }
static inline float clip01(float h) { return h < 0.0f ? 0.0f : h > 1.0f ? 1.0f : h; }

/* One weight: u = w / s (grid units) and floor(u) + z. */
typedef struct {
  ss_quant_grid g;
  float lo, hi; /* qlo, qhi */
} grid_ctx;

static inline float grid_code(const grid_ctx *c, float base, float h) {
  const float q = base + h;
  return q < c->lo ? c->lo : q > c->hi ? c->hi : q;
}

/* The regularizer's derivative d/dh (1 - |2h - 1|^beta) = -2 beta sgn(2h - 1) |2h - 1|^(beta - 1). */
static inline float reg_grad(float h, float beta) {
  const float t = 2.0f * h - 1.0f, a = fabsf(t);
  if (a == 0.0f) return 0.0f;
  const float p = ss_det_exp_nonpos_corr((beta - 1.0f) * ss_det_log_pos(a), 0.0f);
  return (t > 0.0f ? -2.0f : 2.0f) * beta * p;
}

/* beta at iteration it (0-based) of iters, and whether the regularizer is on. */
static float beta_at(unsigned it, unsigned iters, bool *on) {
  const double warm = WARM_START * iters;
  *on = (double)it >= warm;
  if (!*on) return (float)BETA_START;
  const double r = iters > warm ? ((double)it - warm) / ((double)iters - warm) : 1.0;
  double s, c;
  ss_philox_sincos2pi(0.5 * r, &s, &c); /* cos(pi r), r in [0, 1] */
  return (float)(BETA_END + 0.5 * (BETA_START - BETA_END) * (1.0 + c));
}

/* ---- the products with X: scalar reference and SIMD ---------------------- */

/* e[b] = sum_k d[k] x[k batch + b], added in k order for every b. */
static void row_e_scalar(const float *d, const float *x, size_t cols, size_t batch, float *e) {
  for (size_t b = 0; b < batch; b++) e[b] = 0.0f;
  for (size_t k = 0; k < cols; k++) {
    const float dk = d[k], *xk = x + k * batch;
    for (size_t b = 0; b < batch; b++) e[b] += dk * xk[b];
  }
}

/* sum_b e[b] y[b]: four partial sums over b mod 4, (l0 + l1) + (l2 + l3),
   then the tail in order (four named accumulators, so nothing is vectorized). */
static float dot4_scalar(const float *e, const float *y, size_t len) {
  float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
  size_t b = 0;
  for (; b + 4 <= len; b += 4) {
    s0 += e[b] * y[b];
    s1 += e[b + 1] * y[b + 1];
    s2 += e[b + 2] * y[b + 2];
    s3 += e[b + 3] * y[b + 3];
  }
  float s = (s0 + s1) + (s2 + s3);
  for (; b < len; b++) s += e[b] * y[b];
  return s;
}

#if SS_HAVE_SIMD
static void row_e_simd(const float *d, const float *x, size_t cols, size_t batch, float *e) {
  size_t b = 0;
  for (; b + 8 <= batch; b += 8) {
    v128_t a0 = wasm_f32x4_splat(0.0f), a1 = a0;
    for (size_t k = 0; k < cols; k++) {
      const v128_t dk = wasm_f32x4_splat(d[k]);
      a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(dk, wasm_v128_load(x + k * batch + b)));
      a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(dk, wasm_v128_load(x + k * batch + b + 4)));
    }
    wasm_v128_store(e + b, a0);
    wasm_v128_store(e + b + 4, a1);
  }
  for (; b + 4 <= batch; b += 4) {
    v128_t a0 = wasm_f32x4_splat(0.0f);
    for (size_t k = 0; k < cols; k++)
      a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(wasm_f32x4_splat(d[k]), wasm_v128_load(x + k * batch + b)));
    wasm_v128_store(e + b, a0);
  }
  for (; b < batch; b++) {
    float s = 0.0f;
    for (size_t k = 0; k < cols; k++) s += d[k] * x[k * batch + b];
    e[b] = s;
  }
}

static float dot4_simd(const float *e, const float *y, size_t len) {
  v128_t a = wasm_f32x4_splat(0.0f);
  size_t b = 0;
  for (; b + 4 <= len; b += 4) a = wasm_f32x4_add(a, wasm_f32x4_mul(wasm_v128_load(e + b), wasm_v128_load(y + b)));
  float s = (wasm_f32x4_extract_lane(a, 0) + wasm_f32x4_extract_lane(a, 1)) +
            (wasm_f32x4_extract_lane(a, 2) + wasm_f32x4_extract_lane(a, 3));
  for (; b < len; b++) s += e[b] * y[b];
  return s;
}
#endif

typedef void (*row_e_fn)(const float *d, const float *x, size_t cols, size_t batch, float *e);
typedef float (*dot_fn)(const float *e, const float *y, size_t len);

/* ---- the optimization ------------------------------------------------------ */

typedef struct {
  const float *w;  /* n weights, rows of cols (the last row may be shorter) */
  size_t n, rows, cols, batch;
  const float *x;  /* X^ = X / rms(X), cols x batch */
  grid_ctx c;
  unsigned iters;
  float lambda;
  double lr;
  float *v, *slots, *grad, *e; /* V (n), Adam's m and v (2 n), gradient (n), one row of outputs (batch) */
} problem;

/* V at which h(V) = frac(w / s): log((f - gamma) / (zeta - f)). */
static void init_v(const problem *P) {
  for (size_t i = 0; i < P->n; i++) {
    const float u = P->w[i] * P->c.g.inv, f = u - floorf(u);
    P->v[i] = ss_det_log_pos(f - GAMMA) - ss_det_log_pos(ZETA - f);
  }
}

SS_ALWAYS_INLINE ss_status optimize(row_e_fn row_e, dot_fn dot, ss_impl impl, const problem *P) {
  const size_t n = P->n;
  const float cgrad = (float)(-2.0 / ((double)P->rows * (double)P->batch));
  const double adam_p[5] = {P->lr, 0.9, 0.999, 1e-8, 0.0};
  double unused = 0.0; /* Adam keeps no scalar state (and a zeroed array here would be v128 stores) */
  const ss_step_fn step = ss_kernel_adam.step[impl];
  if (!step) return SS_ERR_UNSUPPORTED;
  memset(P->slots, 0, 2 * n * sizeof *P->slots);
  init_v(P);
  for (unsigned it = 0; it < P->iters; it++) {
    bool on;
    const float beta = beta_at(it, P->iters, &on);
    for (size_t r = 0; r < P->rows; r++) {
      const size_t C = r * P->cols + P->cols <= n ? P->cols : n - r * P->cols; /* this row's inputs */
      const float *wr = P->w + r * P->cols, *vr = P->v + r * P->cols;
      float *gr = P->grad + r * P->cols;
      /* the row's residual in grid units: u - (code - z) */
      for (size_t k = 0; k < C; k++) {
        const float u = wr[k] * P->c.g.inv, base = floorf(u) + P->c.g.z;
        gr[k] = u - (grid_code(&P->c, base, clip01(h_raw(sigmoid_det(vr[k])))) - P->c.g.z);
      }
      row_e(gr, P->x, C, P->batch, P->e);
      for (size_t k = 0; k < C; k++) {
        const float u = wr[k] * P->c.g.inv, base = floorf(u) + P->c.g.z;
        const float sig = sigmoid_det(vr[k]), hr = h_raw(sig), h = clip01(hr);
        if (!(hr > 0.0f && hr < 1.0f)) { /* clipped: h does not move with V */
          gr[k] = 0.0f;
          continue;
        }
        const float q = base + h;
        const float rec = q >= P->c.lo && q <= P->c.hi ? cgrad * dot(P->e, P->x + k * P->batch, P->batch) : 0.0f;
        const float reg = on ? P->lambda * reg_grad(h, beta) : 0.0f;
        gr[k] = (rec + reg) * ((ZETA - GAMMA) * sig * (1.0f - sig));
      }
    }
    const ss_status s = step(P->v, P->grad, n, adam_p, (uint64_t)it + 1, P->slots, &unused);
    if (s != SS_OK) return s;
  }
  return SS_OK;
}

/* |W X - W~ X|_F^2 in float64 with the original X; wq NULL: nearest rounding. */
static double recon_error(const float *w, const float *wq, size_t rows, size_t cols, const float *x,
                          size_t batch, const grid_ctx *c) {
  double err = 0.0;
  for (size_t r = 0; r < rows; r++)
    for (size_t b = 0; b < batch; b++) {
      double s = 0.0;
      for (size_t k = 0; k < cols; k++) {
        const size_t i = r * cols + k;
        const float q = wq ? wq[i] : ss_quant_dequant(&c->g, grid_code(c, rintf(w[i] * c->g.inv) + c->g.z, 0.0f));
        s += ((double)w[i] - (double)q) * (double)x[k * batch + b];
      }
      err += s * s;
    }
  return err;
}

/* Finish: h rounded, codes and W~ (wq may alias v: element i is read before
   it is written); statistics when stats is given. */
static void finish(const problem *P, const float *x_orig, float *wq, int32_t *codes, double *stats) {
  const size_t n = P->n;
  size_t soft = 0, flipped = 0;
  for (size_t i = 0; i < n; i++) {
    const float h = clip01(h_raw(sigmoid_det(P->v[i])));
    soft += h > 0.0f && h < 1.0f;
    const float u = P->w[i] * P->c.g.inv;
    const float q = grid_code(&P->c, floorf(u) + P->c.g.z, h >= 0.5f ? 1.0f : 0.0f);
    flipped += q != grid_code(&P->c, rintf(u) + P->c.g.z, 0.0f);
    if (codes) codes[i] = (int32_t)q;
    wq[i] = ss_quant_dequant(&P->c.g, q); /* held at +-FLT_MAX, as uniform.c */
  }
  if (!stats) return;
  stats[SS_ADAROUND_ERR] = recon_error(P->w, wq, P->rows, P->cols, x_orig, P->batch, &P->c);
  stats[SS_ADAROUND_ERR_NEAREST] = recon_error(P->w, NULL, P->rows, P->cols, x_orig, P->batch, &P->c);
  stats[SS_ADAROUND_SCALE] = P->c.g.s;
  stats[SS_ADAROUND_ZERO] = P->c.g.z;
  stats[SS_ADAROUND_FLIPPED] = (double)flipped;
  stats[SS_ADAROUND_SOFT] = (double)soft;
}

static grid_ctx grid_of(const float *w, size_t n, int bits, bool symmetric) {
  float mn = w[0], mx = w[0];
  for (size_t i = 1; i < n; i++) mn = fminf(mn, w[i]), mx = fmaxf(mx, w[i]);
  grid_ctx c = {.g = ss_uniform_grid(mn, mx, bits, symmetric)};
  c.lo = c.g.qlo, c.hi = c.g.qhi;
  return c;
}

/* X^ = X / rms(X) into xn (may be x; X unchanged when it is all zero). */
static void normalize_x(const float *x, size_t len, float *xn) {
  double ss = 0.0;
  for (size_t t = 0; t < len; t++) ss += (double)x[t] * x[t];
  const double rms = sqrt(ss / (double)len);
  const float inv = rms > 0.0 ? (float)(1.0 / rms) : 1.0f;
  for (size_t t = 0; t < len; t++) xn[t] = x[t] * inv;
}

SS_ALWAYS_INLINE ss_status run_direct(row_e_fn row_e, dot_fn dot, ss_impl impl, const float *w, size_t rows,
                                      size_t cols, const float *x, size_t batch, int bits, bool symmetric,
                                      unsigned iters, double lambda, double lr, float *wq, int32_t *codes,
                                      float *scratch, double *stats) {
  const size_t n = rows * cols;
  float *xn = scratch, *v = xn + cols * batch, *slots = v + n, *grad = slots + 2 * n, *e = grad + n;
  normalize_x(x, cols * batch, xn);
  const problem P = {w, n, rows, cols, batch, xn, grid_of(w, n, bits, symmetric), iters, (float)lambda, lr,
                     v, slots, grad, e};
  const ss_status s = optimize(row_e, dot, impl, &P);
  if (s != SS_OK) return s;
  finish(&P, x, wq, codes, stats);
  return SS_OK;
}

size_t ss_adaround_scratch_size(size_t rows, size_t cols, size_t batch) {
  if (!rows || !cols || !batch || rows > SS_MAX_N / cols || batch > SS_MAX_N / cols) return 0;
  return cols * batch + 4 * rows * cols + batch;
}

ss_status ss_adaround(ss_impl impl, const float *w, size_t rows, size_t cols, const float *x, size_t batch,
                      int bits, bool symmetric, unsigned iters, double lambda, double lr, float *wq,
                      int32_t *codes, float *scratch, double *stats) {
  if (!w || !x || !wq || !scratch) return SS_ERR_NULL;
  if ((unsigned)impl >= SS_IMPL_COUNT || !ss_impl_available(impl)) return SS_ERR_UNSUPPORTED;
  if (!rows || !cols || !batch) return SS_ERR_EMPTY;
  if (rows > SS_MAX_N / cols || batch > SS_MAX_N / cols) return SS_ERR_TOO_LARGE;
  if (bits < 2 || bits > 8 || iters < 1 || iters > SS_ADAROUND_MAX_ITERS || !(lambda >= 0.0 && lambda <= 1e3) ||
      !(lr > 0.0 && lr <= 10.0))
    return SS_ERR_PARAM_RANGE;
  ss_status s;
  if ((s = ss_check_finite(w, rows * cols)) != SS_OK || (s = ss_check_finite(x, cols * batch)) != SS_OK) return s;
  return run_direct(SS_BY_IMPL(impl, row_e), SS_BY_IMPL(impl, dot4), impl, w, rows, cols, x, batch, bits,
                    symmetric, iters, lambda, lr, wq, codes, scratch, stats);
}

/* ---- registry form: X drawn under seed, state on the stack ----------------- */

/* The calibration inputs: input k of sample b is x_kb = corr x_(k-1)b +
   sqrt(1 - corr^2) z_kb, x_0b = z_0b, z_kb = Philox normal number k batch + b
   of (seed, stream 1) (= ss_normal(seed, 1, 0, cols batch, z)): an AR(1)
   chain along the inputs, every x_kb N(0, 1). corr = 0 is i.i.d. N(0, 1):
   then E|(W - W~) x|^2 = |W - W~|_F^2, which nearest rounding already
   minimizes, and AdaRound can only fit the sample (its gain does not carry
   over to fresh inputs); correlated inputs, like real activations, are
   what it exploits. */
static void draw_x(uint64_t seed, size_t cols, size_t batch, double corr, float *x) {
  const double c = sqrt(1.0 - corr * corr);
  for (size_t b = 0; b < batch; b++) {
    double prev = ss_philox_normal(seed, STREAM_X, b);
    x[b] = (float)prev;
    for (size_t k = 1; k < cols; k++) {
      prev = corr * prev + c * ss_philox_normal(seed, STREAM_X, k * batch + b);
      x[k * batch + b] = (float)prev;
    }
  }
}

ss_status ss_adaround_inputs(uint64_t seed, size_t cols, size_t batch, double corr, float *x) {
  if (!x) return SS_ERR_NULL;
  if (!cols || !batch) return SS_ERR_EMPTY;
  if (batch > SS_MAX_N / cols) return SS_ERR_TOO_LARGE;
  if (!(corr >= -1.0 && corr <= 1.0)) return SS_ERR_PARAM_RANGE;
  draw_x(seed, cols, batch, corr, x);
  return SS_OK;
}

SS_ALWAYS_INLINE ss_status run_registry(row_e_fn row_e, dot_fn dot, ss_impl impl, const float *x, size_t n,
                                        const double *p, int32_t *codes, float *y) {
  const size_t cols = (size_t)p[2], batch = (size_t)p[3];
  if (n > REG_MAX_N) return SS_ERR_TOO_LARGE;
  float xn[REG_MAX_COLS * REG_MAX_BATCH], slots[2 * REG_MAX_N], grad[REG_MAX_N], e[REG_MAX_BATCH];
  draw_x((uint64_t)p[8], cols, batch, p[4], xn);
  normalize_x(xn, cols * batch, xn);
  const problem P = {x, n, (n + cols - 1) / cols, cols, batch, xn, grid_of(x, n, (int)p[0], p[1] != 0.0), (unsigned)p[5],
                     (float)p[6], p[7], y /* V lives in y until the end */, slots, grad, e};
  const ss_status s = optimize(row_e, dot, impl, &P);
  if (s != SS_OK) return s;
  finish(&P, NULL, y, codes, NULL);
  return SS_OK;
}

static ss_status adaround_scalar(const float *x, size_t n, const double *params, int32_t *codes, float *y) {
  return run_registry(row_e_scalar, dot4_scalar, SS_IMPL_SCALAR, x, n, params, codes, y);
}
#if SS_HAVE_SIMD
static ss_status adaround_simd(const float *x, size_t n, const double *params, int32_t *codes, float *y) {
  return run_registry(row_e_simd, dot4_simd, SS_IMPL_SIMD, x, n, params, codes, y);
}
#endif

const ss_kernel_info ss_kernel_adaround = {
    .name = "adaround",
    .family = SS_FAMILY_QUANTIZER,
    .summary = "learned up/down rounding of a rows x cols layer on the uniform grid, minimizing "
               "the layer's output error on seeded calibration inputs",
    .formula = "min_V |(W - W~) X|^2 + lambda sum (1 - |2h - 1|^beta), W~ = s (clip(floor(W/s) + z + "
               "h(V)) - z), h = clip(1.2 sigmoid(V) - 0.1, 0, 1), beta 20 -> 2; h rounded at the end",
    .paper = "Nagel et al. 2020, Up or Down? Adaptive Rounding for Post-Training Quantization (ICML)",
    .nparams = sizeof adaround_params / sizeof adaround_params[0],
    .params = adaround_params,
    .input = SS_INPUT_VALUES,
    .quantize = SS_IMPLS(adaround),
    .max_n = REG_MAX_N,
};
