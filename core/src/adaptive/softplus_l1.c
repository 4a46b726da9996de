/*
 * softplus_l1 — length-scaled Softplus attention weights (LSSA): Softplus as
 * the positive map, l1 normalisation, and an entropy-invariant scale that
 * grows with the number of attended entries:
 *
 *   c   = log(d) * log(n)                  (d: head dimension)
 *   y_i = softplus(c x_i) / sum_j softplus(c x_j),  softplus(z) = log(1 + e^z)
 *
 * Gao & Spratling 2025 (ICML 2026 version with Gionfrida), "Softplus
 * Attention with Re-weighting Boosts Length Extrapolation in Large Language
 * Models" (arXiv:2501.13428; code github.com/iminfine/freeatten). This is the
 * normalisation stage (LSSA) only, not the ReLU^p re-weighting stage.
 * Checked: the scale is the product log d * log N with N the number of
 * tokens the row actually attends to (row i of the causal mask: N = i) and
 * d the head dimension, A = Softplus((log d log N) QK^T) masked by 0/1, then
 * A_i / ||A_i||_1; in the paper Q and K rows are l2-normalised first, so the
 * logits there are cosines in [-1, 1] (here x is taken as given). Sources: a
 * summary of the ICML 2026 paper (papernotes, "log d * log N ... N an L x L
 * matrix with row i equal to i") and an independent PyTorch reimplementation
 * (scores = log(head_dim) log(n) (q_hat k_hat^T), F.softplus, tril mask, l1);
 * the freeatten repository itself was not available to read. The paper's
 * setting is d = 64 (GPT-2 small), our default.
 *
 * n counts the unmasked entries (adaptive_internal.h): a -Inf entry is a
 * masked token, weight 0 (the paper multiplies by a 0/1 mask instead of
 * adding -Inf), and does not count in N. n = 1 or d = 1 make c = 0: every
 * unmasked entry then gets softplus(0) = log 2, i.e. 1 / n.
 *
 * Backward: with f_i = softplus(c x_i), S = sum f, f'_i = c sigmoid(c x_i),
 *   dx_j = (f'_j / S) (g_j - <g, y>) = y_j q_j (g_j - <g, y>),
 *   q_j = c sigmoid(z_j) / softplus(z_j),  z_j = c x_j,
 * written so nothing overflows or underflows: with t = e^{-|z|},
 *   z <= 0:  q = c / ((1 + t) G(t)),       G(t) = log1p(t) / t  (G(0) = 1)
 *   z > 0:   q = 1 / ((1 + t) (x + t G(t) / c)).
 *
 * Numerics (no overflow, no all-zero row). With M = max x:
 *   c M <= 0: every softplus is tiny when c M << 0 (a row of x = -100 would
 *     underflow to a zero sum), so weights are taken relative to e^{cM}:
 *     w_i = softplus(z_i) / e^{cM} = e^{c (x_i - M)} G(e^{c x_i}),
 *     the first factor by softmax's exp pass (TwoSum-corrected, beta = c).
 *   c M > 0: w_i = softplus(z_i) / s, s = max(c M, 1):
 *     w_i = (c/s) max(x_i, 0) + (1/s) log1p(e^{-c |x_i|}),
 *     every term <= 1.7 (no float overflow even for x ~ 1e38, where c x is
 *     not a float), and e^{-c|x|} = 0 for masked entries.
 *   log1p(t) = t G(t) with G(u - 1) = log(u) / (u - 1), u = 1 + t (Kahan's
 *   trick: exact for the rounded u, so log1p keeps full relative accuracy
 *   for tiny t, where log(1 + t) alone would lose it).
 * Scalar reference: the same split in double with libm exp/log1p, weights
 * stored as floats (y is the scratch), summed in double, scaled once.
 * Exact zeros (common/flush.h's rule, decided on y in both impls): sum w >=
 * w_max >= log 2, so y_i = w_i / sum w reaches 1.44 w_i, a normal float for
 * weights w_i (and e_i) down to 0.69 FLT_MIN. The SIMD exp writes +0 below
 * FLT_MIN, so there it computes 2 e_i = e^{c (x_i - M) + ln 2} (a shifted
 * max, common/softmax_row.h's ss_expz_store_simd) and 2 w_i: a lane it
 * flushes has y_i < 0.72 FLT_MIN, which the rule makes +0 anyway. Before,
 * SIMD wrote +0 where scalar gave 1.1 FLT_MIN (deep inputs, n = 1000).
 * SIMD: exp/log of common/exp_simd.h and log_simd.h. Float c and the float
 * product c x_i put ~2^-23 k relative error on the exponential, k the
 * argument it sees (c (M - x_i) when c M <= 0; c |x_i| for x_i <= 0 else).
 * Stated bound: |y_i - y64_i| <= (4e-6 + 2^-22 k_i) y64_i for outputs
 * >= 1e-30; measured 0.29 of it, SIMD vs scalar 0.30 of the same form
 * (tests/c/test_softplus_l1.c).
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "adaptive/adaptive_internal.h"
#include "common/exp_simd.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/log_simd.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"

static const ss_param_info softplus_l1_params[] = {{
    .name = "head_dim",
    .type = SS_PARAM_INT,
    .min = 1.0,
    .max = 65536.0,
    .min_open = false,
    .max_open = false,
    .def = 64.0,
    .ui_min = 2.0,
    .ui_max = 256.0,
    .log_scale = true,
    .help = "d, the attention head dimension: scale c = log(d) log(n) "
            "(the paper uses d = 64)",
}};

/* c = log d log n, n unmasked entries. */
static double length_scale(double d, size_t nu) { return log(d) * log((double)nu); }

