/*
 * masked_softmax — softmax over the kept entries only; masked entries come
 * out exactly 0 and the kept ones are renormalised among themselves:
 *
 *   y_i = keep_i exp(x_i - m) / sum_j keep_j exp(x_j - m),  m = max_{keep} x
 *
 * i.e. softmax of x with the masked logits replaced by -Inf.
 * Kim, Kwon & Kim 2023, "Revisiting Softmax Masking for Stability in
 * Continual Learning" (arXiv:2309.14808; v2: "Revisiting Softmax Masking:
 * Stop Gradient for Enhancing Stability in Replay-based Continual
 * Learning"): the logits of the classes outside the current task are masked
 * so the confidences learned for them are preserved. This is the paper's
 * negative-infinity masking; its general form (a finite mask value m with a
 * stop-gradient on the masked entries) is not implemented here.
 *
 * Two forms:
 *   - registry ("masked_softmax"): params mask_from, mask_to (int): entries
 *     with index in [mask_from, mask_to) are masked (e.g. the classes of the
 *     other tasks). Defaults 0, 0 mask nothing (softmax, bit for bit).
 *     mask_from >= mask_to is the empty range: nothing is masked (every
 *     pair of in-range values is valid; there is no relation error), and
 *     mask_to > n is SS_ERR_LENGTH (the range leaves the row; the registry's
 *     n bound).
 *   - direct: ss_masked_softmax(impl, x, keep, n, y), keep[i] != 0 keeps i.
 * Every entry is validated, masked or not (NaN -> SS_ERR_NAN, +Inf ->
 * SS_ERR_POS_INF: a mask is not a way to pass invalid logits), and a row
 * whose kept entries are all -Inf (or that keeps nothing) is
 * SS_ERR_ALL_MASKED.
 *
 * Backward: the masked outputs are constant 0, so dx = y (g - <g, y>) with
 * the masked y = 0 gives dx = 0 there and softmax's VJP over the kept
 * entries: softmax's own VJP, reused.
 *
 * Implementation: one validation pass (max over kept, NaN and +Inf over
 * all), then the masked logits are staged into y (kept: x_i, masked: -Inf;
 * y is the scratch) and softmax's exp pass runs in place, then one scale.
 * With nothing masked the staged row is x itself, so the result is
 * softmax's bit for bit; in general it is softmax of the staged row, with
 * softmax's accuracy (rel err <= 2e-6 vs float64, tests/c/test_masked_softmax.c).
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "common/check.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"

/* Which entries are kept: keep[] when given, else all outside [from, to). */
typedef struct mask_spec {
  const uint8_t *keep;
  size_t from, to;
} mask_spec;

static inline bool kept(const mask_spec *m, size_t i) {
  return m->keep ? m->keep[i] != 0 : (i < m->from || i >= m->to);
}

/* The parameter relations (see the header comment). */
static ss_status range_of(const double *params, size_t n, mask_spec *m) {
  if (params[0] > (double)n || params[1] > (double)n) return SS_ERR_LENGTH;
  m->keep = NULL;
  m->from = (size_t)params[0];
  m->to = params[1] > params[0] ? (size_t)params[1] : m->from; /* empty when from >= to */
  return SS_OK;
}

/* ---- scalar reference ------------------------------------------------- */

static ss_status masked_core_scalar(const float *x, const mask_spec *m,
                                    size_t n, float *y) {
  float max = -INFINITY;
  bool pos_inf = false;
  for (size_t i = 0; i < n; i++) {
    const float v = x[i];
    if (isnan(v)) return SS_ERR_NAN;
    if (v == INFINITY) pos_inf = true;
    if (kept(m, i) && v > max) max = v;
  }
  if (pos_inf) return SS_ERR_POS_INF;
  if (max == -INFINITY) return SS_ERR_ALL_MASKED;
  for (size_t i = 0; i < n; i++) y[i] = kept(m, i) ? x[i] : -INFINITY;
  /* in place: each y_i is read before it is overwritten */
  const double inv = 1.0 / ss_exp_store_scalar(y, n, max, 1.0f, y);
  ss_scale_flush_scalar(y, n, inv);
  return SS_OK;
}

static ss_status masked_scalar(const float *x, size_t n, const double *params,
                               float *y) {
  mask_spec m;
  ss_status s = range_of(params, n, &m);
  return s != SS_OK ? s : masked_core_scalar(x, &m, n, y);
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* keep[i..i+3] != 0 as four lane masks. */
static inline v128_t keep_mask(const uint8_t *keep) {
  const v128_t b = wasm_v128_load32_zero(keep);
  const v128_t w = wasm_u32x4_extend_low_u16x8(wasm_u16x8_extend_low_u8x16(b));
  return wasm_i32x4_ne(w, wasm_i32x4_splat(0));
}

/* Validation for a keep[] mask: NaN anywhere, the max of all entries (for
   +Inf) and the max of the kept ones, in one pass. */
static ss_status scan_keep_simd(const float *x, const uint8_t *keep, size_t n,
                                float *max_kept) {
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  v128_t mall = ninf, mk = ninf, nan = wasm_i32x4_splat(0);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(x + i);
    nan = wasm_v128_or(nan, wasm_f32x4_ne(v, v));
    mall = wasm_f32x4_pmax(mall, v);
    mk = wasm_f32x4_pmax(mk, wasm_v128_bitselect(v, ninf, keep_mask(keep + i)));
  }
  float all = -INFINITY, k = -INFINITY;
  bool has_nan = wasm_v128_any_true(nan);
  for (; i < n; i++) {
    if (isnan(x[i])) has_nan = true;
    all = x[i] > all ? x[i] : all;
    if (keep[i] && x[i] > k) k = x[i];
  }
  if (has_nan) return SS_ERR_NAN;
  float la[4], lk[4];
  wasm_v128_store(la, mall);
  wasm_v128_store(lk, mk);
  for (int l = 0; l < 4; l++) {
    all = la[l] > all ? la[l] : all;
    k = lk[l] > k ? lk[l] : k;
  }
  if (all == INFINITY) return SS_ERR_POS_INF;
  if (k == -INFINITY) return SS_ERR_ALL_MASKED;
  *max_kept = k;
  return SS_OK;
}

