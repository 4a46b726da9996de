/*
 * sparsemax — Euclidean projection of the logits onto the probability
 * simplex (Martins & Astudillo 2016, "From Softmax to Sparsemax: A Sparse
 * Model of Attention and Multi-Label Classification"):
 *
 *   y = argmin_{p in simplex} ||p - x||^2 = [x - tau]_+,   sum_i y_i = 1,
 *   tau: with z sorted descending, K = max{k : 1 + k z_(k) > sum_{j<=k} z_(j)},
 *        tau = (sum_{j<=K} z_(j) - 1) / K.
 *
 * Backward: the Jacobian is diag(s) - s s^T / |S| (s = indicator of the
 * support S = {y > 0}), symmetric, so dx_i = g_i - mean_{j in S} g_j on S
 * and 0 elsewhere.
 *
 * Implementation (sparse/threshold.{h,c}, threshold_simd.c): the support is
 * decided exactly on an integer grid, by an expected-O(n) pivot search
 * (Duchi et al. 2008, "Efficient Projections onto the l1-Ball"; Kiwiel
 * 2008) over the entries within 1 of the maximum -- no other entry can be
 * in the support -- or, with SS_THRESHOLD_SORT, by the textbook sort of
 * every finite logit and a scan. y is the scratch buffer (the candidates
 * are copied there and partitioned) before the result is written; no
 * allocation.
 * SIMD: the max / validation pass, Newton (Michelot) narrowing passes that
 * compact the candidates in f64x2 / f32x4 lanes, and the output pass are
 * vector; the exact search on the narrowed set is the scalar one. Support,
 * tau and y are bitwise those of the scalar code (tests assert it).
 * y_i = (float)((x_i - max) - theta) in double: |y_i - y_i*| <= 2^-24 y_i +
 * ~4e-16 against the exact projection of the float x (theta's error: grid
 * truncation <= 2^-62 per entry, plus double rounding). Tested bound
 * 2^-23 y + 1e-14 against a float64 sort reference; measured 0.50 of it,
 * i.e. the final rounding to float (tests/c/test_sparsemax.c).
 * -Inf entries are outside the support (y = 0) and do not change the other
 * outputs. Ties at the threshold: an entry exactly at tau has y = 0 and is
 * not counted in the support.
 */
#include "common/check.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"
#include "sparse/threshold.h"

/* ---- scalar reference ------------------------------------------------- */

static ss_status sparsemax_scalar(const float *x, size_t n,
                                  const double *params, float *y) {
  (void)params;
  return ss_sparse_run_scalar(SS_SPARSE_SPARSEMAX, SS_THRESHOLD_SELECT, x, n, y,
                              NULL, NULL);
}

static ss_status sparsemax_vjp_scalar(const float *x, const float *y,
                                      const float *g, size_t n,
                                      const double *params, float *dx) {
  (void)x;
  (void)params;
  double sum = 0.0;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (y[i] > 0.0f) {
      sum += g[i];
      k++;
    }
  }
  const double mean = k ? sum / (double)k : 0.0;
  for (size_t i = 0; i < n; i++)
    dx[i] = y[i] > 0.0f ? (float)((double)g[i] - mean) : 0.0f;
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

static ss_status sparsemax_simd(const float *x, size_t n, const double *params,
                                float *y) {
  (void)params;
  return ss_sparse_run_simd(SS_SPARSE_SPARSEMAX, SS_THRESHOLD_SELECT, x, n,
                            SS_SPARSE_MARGIN, y, NULL, NULL);
}

/* Masked sum and count of g over {y > 0} (float within SS_SUM_BLOCK blocks,
   double across), then dx = (g - mean) & mask. */
static ss_status sparsemax_vjp_simd(const float *x, const float *y,
                                    const float *g, size_t n,
                                    const double *params, float *dx) {
  (void)x;
  (void)params;
  const v128_t zero = wasm_f32x4_splat(0.0f);
  double sum = 0.0;
  v128_t count = wasm_i32x4_splat(0);
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t s0 = zero, s1 = zero;
    for (; i + 8 <= end; i += 8) {
      const v128_t m0 = wasm_f32x4_gt(wasm_v128_load(y + i), zero);
      const v128_t m1 = wasm_f32x4_gt(wasm_v128_load(y + i + 4), zero);
      s0 = wasm_f32x4_add(s0, wasm_v128_and(wasm_v128_load(g + i), m0));
      s1 = wasm_f32x4_add(s1, wasm_v128_and(wasm_v128_load(g + i + 4), m1));
      count = wasm_i32x4_sub(wasm_i32x4_sub(count, m0), m1);
    }
    if (i + 4 <= end) {
      const v128_t m0 = wasm_f32x4_gt(wasm_v128_load(y + i), zero);
      s0 = wasm_f32x4_add(s0, wasm_v128_and(wasm_v128_load(g + i), m0));
      count = wasm_i32x4_sub(count, m0);
      i += 4;
    }
    if (i < end) { /* tail: pad y with 0 (not in the support) */
      const size_t rem = end - i;
      const v128_t m0 = wasm_f32x4_gt(ss_load_partial(y + i, rem, 0.0f), zero);
      s1 = wasm_f32x4_add(s1, wasm_v128_and(ss_load_partial(g + i, rem, 0.0f), m0));
      count = wasm_i32x4_sub(count, m0);
      i = end;
    }
    sum += ss_hsum_f64(wasm_f32x4_add(s0, s1));
  }
  const size_t k = ss_sparse_count_lanes(count);
  const v128_t vmean = wasm_f32x4_splat(k ? (float)(sum / (double)k) : 0.0f);
  for (i = 0; i + 4 <= n; i += 4) {
    const v128_t m = wasm_f32x4_gt(wasm_v128_load(y + i), zero);
    wasm_v128_store(dx + i, wasm_v128_and(wasm_f32x4_sub(wasm_v128_load(g + i), vmean), m));
  }
  if (i < n) {
    const size_t rem = n - i;
    const v128_t m = wasm_f32x4_gt(ss_load_partial(y + i, rem, 0.0f), zero);
    ss_store_partial(dx + i, rem,
                     wasm_v128_and(wasm_f32x4_sub(ss_load_partial(g + i, rem, 0.0f), vmean), m));
  }
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct calls ------------------------------------ */

const ss_kernel_info ss_kernel_sparsemax = {
    .name = "sparsemax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Sparsemax: Euclidean projection onto the simplex, exact zeros",
    .formula = "y_i = max(x_i - tau, 0), tau such that sum_i y_i = 1; "
               "VJP: dx_i = g_i - mean_{y_j > 0} g_j where y_i > 0, else 0",
    .paper = "Martins & Astudillo 2016, 'From Softmax to Sparsemax: A Sparse "
             "Model of Attention and Multi-Label Classification'; linear-time "
             "threshold: Duchi, Shalev-Shwartz, Singer & Chandra 2008, "
             "'Efficient Projections onto the l1-Ball for Learning in High "
             "Dimensions'",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .normalize = SS_IMPLS(sparsemax),
    .normalize_vjp = SS_IMPLS(sparsemax_vjp),
};

ss_status ss_sparsemax_ex(ss_impl impl, ss_threshold_method method,
                          const float *x, size_t n, float *y, float *tau,
                          size_t *support) {
  const ss_status s = ss_sparse_check_args(impl, method, x, n, y);
  if (s != SS_OK) return s;
  return ss_sparse_run(SS_SPARSE_SPARSEMAX, impl, method, x, n, y, tau,
                       support);
}

ss_status ss_sparsemax(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_sparsemax, ss_impl_default(), x, n, NULL, 0,
                      y);
}