/* ---- scalar reference ------------------------------------------------- */

/* G(t) = log1p(t) / t, G(0) = 1. */
static double g_of(double t) { return t > 0.0 ? log1p(t) / t : 1.0; }

/* The weights w_i = softplus(c x_i) / e^{cM} (c M <= 0) or / max(c M, 1)
   (see above) stored to y; returns their sum. */
static double weights_scalar(const float *x, size_t n, float max, double c, float *y) {
  const double cm = c * max;
  const double sc = cm > 1.0 ? cm : 1.0;
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    double w = 0.0;
    if (x[i] != -INFINITY) {
      const double z = c * x[i];
      if (cm <= 0.0)
        w = exp(c * ((double)x[i] - max)) * g_of(exp(z));
      else
        w = ((z > 0.0 ? z : 0.0) + log1p(exp(-fabs(z)))) / sc;
    }
    y[i] = (float)w;
    sum += y[i];
  }
  return sum;
}

static ss_status softplus_l1_vjp_scalar(const float *x, const float *y,
                                        const float *g, size_t n,
                                        const double *params, float *dx) {
  const double c = length_scale(params[0], ss_count_unmasked_scalar(x, n));
  double dot = 0.0;
  for (size_t i = 0; i < n; i++) dot += (double)g[i] * y[i];
  for (size_t j = 0; j < n; j++) {
    double q = 0.0;
    if (c != 0.0 && x[j] != -INFINITY) {
      const double z = c * x[j], t = exp(-fabs(z));
      q = z <= 0.0 ? c / ((1.0 + t) * g_of(t)) : c / ((1.0 + t) * (z + t * g_of(t)));
    }
    dx[j] = (float)((double)y[j] * q * ((double)g[j] - dot));
  }
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* G(t) = log1p(t) / t for t in [0, 1]: log(u) / (u - 1), u = 1 + t; 1 where
   u rounds to 1 (t < 2^-24, G = 1 - t/2 + ...). */
static inline v128_t g_f32x4(v128_t t) {
  const v128_t one = wasm_f32x4_splat(1.0f);
  const v128_t u = wasm_f32x4_add(one, t);
  const v128_t r = wasm_f32x4_div(ss_log_pos_f32x4(u), wasm_f32x4_sub(u, one));
  return wasm_v128_bitselect(one, r, wasm_f32x4_eq(u, one));
}

/* w = a max(x, 0) + b t G(t), t = e^{-c |x|} (c M > 0 case). */
static inline v128_t weight_high(v128_t xv, v128_t va, v128_t vb, v128_t vc,
                                 const ss_exp_consts *k) {
  const v128_t zero = wasm_f32x4_splat(0.0f);
  const v128_t t = ss_exp_nonpos_f32x4(wasm_f32x4_neg(wasm_f32x4_mul(vc, wasm_f32x4_abs(xv))), k);
  const v128_t lin = wasm_f32x4_mul(va, wasm_f32x4_pmax(zero, xv));
  return wasm_f32x4_add(lin, wasm_f32x4_mul(vb, wasm_f32x4_mul(t, g_f32x4(t))));
}

/* The constants of the weight lanes: a, b, c and exp's of the c M > 0 case,
   E = e^{cM} of the c M <= 0 case. */
typedef struct weight_consts {
  v128_t a, b, c, e;
  ss_exp_consts k;
} weight_consts;

/* The weights of four lanes v: c M > 0 (high): v = x, weight_high; c M <= 0:
   v = e = e^{c (x - M)}, w = e G(E e). */
static inline v128_t weight4(bool high, v128_t v, const weight_consts *w) {
  return high ? weight_high(v, w->a, w->b, w->c, &w->k)
              : wasm_f32x4_mul(v, g_f32x4(wasm_f32x4_mul(w->e, v)));
}

/* w_i from src (x, or the e_i in y) stored to y; returns sum w, float lanes
   within SS_SUM_BLOCK blocks, double across. The tail is padded to a weight
   of exactly 0 (x = -Inf, e = 0). */
SS_ALWAYS_INLINE double weights_pass(bool high, const float *src, size_t n,
                                     const weight_consts *w, float *y) {
  double total = 0.0;
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t s = wasm_f32x4_splat(0.0f);
    for (; i + 4 <= end; i += 4) {
      const v128_t wv = weight4(high, wasm_v128_load(src + i), w);
      wasm_v128_store(y + i, wv);
      s = wasm_f32x4_add(s, wv);
    }
    if (i < end) {
      const size_t rem = end - i;
      const v128_t wv = weight4(high, ss_load_partial(src + i, rem, high ? -INFINITY : 0.0f), w);
      ss_store_partial(y + i, rem, wv);
      s = wasm_f32x4_add(s, wv);
      i = end;
    }
    total += ss_hsum_f64(s);
  }
  return total;
}

