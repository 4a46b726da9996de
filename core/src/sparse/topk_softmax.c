/*
 * topk_softmax — softmax over the k largest logits, exactly 0 elsewhere:
 *
 *   v = the k-th largest logit (duplicates counted),
 *   S = {i : x_i >= v},   y_i = exp(x_i - max) / sum_{j in S} exp(x_j - max)
 *   on S, y_i = 0 off S.
 *
 * Ties: every logit tied with the k-th largest value is kept, so equal
 * logits always get equal probabilities and |S| exceeds k only by ties
 * (k = 2 of [3, 1, 1, 0] keeps {3, 1, 1}: y = [1, e^-2, e^-2, 0] / (1 +
 * 2 e^-2)). This is the top-k filter of Hugging Face's
 * TopKLogitsWarper (`scores < topk(scores, k).values[..., -1]` is removed)
 * and of the top-k sampler (Fan, Lewis & Dauphin 2018, "Hierarchical
 * Neural Story Generation"), normalized instead of sampled.
 * -Inf logits never enter S while finite ones remain; when fewer than k
 * logits are finite, S is every finite logit (the k-th largest is -Inf).
 * k >= 1 is an integer parameter (registry range 1..SS_MAX_N, so k = 0 is
 * SS_ERR_PARAM_RANGE); k > n is SS_ERR_LENGTH (unlike Hugging Face, which
 * clamps k to n), checked before any data is read.
 *
 * Backward: y is a softmax on the (locally constant) set S and 0 off it, so
 * the softmax VJP dx = y (g - <g, y>) is exact and is 0 off S.
 *
 * Implementation: the threshold v by expected-O(n) quickselect
 * (common/select.c) on a copy of x in y -- y is scratch until the result is
 * written; no allocation. Then y_i = x_i on S, -Inf off S (a masked pass),
 * and the softmax internals (ss_exp_store_*, in place) exponentiate and sum;
 * one scale by 1/sum. SIMD: the max / validation pass, a counting pass of
 * the finite logits (when at most k are finite the selection is skipped),
 * the masked pass, the vector exp and the scale; the quickselect is the
 * scalar one. Accuracy is softmax's on the kept set: tested max rel err
 * <= 2e-6 vs float64, measured 4.7e-7 (tests/c/test_topk_softmax.c).
 */
#include <math.h>
#include <string.h>

#include "common/impl_pair.h"
#include "common/select.h"
#include "common/softmax_row.h"
#include "common/unmasked.h"

static const ss_param_info topk_params[] = {{
    .name = "k",
    .type = SS_PARAM_INT,
    .n_bound = SS_N_BOUND_LE,
    .min = 1.0,
    .max = (double)SS_MAX_N,
    .min_open = false,
    .max_open = false,
    .def = 5.0,
    .ui_min = 1.0,
    .ui_max = 64.0,
    .log_scale = false,
    .help = "keep the k largest logits and every logit tied with the k-th; "
            "k > n is an error",
}};

/* The k-th largest logit, or -Inf when every logit is kept (k = n; SIMD:
   also when at most k logits are finite, without the selection, which would
   find -Inf). y is the selection's scratch. */
static float kth_largest_scalar(const float *x, size_t n, size_t k, float *y) {
  if (k >= n) return -INFINITY;
  memcpy(y, x, n * sizeof *y);
  return ss_select_kth_largest(y, n, k, NULL);
}

/* y_i = x_i where x_i >= thr, else -Inf. */
static void mask_below_scalar(const float *x, size_t n, float thr, float *y) {
  for (size_t i = 0; i < n; i++) y[i] = x[i] >= thr ? x[i] : -INFINITY;
}

#if SS_HAVE_SIMD

static float kth_largest_simd(const float *x, size_t n, size_t k, float *y) {
  if (k >= n || ss_count_unmasked_simd(x, n) <= k) return -INFINITY;
  memcpy(y, x, n * sizeof *y);
  return ss_select_kth_largest(y, n, k, NULL);
}

static void mask_below_simd(const float *x, size_t n, float thr, float *y) {
  const v128_t vt = wasm_f32x4_splat(thr), ninf = wasm_f32x4_splat(-INFINITY);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(x + i);
    wasm_v128_store(y + i, wasm_v128_bitselect(v, ninf, wasm_f32x4_ge(v, vt)));
  }
  for (; i < n; i++) y[i] = x[i] >= thr ? x[i] : -INFINITY;
}

#endif /* SS_HAVE_SIMD */

/* ---- forward and VJP, one body each for both impls (common/impl_pair.h) */

SS_ALWAYS_INLINE ss_status topk_softmax_run(ss_impl impl, const float *x, size_t n,
                                            const double *params, float *y) {
  const size_t k = (size_t)params[0];
  if (k > n) return SS_ERR_LENGTH;
  float max;
  const ss_status s = SS_BY_IMPL(impl, ss_logits_max)(x, n, &max);
  if (s != SS_OK) return s;
  const float thr = SS_BY_IMPL(impl, kth_largest)(x, n, k, y);
  SS_BY_IMPL(impl, mask_below)(x, n, thr, y);
  SS_BY_IMPL(impl, ss_exp_normalize)(y, n, max, 1.0f, y); /* in place */
  return SS_OK;
}

/* softmax's VJP on the kept set (0 off it, where y = 0) */
SS_ALWAYS_INLINE ss_status topk_softmax_vjp_run(ss_impl impl, const float *x, const float *y,
                                                const float *g, size_t n,
                                                const double *params, float *dx) {
  (void)x;
  (void)params;
  SS_BY_IMPL(impl, ss_softmax_vjp_core)(y, g, n, 1.0f, dx);
  return SS_OK;
}

SS_NORMALIZE_IMPLS(topk_softmax, topk_softmax_run)
SS_NORMALIZE_VJP_IMPLS(topk_softmax_vjp, topk_softmax_vjp_run)

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_topk_softmax = {
    .name = "topk_softmax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Softmax over the k largest logits (ties kept), zero elsewhere",
    .formula = "v = k-th largest x; y_i = exp(x_i - max) / sum_{x_j >= v} "
               "exp(x_j - max) if x_i >= v, else 0; VJP: dx = y (g - <g, y>)",
    .paper = "Fan, Lewis & Dauphin 2018, 'Hierarchical Neural Story "
             "Generation' (top-k); ties as Hugging Face TopKLogitsWarper",
    .nparams = 1,
    .params = topk_params,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .normalize = SS_IMPLS(topk_softmax),
    .normalize_vjp = SS_IMPLS(topk_softmax_vjp),
    .relaxed_simd = SS_RELAXED_EXP_STORE,
};

ss_status ss_topk_softmax(const float *x, size_t n, size_t k, float *y) {
  const double params[1] = {(double)k};
  return ss_normalize(&ss_kernel_topk_softmax, ss_impl_default(), x, n, params,
                      1, y);
}
