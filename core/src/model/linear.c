/*
 * A fully connected layer, as torch.nn.Linear
 * (https://pytorch.org/docs/stable/generated/torch.nn.Linear.html):
 *
 *   forward   y[r, o]  = b[o] + sum_i x[r, i] w[o, i]     y  = x W^T + b
 *   backward  dx[r, i] = sum_o dy[r, o] w[o, i]           dx = dy W
 *             dw[o, i] = sum_r dy[r, o] x[r, i]           dw = dy^T x
 *             db[o]    = sum_r dy[r, o]                   (column sums of dy)
 *
 * x is rows x in, w is out x in (row-major, as torch stores it), y and dy
 * are rows x out. All four are one product
 *
 *   c[m, n] = c0[n] + sum_{k < K} A(m, k) B(k, n)
 *
 * with A and B read through strides (gemm_op below): the forward has
 * A = x, B = W^T; dx has A = dy, B = W; dw has A = dy^T, B = x; db has
 * A = a row of ones, B = dy.
 *
 * Scalar reference: each c[m, n] summed in double in k order and rounded
 * once: |c - c64| <= 2^-24 |c64| (+ 2^-1074 K for products below double's
 * range, i.e. never for floats).
 *
 * SIMD: a blocked product in the broadcast ("axpy") form, a register tile of
 * 4 rows m x 8 columns n (8 f32x4 accumulators): for each k, A(m, k) is
 * splatted and multiplied by the 8 contiguous values B(k, n .. n+7). B must
 * be contiguous along n; the forward's W^T is not, so it is packed, SS_LIN_KB
 * x SS_LIN_NB values at a time, into a panel on the stack (32 KiB). A is
 * read in place when its rows are contiguous along k (x, dy); dw's A = dy^T
 * is not (one cache line per k, lines a row of dy apart: 128 of them map to
 * a few of L1's sets), so it is packed, 4 rows x SS_LIN_KB at a time, into
 * a panel of its own (2 KiB). Along k
 * the terms are summed in blocks of SS_LIN_KB: each block's float sum starts
 * from zero and is then added to c, which starts at c0. That order is the
 * kernel's contract, whatever its tiling, packing and loop order
 * (tests/c/test_model_linear.c pins it bit for bit): a model trains to the
 * same bits across kernel changes. Error:
 *
 *   |c - c64| <= (min(K, KB) + ceil(K / KB) + 1) 2^-24 (|c0| + sum_k |A B|)
 *                + K 2^-149                          (float underflow)
 *
 * with or without fused multiply-add: the multiply-adds are ss_madd_relaxed,
 * fused in the relaxed build on FMA machines (one rounding less per term),
 * so that build's results differ from the simd build's within the bound.
 *
 * Overflow: when max|A| max|B| K + max|c0| <= 2^124, no float product,
 * partial sum or result can reach 2^127 (the error factor above is at most
 * 5 for K <= 2^26); otherwise the SIMD impl hands the product to the scalar
 * reference, whose double sums cannot overflow, and a result beyond FLT_MAX
 * is SS_ERR_DOMAIN in both impls.
 */
#include <string.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/simd.h"
#include "common/vec_simd.h"
#include "model/layers.h"
#include "model/model_internal.h"

/* The block along k (summed from zero in float) and the packed panel's width. */
#define SS_LIN_KB 128
#define SS_LIN_NB 64
/* Below this magnitude bound the SIMD path cannot overflow (see above). */
#define SS_LIN_SAFE 0x1p124

/* c[m ldc + n] = c0[n] + sum_k a[m sam + k sak] b[k sbk + n sbn], m < M, n < N. */
typedef struct gemm_op {
  size_t M, N, K;
  const float *a;
  size_t sam, sak;
  const float *b;
  size_t sbk, sbn;
  const float *c0; /* N values, or NULL for 0 */
  float *c;
  size_t ldc;
} gemm_op;

/* ---- scalar reference ---- */

/* false when some result is beyond FLT_MAX (c is then partly written). */
static bool gemm_scalar(const gemm_op *g) {
  for (size_t m = 0; m < g->M; m++) {
    const float *am = g->a + m * g->sam;
    for (size_t n = 0; n < g->N; n++) {
      const float *bn = g->b + n * g->sbn;
      double s = g->c0 ? (double)g->c0[n] : 0.0;
      for (size_t k = 0; k < g->K; k++) s += (double)am[k * g->sak] * (double)bn[k * g->sbk];
      if (!ss_model_f32(s, &g->c[m * g->ldc + n])) return false;
    }
  }
  return true;
}

