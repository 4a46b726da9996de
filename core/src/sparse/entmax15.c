/*
 * entmax15 — exact alpha = 1.5 entmax (Peters, Niculae & Martins 2019,
 * "Sparse Sequence-to-Sequence Models"):
 *
 *   y = argmax_{p in simplex} <p, x> + H^T_1.5(p) = [x/2 - tau]_+^2,
 *   sum_i y_i = 1.
 *
 *   The paper's sort method: z = x/2 sorted descending, running mean_k and
 *   mean of squares ms_k of z_(1..k), delta_k = (1 - k (ms_k - mean_k^2)) / k,
 *   tau_k = mean_k - sqrt(delta_k); the support is the largest k with
 *   tau_k <= z_(k), and tau = tau_K.
 *
 * Backward: with s = sqrt(y) (= y^(2 - alpha)), the Jacobian is
 * diag(s) - s s^T / sum(s), so dx = s g - (<s, g> / sum s) s
 * (sparse/sparse_vjp.c, shared with sparsemax).
 *
 * Implementation (sparse/threshold.{h,c}, threshold_simd.c): z_k is in the
 * support iff sum_j (z_j - z_k)_+^2 < 1 -- the paper's condition in a form
 * monotone in z_k without square roots -- decided exactly on an integer
 * grid (z to 2^-48) by an expected-O(n) pivot search over the entries with
 * x within 2 of the maximum (no other can be in the support), or with
 * SS_THRESHOLD_SORT by the sort of every finite logit and a scan. tau is
 * the paper's formula evaluated from exact integer sums (the cancellation
 * in ms - mean^2 is done in integers). y serves as scratch; no allocation.
 * SIMD: the max / validation pass, Newton narrowing passes on
 * F(t) = sum ((x - t)_+ / 2)^2 - 1 and the output pass are vector; support,
 * tau and y are bitwise those of the scalar code.
 * y_i = (float)(((x_i - max) / 2 - theta)^2) in double: relative error
 * <= 2^-24 + 2 (grid 2^-48 + double rounding) / sqrt(y_i); the tests use
 * 2^-23 y + 1e-13 sqrt(y) against a float64 sort reference
 * (tests/c/test_entmax15.c). -Inf entries get exactly 0 and leave the
 * others unchanged.
 */
#include "common/impl_pair.h"
#include "sparse/threshold.h"

/* ---- entry points: the shared bodies of sparse/threshold.h ---------- */

SS_NORMALIZE_IMPLS(entmax15, ss_sparse_forward_run, SS_SPARSE_ENTMAX15)
SS_NORMALIZE_VJP_IMPLS(entmax15_vjp, ss_sparse_vjp_run, SS_SPARSE_ENTMAX15)

/* ---- registry entry and direct calls ------------------------------------ */

const ss_kernel_info ss_kernel_entmax15 = {
    .name = "entmax15",
    SS_SPARSE_KERNEL(entmax15),
    .summary = "1.5-entmax: between softmax and sparsemax, exact zeros",
    .formula = "y_i = max(x_i / 2 - tau, 0)^2, tau such that sum_i y_i = 1; "
               "VJP: s = sqrt(y), dx = s g - (<s, g> / sum s) s",
    .paper = "Peters, Niculae & Martins 2019, 'Sparse Sequence-to-Sequence "
             "Models' (exact sort-based 1.5-entmax)",
};

ss_status ss_entmax15_ex(ss_impl impl, ss_threshold_method method,
                         const float *x, size_t n, float *y, float *tau, size_t *support) {
  return ss_sparse_ex(SS_SPARSE_ENTMAX15, impl, method, x, n, y, tau, support);
}

ss_status ss_entmax15(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_entmax15, ss_impl_default(), x, n, NULL, 0, y);
}
