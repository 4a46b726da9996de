/*
 * The tiny model's forward (softscope.h, ss_model_forward):
 *
 *   h0_j = E_a[a_j] + E_b[b_j] + f_j u + pos_j
 *   per layer: x = RMSNorm(h); h = h + Wo Attn(Wq x, Wk x, Wv x)
 *              with mlp: h = h + W2 GELU(W1 RMSNorm(h))
 *   logits = W_U RMSNorm(h_{n-1}); loss = mean over the batch of the loss
 *
 * The last layer runs its queries, attention output, residual, MLP and
 * readout on the query row (position n-1) of each example alone; keys and
 * values on all n rows. Every sum is one of the layers' (ss_linear,
 * ss_rmsnorm, ...) or a float addition in a fixed order: a forward is the
 * same bits on every rerun in one build (the builds differ only where the
 * layers do: relaxed FMA in ss_linear, the SIMD impls' bounds).
 */
#include <math.h>
#include <string.h>

#include "model/model_internal.h"
#include "model/model_plan.h"

/* h0 into ws's layer 0 xin. */
static ss_status embed(const ss_model_config *cfg, ss_impl impl, const model_layout *lay,
                       const model_plan *p, const float *params, const ss_model_batch *b,
                       float *ws) {
  const size_t R = p->rows, d = p->d, n = p->n;
  /* t: table b's rows, in layer 0's normed input (written only after h0
     is complete); not a backward buffer, which lies past a forward's own
     workspace (ss_model_forward_workspace_size) */
  float *h = ws + p->layer[0].xin, *t = ws + p->layer[0].xn;
  ss_status s = ss_embedding(params + lay->embed_a, cfg->vocab_a, d, b->tokens_a, R, h);
  if (s == SS_OK) s = ss_embedding(params + lay->embed_b, cfg->vocab_b, d, b->tokens_b, R, t);
  if (s != SS_OK) return s;
  ss_model_add(h, t, R * d);
  const float *u = params + lay->feature;
  for (size_t r = 0; r < R; r++) {
    const float f = b->feature[r];
    for (size_t j = 0; j < d; j++) h[r * d + j] += f * u[j];
  }
  const float *pos = NULL;
  if (cfg->positions == SS_POSITIONS_SINUSOIDAL) {
    if ((s = ss_positions_sinusoidal(n, d, ws + p->pos)) != SS_OK) return s;
    pos = ws + p->pos;
  } else if (cfg->positions == SS_POSITIONS_LEARNED) {
    pos = params + lay->positions;
  }
  if (pos)
    for (size_t e = 0; e < p->batch; e++) ss_model_add(h + e * n * d, pos, n * d);
  (void)impl;
  return ss_check_finite_fast(h, R * d) == SS_OK ? SS_OK : SS_ERR_DOMAIN;
}

/* Copies row n-1 of each example (rows of d) into B rows. */
static void gather_last(const float *x, size_t batch, size_t n, size_t d, float *out) {
  for (size_t e = 0; e < batch; e++) memcpy(out + e * d, x + (e * n + n - 1) * d, d * sizeof(float));
}

/* The last layer's full attention map of one example (maps: heads x n x n). */
static ss_status full_map(const ss_model_config *cfg, ss_impl impl, const model_plan *p,
                          const model_layer_ws *w, const float *wq, const double *np, size_t e,
                          float *ws, float *maps) {
  const size_t n = p->n, d = p->d;
  ss_status s = ss_linear(impl, ws + w->xn + e * n * d, n, d, wq, NULL, d, ws + p->map_q);
  if (s != SS_OK) return s;
  return ss_model_attend(cfg, impl, np, ws + p->map_q, n, ws + w->k + e * n * d,
                         ws + w->v + e * n * d, n, ws + p->map_o, maps, ws + p->scratch);
}

