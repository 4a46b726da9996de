/*
 * The model's head, forward and backward (softscope.h, the model): the
 * final norm, the unembedding and the loss at each read row (position n-1
 * of each example, or every position: cfg->loss_at).
 *
 *   lnf    = NormF(out_L)                 (Q x d: the read rows)
 *   logits = lnf W_U^T                    (W_U = E_a when tied)
 *   loss_r = the loss kernel at target_r; loss = mean_r loss_r (in double)
 *
 *   dlogits = (1/Q) dloss_r/dlogits (the loss kernel's gradient)
 *   dW_U = dlogits^T lnf  (into the workspace's dtied when tied: the input
 *                          layer adds it to dE_a, model_embed.c)
 *   dout_L = NormF'(dlogits W_U)
 */
#include <math.h>
#include <string.h>

#include "model/model_acts.h"
#include "model/model_internal.h"

/* argmax (the lowest index among ties) of x[0..n). */
static uint32_t argmax(const float *x, size_t n) {
  size_t k = 0;
  for (size_t i = 1; i < n; i++)
    if (x[i] > x[k]) k = i;
  return (uint32_t)k;
}

ss_status ss_model_head_forward(const model_ctx *c, const model_params *P, ss_model_outputs *out) {
  const ss_model_config *cfg = c->cfg;
  const model_plan *p = c->p;
  model_acts *A = c->A;
  const size_t Q = p->rows_q_last, d = p->d, C = p->classes;
  const float *x = A->layer[p->layers - 1].out;
  if (out && out->hidden) { /* the residual stream after the last layer */
    float *h = out->hidden + p->layers * p->n * d;
    const size_t e = out->map_example;
    if (Q == p->rows) {
      memcpy(h, x + e * p->n * d, p->n * d * sizeof(float));
    } else {
      memset(h, 0, p->n * d * sizeof(float));
      memcpy(h + (p->n - 1) * d, x + e * d, d * sizeof(float));
    }
  }
  ss_status s = ss_model_norm_fwd(c, x, Q, P->lnf_g, P->lnf_b, A->lnf);
  if (s != SS_OK ||
      (s = ss_linear_run(c->impl, A->lnf, Q, d, P->unembed, NULL, C, A->logits)) != SS_OK)
    return s;
  double lp[SS_MODEL_MAX_LOSS_PARAMS];
  for (size_t i = 0; i < cfg->loss_nparams; i++) lp[i] = cfg->loss_params[i];
  double total = 0.0;
  size_t right = 0;
  for (size_t r = 0; r < Q; r++) {
    const float *z = A->logits + r * C;
    const uint32_t target = c->b->target[r];
    lp[0] = (double)target;
    double l;
    if ((s = ss_loss(cfg->loss, c->impl, z, C, lp, cfg->loss_nparams, &l, A->dlogits + r * C)) !=
        SS_OK)
      return s;
    total += l;
    A->row_loss[r] = (float)l;
    const uint32_t k = argmax(z, C);
    right += k == target;
    if (out && out->pred) out->pred[r] = k;
  }
  const double loss = total / (double)Q;
  if (out) {
    out->loss = loss, out->accuracy = (double)right / (double)Q;
    if (out->logits) memcpy(out->logits, A->logits, Q * C * sizeof(float));
    if (out->position_loss && cfg->loss_at == SS_LOSS_AT_EVERY)
      for (size_t q = 0; q < p->n; q++) {
        double acc = 0.0;
        for (size_t e = 0; e < p->batch; e++) acc += (double)A->row_loss[e * p->n + q];
        out->position_loss[q] = (float)(acc / (double)p->batch);
      }
  }
  return isfinite(loss) ? SS_OK : SS_ERR_DOMAIN;
}

ss_status ss_model_head_backward(const model_ctx *c, const model_params *P, float *dres,
                                 model_params *G) {
  const ss_model_config *cfg = c->cfg;
  const model_plan *p = c->p;
  model_acts *A = c->A;
  const size_t Q = p->rows_q_last, d = p->d, C = p->classes;
  float *dl = A->dlogits, *dlnf = A->grad.ln1;
  const float inv = (float)(1.0 / (double)Q);
  for (size_t i = 0; i < Q * C; i++) dl[i] *= inv;
  float *dw = cfg->tied ? A->dtied : G->unembed;
  ss_status s = ss_linear_backward_run(c->impl, A->lnf, Q, d, P->unembed, C, dl, dlnf, dw, NULL);
  if (s != SS_OK) return s;
  return ss_model_norm_bwd(c, A->layer[p->layers - 1].out, Q, P->lnf_g, dlnf, dres, G->lnf_g,
                                G->lnf_b);
}