/* ---- SIMD ---- */

#if SS_HAVE_SIMD
/* The register tile: SS_LIN_MR rows x 4 SS_LIN_NV columns, 8 accumulators.
   V8's TurboFan (Node 20) issues every load of a k step before its
   multiply-adds, so the tile's loads (MR splats, NV columns of b) and its
   accumulators must fit x86's 15 allocatable vector registers together:
   6 x 8 (12 accumulators, 6 splats, 2 columns) spilled and ran at half
   speed, 5 x 8 too, 3 x 12 (9 accumulators) matched 4 x 8 in the relaxed
   build and lost 25 % in the SIMD build (a multiply and an add need a
   temporary). */
#define SS_LIN_MR 4
#define SS_LIN_NV 2

/* c[r ldc + j] += sum_{k < kb} a[r sam + k sak] b[k sbk + j] for r < mr,
   j < 4 (nv - 1) + last: mr (SS_LIN_MR or 1) rows by nv vectors, the last
   one holding `last` (1..4) columns (partial: loaded and stored lane by
   lane). */
SS_ALWAYS_INLINE void tile_simd(size_t mr, size_t nv, bool partial, size_t last, size_t kb,
                                const float *a, size_t sam, size_t sak, const float *b,
                                size_t sbk, float *c, size_t ldc) {
  v128_t acc[SS_LIN_MR][SS_LIN_NV];
  for (size_t r = 0; r < mr; r++)
    for (size_t v = 0; v < nv; v++) acc[r][v] = wasm_f32x4_splat(0.0f);
  /* ak and bk move along k (one add each a step; indexing a + k sak, b + k sbk
     cost the SIMD build 15 %) */
  const float *bk = b, *ak = a;
  for (size_t k = 0; k < kb; k++, ak += sak, bk += sbk) {
    v128_t bv[SS_LIN_NV];
    for (size_t v = 0; v < nv; v++)
      bv[v] = partial && v == nv - 1 ? ss_load_partial(bk + 4 * v, last, 0.0f)
                                     : wasm_v128_load(bk + 4 * v);
    for (size_t r = 0; r < mr; r++) {
      const v128_t av = wasm_v128_load32_splat(ak + r * sam);
      for (size_t v = 0; v < nv; v++) acc[r][v] = ss_madd_relaxed(av, bv[v], acc[r][v]);
    }
  }
  for (size_t r = 0; r < mr; r++) {
    float *cr = c + r * ldc;
    for (size_t v = 0; v < nv; v++) {
      if (partial && v == nv - 1) {
        ss_store_partial(cr + 4 * v, last,
                         wasm_f32x4_add(ss_load_partial(cr + 4 * v, last, 0.0f), acc[r][v]));
      } else {
        wasm_v128_store(cr + 4 * v, wasm_f32x4_add(wasm_v128_load(cr + 4 * v), acc[r][v]));
      }
    }
  }
}

/* One row group of mr rows across the nb columns of b (contiguous). */
SS_ALWAYS_INLINE void rows_simd(size_t mr, size_t nb, size_t kb, const float *a, size_t sam,
                                size_t sak, const float *b, size_t sbk, float *c, size_t ldc) {
  size_t n = 0;
  for (; n + 4 * SS_LIN_NV <= nb; n += 4 * SS_LIN_NV)
    tile_simd(mr, SS_LIN_NV, false, 4, kb, a, sam, sak, b + n, sbk, c + n, ldc);
  for (; n + 4 <= nb; n += 4) tile_simd(mr, 1, false, 4, kb, a, sam, sak, b + n, sbk, c + n, ldc);
  if (n < nb) tile_simd(mr, 1, true, nb - n, kb, a, sam, sak, b + n, sbk, c + n, ldc);
}

/* A(m0 + r, k0 + k) at panel[k SS_LIN_MR + r] for r < SS_LIN_MR, k < kb. */
static void pack_a(const gemm_op *g, size_t m0, size_t k0, size_t kb, float *panel) {
  const float *a = g->a + m0 * g->sam + k0 * g->sak;
  for (size_t k = 0; k < kb; k++)
    for (size_t r = 0; r < SS_LIN_MR; r++) panel[k * SS_LIN_MR + r] = a[r * g->sam + k * g->sak];
}