/* Validation for a range mask: the maxima of the three segments. */
static ss_status scan_range_simd(const float *x, const mask_spec *m, size_t n,
                                 float *max_kept) {
  const float a = ss_max_simd(x, m->from);
  const float b = ss_max_simd(x + m->from, m->to - m->from);
  const float c = ss_max_simd(x + m->to, n - m->to);
  if (isnan(a) || isnan(b) || isnan(c)) return SS_ERR_NAN;
  if (a == INFINITY || b == INFINITY || c == INFINITY) return SS_ERR_POS_INF;
  const float k = a > c ? a : c;
  if (k == -INFINITY) return SS_ERR_ALL_MASKED;
  *max_kept = k;
  return SS_OK;
}

static ss_status masked_core_simd(const float *x, const mask_spec *m, size_t n,
                                  float *y) {
  float max;
  ss_status s = m->keep ? scan_keep_simd(x, m->keep, n, &max) : scan_range_simd(x, m, n, &max);
  if (s != SS_OK) return s;
  if (m->keep) {
    const v128_t ninf = wasm_f32x4_splat(-INFINITY);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
      wasm_v128_store(y + i, wasm_v128_bitselect(wasm_v128_load(x + i), ninf,
                                                 keep_mask(m->keep + i)));
    for (; i < n; i++) y[i] = m->keep[i] ? x[i] : -INFINITY;
  } else {
    memcpy(y, x, m->from * sizeof *y);
    for (size_t i = m->from; i < m->to; i++) y[i] = -INFINITY;
    memcpy(y + m->to, x + m->to, (n - m->to) * sizeof *y);
  }
  const double sum = ss_exp_store_simd(y, n, max, 1.0f, y); /* in place */
  ss_scale_flush_simd(y, n, (float)(1.0 / sum), y);
  return SS_OK;
}

static ss_status masked_simd(const float *x, size_t n, const double *params,
                             float *y) {
  mask_spec m;
  ss_status s = range_of(params, n, &m);
  return s != SS_OK ? s : masked_core_simd(x, &m, n, y);
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct call ------------------------------------ */

static const ss_param_info masked_params[] = {
    {
        .name = "mask_from",
        .type = SS_PARAM_INT,
        .n_bound = SS_N_BOUND_LE,
        .min = 0.0,
        .max = (double)SS_MAX_N,
        .def = 0.0,
        .ui_min = 0.0,
        .ui_max = 32.0,
        .help = "first masked index: entries in [mask_from, mask_to) come out 0",
    },
    {
        .name = "mask_to",
        .type = SS_PARAM_INT,
        .n_bound = SS_N_BOUND_LE,
        .min = 0.0,
        .max = (double)SS_MAX_N,
        .def = 0.0,
        .ui_min = 0.0,
        .ui_max = 32.0,
        .help = "end of the masked range (exclusive, <= n); mask_from >= mask_to masks nothing",
    },
};

const ss_kernel_info ss_kernel_masked_softmax = {
    .name = "masked_softmax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Softmax over the kept entries; masked entries are exactly 0",
    .formula = "y_i = keep_i exp(x_i - m) / sum_j keep_j exp(x_j - m), m = max over kept; "
               "keep_i = (i < mask_from or i >= mask_to); VJP: softmax's, masked dx = 0",
    .paper = "Kim, Kwon & Kim 2023, 'Revisiting Softmax Masking for Stability in Continual "
             "Learning' (arXiv:2309.14808), negative-infinity masking",
    .nparams = 2,
    .params = masked_params,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .normalize = SS_IMPLS(masked),
    .normalize_vjp = SS_IMPLS(ss_softmax_vjp),
    .relaxed_simd = SS_RELAXED_EXP_STORE,
};

ss_status ss_masked_softmax(ss_impl impl, const float *x, const uint8_t *keep,
                            size_t n, float *y) {
  if (!x || !keep || !y) return SS_ERR_NULL;
  if ((unsigned)impl >= SS_IMPL_COUNT || !ss_impl_available(impl)) return SS_ERR_UNSUPPORTED;
  ss_status s = ss_check_n(n);
  if (s != SS_OK) return s;
  const mask_spec m = {keep, 0, 0};
  return SS_BY_IMPL(impl, masked_core)(x, &m, n, y);
}