static double weights_simd(const float *x, size_t n, float max, double c, float *y) {
  const double cm = c * max;
  if (cm <= 0.0) { /* y holds 2 e_i, then 2 w_i (see above: exact zeros) */
    const double cf = (float)c, m = (double)max - 0x1.62E42FEFA39EFp-1 / cf;
    ss_expz_store_simd(x, n, m, cf, y);
    /* G's argument E e_i = (E / s) (s e_i), s = e^{cf (max - m)}: 2, or 1
       where max is so large that the shift is lost in m */
    const double e_cm = exp(cm) / exp(cf * ((double)max - m));
    const weight_consts w = {.e = wasm_f32x4_splat(e_cm < FLT_MIN ? 0.0f : (float)e_cm)};
    return weights_pass(false, y, n, &w, y);
  }
  const double sc = cm > 1.0 ? cm : 1.0;
  const weight_consts w = {.a = wasm_f32x4_splat((float)(c / sc)),
                           .b = wasm_f32x4_splat((float)(1.0 / sc)),
                           .c = wasm_f32x4_splat((float)c),
                           .k = ss_exp_consts_load()};
  return weights_pass(true, x, n, &w, y);
}

static inline v128_t vjp_lane(v128_t xv, v128_t yv, v128_t gv, v128_t vdot,
                              v128_t vc, v128_t vinvc, const ss_exp_consts *k) {
  const v128_t one = wasm_f32x4_splat(1.0f), zero = wasm_f32x4_splat(0.0f);
  const v128_t z = wasm_f32x4_mul(vc, xv);
  const v128_t t = ss_exp_nonpos_f32x4(wasm_f32x4_neg(wasm_f32x4_abs(z)), k);
  const v128_t gt = g_f32x4(t), opt = wasm_f32x4_add(one, t);
  const v128_t q_low = wasm_f32x4_div(vc, wasm_f32x4_mul(opt, gt));
  const v128_t q_high = wasm_f32x4_div(
      one, wasm_f32x4_mul(opt, wasm_f32x4_add(wasm_f32x4_pmax(zero, xv),
                                              wasm_f32x4_mul(wasm_f32x4_mul(t, gt), vinvc))));
  const v128_t q = wasm_v128_bitselect(q_high, q_low, wasm_f32x4_gt(z, zero));
  return wasm_f32x4_mul(wasm_f32x4_mul(yv, q), wasm_f32x4_sub(gv, vdot));
}