/* c[:, n0 .. n0+nb) += the product over k in [k0, k0+kb), B(k0, n0) at b
   with row stride sbk and contiguous columns. A is read in place when its
   rows are contiguous along k (sak = 1: x, dy), else (dw's dy^T: one cache
   line per k, lines a row of dy apart, which the cache's sets cannot all
   hold) packed into a panel, SS_LIN_MR values per k; the last M mod
   SS_LIN_MR rows one by one, in place (a model's rows = 1 products: no
   padded rows). */
static void block_simd(const gemm_op *g, size_t n0, size_t nb, size_t k0, size_t kb,
                       const float *b, size_t sbk) {
  float panel[SS_LIN_KB * SS_LIN_MR];
  const float *a = g->a + k0 * g->sak;
  float *c = g->c + n0;
  size_t m = 0;
  for (; m + SS_LIN_MR <= g->M; m += SS_LIN_MR) {
    if (g->sak == 1) {
      rows_simd(SS_LIN_MR, nb, kb, a + m * g->sam, g->sam, 1, b, sbk, c + m * g->ldc, g->ldc);
    } else {
      pack_a(g, m, k0, kb, panel);
      rows_simd(SS_LIN_MR, nb, kb, panel, 1, SS_LIN_MR, b, sbk, c + m * g->ldc, g->ldc);
    }
  }
  for (; m < g->M; m++)
    rows_simd(1, nb, kb, a + m * g->sam, g->sam, g->sak, b, sbk, c + m * g->ldc, g->ldc);
}

static void gemm_simd(const gemm_op *g) {
  for (size_t m = 0; m < g->M; m++) {
    if (g->c0) memcpy(g->c + m * g->ldc, g->c0, g->N * sizeof(float));
    else memset(g->c + m * g->ldc, 0, g->N * sizeof(float));
  }
  if (g->sbn == 1) {
    for (size_t k0 = 0; k0 < g->K; k0 += SS_LIN_KB) {
      const size_t kb = g->K - k0 < SS_LIN_KB ? g->K - k0 : SS_LIN_KB;
      block_simd(g, 0, g->N, k0, kb, g->b + k0 * g->sbk, g->sbk);
    }
    return;
  }
  float panel[SS_LIN_KB * SS_LIN_NB]; /* B(k0 + k, n0 + j) at panel[k nb + j] */
  for (size_t n0 = 0; n0 < g->N; n0 += SS_LIN_NB) {
    const size_t nb = g->N - n0 < SS_LIN_NB ? g->N - n0 : SS_LIN_NB;
    for (size_t k0 = 0; k0 < g->K; k0 += SS_LIN_KB) {
      const size_t kb = g->K - k0 < SS_LIN_KB ? g->K - k0 : SS_LIN_KB;
      for (size_t j = 0; j < nb; j++) {
        const float *src = g->b + (n0 + j) * g->sbn + k0 * g->sbk;
        for (size_t k = 0; k < kb; k++) panel[k * nb + j] = src[k * g->sbk];
      }
      block_simd(g, n0, nb, k0, kb, panel, nb);
    }
  }
}
#endif

/* The product; `bound` = max|A| max|B| K + max|c0| (read by the SIMD impl
   only, which declines past SS_LIN_SAFE). */
static ss_status product_scalar(const gemm_op *g, double bound) {
  (void)bound;
  return gemm_scalar(g) ? SS_OK : SS_ERR_DOMAIN;
}
#if SS_HAVE_SIMD
static ss_status product_simd(const gemm_op *g, double bound) {
  if (!(bound <= SS_LIN_SAFE)) return SS_DECLINED;
  gemm_simd(g);
  return SS_OK;
}
#endif
static ss_status product(ss_impl impl, const gemm_op *g, double bound) {
  SS_RETURN_BY_IMPL(impl, product, (g, bound));
}

/* max |x| of a finite vector by impl (the scalar impl needs no bound). */
static double absmax_scalar(const float *x, size_t n) {
  (void)x, (void)n;
  return 0.0;
}
#if SS_HAVE_SIMD
static double absmax_simd(const float *x, size_t n) { return ss_model_absmax_simd(x, n); }
#endif
static double absmax(ss_impl impl, const float *x, size_t n) { return SS_BY_IMPL(impl, absmax)(x, n); }

