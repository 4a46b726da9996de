/*
 * vq_softmax — the output softmax of VQ-Logits (Shao et al. 2025): the model
 * predicts K codebook logits z, and a code map c: [0, V) -> [0, K) scatters
 * them to the V vocabulary entries, which then share their code's logit:
 *
 *   p_v = e^{z_{c(v)}} / sum_k count_k e^{z_k},  count_k = |{v : c(v) = k}|
 *
 * This equals the full softmax of the tied logits x_v = z_{c(v)}, but needs
 * exps over the codebook only: at most min(V, 2K) of them (below), against
 * V for the tied softmax. A code with count 0 takes no part (its logit may
 * be anything finite, even far above the others); a -Inf code is masked:
 * its entries get exactly 0.
 *
 * Direct API: ss_vq_softmax(impl, z, k, codes, v, y). A code >= k is
 * SS_ERR_DOMAIN; k and v are checked like n (SS_ERR_EMPTY / TOO_LARGE);
 * z is validated like logits (NaN, +Inf anywhere in it); all used codes -Inf
 * is SS_ERR_ALL_MASKED.
 *
 * Registry form (a normalizer maps n inputs to n outputs): params
 * `codebook` K (1 <= K <= n, else SS_ERR_LENGTH) and `seed`. x[0..K) are the
 * codebook logits; the code map sends v < K to v and v >= K to the seeded
 * hash below; x[K..n) stand for the tied copies, so their values are not
 * used -- except that -Inf marks a masked (padding) entry, which gets 0 and
 * is left out of the denominator (so padding a row with -Inf keeps every
 * other output), and NaN / +Inf are still rejected as in any row.
 *   code(v) = v < K ? v : (h(h(seed) ^ v) * K) >> 32   (64-bit product)
 *   h(u) = lowbias32: u ^= u >> 16; u *= 0x7feb352d; u ^= u >> 15;
 *          u *= 0x846ca68b; u ^= u >> 16                (all mod 2^32)
 * Integer-only and the same on every build.
 * Backward (registry form), x_v tied to z_{c(v)}: dz = the scatter-add of
 * softmax's VJP over the tied entries,
 *   dz_k = sum_{v : c(v) = k} y_v (g_v - <g, y>) = y_k sum_{c(v) = k} (g_v - <g, y>),
 * and dx_v = 0 for v >= K (they are not inputs of the function).
 *
 * Implementation, with m = max over the used codes (max over all codes
 * could leave every used exp underflowing):
 *   V < 2K: write the tied logits z_{c(v)} to y and run softmax's own
 *     exp-and-sum pass (ss_exp_store_*) on them in place: V exps.
 *   V >= 2K: y[0..K) is scratch: e_k = exp(min(z_k, m) - m) (the clamp only
 *     touches unused codes), S = sum_v e_{c(v)} (a gather, in double),
 *     p_k = e_k / S in place, then y_v = p_{c(v)} for v >= K; the entries
 *     v < K overwrote the scratch, so their K exps are recomputed from z
 *     (the direct API; in the registry form c(v) = v there and p_v is
 *     already in place): 2K exps. No allocation.
 * Both impls use the same per-element exp for scratch and recomputation, so
 * entries with the same code get bitwise equal outputs. The SIMD version
 * vectorizes the exps, the clamp and the scaling; gathers are scalar.
 * Accuracy: that of softmax on the tied vector: rel err <= 2e-6 vs float64
 * (measured 2.1e-7), <= 8 ulp from ss_normalize(softmax) on the explicit
 * tied vector (measured 2), SIMD vs scalar <= 8 ulp (tests/c/test_vq_softmax.c).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/check.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"

static const ss_param_info vq_params[] = {
    {.name = "codebook",
     .type = SS_PARAM_INT,
     .n_bound = SS_N_BOUND_LE,
     .min = 1.0,
     .max = (double)SS_MAX_N,
     .def = 4.0,
     .ui_min = 1.0,
     .ui_max = 64.0,
     .log_scale = true,
     .help = "K: x[0..K) are the codebook logits, every entry v >= K takes the "
             "logit of a hashed code (K <= n)"},
    {.name = "seed",
     .type = SS_PARAM_INT,
     .min = 0.0,
     .max = 4294967295.0,
     .def = 0.0,
     .ui_min = 0.0,
     .ui_max = 100.0,
     .help = "seed of the code map of the entries v >= K"},
};

static inline uint32_t lowbias32(uint32_t u) {
  u ^= u >> 16;
  u *= 0x7feb352du;
  u ^= u >> 15;
  u *= 0x846ca68bu;
  u ^= u >> 16;
  return u;
}

/* Where tokens get their code: an array (direct API) or the seeded hash
   (registry form, which also has masked tokens). */
typedef struct vq_map {
  const uint32_t *codes; /* NULL: registry form */
  const float *x;        /* registry form: the row */
  size_t k;
  uint32_t hseed; /* h(seed) */
} vq_map;

