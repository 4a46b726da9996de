/*
 * relu_attention — ReLU attention weights in softmax's place, divided by
 * the row length (Guo et al. 2024, following Wortsman et al. 2023):
 *
 *   y_i = relu(x_i) / L,   L = #{j : x_j != -Inf}
 *
 * i.e. the number of keys the query sees. x_i <= 0 (and -Inf, a masked key)
 * gives exactly 0; the weights need not sum to 1 -- sum y = (sum relu x) / L,
 * 0 for a row with no positive score -- so a head can attend to nothing and
 * needs no attention sink (output kind WEIGHTS).
 *
 * Papers:
 *   - Guo, Pai, Bai, Jiao, Jordan & Mei 2024, "Active-Dormant Attention
 *     Heads: Mechanistically Demystifying Extreme-Token Phenomena in LLMs"
 *     (arXiv:2410.13835): replacing softmax by ReLU attention in models
 *     trained on Bigram-Backcopy removes the attention sink on BOS (and the
 *     value-state drain / residual-state peak). Checked against the authors'
 *     code (github.com/GuoTianYu2000/Active-Dormant-Attention,
 *     BBM/model.py, Attention.forward with attn_use_relu): scores =
 *     relu(QK^T / sqrt(d) + causal_mask), then row i (0-based) divided by
 *     i + 1 -- the number of keys causal query i sees. This kernel is that
 *     form: L counts the row's entries that are not -Inf.
 *   - Wortsman, Lee, Gilmer & Kornblith 2023, "Replacing softmax with ReLU
 *     in Vision Transformers" (arXiv:2309.08586): phi = L^{-1} relu with L
 *     the sequence length (no causal mask in a ViT: L = the row length),
 *     the scaling that lets ReLU attention match softmax's.
 *
 * Under a causal mask (core/src/attention/sdpa.c, common/attn_rules.h) a
 * query's row holds -Inf at the keys it does not see (future positions and
 * padding keys), so L is the number of visible keys, as in Guo et al.'s
 * i + 1 (and the same row in the forward and the backward). Padding a row
 * with -Inf therefore changes no other output (the -Inf padding property),
 * as with softpick and the length-aware normalizers (ssmax, softplus_l1,
 * which count n the same way, common/unmasked.h). A NaN is SS_ERR_NAN, +Inf
 * SS_ERR_POS_INF, a row with every entry -Inf SS_ERR_ALL_MASKED (L = 0: no
 * key to attend to, as for every normalizer here).
 *
 * Backward: L depends on the mask only (piecewise constant in x), so
 *   dx_j = [x_j > 0] g_j / L
 * (relu'(0) = 0: the one-sided choice at the kink, as softpick's; 0 at
 * masked entries). The VJP reads x, not y, for the support (a tiny x_j > 0
 * whose output the exact-zero rule flushed still has slope 1/L). No
 * parameters: no parameter VJP.
 *
 * Numerics. Nothing is summed: L is an exact integer count (<= 2^26, so an
 * exact float) and each output is one float division x_i / L, correctly
 * rounded (IEEE), in both impls -- the scalar reference divides in float on
 * purpose: a double quotient rounded to float would round twice. So SIMD
 * equals scalar bit for bit, and |y_i - relu(x_i)/L| <= 2^-24 |relu(x_i)/L|
 * (half an ulp) against the exact value for outputs >= FLT_MIN. No overflow:
 * L >= 1, so |y_i| <= |x_i| <= FLT_MAX. Outputs below FLT_MIN (x_i
 * subnormal, or x_i / L below FLT_MIN) are +0 (the exact-zero rule,
 * common/flush.h); -0 gives +0. The VJP likewise: one division g_j / L,
 * identical in both impls. in_place: the count pass reads all of x before
 * the output pass, which reads x_i before writing y_i.
 * Tests: tests/c/test_relu_attention.c (float64 reference within 2^-24
 * relative, SIMD == scalar bitwise, zeros, sum = sum relu / L, finite
 * differences, edge cases, statuses).
 */
#include <math.h>

#include "common/check.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/unmasked.h"
#include "common/vec_simd.h"

/* ---- scalar reference ------------------------------------------------- */

/* Validates x (ss_check_logits' statuses) and counts its unmasked entries. */
static ss_status row_length_scalar(const float *x, size_t n, float *len) {
  ss_status s = ss_check_logits(x, n, NULL);
  if (s != SS_OK) return s;
  *len = (float)ss_count_unmasked_scalar(x, n); /* >= 1, exact */
  return SS_OK;
}

static ss_status relu_attention_scalar(const float *x, size_t n, const double *params, float *y) {
  (void)params;
  float len;
  ss_status s = row_length_scalar(x, n, &len);
  if (s != SS_OK) return s;
  for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? ss_flush(x[i] / len) : 0.0f;
  return SS_OK;
}

