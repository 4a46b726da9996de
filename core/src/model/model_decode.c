/*
 * Incremental decoding with a cache of keys and values (softscope.h,
 * ss_model_decode): a language model fed `count` tokens at a time (one while
 * generating, a whole window at once when a prompt or a shifted window is
 * fed). Each layer keeps the keys and values of the positions fed so far;
 * the new tokens' forward computes their own rows only and attends over the
 * cache:
 *
 *   h = E_a[token] (+ pos row)              (learned or sinusoidal positions)
 *   per layer: x = Norm1(h); q, k, v = Wq x, Wk x, Wv x (rope at pos)
 *              K[pos], V[pos] = k, v
 *              h = h + Wo Attn(q; K[0..pos], V[0..pos])
 *              with mlp: h = h + W2 GELU(W1 Norm2(h))
 *   logits = W_U NormF(h)
 *
 * The logits are the last row of ss_model_forward's causal forward on the
 * tokens fed so far, computed by the same layers (model_acts.h, layers.h)
 * on the new rows: a matrix product's row does not depend on the other
 * rows, and the causal attention of the new queries (the last `count` of
 * the positions) sees every cached key. The cost per token is O(layers (d^2
 * + pos d)) instead of a whole window's forward. Position 0 resets the
 * cache (and makes the rotary table and the transposed matrices, with
 * each one's largest magnitude: the products' overflow bound, which
 * ss_linear_run would otherwise find by reading the whole matrix again).
 *
 * The matrices are used transposed (W^T, in x out: ss_linear_t_run), copied
 * into the state at position 0: a row's product then reads each weight once
 * and packs nothing, the same terms in the same order as the forward's
 * (ss_linear_run packs W^T for every call: for one row, as much work as
 * the product). The parameters must not change between position 0 and the
 * later calls (a caller that trains resets by feeding position 0 again).
 *
 * State (floats, regions of decode_plan): per layer K, V (max_n x d) and
 * its matrices transposed; the unembedding transposed; the new rows'
 * activations (up to max_n rows); the rotary table (max_n x hd); the
 * attention's scratch for max_n queries over max_n keys.
 */
#include <string.h>

#include "model/model_acts.h"
#include "model/model_internal.h"
#include "model/rope.h"

enum { W_Q, W_K, W_V, W_O, W_1, W_2, W_COUNT };

typedef struct decode_plan {
  size_t k[SS_MODEL_MAX_LAYERS], v[SS_MODEL_MAX_LAYERS];
  size_t w[SS_MODEL_MAX_LAYERS][W_COUNT], unembed;
  size_t wmax; /* (layers W_COUNT + 1) floats: each matrix's max |w| */
  size_t h, ln, q, att, res2, ln2, fch, fch_gelu, lnf, rope, scratch;
  size_t total; /* floats */
} decode_plan;

static size_t take(size_t *at, size_t count) {
  const size_t off = *at;
  *at += (count + 3) & ~(size_t)3;
  return off;
}

/* The plan of a checked config for max_n positions; false past the limits. */
static bool plan_of(const ss_model_config *cfg, size_t max_n, decode_plan *p) {
  if (max_n < 1 || max_n > SS_MODEL_MAX_N) return false;
  if (cfg->positions == SS_POSITIONS_LEARNED && max_n > cfg->max_n) return false;
  const size_t d = cfg->d, hd = d / cfg->heads, F = 4 * d, M = max_n;
  const size_t scratch = ss_model_attention_scratch(cfg, max_n, max_n);
  if (!scratch || M * F > SS_MAX_N) return false;
  size_t at = 0;
  memset(p, 0, sizeof *p);
  for (size_t l = 0; l < cfg->layers; l++) {
    p->k[l] = take(&at, M * d), p->v[l] = take(&at, M * d);
    for (size_t i = W_Q; i <= W_O; i++) p->w[l][i] = take(&at, d * d);
    if (cfg->mlp) p->w[l][W_1] = take(&at, d * F), p->w[l][W_2] = take(&at, F * d);
  }
  p->unembed = take(&at, (size_t)cfg->classes * d);
  p->wmax = take(&at, cfg->layers * W_COUNT + 1);
  p->h = take(&at, M * d), p->ln = take(&at, M * d), p->q = take(&at, M * d), p->att = take(&at, M * d);
  p->res2 = take(&at, M * d), p->ln2 = take(&at, M * d), p->fch = take(&at, M * F);
  p->fch_gelu = take(&at, M * F), p->lnf = take(&at, d);
  p->rope = take(&at, M * hd), p->scratch = take(&at, scratch);
  p->total = at;
  return true;
}

