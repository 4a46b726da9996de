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
 * and 0 elsewhere (sparse/sparse_vjp.c, shared with entmax15).
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
#include "common/impl_pair.h"
#include "sparse/threshold.h"

/* ---- entry points: the shared bodies of sparse/threshold.h ---------- */

SS_NORMALIZE_IMPLS(sparsemax, ss_sparse_forward_run, SS_SPARSE_SPARSEMAX)
SS_NORMALIZE_VJP_IMPLS(sparsemax_vjp, ss_sparse_vjp_run, SS_SPARSE_SPARSEMAX)

/* ---- registry entry and direct calls ------------------------------------ */

const ss_kernel_info ss_kernel_sparsemax = {
    .name = "sparsemax",
    SS_SPARSE_KERNEL(sparsemax),
    .summary = "Sparsemax: Euclidean projection onto the simplex, exact zeros",
    .formula = "y_i = max(x_i - tau, 0), tau such that sum_i y_i = 1; "
               "VJP: dx_i = g_i - mean_{y_j > 0} g_j where y_i > 0, else 0",
    .paper = "Martins & Astudillo 2016, 'From Softmax to Sparsemax: A Sparse "
             "Model of Attention and Multi-Label Classification'; linear-time "
             "threshold: Duchi, Shalev-Shwartz, Singer & Chandra 2008, "
             "'Efficient Projections onto the l1-Ball for Learning in High "
             "Dimensions'",
};

ss_status ss_sparsemax_ex(ss_impl impl, ss_threshold_method method,
                          const float *x, size_t n, float *y, float *tau, size_t *support) {
  return ss_sparse_ex(SS_SPARSE_SPARSEMAX, impl, method, x, n, y, tau, support);
}

ss_status ss_sparsemax(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_sparsemax, ss_impl_default(), x, n, NULL, 0,
                      y);
}
