/*
 * Incremental decoding with a cache of keys and values (softscope.h,
 * ss_model_decode): a language model fed one token at a time. Each layer
 * keeps the keys and values of the positions fed so far; a new token's
 * forward computes its own row only and attends over the cache:
 *
 *   h = E_a[token] (+ pos row)              (learned or sinusoidal positions)
 *   per layer: x = Norm1(h); q, k, v = Wq x, Wk x, Wv x (rope at pos)
 *              K[pos], V[pos] = k, v
 *              h = h + Wo Attn(q; K[0..pos], V[0..pos])
 *              with mlp: h = h + W2 GELU(W1 Norm2(h))
 *   logits = W_U NormF(h)
 *
 * The row is the last row of ss_model_forward's causal forward on the
 * tokens fed so far, computed by the same layers (model_acts.h, layers.h)
 * on one row: a matrix product's row does not depend on the other rows,
 * and the causal attention of the last query sees every cached key. The
 * cost per token is O(layers (d^2 + pos d)) instead of a whole window's
 * forward. Position 0 resets the cache (and makes the rotary table).
 *
 * The matrices are used transposed (W^T, in x out: ss_linear_t_run), copied
 * into the state at position 0: a row's product then reads each weight once
 * and packs nothing, the same terms in the same order as the forward's
 * (ss_linear_run packs W^T for every call: for one row, as much work as
 * the product). The parameters must not change between position 0 and the
 * later calls (a caller that trains resets by feeding position 0 again).
 *
 * State (floats, regions of decode_plan): per layer K, V (max_n x d) and
 * its matrices transposed; the unembedding transposed; the row's
 * activations; the rotary table (max_n x hd); the attention's scratch for
 * one query over max_n keys.
 */
#include <string.h>

#include "model/model_acts.h"
#include "model/model_internal.h"
#include "model/rope.h"

typedef struct decode_plan {
  size_t k[SS_MODEL_MAX_LAYERS], v[SS_MODEL_MAX_LAYERS];
  size_t wq[SS_MODEL_MAX_LAYERS], wk[SS_MODEL_MAX_LAYERS], wv[SS_MODEL_MAX_LAYERS],
      wo[SS_MODEL_MAX_LAYERS], w1[SS_MODEL_MAX_LAYERS], w2[SS_MODEL_MAX_LAYERS], unembed;
  size_t h, ln, q, att, res2, ln2, fch, fch_gelu, out, lnf, pos, rope, scratch;
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
  const size_t d = cfg->d, hd = d / cfg->heads;
  const size_t scratch = ss_model_attention_scratch(cfg, 1, max_n);
  if (!scratch) return false;
  size_t at = 0;
  for (size_t l = 0; l < cfg->layers; l++) {
    p->k[l] = take(&at, max_n * d), p->v[l] = take(&at, max_n * d);
    p->wq[l] = take(&at, d * d), p->wk[l] = take(&at, d * d), p->wv[l] = take(&at, d * d);
    p->wo[l] = take(&at, d * d);
    if (cfg->mlp) p->w1[l] = take(&at, d * 4 * d), p->w2[l] = take(&at, 4 * d * d);
  }
  p->unembed = take(&at, (size_t)cfg->classes * d);
  p->h = take(&at, d), p->ln = take(&at, d), p->q = take(&at, d), p->att = take(&at, d);
  p->res2 = take(&at, d), p->ln2 = take(&at, d), p->fch = take(&at, 4 * d);
  p->fch_gelu = take(&at, 4 * d), p->out = take(&at, d), p->lnf = take(&at, d), p->pos = take(&at, d);
  p->rope = take(&at, max_n * hd), p->scratch = take(&at, scratch);
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

/* Row p of ss_positions_sinusoidal's table (the same formula: the same floats). */
static void sinusoid_row(size_t p, size_t d, float *y) {
  const double l = log(10000.0);
  for (size_t i = 0; i < d / 2; i++) {
    const double w = exp(-(double)(2 * i) / (double)d * l);
    y[2 * i] = (float)sin((double)p * w);
    y[2 * i + 1] = (float)cos((double)p * w);
  }
}

/* w (rows x cols) transposed into t (cols x rows). */
static void transpose(const float *w, size_t rows, size_t cols, float *t) {
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) t[c * rows + r] = w[r * cols + c];
}

/* The matrices of P transposed into the state (position 0). */
static void transpose_all(const ss_model_config *cfg, const model_params *P, float *st,
                          const decode_plan *dp) {
  const size_t d = cfg->d, F = 4 * d;
  for (size_t l = 0; l < cfg->layers; l++) {
    const model_layer_params *L = &P->layer[l];
    transpose(L->wq, d, d, st + dp->wq[l]), transpose(L->wk, d, d, st + dp->wk[l]);
    transpose(L->wv, d, d, st + dp->wv[l]), transpose(L->wo, d, d, st + dp->wo[l]);
    if (cfg->mlp) transpose(L->w1, F, d, st + dp->w1[l]), transpose(L->w2, d, F, st + dp->w2[l]);
  }
  transpose(P->unembed, cfg->classes, d, st + dp->unembed);
}

/* One layer on the row h (d values) at position pos, the cache of this layer
   in K, V; the next residual into h. */
