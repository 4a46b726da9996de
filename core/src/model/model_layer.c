/*
 * One transformer layer, forward and backward side by side (softscope.h,
 * the model; llm.c's train_gpt2.c order), on the activations of
 * model_acts.h:
 *
 *   forward                              backward (dout: d loss / d out)
 *   ln1  = Norm1(in)                     MLP:  dfch_gelu = dout W2,  dW2 = dout^T fch_gelu
 *   q    = xq Wq^T   (rope: rotated)           dfch = GELU'(fch) dfch_gelu
 *   k, v = ln1 Wk^T, ln1 Wv^T (k rotated)      dln2 = dfch W1,  dW1 = dfch^T ln2
 *   att  = Attn(q, k, v)                       dres2 = dout + Norm2'(dln2)
 *   res2 = xres + att Wo^T               datt = dres2 Wo,  dWo = dres2^T att
 *   ln2  = Norm2(res2)                   dq, dk, dv = Attn's VJP (rope: rotated back)
 *   fch  = ln2 W1^T                      dln1 = dk Wk + dv Wv + (dq Wq at the query rows)
 *   out  = res2 + GELU(fch) W2^T         din  = Norm1'(dln1) + dres2 (at the query rows)
 *
 * xq, xres are ln1 and in at the query rows: every row, or position n-1 of
 * each example in the last layer under SS_LOSS_AT_LAST (model_acts.h).
 * Attention runs one example at a time (its q rows are the last nq of its
 * n positions, so the causal mask lines up). The layers inside are called
 * unchecked (layers.h): the entry points (model.c) checked the inputs.
 */
#include <string.h>

#include "model/model_acts.h"
#include "model/model_internal.h"
#include "model/rope.h"

/* Row n-1 of each example of x (R x d) into out (batch x d). */
static void gather_last(const float *x, size_t batch, size_t n, size_t d, float *out) {
  for (size_t e = 0; e < batch; e++) memcpy(out + e * d, x + (e * n + n - 1) * d, d * sizeof(float));
}

/* y (R x d) += x at the query rows (Q x d): every row when Q = R, else row
   n-1 of each example. */
static void add_query_rows(float *y, const float *x, size_t Q, const model_plan *p) {
  const size_t d = p->d, n = p->n;
  if (Q == p->rows) {
    ss_model_add(y, x, Q * d);
    return;
  }
  for (size_t e = 0; e < p->batch; e++) ss_model_add(y + (e * n + n - 1) * d, x + e * d, d);
}

/* Rotary positions on x (rows of d) in place: rows of examples of n
   positions (period n from 0), or the query rows (period 1 at n-1). */
static void rope(const model_ctx *c, float *x, size_t rows, bool inverse) {
  const model_plan *p = c->p;
  const bool all = rows == p->rows;
  ss_rope_apply(c->impl, x, rows, p->d, p->heads, all ? p->n : 1, all ? 0 : p->n - 1, c->A->rope,
                inverse);
}

/* One example's full map of layer l into maps (heads x n x n), by its own
   attention call: the queries of every row (computed again when the layer
   computed the query row alone). */
static ss_status full_map(const model_ctx *c, const model_layer_params *L, size_t l,
                          const double *np, size_t e, float *maps) {
  const model_plan *p = c->p;
  const model_layer_acts *a = &c->A->layer[l];
  const size_t n = p->n, d = p->d;
  const float *q = a->q + e * n * d;
  if (ss_model_rows_q(c->cfg, p, l) != p->rows) {
    ss_status s = ss_linear_run(c->impl, a->ln1 + e * n * d, n, d, L->wq, NULL, d, c->A->map_q);
    if (s != SS_OK) return s;
    if (c->cfg->positions == SS_POSITIONS_ROPE)
      ss_rope_apply(c->impl, c->A->map_q, n, d, p->heads, n, 0, c->A->rope, false);
    q = c->A->map_q;
  }
  return ss_model_attend(c->cfg, c->impl, np, q, n, a->k + e * n * d, a->v + e * n * d, n,
                         c->A->map_o, maps, c->A->scratch);
}