static ss_status layer_forward(const ss_model_config *cfg, ss_impl impl, const model_layout *lay,
                               const model_plan *p, const float *params, size_t l, float *ws,
                               ss_model_outputs *out) {
  const model_layer_ws *w = &p->layer[l];
  const model_layer_at *a = &lay->layer[l];
  const size_t R = p->rows, d = p->d, n = p->n, B = p->batch, Q = w->rows_q, F = p->f;
  const bool last = l + 1 == p->layers;
  const size_t nq = last ? 1 : n;
  const double eps = SS_MODEL_NORM_EPS;
  double np[SS_MODEL_MAX_NORM_PARAMS];
  ss_model_norm_params(cfg, lay, params, l, np);
  ss_status s = ss_rmsnorm(impl, ws + w->xin, R, d, params + a->attn_norm, eps, ws + w->xn);
  if (s != SS_OK) return s;
  if (last) {
    gather_last(ws + w->xn, B, n, d, ws + w->xq);
    gather_last(ws + w->xin, B, n, d, ws + w->xres);
  }
  if ((s = ss_linear(impl, ws + w->xq, Q, d, params + a->wq, NULL, d, ws + w->q)) != SS_OK ||
      (s = ss_linear(impl, ws + w->xn, R, d, params + a->wk, NULL, d, ws + w->k)) != SS_OK ||
      (s = ss_linear(impl, ws + w->xn, R, d, params + a->wv, NULL, d, ws + w->v)) != SS_OK)
    return s;
  const bool want_q = last && out && out->query_attn;
  const bool want_map = out && out->maps;
  const size_t H = p->heads;
  for (size_t e = 0; e < B; e++) {
    float *attn = NULL;
    if (want_q) attn = out->query_attn + e * H * n;
    else if (want_map && !last && e == out->map_example) attn = out->maps + l * H * n * n;
    s = ss_model_attend(cfg, impl, np, ws + w->q + e * nq * d, nq, ws + w->k + e * n * d,
                        ws + w->v + e * n * d, n, ws + w->o + e * nq * d, attn, ws + p->scratch);
    if (s != SS_OK) return s;
  }
  if (want_map && last &&
      (s = full_map(cfg, impl, p, w, params + a->wq, np, out->map_example, ws,
                    out->maps + l * H * n * n)) != SS_OK)
    return s;
  if ((s = ss_linear(impl, ws + w->o, Q, d, params + a->wo, NULL, d, ws + w->xmid)) != SS_OK)
    return s;
  ss_model_add(ws + w->xmid, ws + w->xres, Q * d);
  float *xout = ws + w->xout;
  if (!cfg->mlp) {
    memcpy(xout, ws + w->xmid, Q * d * sizeof(float));
    return SS_OK;
  }
  if ((s = ss_rmsnorm(impl, ws + w->xmid, Q, d, params + a->mlp_norm, eps, ws + w->hn)) != SS_OK ||
      (s = ss_linear(impl, ws + w->hn, Q, d, params + a->w1, NULL, F, ws + w->h1)) != SS_OK ||
      (s = ss_gelu(impl, ws + w->h1, Q * F, ws + w->g)) != SS_OK ||
      (s = ss_linear(impl, ws + w->g, Q, F, params + a->w2, NULL, d, xout)) != SS_OK)
    return s;
  ss_model_add(xout, ws + w->xmid, Q * d);
  return SS_OK;
}

/* argmax (the lowest index among ties) of x[0..n). */
static uint32_t argmax(const float *x, size_t n) {
  size_t k = 0;
  for (size_t i = 1; i < n; i++)
    if (x[i] > x[k]) k = i;
  return (uint32_t)k;
}

ss_status ss_model_run_forward(const ss_model_config *cfg, ss_impl impl, const model_layout *lay,
                               const model_plan *p, const float *params, const ss_model_batch *b,
                               float *ws, ss_model_outputs *out) {
  ss_status s = embed(cfg, impl, lay, p, params, b, ws);
  for (size_t l = 0; s == SS_OK && l < p->layers; l++)
    s = layer_forward(cfg, impl, lay, p, params, l, ws, out);
  if (s != SS_OK) return s;
  const size_t B = p->batch, d = p->d, C = p->classes;
  const model_layer_ws *w = &p->layer[p->layers - 1];
  if ((s = ss_rmsnorm(impl, ws + w->xout, B, d, params + lay->final_norm, SS_MODEL_NORM_EPS,
                      ws + p->xfn)) != SS_OK ||
      (s = ss_linear(impl, ws + p->xfn, B, d, params + lay->unembed, NULL, C, ws + p->logits)) !=
          SS_OK)
    return s;
  double lp[SS_MODEL_MAX_LOSS_PARAMS];
  for (size_t i = 0; i < cfg->loss_nparams; i++) lp[i] = cfg->loss_params[i];
  double total = 0.0;
  size_t right = 0;
  for (size_t e = 0; e < B; e++) {
    const float *x = ws + p->logits + e * C;
    lp[0] = (double)b->target[e];
    double l;
    if ((s = ss_loss(cfg->loss, impl, x, C, lp, cfg->loss_nparams, &l, ws + p->dlogits + e * C)) !=
        SS_OK)
      return s;
    total += l;
    const uint32_t k = argmax(x, C);
    right += k == b->target[e];
    if (out && out->pred) out->pred[e] = k;
  }
  const double loss = total / (double)B;
  if (out) {
    out->loss = loss, out->accuracy = (double)right / (double)B;
    if (out->logits) memcpy(out->logits, ws + p->logits, B * C * sizeof(float));
  }
  return isfinite(loss) ? SS_OK : SS_ERR_DOMAIN;
}

ss_status ss_model_forward(const ss_model_config *cfg, ss_impl impl, const float *params,
                           const ss_model_batch *b, void *work, size_t work_bytes,
                           ss_model_outputs *out) {
  model_layout lay;
  model_plan p;
  ss_status s = ss_model_check_call(cfg, impl, params, b, work, work_bytes, true, &lay, &p);
  if (s != SS_OK) return s;
  if (out && out->maps && out->map_example >= b->batch) return SS_ERR_PARAM_RANGE;
  return ss_model_run_forward(cfg, impl, &lay, &p, params, b, work, out);
}