static ss_status relu_attention_vjp_scalar(const float *x, const float *y, const float *g, size_t n,
                                           const double *params, float *dx) {
  (void)y, (void)params;
  float len;
  ss_status s = row_length_scalar(x, n, &len);
  if (s != SS_OK) return s;
  for (size_t j = 0; j < n; j++) dx[j] = x[j] > 0.0f ? g[j] / len : 0.0f;
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* One pass: NaN, +Inf and the unmasked count together; the statuses in
   ss_check_logits' order (NaN, then +Inf, then all masked). */
static ss_status row_length_simd(const float *x, size_t n, float *len) {
  const v128_t pinf = wasm_f32x4_splat(INFINITY), ninf = wasm_f32x4_splat(-INFINITY);
  v128_t nan = wasm_i32x4_splat(0), inf = nan;
  v128_t c0 = nan, c1 = nan; /* lanes count down by 1 per unmasked entry */
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t a = wasm_v128_load(x + i), b = wasm_v128_load(x + i + 4);
    nan = wasm_v128_or(nan, wasm_v128_or(wasm_f32x4_ne(a, a), wasm_f32x4_ne(b, b)));
    inf = wasm_v128_or(inf, wasm_v128_or(wasm_f32x4_eq(a, pinf), wasm_f32x4_eq(b, pinf)));
    c0 = wasm_i32x4_add(c0, wasm_f32x4_ne(a, ninf));
    c1 = wasm_i32x4_add(c1, wasm_f32x4_ne(b, ninf));
  }
  for (; i + 4 <= n; i += 4) {
    const v128_t a = wasm_v128_load(x + i);
    nan = wasm_v128_or(nan, wasm_f32x4_ne(a, a));
    inf = wasm_v128_or(inf, wasm_f32x4_eq(a, pinf));
    c0 = wasm_i32x4_add(c0, wasm_f32x4_ne(a, ninf));
  }
  if (i < n) { /* tail padded with -Inf: not counted, neither NaN nor +Inf */
    const v128_t a = ss_load_partial(x + i, n - i, -INFINITY);
    nan = wasm_v128_or(nan, wasm_f32x4_ne(a, a));
    inf = wasm_v128_or(inf, wasm_f32x4_eq(a, pinf));
    c1 = wasm_i32x4_add(c1, wasm_f32x4_ne(a, ninf));
  }
  if (wasm_v128_any_true(nan)) return SS_ERR_NAN;
  if (wasm_v128_any_true(inf)) return SS_ERR_POS_INF;
  /* each lane of c0 + c1 holds minus its count, <= 2^24 for n <= 2^26 */
  const v128_t c = wasm_i32x4_add(c0, c1);
  const int64_t neg = (int64_t)wasm_i32x4_extract_lane(c, 0) + wasm_i32x4_extract_lane(c, 1) +
                      wasm_i32x4_extract_lane(c, 2) + wasm_i32x4_extract_lane(c, 3);
  if (neg == 0) return SS_ERR_ALL_MASKED;
  *len = (float)(-neg);
  return SS_OK;
}

/* relu(v) / len, the exact-zero rule applied: +0 for v <= 0 and -Inf. */
static inline v128_t relu_div(v128_t v, v128_t vlen, v128_t zero) {
  const v128_t r = wasm_v128_and(v, wasm_f32x4_gt(v, zero));
  return ss_flush_f32x4(wasm_f32x4_div(r, vlen));
}

static ss_status relu_attention_simd(const float *x, size_t n, const double *params, float *y) {
  (void)params;
  float len;
  ss_status s = row_length_simd(x, n, &len);
  if (s != SS_OK) return s;
  const v128_t vlen = wasm_f32x4_splat(len), zero = wasm_f32x4_splat(0.0f);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t a = relu_div(wasm_v128_load(x + i), vlen, zero);
    const v128_t b = relu_div(wasm_v128_load(x + i + 4), vlen, zero);
    wasm_v128_store(y + i, a);
    wasm_v128_store(y + i + 4, b);
  }
  for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, relu_div(wasm_v128_load(x + i), vlen, zero));
  if (i < n) ss_store_partial(y + i, n - i, relu_div(ss_load_partial(x + i, n - i, 0.0f), vlen, zero));
  return SS_OK;
}

static ss_status relu_attention_vjp_simd(const float *x, const float *y, const float *g, size_t n,
                                         const double *params, float *dx) {
  (void)y, (void)params;
  float len;
  ss_status s = row_length_simd(x, n, &len);
  if (s != SS_OK) return s;
  const v128_t vlen = wasm_f32x4_splat(len), zero = wasm_f32x4_splat(0.0f);
  size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const v128_t pos = wasm_f32x4_gt(wasm_v128_load(x + j), zero);
    wasm_v128_store(dx + j, wasm_v128_and(wasm_f32x4_div(wasm_v128_load(g + j), vlen), pos));
  }
  if (j < n) {
    const size_t rem = n - j;
    const v128_t pos = wasm_f32x4_gt(ss_load_partial(x + j, rem, 0.0f), zero);
    const v128_t q = wasm_f32x4_div(ss_load_partial(g + j, rem, 0.0f), vlen);
    ss_store_partial(dx + j, rem, wasm_v128_and(q, pos));
  }
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_relu_attention = {
    .name = "relu_attention",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "ReLU attention: relu(x) / L, L the number of unmasked entries (the keys a "
               "causal query sees); exact zeros for x <= 0, need not sum to 1 (no attention sink)",
    .formula = "L = number of entries x_j != -Inf; y_i = relu(x_i) / L; "
               "sum y = sum relu(x) / L; VJP: dx_j = [x_j > 0] g_j / L",
    .paper = "Guo, Pai, Bai, Jiao, Jordan & Mei 2024, 'Active-Dormant Attention Heads: "
             "Mechanistically Demystifying Extreme-Token Phenomena in LLMs' (arXiv:2410.13835); "
             "ReLU divided by the sequence length from Wortsman, Lee, Gilmer & Kornblith 2023, "
             "'Replacing softmax with ReLU in Vision Transformers' (arXiv:2309.08586)",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_WEIGHTS,
    .has_backward = true,
    .in_place = true,
    .normalize = SS_IMPLS(relu_attention),
    .normalize_vjp = SS_IMPLS(relu_attention_vjp),
};

ss_status ss_relu_attention(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_relu_attention, ss_impl_default(), x, n, NULL, 0, y);
}
