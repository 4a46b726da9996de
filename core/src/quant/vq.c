/*
 * vq -- vector quantization with a k-means codebook (Lloyd 1982; seeding by
 * k-means++, Arthur & Vassilvitskii 2007) and the straight-through gradient
 * of VQ-VAE (van den Oord et al. 2017, "Neural Discrete Representation
 * Learning"). x is read as N = n / dim vectors of dim values.
 *
 *   assign:  c(i) = argmin_k |x_i - e_k|^2            (ties: the lowest k)
 *   update:  e_k = mean { x_i : c(i) = k }            (empty cluster: kept)
 *   loss:    L = (1 / n) sum_i |x_i - e_c(i)|^2        (the MSE per value)
 *
 * Both steps can only lower L (the assignment picks the nearest codeword,
 * the mean minimizes the squared distance of its cluster), so the loss
 * history never increases. The mean is taken in double and rounded to
 * float per coordinate, which is still no farther from the exact mean than
 * the previous codeword, so rounding keeps that property. The only slack is
 * the float distance of the assignment step (a tie decided by rounding).
 *
 * Seeding (k-means++): e_0 = x_j with j = floor(u N); then each next
 * codeword is x_j drawn with probability D(x_j)^2 / sum D^2, D the distance
 * to the nearest codeword chosen so far; u from Philox (seed, stream 1, block
 * j). When every D is 0 (fewer distinct vectors than K) the next codeword
 * is x_(j mod N). Seeding and the update are shared scalar code, so the
 * codebook is a function of (x, K, dim, iters, seed) alone: bit-identical in
 * both impls and every build.
 *
 * Straight-through (VQ-VAE): the forward sends z_q = e_c(x) on, the backward
 * copies the gradient g of z_q to x, and the codebook and commitment terms
 * |sg(x) - e|^2 + beta |x - sg(e)|^2 add their own gradients:
 *   dx_i = g_i + 2 beta (x_i - e_c(i)),   de_k = sum_{c(i) = k} 2 (e_k - x_i)
 * (ss_vq_backward). VQ-Logits (Shao et al. 2025) uses the same training: the
 * codebook of the V output embeddings gives the code map of ss_vq_softmax
 * (tests/c/test_vq.c runs that pipeline).
 *
 * Work: the assignment is N K dim subtract-multiply-adds per iteration; the
 * SIMD version takes four vectors at once (their coordinates transposed
 * into registers) against one codeword splat, with the same per-lane float
 * operations in the same order as the scalar loop -- so both give the same
 * codes. The update scans the codes once per cluster (N K compares, the
 * order of the assignment), which needs no scratch memory.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/rng.h"
#include "common/simd.h"
#include "registry/kernels.h"

enum { STREAM_SEEDING = 1 };

/* Registry form: codebook on the stack, K dim <= 256 16. */
#define VQ_REG_MAX_K 256
#define VQ_REG_MAX_DIM 16

static const ss_param_info vq_params[] = {
    {.name = "codebook", .type = SS_PARAM_INT, .min = 1.0, .max = VQ_REG_MAX_K, .def = 16.0,
     .ui_min = 2.0, .ui_max = 64.0, .help = "codewords K (at most n / dim)"},
    {.name = "dim", .type = SS_PARAM_INT, .min = 1.0, .max = VQ_REG_MAX_DIM, .def = 1.0,
     .ui_min = 1.0, .ui_max = 8.0, .help = "values per vector; must divide n"},
    {.name = "iters", .type = SS_PARAM_INT, .min = 0.0, .max = 1000.0, .def = 25.0, .ui_min = 0.0,
     .ui_max = 100.0, .help = "Lloyd iterations after k-means++ seeding (stops early when stable)"},
    {.name = "seed", .type = SS_PARAM_INT, .min = 0.0, .max = 0x1p53, .def = 0.0, .ui_min = 0.0,
     .ui_max = 1000.0, .help = "seed of the k-means++ seeding"},
};

/* |a - b|^2 over dim coordinates, in float, coordinate order (the order
   the SIMD assignment uses per lane). */
static float dist2(const float *a, const float *b, size_t dim) {
  float s = 0.0f;
  for (size_t t = 0; t < dim; t++) {
    const float d = a[t] - b[t];
    s = s + d * d;
  }
  return s;
}

static int32_t nearest(const float *v, const float *cb, size_t k, size_t dim, float *best_d) {
  int32_t best = 0;
  float bd = dist2(v, cb, dim);
  for (size_t j = 1; j < k; j++) {
    const float d = dist2(v, cb + j * dim, dim);
    if (d < bd) bd = d, best = (int32_t)j;
  }
  if (best_d) *best_d = bd;
  return best;
}