static ss_status layer_step(const model_ctx *c, const model_layer_params *L, size_t l, float *st,
                            const decode_plan *dp, size_t pos) {
  const ss_model_config *cfg = c->cfg;
  const ss_impl impl = c->impl;
  const size_t d = cfg->d, F = 4 * d;
  float *h = st + dp->h, *ln = st + dp->ln, *q = st + dp->q, *att = st + dp->att;
  float *K = st + dp->k[l], *V = st + dp->v[l];
  double np[SS_MODEL_MAX_NORM_PARAMS];
  ss_model_norm_params(cfg, c->lay, L, np);
  ss_status s = ss_model_norm_fwd(c, h, 1, L->ln1_g, L->ln1_b, ln);
  if (s != SS_OK || (s = ss_linear_t_run(impl, ln, 1, d, st + dp->wq[l], d, q)) != SS_OK ||
      (s = ss_linear_t_run(impl, ln, 1, d, st + dp->wk[l], d, K + pos * d)) != SS_OK ||
      (s = ss_linear_t_run(impl, ln, 1, d, st + dp->wv[l], d, V + pos * d)) != SS_OK)
    return s;
  if (cfg->positions == SS_POSITIONS_ROPE) {
    ss_rope_apply(impl, q, 1, d, cfg->heads, 1, pos, st + dp->rope, false);
    ss_rope_apply(impl, K + pos * d, 1, d, cfg->heads, 1, pos, st + dp->rope, false);
  }
  if ((s = ss_model_attend(cfg, impl, np, q, 1, K, V, pos + 1, att, NULL, st + dp->scratch)) != SS_OK ||
      (s = ss_linear_t_run(impl, att, 1, d, st + dp->wo[l], d, st + dp->res2)) != SS_OK)
    return s;
  float *res2 = st + dp->res2;
  ss_model_add(res2, h, d);
  if (!cfg->mlp) {
    memcpy(h, res2, d * sizeof(float));
    return SS_OK;
  }
  float *ln2 = st + dp->ln2, *fch = st + dp->fch, *g = st + dp->fch_gelu, *out = st + dp->out;
  if ((s = ss_model_norm_fwd(c, res2, 1, L->ln2_g, L->ln2_b, ln2)) != SS_OK ||
      (s = ss_linear_t_run(impl, ln2, 1, d, st + dp->w1[l], F, fch)) != SS_OK)
    return s;
  ss_gelu_run(impl, fch, F, g);
  if ((s = ss_linear_t_run(impl, g, 1, F, st + dp->w2[l], d, out)) != SS_OK) return s;
  ss_model_add(out, res2, d);
  memcpy(h, out, d * sizeof(float));
  return SS_OK;
}

ss_status ss_model_decode(const ss_model_config *cfg, ss_impl impl, const float *params,
                          void *state, size_t state_bytes, size_t max_n, uint32_t token,
                          size_t pos, float *logits) {
  ss_status s = check_decoder(cfg);
  if (s != SS_OK) return s;
  if (!params || !state || !logits) return SS_ERR_NULL;
  if (!ss_model_impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  decode_plan dp;
  if (!plan_of(cfg, max_n, &dp) || pos >= max_n) return SS_ERR_PARAM_RANGE;
  if (state_bytes / sizeof(float) < dp.total) return SS_ERR_BUFFER;
  if (token >= cfg->vocab_a) return SS_ERR_DOMAIN;
  model_layout lay;
  ss_model_layout_of(cfg, &lay);
  if ((s = ss_check_finite_fast(params, lay.total)) != SS_OK) return s;
  model_params P;
  ss_model_params_of(cfg, &lay, (float *)params, &P);
  model_plan mp = {.batch = 1, .n = 1, .rows = 1, .d = cfg->d, .f = 4 * cfg->d,
                   .hd = cfg->d / cfg->heads, .heads = cfg->heads, .layers = cfg->layers,
                   .classes = cfg->classes, .rows_q_last = 1};
  const model_ctx c = {.cfg = cfg, .impl = impl, .lay = &lay, .p = &mp};
  float *st = state, *h = st + dp.h;
  const size_t d = cfg->d;
  if (pos == 0) {
    transpose_all(cfg, &P, st, &dp);
    if (cfg->positions == SS_POSITIONS_ROPE) ss_rope_table(max_n, mp.hd, SS_MODEL_ROPE_BASE, st + dp.rope);
  }
  memcpy(h, P.embed_a + (size_t)token * d, d * sizeof(float));
  if (cfg->positions == SS_POSITIONS_LEARNED) {
    ss_model_add(h, P.positions + pos * d, d);
  } else if (cfg->positions == SS_POSITIONS_SINUSOIDAL) {
    sinusoid_row(pos, d, st + dp.pos);
    ss_model_add(h, st + dp.pos, d);
  }
  for (size_t l = 0; l < cfg->layers; l++)
    if ((s = layer_step(&c, &P.layer[l], l, st, &dp, pos)) != SS_OK) return s;
  if ((s = ss_model_norm_fwd(&c, h, 1, P.lnf_g, P.lnf_b, st + dp.lnf)) != SS_OK ||
      (s = ss_linear_t_run(impl, st + dp.lnf, 1, d, st + dp.unembed, cfg->classes, logits)) != SS_OK)
    return s;
  return ss_check_finite_fast(logits, cfg->classes) == SS_OK ? SS_OK : SS_ERR_DOMAIN;
}