/* The checks of a decoding model: a language model of one token table. */
static ss_status check_decoder(const ss_model_config *cfg) {
  const ss_status s = ss_model_config_check(cfg);
  if (s != SS_OK) return s;
  if (cfg->loss_at != SS_LOSS_AT_EVERY || cfg->vocab_b || cfg->feature) return SS_ERR_UNSUPPORTED;
  return SS_OK;
}

size_t ss_model_decode_size(const ss_model_config *cfg, size_t max_n) {
  decode_plan p;
  if (check_decoder(cfg) != SS_OK || !plan_of(cfg, max_n, &p)) return 0;
  return p.total * sizeof(float);
}

/* w (rows x cols) transposed into t (cols x rows); its largest magnitude. */
static float transpose(const float *w, size_t rows, size_t cols, float *t) {
  float m = 0.0f;
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) {
      t[c * rows + r] = w[r * cols + c];
      m = fmaxf(m, fabsf(w[r * cols + c]));
    }
  return m;
}

/* The matrices of P transposed into the state, with their bounds (position 0). */
static void transpose_all(const ss_model_config *cfg, const model_params *P, float *st,
                          const decode_plan *dp) {
  const size_t d = cfg->d, F = 4 * d;
  float *mx = st + dp->wmax;
  for (size_t l = 0; l < cfg->layers; l++) {
    const model_layer_params *L = &P->layer[l];
    const float *w[W_COUNT] = {L->wq, L->wk, L->wv, L->wo, L->w1, L->w2};
    const size_t rows[W_COUNT] = {d, d, d, d, F, d}, cols[W_COUNT] = {d, d, d, d, d, F};
    for (size_t i = 0; i < (cfg->mlp ? W_COUNT : W_1); i++)
      mx[l * W_COUNT + i] = transpose(w[i], rows[i], cols[i], st + dp->w[l][i]);
  }
  mx[cfg->layers * W_COUNT] = transpose(P->unembed, cfg->classes, d, st + dp->unembed);
}

/* rows x (in -> out) through the transposed matrix i of layer l. */
static ss_status product(const model_ctx *c, float *st, const decode_plan *dp, size_t l, size_t i,
                         const float *x, size_t rows, size_t in, size_t out, float *y) {
  const size_t at = i == W_COUNT ? dp->unembed : dp->w[l][i];
  const float wmax = st[dp->wmax + (i == W_COUNT ? c->cfg->layers * W_COUNT : l * W_COUNT + i)];
  return ss_linear_t_run(c->impl, x, rows, in, st + at, out, wmax, y);
}

/* One layer on the rows h (m rows of d) at positions pos .. pos+m-1, the
   cache of this layer in K, V; the next residual into h. */
static ss_status layer_step(const model_ctx *c, const model_layer_params *L, size_t l, float *st,
                            const decode_plan *dp, size_t pos, size_t m) {
  const ss_model_config *cfg = c->cfg;
  const ss_impl impl = c->impl;
  const size_t d = cfg->d, F = 4 * d;
  float *h = st + dp->h, *ln = st + dp->ln, *q = st + dp->q, *att = st + dp->att;
  float *K = st + dp->k[l], *V = st + dp->v[l], *res2 = st + dp->res2;
  double np[SS_MODEL_MAX_NORM_PARAMS];
  ss_model_norm_params(cfg, c->lay, L, np);
  ss_status s = ss_model_norm_fwd(c, h, m, L->ln1_g, L->ln1_b, ln);
  if (s != SS_OK || (s = product(c, st, dp, l, W_Q, ln, m, d, d, q)) != SS_OK ||
      (s = product(c, st, dp, l, W_K, ln, m, d, d, K + pos * d)) != SS_OK ||
      (s = product(c, st, dp, l, W_V, ln, m, d, d, V + pos * d)) != SS_OK)
    return s;
  if (cfg->positions == SS_POSITIONS_ROPE) {
    ss_rope_apply(impl, q, m, d, cfg->heads, m, pos, st + dp->rope, false);
    ss_rope_apply(impl, K + pos * d, m, d, cfg->heads, m, pos, st + dp->rope, false);
  }
  if ((s = ss_model_attend(cfg, impl, np, q, m, K, V, pos + m, att, NULL, st + dp->scratch)) != SS_OK ||
      (s = product(c, st, dp, l, W_O, att, m, d, d, res2)) != SS_OK)
    return s;
  ss_model_add(res2, h, m * d);
  if (!cfg->mlp) {
    memcpy(h, res2, m * d * sizeof(float));
    return SS_OK;
  }
  float *ln2 = st + dp->ln2, *fch = st + dp->fch, *g = st + dp->fch_gelu;
  if ((s = ss_model_norm_fwd(c, res2, m, L->ln2_g, L->ln2_b, ln2)) != SS_OK ||
      (s = product(c, st, dp, l, W_1, ln2, m, d, F, fch)) != SS_OK)
    return s;
  ss_gelu_run(impl, fch, m * F, g);
  if ((s = product(c, st, dp, l, W_2, g, m, F, d, h)) != SS_OK) return s;
  ss_model_add(h, res2, m * d);
  return SS_OK;
}

