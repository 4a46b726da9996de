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
 * diag(s) - s s^T / sum(s), so dx = s g - (<s, g> / sum s) s.
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
#include "common/check.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"
#include "sparse/threshold.h"

/* ---- scalar reference ------------------------------------------------- */

static ss_status entmax15_scalar(const float *x, size_t n, const double *params,
                                 float *y) {
  (void)params;
  return ss_sparse_run_scalar(SS_SPARSE_ENTMAX15, SS_THRESHOLD_SELECT, x, n, y,
                              NULL, NULL);
}

static ss_status entmax15_vjp_scalar(const float *x, const float *y,
                                     const float *g, size_t n,
                                     const double *params, float *dx) {
  (void)x;
  (void)params;
  double ss = 0.0, sg = 0.0;
  for (size_t i = 0; i < n; i++) {
    const double s = sqrt((double)y[i]);
    ss += s;
    sg += s * (double)g[i];
  }
  const double c = ss > 0.0 ? sg / ss : 0.0;
  for (size_t i = 0; i < n; i++)
    dx[i] = (float)(sqrt((double)y[i]) * ((double)g[i] - c));
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

static ss_status entmax15_simd(const float *x, size_t n, const double *params,
                               float *y) {
  (void)params;
  return ss_sparse_run_simd(SS_SPARSE_ENTMAX15, SS_THRESHOLD_SELECT, x, n,
                            SS_SPARSE_MARGIN, y, NULL, NULL);
}

/* sum s and sum s g in float lanes within SS_SUM_BLOCK blocks, double
   across; then dx = s (g - c). */
static ss_status entmax15_vjp_simd(const float *x, const float *y,
                                   const float *g, size_t n,
                                   const double *params, float *dx) {
  (void)x;
  (void)params;
  const v128_t zero = wasm_f32x4_splat(0.0f);
  double ss = 0.0, sg = 0.0;
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t a0 = zero, a1 = zero, b0 = zero, b1 = zero;
    for (; i + 8 <= end; i += 8) {
      const v128_t s0 = wasm_f32x4_sqrt(wasm_v128_load(y + i));
      const v128_t s1 = wasm_f32x4_sqrt(wasm_v128_load(y + i + 4));
      a0 = wasm_f32x4_add(a0, s0);
      a1 = wasm_f32x4_add(a1, s1);
      b0 = wasm_f32x4_add(b0, wasm_f32x4_mul(s0, wasm_v128_load(g + i)));
      b1 = wasm_f32x4_add(b1, wasm_f32x4_mul(s1, wasm_v128_load(g + i + 4)));
    }
    if (i + 4 <= end) {
      const v128_t s0 = wasm_f32x4_sqrt(wasm_v128_load(y + i));
      a0 = wasm_f32x4_add(a0, s0);
      b0 = wasm_f32x4_add(b0, wasm_f32x4_mul(s0, wasm_v128_load(g + i)));
      i += 4;
    }
    if (i < end) { /* tail: y padded with 0 gives s = 0 */
      const size_t rem = end - i;
      const v128_t s0 = wasm_f32x4_sqrt(ss_load_partial(y + i, rem, 0.0f));
      a1 = wasm_f32x4_add(a1, s0);
      b1 = wasm_f32x4_add(b1, wasm_f32x4_mul(s0, ss_load_partial(g + i, rem, 0.0f)));
      i = end;
    }
    ss += ss_hsum_f64(wasm_f32x4_add(a0, a1));
    sg += ss_hsum_f64(wasm_f32x4_add(b0, b1));
  }
  const v128_t vc = wasm_f32x4_splat(ss > 0.0 ? (float)(sg / ss) : 0.0f);
  for (i = 0; i + 4 <= n; i += 4) {
    const v128_t s = wasm_f32x4_sqrt(wasm_v128_load(y + i));
    wasm_v128_store(dx + i, wasm_f32x4_mul(s, wasm_f32x4_sub(wasm_v128_load(g + i), vc)));
  }
  if (i < n) {
    const size_t rem = n - i;
    const v128_t s = wasm_f32x4_sqrt(ss_load_partial(y + i, rem, 0.0f));
    ss_store_partial(dx + i, rem,
                     wasm_f32x4_mul(s, wasm_f32x4_sub(ss_load_partial(g + i, rem, 0.0f), vc)));
  }
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct calls ------------------------------------ */

const ss_kernel_info ss_kernel_entmax15 = {
    .name = "entmax15",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "1.5-entmax: between softmax and sparsemax, exact zeros",
    .formula = "y_i = max(x_i / 2 - tau, 0)^2, tau such that sum_i y_i = 1; "
               "VJP: s = sqrt(y), dx = s g - (<s, g> / sum s) s",
    .paper = "Peters, Niculae & Martins 2019, 'Sparse Sequence-to-Sequence "
             "Models' (exact sort-based 1.5-entmax)",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .normalize = SS_IMPLS(entmax15),
    .normalize_vjp = SS_IMPLS(entmax15_vjp),
};

ss_status ss_entmax15_ex(ss_impl impl, ss_threshold_method method,
                         const float *x, size_t n, float *y, float *tau,
                         size_t *support) {
  const ss_status s = ss_sparse_check_args(impl, method, x, n, y);
  if (s != SS_OK) return s;
  return ss_sparse_run(SS_SPARSE_ENTMAX15, impl, method, x, n, y, tau, support);
}

ss_status ss_entmax15(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_entmax15, ss_impl_default(), x, n, NULL, 0, y);
}