static void assign_scalar(const float *x, size_t nvec, size_t dim, const float *cb, size_t k,
                          int32_t *codes) {
  for (size_t i = 0; i < nvec; i++) codes[i] = nearest(x + i * dim, cb, k, dim, NULL);
}

#if SS_HAVE_SIMD
static void assign_simd(const float *x, size_t nvec, size_t dim, const float *cb, size_t k,
                        int32_t *codes) {
  v128_t xt[SS_VQ_MAX_DIM];
  size_t i = 0;
  for (; i + 4 <= nvec; i += 4) {
    const float *p = x + i * dim;
    for (size_t t = 0; t < dim; t++)
      xt[t] = wasm_f32x4_make(p[t], p[dim + t], p[2 * dim + t], p[3 * dim + t]);
    v128_t best_d = wasm_f32x4_splat(INFINITY), best = wasm_i32x4_splat(0);
    for (size_t j = 0; j < k; j++) {
      const float *c = cb + j * dim;
      v128_t s = wasm_f32x4_splat(0.0f);
      for (size_t t = 0; t < dim; t++) {
        const v128_t d = wasm_f32x4_sub(xt[t], wasm_f32x4_splat(c[t]));
        s = wasm_f32x4_add(s, wasm_f32x4_mul(d, d));
      }
      /* j = 0 always wins (best_d starts at +Inf, and an Inf distance
         must still give code 0 as in the scalar loop). */
      const v128_t better = j ? wasm_f32x4_lt(s, best_d) : wasm_i32x4_splat(-1);
      best_d = wasm_v128_bitselect(s, best_d, better);
      best = wasm_v128_bitselect(wasm_i32x4_splat((int32_t)j), best, better);
    }
    wasm_v128_store(codes + i, best);
  }
  assign_scalar(x + i * dim, nvec - i, dim, cb, k, codes + i);
}
#endif

typedef void (*assign_fn)(const float *, size_t, size_t, const float *, size_t, int32_t *);

/* (1 / n) sum_i |x_i - e_c(i)|^2 in double. */
static double vq_loss(const float *x, size_t nvec, size_t dim, const float *cb,
                      const int32_t *codes) {
  double s = 0.0;
  for (size_t i = 0; i < nvec; i++) {
    const float *v = x + i * dim, *c = cb + (size_t)codes[i] * dim;
    for (size_t t = 0; t < dim; t++) {
      const double d = (double)v[t] - (double)c[t];
      s += d * d;
    }
  }
  return s / (double)(nvec * dim);
}

/* k-means++ seeding; d2 (N floats) is scratch for the squared distances. */
static void seed_kmeanspp(const float *x, size_t nvec, size_t dim, size_t k, uint64_t seed,
                          float *cb, float *d2) {
  uint32_t blk[4];
  ss_philox_block(seed, STREAM_SEEDING, 0, blk);
  size_t j = (size_t)(ss_philox_u01d(blk[0], blk[1]) * (double)nvec);
  if (j >= nvec) j = nvec - 1;
  memcpy(cb, x + j * dim, dim * sizeof *cb);
  for (size_t i = 0; i < nvec; i++) d2[i] = dist2(x + i * dim, cb, dim);
  for (size_t c = 1; c < k; c++) {
    double total = 0.0;
    for (size_t i = 0; i < nvec; i++) total += d2[i];
    if (total > 0.0 && isfinite(total)) {
      ss_philox_block(seed, STREAM_SEEDING, c, blk);
      const double target = ss_philox_u01d(blk[0], blk[1]) * total;
      double acc = 0.0;
      j = nvec;
      for (size_t i = 0; i < nvec; i++) {
        if (d2[i] > 0.0f) j = i; /* the last candidate, if rounding overshoots */
        acc += d2[i];
        if (acc > target && d2[i] > 0.0f) break;
      }
    } else {
      j = c % nvec;
    }
    float *e = cb + c * dim;
    memcpy(e, x + j * dim, dim * sizeof *e);
    for (size_t i = 0; i < nvec; i++) {
      const float d = dist2(x + i * dim, e, dim);
      if (d < d2[i]) d2[i] = d;
    }
  }
}