/* The weights of position n-1 of each example (query_attn: batch x heads
   x n), by their own attention call on that row, when the layer computed
   every row. */
static ss_status last_row_attn(const model_ctx *c, size_t l, const double *np, float *query_attn) {
  const model_plan *p = c->p;
  const model_layer_acts *a = &c->A->layer[l];
  const size_t n = p->n, d = p->d;
  for (size_t e = 0; e < p->batch; e++) {
    const ss_status s = ss_model_attend(c->cfg, c->impl, np, a->q + (e * n + n - 1) * d, 1,
                                        a->k + e * n * d, a->v + e * n * d, n, c->A->map_o,
                                        query_attn + e * p->heads * n, c->A->scratch);
    if (s != SS_OK) return s;
  }
  return SS_OK;
}

ss_status ss_model_layer_forward(const model_ctx *c, const model_params *P, size_t l,
                                 ss_model_outputs *out) {
  const ss_model_config *cfg = c->cfg;
  const model_plan *p = c->p;
  const model_layer_params *L = &P->layer[l];
  model_layer_acts *a = &c->A->layer[l];
  const ss_impl impl = c->impl;
  const size_t R = p->rows, d = p->d, n = p->n, B = p->batch, F = p->f;
  const size_t Q = ss_model_rows_q(cfg, p, l), nq = Q / B;
  const bool last = l + 1 == p->layers;
  double np[SS_MODEL_MAX_NORM_PARAMS];
  ss_model_norm_params(cfg, c->lay, L, np);
  ss_status s = ss_model_norm_fwd(c, a->in, R, L->ln1_g, L->ln1_b, a->ln1);
  if (s != SS_OK) return s;
  if (Q != R) {
    gather_last(a->ln1, B, n, d, a->xq);
    gather_last(a->in, B, n, d, a->xres);
  }
  if ((s = ss_linear_run(impl, a->xq, Q, d, L->wq, NULL, d, a->q)) != SS_OK ||
      (s = ss_linear_run(impl, a->ln1, R, d, L->wk, NULL, d, a->k)) != SS_OK ||
      (s = ss_linear_run(impl, a->ln1, R, d, L->wv, NULL, d, a->v)) != SS_OK)
    return s;
  if (cfg->positions == SS_POSITIONS_ROPE) {
    rope(c, a->q, Q, false);
    rope(c, a->k, R, false);
  }
  if (out && out->hidden)
    memcpy(out->hidden + l * n * d, a->in + out->map_example * n * d, n * d * sizeof(float));
  if (out && out->values)
    memcpy(out->values + l * n * d, a->v + out->map_example * n * d, n * d * sizeof(float));
  float *query_attn = last && out ? out->query_attn : NULL;
  for (size_t e = 0; e < B; e++) {
    float *attn = query_attn && nq == 1 ? query_attn + e * p->heads * n : NULL;
    s = ss_model_attend(cfg, impl, np, a->q + e * nq * d, nq, a->k + e * n * d, a->v + e * n * d, n,
                        a->att + e * nq * d, attn, c->A->scratch);
    if (s != SS_OK) return s;
  }
  if (query_attn && nq != 1 && (s = last_row_attn(c, l, np, query_attn)) != SS_OK) return s;
  if (out && out->maps &&
      (s = full_map(c, L, l, np, out->map_example, out->maps + l * p->heads * n * n)) != SS_OK)
    return s;
  if ((s = ss_linear_run(impl, a->att, Q, d, L->wo, NULL, d, a->res2)) != SS_OK) return s;
  ss_model_add(a->res2, a->xres, Q * d);
  if (!cfg->mlp) return SS_OK; /* out is res2 */
  if ((s = ss_model_norm_fwd(c, a->res2, Q, L->ln2_g, L->ln2_b, a->ln2)) != SS_OK ||
      (s = ss_linear_run(impl, a->ln2, Q, d, L->w1, NULL, F, a->fch)) != SS_OK)
    return s;
  ss_gelu_run(impl, a->fch, Q * F, a->fch_gelu);
  if ((s = ss_linear_run(impl, a->fch_gelu, Q, F, L->w2, NULL, d, a->out)) != SS_OK) return s;
  ss_model_add(a->out, a->res2, Q * d);
  return SS_OK;
}

