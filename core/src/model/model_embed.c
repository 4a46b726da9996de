/*
 * The model's input layer, forward and backward (softscope.h, the model):
 *
 *   h0[e n + p] = E_a[a] (+ E_b[b]) (+ f u) (+ pos_p)
 *
 *   dE_a[t] = sum of dh0 over the rows whose token is t (ss_embedding's
 *             backward; plus the unembedding's gradient when tied)
 *   dE_b    likewise
 *   du      = sum_r f_r dh0_r                 (in double)
 *   dpos_p  = sum_e dh0[e n + p], 0 for p >= n (in double)
 *
 * Sinusoidal positions have no parameters; rotary positions act inside
 * every layer (model_layer.c), and their cos/sin table is made here, once
 * per forward. Sums over rows are in a fixed order: the same bits on every
 * rerun.
 */
#include <string.h>

#include "model/model_acts.h"
#include "model/model_internal.h"
#include "model/rope.h"

ss_status ss_model_embed_forward(const model_ctx *c, const model_params *P) {
  const ss_model_config *cfg = c->cfg;
  const model_plan *p = c->p;
  const ss_model_batch *b = c->b;
  const size_t R = p->rows, d = p->d, n = p->n;
  float *h = c->A->layer[0].in;
  for (size_t r = 0; r < R; r++)
    memcpy(h + r * d, P->embed_a + (size_t)b->tokens_a[r] * d, d * sizeof(float));
  if (cfg->vocab_b)
    for (size_t r = 0; r < R; r++) ss_model_add(h + r * d, P->embed_b + (size_t)b->tokens_b[r] * d, d);
  if (cfg->feature)
    for (size_t r = 0; r < R; r++) {
      const float f = b->feature[r];
      for (size_t j = 0; j < d; j++) h[r * d + j] += f * P->feature[j];
    }
  const float *pos = NULL;
  if (cfg->positions == SS_POSITIONS_SINUSOIDAL) {
    ss_positions_sinusoidal(n, d, c->A->pos);
    pos = c->A->pos;
  } else if (cfg->positions == SS_POSITIONS_LEARNED) {
    pos = P->positions;
  } else if (cfg->positions == SS_POSITIONS_ROPE) {
    ss_rope_table(n, p->hd, SS_MODEL_ROPE_BASE, c->A->rope);
  }
  if (pos)
    for (size_t e = 0; e < p->batch; e++) ss_model_add(h + e * n * d, pos, n * d);
  return ss_check_finite_fast(h, R * d) == SS_OK ? SS_OK : SS_ERR_DOMAIN;
}

ss_status ss_model_embed_backward(const model_ctx *c, const float *dh0, model_params *G) {
  const ss_model_config *cfg = c->cfg;
  const model_plan *p = c->p;
  const ss_model_batch *b = c->b;
  const size_t R = p->rows, d = p->d, n = p->n;
  ss_status s = ss_embedding_backward_run(c->impl, dh0, b->tokens_a, R, cfg->vocab_a, d, G->embed_a);
  if (s != SS_OK) return s;
  if (cfg->tied) {
    ss_model_add(G->embed_a, c->A->dtied, (size_t)cfg->vocab_a * d);
    if (ss_check_finite_fast(G->embed_a, (size_t)cfg->vocab_a * d) != SS_OK) return SS_ERR_DOMAIN;
  }
  if (cfg->vocab_b &&
      (s = ss_embedding_backward_run(c->impl, dh0, b->tokens_b, R, cfg->vocab_b, d, G->embed_b)) !=
          SS_OK)
    return s;
  if (cfg->feature)
    for (size_t j = 0; j < d; j++) {
      double acc = 0.0;
      for (size_t r = 0; r < R; r++) acc += (double)b->feature[r] * (double)dh0[r * d + j];
      if (!ss_model_f32(acc, &G->feature[j])) return SS_ERR_DOMAIN;
    }
  if (cfg->positions == SS_POSITIONS_LEARNED) {
    memset(G->positions, 0, (size_t)cfg->max_n * d * sizeof(float));
    for (size_t q = 0; q < n * d; q++) {
      double acc = 0.0;
      for (size_t e = 0; e < p->batch; e++) acc += (double)dh0[e * n * d + q];
      if (!ss_model_f32(acc, &G->positions[q])) return SS_ERR_DOMAIN;
    }
  }
  return SS_OK;
}