static inline size_t code_of(const vq_map *mp, size_t v) {
  if (mp->codes) return mp->codes[v];
  if (v < mp->k) return v;
  return (size_t)(((uint64_t)lowbias32(mp->hseed ^ (uint32_t)v) * (uint64_t)mp->k) >> 32);
}

static inline bool masked_token(const vq_map *mp, size_t v) {
  return !mp->codes && mp->x[v] == -INFINITY;
}

/* Codes in range (direct API) and m = max over the unmasked tokens of
   z_{c(v)}; z's NaN / +Inf are checked before. */
static ss_status vq_used_max(const vq_map *mp, const float *z, size_t v,
                             float *m_out) {
  float m = -INFINITY;
  if (mp->codes) {
    for (size_t t = 0; t < v; t++) {
      if (mp->codes[t] >= mp->k) return SS_ERR_DOMAIN;
      if (z[mp->codes[t]] > m) m = z[mp->codes[t]];
    }
  } else { /* code k < K is used by token k itself unless z_k = -Inf */
    for (size_t j = 0; j < mp->k; j++)
      if (z[j] > m) m = z[j];
  }
  if (m == -INFINITY) return SS_ERR_ALL_MASKED;
  *m_out = m;
  return SS_OK;
}

/* S = sum over unmasked tokens of e_{c(t)}, e in y[0..K). */
static double gather_sum(const vq_map *mp, size_t v, const float *e) {
  double s = 0.0;
  for (size_t t = 0; t < v; t++)
    if (!masked_token(mp, t)) s += (double)e[code_of(mp, t)];
  return s;
}

/* y_t = p_{c(t)} for t >= K (p in y[0..K)), 0 for masked tokens. */
static void gather_tail(const vq_map *mp, size_t v, float *y) {
  for (size_t t = mp->k; t < v; t++) y[t] = masked_token(mp, t) ? 0.0f : y[code_of(mp, t)];
}

/* y_t = z_{c(t)} (or -Inf for a masked token), t in [0, cnt). */
static void gather_logits(const vq_map *mp, const float *z, size_t cnt, float *y) {
  for (size_t t = 0; t < cnt; t++) y[t] = masked_token(mp, t) ? -INFINITY : z[code_of(mp, t)];
}

/* ---- scalar reference ------------------------------------------------- */

static void scale_scalar(float *y, size_t n, double inv) {
  ss_scale_flush_scalar(y, n, inv);
}

static void vq_core_scalar(const vq_map *mp, const float *z, float m, size_t v,
                           float *y) {
  const size_t k = mp->k;
  if (v < 2 * k) {
    gather_logits(mp, z, v, y);
    scale_scalar(y, v, 1.0 / ss_exp_store_scalar(y, v, m, 1.0f, y));
    return;
  }
  for (size_t j = 0; j < k; j++) y[j] = z[j] > m ? m : z[j];
  (void)ss_exp_store_scalar(y, k, m, 1.0f, y); /* its sum counts each code once */
  const double inv = 1.0 / gather_sum(mp, v, y);
  scale_scalar(y, k, inv);
  gather_tail(mp, v, y);
  if (mp->codes) {
    gather_logits(mp, z, k, y);
    (void)ss_exp_store_scalar(y, k, m, 1.0f, y);
    scale_scalar(y, k, inv);
  }
}

static ss_status vq_registry_prep(const float *x, size_t n, const double *params,
                                  ss_status row_status, vq_map *mp, float *m) {
  if (params[0] > (double)n) return SS_ERR_LENGTH; /* K <= n: a size relation */
  if (row_status != SS_OK && row_status != SS_ERR_ALL_MASKED) return row_status;
  *mp = (vq_map){NULL, x, (size_t)params[0], lowbias32((uint32_t)params[1])};
  return vq_used_max(mp, x, n, m);
}

static ss_status vq_registry_scalar(const float *x, size_t n,
                                    const double *params, float *y) {
  vq_map mp;
  float m;
  ss_status s = vq_registry_prep(x, n, params, ss_check_logits(x, n, NULL), &mp, &m);
  if (s != SS_OK) return s;
  vq_core_scalar(&mp, x, m, n, y);
  return SS_OK;
}

/* dx[k] = y_k * sum_{c(t) = k, t unmasked} (g_t - <g, y>); dx[K..n) = 0.
   The per-code sums accumulate in dx[0..K) (float). */
static void vq_scatter(const vq_map *mp, const float *g, size_t n, double dot,
                       float *dx) {
  for (size_t j = 0; j < mp->k; j++) dx[j] = 0.0f;
  for (size_t t = 0; t < n; t++)
    if (!masked_token(mp, t)) dx[code_of(mp, t)] += (float)((double)g[t] - dot);
}