ss_status ss_model_layer_backward(const model_ctx *c, const model_params *P, size_t l,
                                  const float *dout, float *din, model_params *Gp) {
  const ss_model_config *cfg = c->cfg;
  const model_plan *p = c->p;
  const model_layer_params *L = &P->layer[l];
  model_layer_params *dL = &Gp->layer[l];
  const model_layer_acts *a = &c->A->layer[l];
  const model_layer_acts *g = &c->A->grad;
  const ss_impl impl = c->impl;
  const size_t R = p->rows, d = p->d, n = p->n, B = p->batch, F = p->f;
  const size_t Q = ss_model_rows_q(cfg, p, l), nq = Q / B;
  ss_status s;
  const float *dres2 = dout;
  if (cfg->mlp) {
    if ((s = ss_linear_backward_run(impl, a->fch_gelu, Q, F, L->w2, d, dout, g->fch_gelu, dL->w2,
                                    NULL)) != SS_OK ||
        (s = ss_gelu_backward_run(impl, a->fch, g->fch_gelu, Q * F, g->fch)) != SS_OK ||
        (s = ss_linear_backward_run(impl, a->ln2, Q, d, L->w1, F, g->fch, g->ln2, dL->w1, NULL)) !=
            SS_OK ||
        (s = ss_model_norm_bwd(c, a->res2, Q, L->ln2_g, g->ln2, g->res2, dL->ln2_g,
                                    dL->ln2_b)) != SS_OK)
      return s;
    ss_model_add(g->res2, dout, Q * d);
    dres2 = g->res2;
  }
  if ((s = ss_linear_backward_run(impl, a->att, Q, d, L->wo, d, dres2, g->att, dL->wo, NULL)) !=
      SS_OK)
    return s;
  double np[SS_MODEL_MAX_NORM_PARAMS], dn[SS_MODEL_MAX_NORM_PARAMS], sum[SS_MODEL_MAX_NORM_PARAMS];
  ss_model_norm_params(cfg, c->lay, L, np);
  memset(sum, 0, sizeof sum);
  const size_t nfloat = c->lay->nfloat;
  for (size_t e = 0; e < B; e++) {
    s = ss_model_attend_vjp(cfg, impl, np, a->q + e * nq * d, nq, a->k + e * n * d,
                            a->v + e * n * d, n, g->att + e * nq * d, g->q + e * nq * d,
                            g->k + e * n * d, g->v + e * n * d, nfloat ? dn : NULL, c->A->scratch);
    if (s != SS_OK) return s;
    for (size_t i = 0; i < nfloat; i++) sum[i] += dn[c->lay->float_index[i]];
  }
  for (size_t i = 0; i < nfloat; i++)
    if (!ss_model_f32(sum[i], &dL->norm_params[i])) return SS_ERR_DOMAIN;
  if (cfg->positions == SS_POSITIONS_ROPE) {
    rope(c, g->q, Q, true);
    rope(c, g->k, R, true);
  }
  /* dln1 = dk Wk + dv Wv + dq Wq (query rows); din serves as the buffer
     of the last two products before it receives the layer's input
     gradient */
  if ((s = ss_linear_backward_run(impl, a->ln1, R, d, L->wk, d, g->k, g->ln1, dL->wk, NULL)) !=
          SS_OK ||
      (s = ss_linear_backward_run(impl, a->ln1, R, d, L->wv, d, g->v, din, dL->wv, NULL)) != SS_OK)
    return s;
  ss_model_add(g->ln1, din, R * d);
  if ((s = ss_linear_backward_run(impl, a->xq, Q, d, L->wq, d, g->q, din, dL->wq, NULL)) != SS_OK)
    return s;
  add_query_rows(g->ln1, din, Q, p);
  if ((s = ss_model_norm_bwd(c, a->in, R, L->ln1_g, g->ln1, din, dL->ln1_g, dL->ln1_b)) !=
      SS_OK)
    return s;
  add_query_rows(din, dres2, Q, p);
  return SS_OK;
}