ss_status ss_model_decode(const ss_model_config *cfg, ss_impl impl, const float *params,
                          void *state, size_t state_bytes, size_t max_n, const uint32_t *tokens,
                          size_t count, size_t pos, float *logits) {
  ss_status s = check_decoder(cfg);
  if (s != SS_OK) return s;
  if (!params || !state || !tokens || !logits) return SS_ERR_NULL;
  if (!ss_model_impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  decode_plan dp;
  if (!plan_of(cfg, max_n, &dp) || count < 1 || pos > max_n || count > max_n - pos)
    return SS_ERR_PARAM_RANGE;
  if (state_bytes / sizeof(float) < dp.total) return SS_ERR_BUFFER;
  for (size_t i = 0; i < count; i++)
    if (tokens[i] >= cfg->vocab_a) return SS_ERR_DOMAIN;
  model_layout lay;
  ss_model_layout_of(cfg, &lay);
  /* the parameters are checked with the sequence's first call (they may
     not change until the next position 0: a pass over all of them would be
     most of a generated token's work) */
  if (pos == 0 && (s = ss_check_finite_fast(params, lay.total)) != SS_OK) return s;
  model_params P;
  ss_model_params_of(cfg, &lay, (float *)params, &P);
  model_plan mp = {.batch = 1, .n = count, .rows = count, .d = cfg->d, .f = 4 * cfg->d,
                   .hd = cfg->d / cfg->heads, .heads = cfg->heads, .layers = cfg->layers,
                   .classes = cfg->classes, .rows_q_last = count};
  const model_ctx c = {.cfg = cfg, .impl = impl, .lay = &lay, .p = &mp};
  float *st = state, *h = st + dp.h;
  const size_t d = cfg->d, m = count;
  if (pos == 0) {
    transpose_all(cfg, &P, st, &dp);
    if (cfg->positions == SS_POSITIONS_ROPE) ss_rope_table(max_n, mp.hd, SS_MODEL_ROPE_BASE, st + dp.rope);
  }
  for (size_t r = 0; r < m; r++) {
    float *hr = h + r * d;
    memcpy(hr, P.embed_a + (size_t)tokens[r] * d, d * sizeof(float));
    if (cfg->positions == SS_POSITIONS_LEARNED) {
      ss_model_add(hr, P.positions + (pos + r) * d, d);
    } else if (cfg->positions == SS_POSITIONS_SINUSOIDAL) {
      ss_positions_sinusoidal_row(pos + r, d, st + dp.lnf);
      ss_model_add(hr, st + dp.lnf, d);
    }
  }
  for (size_t l = 0; l < cfg->layers; l++)
    if ((s = layer_step(&c, &P.layer[l], l, st, &dp, pos, m)) != SS_OK) return s;
  /* the logits of the last new row */
  const float *last = h + (m - 1) * d;
  if ((s = ss_model_norm_fwd(&c, last, 1, P.lnf_g, P.lnf_b, st + dp.lnf)) != SS_OK ||
      (s = product(&c, st, &dp, 0, W_COUNT, st + dp.lnf, 1, d, cfg->classes, logits)) != SS_OK)
    return s;
  return ss_check_finite_fast(logits, cfg->classes) == SS_OK ? SS_OK : SS_ERR_DOMAIN;
}