/* e_k = mean of its cluster (double sums, one scan of the codes per k). */
static void update_means(const float *x, size_t nvec, size_t dim, float *cb, size_t k,
                         const int32_t *codes) {
  double acc[SS_VQ_MAX_DIM];
  for (size_t c = 0; c < k; c++) {
    size_t count = 0;
    for (size_t t = 0; t < dim; t++) acc[t] = 0.0;
    for (size_t i = 0; i < nvec; i++) {
      if ((size_t)codes[i] != c) continue;
      count++;
      for (size_t t = 0; t < dim; t++) acc[t] += (double)x[i * dim + t];
    }
    if (!count) continue; /* an empty cluster keeps its codeword */
    for (size_t t = 0; t < dim; t++) cb[c * dim + t] = (float)(acc[t] / (double)count);
  }
}

static bool codes_equal_after_assign(assign_fn assign, const float *x, size_t nvec, size_t dim,
                                     const float *cb, size_t k, int32_t *codes) {
  /* Assign in place, noting whether anything moved: compare blockwise
     through a small buffer so no N-sized copy is needed. */
  bool same = true;
  int32_t tmp[256];
  for (size_t i0 = 0; i0 < nvec; i0 += 256) {
    const size_t m = nvec - i0 < 256 ? nvec - i0 : 256;
    assign(x + i0 * dim, m, dim, cb, k, tmp);
    if (same && memcmp(tmp, codes + i0, m * sizeof *tmp)) same = false;
    memcpy(codes + i0, tmp, m * sizeof *tmp);
  }
  return same;
}

/* The whole training; d2 is N floats of scratch for the seeding. */
SS_ALWAYS_INLINE void train(assign_fn assign, const float *x, size_t nvec,
                                          size_t dim, size_t k, unsigned iters, uint64_t seed,
                                          float *cb, int32_t *codes, double *loss, float *d2) {
  seed_kmeanspp(x, nvec, dim, k, seed, cb, d2);
  assign(x, nvec, dim, cb, k, codes);
  double l = vq_loss(x, nvec, dim, cb, codes);
  if (loss) loss[0] = l;
  bool stable = false;
  for (unsigned it = 1; it <= iters; it++) {
    if (!stable) {
      update_means(x, nvec, dim, cb, k, codes);
      stable = codes_equal_after_assign(assign, x, nvec, dim, cb, k, codes);
      l = vq_loss(x, nvec, dim, cb, codes);
    }
    if (loss) loss[it] = l;
  }
}

/* N vectors and K codewords of dim values each. */
static ss_status check_shape(const float *x, const float *cb, size_t nvec, size_t dim,
                             size_t k) {
  if (!x || !cb) return SS_ERR_NULL;
  if (!nvec || !dim || !k) return SS_ERR_EMPTY;
  if (dim > SS_VQ_MAX_DIM || nvec > SS_MAX_N / dim || k > SS_MAX_N / dim)
    return SS_ERR_TOO_LARGE;
  return SS_OK;
}

static bool impl_ok(ss_impl impl) {
  return (int)impl >= 0 && impl < SS_IMPL_COUNT && ss_impl_available(impl);
}