static ss_status softplus_l1_vjp_simd(const float *x, const float *y,
                                      const float *g, size_t n,
                                      const double *params, float *dx) {
  const double c = length_scale(params[0], ss_count_unmasked_simd(x, n));
  if (c == 0.0) { /* constant output */
    ss_scale_simd(g, n, 0.0f, dx);
    return SS_OK;
  }
  const ss_exp_consts k = ss_exp_consts_load();
  const v128_t vdot = wasm_f32x4_splat((float)ss_dot_simd(g, y, n));
  const v128_t vc = wasm_f32x4_splat((float)c), vinvc = wasm_f32x4_splat((float)(1.0 / c));
  size_t j = 0;
  for (; j + 4 <= n; j += 4)
    wasm_v128_store(dx + j, vjp_lane(wasm_v128_load(x + j), wasm_v128_load(y + j),
                                     wasm_v128_load(g + j), vdot, vc, vinvc, &k));
  if (j < n) {
    const size_t rem = n - j;
    ss_store_partial(dx + j, rem,
                     vjp_lane(ss_load_partial(x + j, rem, -INFINITY),
                              ss_load_partial(y + j, rem, 0.0f), ss_load_partial(g + j, rem, 0.0f),
                              vdot, vc, vinvc, &k));
  }
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- forward, one body for both impls (common/impl_pair.h) ------------- */

SS_ALWAYS_INLINE ss_status softplus_l1_run(ss_impl impl, const float *x, size_t n,
                                           const double *params, float *y) {
  float max;
  ss_status st = SS_BY_IMPL(impl, ss_logits_max)(x, n, &max);
  if (st != SS_OK) return st;
  const size_t nu = SS_BY_IMPL(impl, ss_count_unmasked)(x, n);
  const double c = length_scale(params[0], nu);
  if (c == 0.0) {
    ss_uniform_unmasked(x, n, nu, y);
    return SS_OK;
  }
  SS_BY_IMPL(impl, ss_divide_flush)(y, n, SS_BY_IMPL(impl, weights)(x, n, max, c, y));
  return SS_OK;
}

SS_NORMALIZE_IMPLS(softplus_l1, softplus_l1_run)

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_softplus_l1 = {
    .name = "softplus_l1",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Length-scaled Softplus attention: softplus(log d log n x), l1-normalised",
    .formula = "c = log(d) log(n), n = number of unmasked entries; y_i = softplus(c x_i) / "
               "sum_j softplus(c x_j), softplus(z) = log(1 + e^z); "
               "VJP: dx = y c sigmoid(c x) / softplus(c x) (g - <g, y>)",
    .paper = "Gao & Spratling 2025 (with Gionfrida, ICML 2026), 'Softplus Attention with "
             "Re-weighting Boosts Length Extrapolation in Large Language Models' "
             "(arXiv:2501.13428), the LSSA normalisation stage",
    .nparams = 1,
    .params = softplus_l1_params,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .normalize = SS_IMPLS(softplus_l1),
    .normalize_vjp = SS_IMPLS(softplus_l1_vjp),
    .relaxed_simd = SS_RELAXED_EXP_STORE,
};

ss_status ss_softplus_l1(const float *x, size_t n, double head_dim, float *y) {
  const double params[1] = {head_dim};
  return ss_normalize(&ss_kernel_softplus_l1, ss_impl_default(), x, n, params, 1, y);
}