static ss_status vq_registry_vjp_scalar(const float *x, const float *y,
                                        const float *g, size_t n,
                                        const double *params, float *dx) {
  vq_map mp;
  float m;
  ss_status s = vq_registry_prep(x, n, params, ss_check_logits(x, n, NULL), &mp, &m);
  if (s != SS_OK) return s;
  double dot = 0.0;
  for (size_t i = 0; i < n; i++) dot += (double)g[i] * (double)y[i];
  vq_scatter(&mp, g, n, dot, dx);
  for (size_t j = 0; j < mp.k; j++) dx[j] = (float)((double)y[j] * (double)dx[j]);
  for (size_t t = mp.k; t < n; t++) dx[t] = 0.0f;
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

static void vq_core_simd(const vq_map *mp, const float *z, float m, size_t v,
                         float *y) {
  const size_t k = mp->k;
  if (v < 2 * k) {
    gather_logits(mp, z, v, y);
    ss_scale_flush_simd(y, v, (float)(1.0 / ss_exp_store_simd(y, v, m, 1.0f, y)), y);
    return;
  }
  const v128_t vm = wasm_f32x4_splat(m);
  size_t j = 0;
  for (; j + 4 <= k; j += 4) /* pmin(a, b) = b < a ? b : a */
    wasm_v128_store(y + j, wasm_f32x4_pmin(wasm_v128_load(z + j), vm));
  for (; j < k; j++) y[j] = z[j] > m ? m : z[j];
  (void)ss_exp_store_simd(y, k, m, 1.0f, y);
  const float inv = (float)(1.0 / gather_sum(mp, v, y));
  ss_scale_flush_simd(y, k, inv, y);
  gather_tail(mp, v, y);
  if (mp->codes) {
    gather_logits(mp, z, k, y);
    (void)ss_exp_store_simd(y, k, m, 1.0f, y);
    ss_scale_flush_simd(y, k, inv, y);
  }
}

static ss_status vq_registry_simd(const float *x, size_t n,
                                  const double *params, float *y) {
  vq_map mp;
  float m;
  ss_status s = vq_registry_prep(x, n, params, ss_classify_max(ss_max_simd(x, n)), &mp, &m);
  if (s != SS_OK) return s;
  vq_core_simd(&mp, x, m, n, y);
  return SS_OK;
}

static ss_status vq_registry_vjp_simd(const float *x, const float *y,
                                      const float *g, size_t n,
                                      const double *params, float *dx) {
  vq_map mp;
  float m;
  ss_status s = vq_registry_prep(x, n, params, ss_classify_max(ss_max_simd(x, n)), &mp, &m);
  if (s != SS_OK) return s;
  vq_scatter(&mp, g, n, ss_dot_simd(g, y, n), dx);
  const size_t k = mp.k;
  size_t j = 0;
  for (; j + 4 <= k; j += 4)
    wasm_v128_store(dx + j, wasm_f32x4_mul(wasm_v128_load(y + j), wasm_v128_load(dx + j)));
  for (; j < k; j++) dx[j] = y[j] * dx[j];
  const v128_t zero = wasm_f32x4_splat(0.0f);
  for (; j + 4 <= n; j += 4) wasm_v128_store(dx + j, zero);
  for (; j < n; j++) dx[j] = 0.0f;
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_vq_softmax = {
    .name = "vq_softmax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "VQ-Logits softmax: K codebook logits scattered to n entries by a "
               "code map, exps over the codebook only (x[K..n) take hashed codes)",
    .formula = "y_v = exp(z_c(v)) / sum_k count_k exp(z_k), z = x[0..K), c(v) = v "
               "(v < K), seeded hash (v >= K); = softmax of the tied logits z_c(v)",
    .paper = "Shao, Huang, Wu, Cheng, Wu, Shan & Zheng 2025, 'VQ-Logits: "
             "Compressing the Output Bottleneck of Large Language Models via "
             "Vector Quantized Logits' (arXiv:2505.10202)",
    .nparams = 2,
    .params = vq_params,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .normalize = SS_IMPLS(vq_registry),
    .normalize_vjp = SS_IMPLS(vq_registry_vjp),
    .relaxed_simd = SS_RELAXED_EXP_STORE,
};

/* The status of the codebook's logits z (NaN, +Inf; all -Inf) by impl. */
static ss_status check_z_scalar(const float *z, size_t k) { return ss_check_logits(z, k, NULL); }
#if SS_HAVE_SIMD
static ss_status check_z_simd(const float *z, size_t k) { return ss_classify_max(ss_max_simd(z, k)); }
#endif

ss_status ss_vq_softmax(ss_impl impl, const float *z, size_t k,
                        const uint32_t *codes, size_t v, float *y) {
  if (!z || !codes || !y) return SS_ERR_NULL;
  if ((unsigned)impl >= SS_IMPL_COUNT || !ss_impl_available(impl)) return SS_ERR_UNSUPPORTED;
  ss_status s = ss_check_n(k);
  if (s != SS_OK) return s;
  s = ss_check_n(v);
  if (s != SS_OK) return s;
  const vq_map mp = {codes, NULL, k, 0};
  float m;
  s = SS_BY_IMPL(impl, check_z)(z, k);
  if (s != SS_OK && s != SS_ERR_ALL_MASKED) return s;
  s = vq_used_max(&mp, z, v, &m);
  if (s != SS_OK) return s;
  SS_BY_IMPL(impl, vq_core)(&mp, z, m, v, y);
  return SS_OK;
}