ss_status ss_vq_train(ss_impl impl, const float *x, size_t nvec, size_t dim, size_t k,
                      unsigned iters, uint64_t seed, float *codebook, int32_t *codes,
                      double *loss, float *scratch) {
  ss_status s = check_shape(x, codebook, nvec, dim, k);
  if (s != SS_OK) return s;
  if (!codes || !scratch) return SS_ERR_NULL;
  if (k > nvec) return SS_ERR_LENGTH;
  if (iters > SS_VQ_MAX_ITERS) return SS_ERR_PARAM_RANGE;
  if (!impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  if ((s = ss_check_finite_fast(x, nvec * dim)) != SS_OK) return s;
  train(SS_BY_IMPL(impl, assign), x, nvec, dim, k, iters, seed, codebook, codes, loss, scratch);
  return SS_OK;
}

ss_status ss_vq_assign(ss_impl impl, const float *x, size_t nvec, size_t dim,
                       const float *codebook, size_t k, int32_t *codes, float *y) {
  ss_status s = check_shape(x, codebook, nvec, dim, k);
  if (s != SS_OK) return s;
  if (!codes) return SS_ERR_NULL;
  if (!impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  if ((s = ss_check_finite_fast(x, nvec * dim)) != SS_OK) return s;
  if ((s = ss_check_finite_fast(codebook, k * dim)) != SS_OK) return s;
  SS_BY_IMPL(impl, assign)(x, nvec, dim, codebook, k, codes);
  if (y)
    for (size_t i = 0; i < nvec; i++)
      memcpy(y + i * dim, codebook + (size_t)codes[i] * dim, dim * sizeof *y);
  return SS_OK;
}

ss_status ss_vq_backward(const float *x, size_t nvec, size_t dim, const float *codebook,
                         size_t k, const int32_t *codes, const float *g, double beta, float *dx,
                         float *dcodebook) {
  ss_status s = check_shape(x, codebook, nvec, dim, k);
  if (s != SS_OK) return s;
  if (!codes || !g || !dx) return SS_ERR_NULL;
  if (!(beta >= 0.0) || !isfinite(beta)) return SS_ERR_PARAM_RANGE;
  /* x, g and the codebook were read unchecked (NaN in, NaN out with SS_OK) */
  if ((s = ss_check_finite_fast(x, nvec * dim)) != SS_OK ||
      (s = ss_check_finite_fast(codebook, k * dim)) != SS_OK ||
      (s = ss_check_finite_fast(g, nvec * dim)) != SS_OK)
    return s;
  for (size_t i = 0; i < nvec; i++)
    if (codes[i] < 0 || (size_t)codes[i] >= k) return SS_ERR_DOMAIN;
  if (dcodebook) memset(dcodebook, 0, k * dim * sizeof *dcodebook);
  /* x - e and 2 beta (x - e) in double (|x - e| reaches 2 FLT_MAX, and
     2 beta any double: a float product overflowed, a float 2 beta was
     undefined behaviour); a result beyond FLT_MAX is SS_ERR_DOMAIN below */
  bool finite = true;
  for (size_t i = 0; i < nvec; i++) {
    const size_t c = (size_t)codes[i];
    for (size_t t = 0; t < dim; t++) {
      const double r = (double)x[i * dim + t] - (double)codebook[c * dim + t]; /* x - e */
      const double d = (double)g[i * dim + t] + 2.0 * beta * r;
      finite &= fabs(d) <= FLT_MAX;
      dx[i * dim + t] = finite ? (float)d : 0.0f;
      if (dcodebook) {
        const double e = (double)dcodebook[c * dim + t] - 2.0 * r;
        finite &= fabs(e) <= FLT_MAX;
        dcodebook[c * dim + t] = finite ? (float)e : 0.0f;
      }
    }
  }
  return finite ? SS_OK : SS_ERR_DOMAIN;
}

/* Registry form: train on x itself, then y_i = e_c(i) and every value of
   vector i carries its code c(i). codes is required here (SS_ERR_NULL): it
   holds the vector codes during training; y is the seeding's D^2 scratch. */
SS_ALWAYS_INLINE ss_status run(assign_fn assign, const float *x, size_t n,
                                             const double *params, int32_t *codes, float *y) {
  const size_t k = (size_t)params[0], dim = (size_t)params[1];
  if (!codes) return SS_ERR_NULL;
  if (n % dim || k > n / dim) return SS_ERR_LENGTH;
  const size_t nvec = n / dim;
  float cb[VQ_REG_MAX_K * VQ_REG_MAX_DIM];
  train(assign, x, nvec, dim, k, (unsigned)params[2], (uint64_t)params[3], cb, codes, NULL, y);
  /* Spread the vector codes codes[0..N) to codes[i dim + t], from the end:
     the writes for vector i land at or after i, past every code still to
     be read. */
  for (size_t i = nvec; i-- > 0;) {
    const int32_t ci = codes[i];
    for (size_t t = dim; t-- > 0;) {
      y[i * dim + t] = cb[(size_t)ci * dim + t];
      codes[i * dim + t] = ci;
    }
  }
  return SS_OK;
}

static ss_status vq_scalar(const float *x, size_t n, const double *params, int32_t *codes,
                           float *y) {
  return run(assign_scalar, x, n, params, codes, y);
}
#if SS_HAVE_SIMD
static ss_status vq_simd(const float *x, size_t n, const double *params, int32_t *codes,
                         float *y) {
  return run(assign_simd, x, n, params, codes, y);
}
#endif

const ss_kernel_info ss_kernel_vq = {
    .name = "vq",
    .family = SS_FAMILY_QUANTIZER,
    .summary = "vector quantization: k-means++ seeded k-means codebook, nearest codeword",
    .formula = "c(i) = argmin_k |x_i - e_k|^2, e_k = mean{x_i : c(i) = k} (Lloyd), "
               "k-means++ seeding; y_i = e_c(i); straight-through dx = g + 2 beta (x - e)",
    .paper = "Lloyd 1982; Arthur & Vassilvitskii 2007, k-means++; van den Oord et al. 2017, "
             "Neural Discrete Representation Learning (VQ-VAE)",
    .nparams = sizeof vq_params / sizeof vq_params[0],
    .params = vq_params,
    .input = SS_INPUT_VALUES,
    .quantize = SS_IMPLS(vq),
};