/* The checks both entry points share: pointers, impl, the three shapes. */
static ss_status check_sizes(ss_impl impl, size_t rows, size_t in, size_t out) {
  if (!ss_model_impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  ss_status s = ss_model_check_shape(rows, in);
  if (s == SS_OK) s = ss_model_check_shape(out, in);
  if (s == SS_OK) s = ss_model_check_shape(rows, out);
  return s;
}

ss_status ss_linear(ss_impl impl, const float *x, size_t rows, size_t in, const float *w,
                    const float *b, size_t out, float *y) {
  if (!x || !w || !y) return SS_ERR_NULL;
  ss_status s = check_sizes(impl, rows, in, out);
  if (s != SS_OK) return s;
  if ((s = ss_check_finite_fast(x, rows * in)) != SS_OK ||
      (s = ss_check_finite_fast(w, out * in)) != SS_OK ||
      (b && (s = ss_check_finite_fast(b, out)) != SS_OK))
    return s;
  return ss_linear_run(impl, x, rows, in, w, b, out, y);
}

ss_status ss_linear_run(ss_impl impl, const float *x, size_t rows, size_t in, const float *w,
                        const float *b, size_t out, float *y) {
  const gemm_op g = {.M = rows, .N = out, .K = in, .a = x, .sam = in, .sak = 1, .b = w,
                     .sbk = 1, .sbn = in, .c0 = b, .c = y, .ldc = out};
  const double bound = absmax(impl, x, rows * in) * absmax(impl, w, out * in) * (double)in +
                       (b ? absmax(impl, b, out) : 0.0);
  return product(impl, &g, bound);
}

ss_status ss_linear_backward(ss_impl impl, const float *x, size_t rows, size_t in, const float *w,
                             size_t out, const float *dy, float *dx, float *dw, float *db) {
  if (!x || !w || !dy || !dw) return SS_ERR_NULL;
  ss_status s = check_sizes(impl, rows, in, out);
  if (s != SS_OK) return s;
  if ((s = ss_check_finite_fast(x, rows * in)) != SS_OK ||
      (s = ss_check_finite_fast(w, out * in)) != SS_OK ||
      (s = ss_check_finite_fast(dy, rows * out)) != SS_OK)
    return s;
  return ss_linear_backward_run(impl, x, rows, in, w, out, dy, dx, dw, db);
}

ss_status ss_linear_backward_run(ss_impl impl, const float *x, size_t rows, size_t in,
                                 const float *w, size_t out, const float *dy, float *dx, float *dw,
                                 float *db) {
  ss_status s;
  const double ax = absmax(impl, x, rows * in), aw = absmax(impl, w, out * in),
               ady = absmax(impl, dy, rows * out);
  ss_status worst = SS_OK;
  if (dx) {
    const gemm_op g = {.M = rows, .N = in, .K = out, .a = dy, .sam = out, .sak = 1, .b = w,
                       .sbk = in, .sbn = 1, .c = dx, .ldc = in};
    if ((s = product(impl, &g, ady * aw * (double)out)) != SS_OK) worst = s;
  }
  const gemm_op gw = {.M = out, .N = in, .K = rows, .a = dy, .sam = 1, .sak = out, .b = x,
                      .sbk = in, .sbn = 1, .c = dw, .ldc = in};
  if ((s = product(impl, &gw, ady * ax * (double)rows)) != SS_OK) worst = s;
  if (db) {
    static const float one = 1.0f;
    const gemm_op g = {.M = 1, .N = out, .K = rows, .a = &one, .sam = 0, .sak = 0, .b = dy,
                       .sbk = out, .sbn = 1, .c = db, .ldc = out};
    if ((s = product(impl, &g, ady * (double)rows)) != SS_OK) worst = s;
  }
  return worst;
}

/* y = x B for B stored in x out (row-major, W^T of a layer's weights): the
   same product as ss_linear_run with W = B^T, term by term in the same order
   (the tile's sums along k, block by block), without packing W^T: the
   contiguous form the forward packs into. For a single row (decoding) the
   packing is as much work as the product. bt_max: max |B|, known to the
   caller (the overflow bound's factor: reading B for it would double the
   work of a row). */
ss_status ss_linear_t_run(ss_impl impl, const float *x, size_t rows, size_t in, const float *bt,
                          size_t out, float bt_max, float *y) {
  const gemm_op g = {.M = rows, .N = out, .K = in, .a = x, .sam = in, .sak = 1, .b = bt,
                     .sbk = out, .sbn = 1, .c0 = NULL, .c = y, .ldc = out};
  return product(impl, &g, absmax(impl, x, rows * in) * (double)bt_max * (double)in);
}
