/*
 * The tiny model's backward (softscope.h, ss_model_grad): the chain rule
 * through model_forward.c's steps in reverse, each layer's own backward
 * (ss_linear_backward, ss_rmsnorm_backward, ss_gelu_backward,
 * ss_embedding_backward) and the attention's (ss_attend_vjp through
 * model_attention.c), on the activations the forward left in the workspace.
 *
 *   dlogits = (1/B) dloss/dlogits of each example (the loss kernel's grad)
 *   residual h = h + f(h): dh = dh_out + J_f^T dh_out
 *   last layer: its query-row gradients land on row n-1 of each example;
 *     keys and values carry gradient to every row through dk, dv
 *   du = sum_rows f_r dh0_r, dpos_p = sum_examples dh0_(e, p) (in double)
 *   trained normalizer parameters: the attention's dnorm_params summed over
 *     the examples (in double)
 *
 * Sums over the rows are in a fixed order: the same bits on every rerun.
 */
#include <string.h>

#include "model/model_internal.h"
#include "model/model_plan.h"

/* y[row n-1 of example e] += x[e] (rows of d), or y += x for all rows. */
static void add_rows(float *y, const float *x, bool last, size_t batch, size_t n, size_t d) {
  if (!last) {
    ss_model_add(y, x, batch * n * d);
    return;
  }
  for (size_t e = 0; e < batch; e++) ss_model_add(y + (e * n + n - 1) * d, x + e * d, d);
}

/* The backward of layer l: dx (rows_q x d) is the gradient at its output;
   returns in *dxin the index of the buffer (p->b) that holds the gradient
   at its input (R x d). */
static ss_status layer_backward(const ss_model_config *cfg, ss_impl impl, const model_layout *lay,
                                const model_plan *p, const float *params, size_t l, float *ws,
                                float *grads, size_t dxi, size_t *dxin) {
  const model_layer_ws *w = &p->layer[l];
  const model_layer_at *a = &lay->layer[l];
  const size_t R = p->rows, d = p->d, n = p->n, B = p->batch, Q = w->rows_q, F = p->f;
  const bool last = l + 1 == p->layers;
  const size_t nq = last ? 1 : n;
  const double eps = SS_MODEL_NORM_EPS;
  size_t ti[5], c = 0;
  for (size_t i = 0; i < 6; i++)
    if (i != dxi) ti[c++] = i;
  float *dx = ws + p->b[dxi], *t1 = ws + p->b[ti[0]], *t2 = ws + p->b[ti[1]],
        *t3 = ws + p->b[ti[2]], *t4 = ws + p->b[ti[3]], *t5 = ws + p->b[ti[4]];
  float *f0 = ws + p->bf[0], *f1 = ws + p->bf[1];
  ss_status s;
  if (cfg->mlp) {
    if ((s = ss_linear_backward(impl, ws + w->g, Q, F, params + a->w2, d, dx, f0, grads + a->w2,
                                NULL)) != SS_OK ||
        (s = ss_gelu_backward(impl, ws + w->h1, f0, Q * F, f1)) != SS_OK ||
        (s = ss_linear_backward(impl, ws + w->hn, Q, d, params + a->w1, F, f1, t1, grads + a->w1,
                                NULL)) != SS_OK ||
        (s = ss_rmsnorm_backward(impl, ws + w->xmid, Q, d, params + a->mlp_norm, eps, t1, t2,
                                 grads + a->mlp_norm)) != SS_OK)
      return s;
    ss_model_add(dx, t2, Q * d);
  }
  if ((s = ss_linear_backward(impl, ws + w->o, Q, d, params + a->wo, d, dx, t1, grads + a->wo,
                              NULL)) != SS_OK)
    return s;
  double np[SS_MODEL_MAX_NORM_PARAMS], dn[SS_MODEL_MAX_NORM_PARAMS], sum[SS_MODEL_MAX_NORM_PARAMS];
  ss_model_norm_params(cfg, lay, params, l, np);
  memset(sum, 0, sizeof sum);
  for (size_t e = 0; e < B; e++) {
    s = ss_model_attend_vjp(cfg, impl, np, ws + w->q + e * nq * d, nq, ws + w->k + e * n * d,
                            ws + w->v + e * n * d, n, t1 + e * nq * d, t2 + e * nq * d,
                            t3 + e * n * d, t4 + e * n * d, lay->nfloat ? dn : NULL,
                            ws + p->scratch);
    if (s != SS_OK) return s;
    for (size_t i = 0; i < lay->nfloat; i++) sum[i] += dn[lay->float_index[i]];
  }
  for (size_t i = 0; i < lay->nfloat; i++) {
    if (!ss_model_f32(sum[i], &grads[a->norm_params + i])) return SS_ERR_DOMAIN;
  }
  if ((s = ss_linear_backward(impl, ws + w->xq, Q, d, params + a->wq, d, t2, t1, grads + a->wq,
                              NULL)) != SS_OK ||
      (s = ss_linear_backward(impl, ws + w->xn, R, d, params + a->wk, d, t3, t5, grads + a->wk,
                              NULL)) != SS_OK ||
      (s = ss_linear_backward(impl, ws + w->xn, R, d, params + a->wv, d, t4, t3, grads + a->wv,
                              NULL)) != SS_OK)
    return s;
  ss_model_add(t5, t3, R * d);
  add_rows(t5, t1, last, B, n, d);
  if ((s = ss_rmsnorm_backward(impl, ws + w->xin, R, d, params + a->attn_norm, eps, t5, t4,
                               grads + a->attn_norm)) != SS_OK)
    return s;
  add_rows(t4, dx, last, B, n, d);
  *dxin = ti[3];
  return SS_OK;
}

/* The embeddings' gradients from dh0 (R x d). */
static ss_status embed_backward(const ss_model_config *cfg, ss_impl impl, const model_layout *lay,
                                const model_plan *p, const ss_model_batch *b, const float *dh,
                                float *grads) {
  const size_t R = p->rows, d = p->d, n = p->n;
  ss_status s = ss_embedding_backward(impl, dh, b->tokens_a, R, cfg->vocab_a, d,
                                      grads + lay->embed_a);
  if (s == SS_OK)
    s = ss_embedding_backward(impl, dh, b->tokens_b, R, cfg->vocab_b, d, grads + lay->embed_b);
  if (s != SS_OK) return s;
  for (size_t j = 0; j < d; j++) {
    double acc = 0.0;
    for (size_t r = 0; r < R; r++) acc += (double)b->feature[r] * (double)dh[r * d + j];
    if (!ss_model_f32(acc, &grads[lay->feature + j])) return SS_ERR_DOMAIN;
  }
  if (cfg->positions == SS_POSITIONS_LEARNED) {
    float *dp = grads + lay->positions;
    memset(dp, 0, (size_t)cfg->max_n * d * sizeof(float));
    for (size_t q = 0; q < n * d; q++) {
      double acc = 0.0;
      for (size_t e = 0; e < p->batch; e++) acc += (double)dh[e * n * d + q];
      if (!ss_model_f32(acc, &dp[q])) return SS_ERR_DOMAIN;
    }
  }
  return SS_OK;
}

ss_status ss_model_run_backward(const ss_model_config *cfg, ss_impl impl, const model_layout *lay,
                                const model_plan *p, const float *params, const ss_model_batch *b,
                                float *ws, float *grads) {
  const size_t B = p->batch, d = p->d, C = p->classes;
  float *dl = ws + p->dlogits;
  const float inv = (float)(1.0 / (double)B);
  for (size_t i = 0; i < B * C; i++) dl[i] *= inv;
  const model_layer_ws *w = &p->layer[p->layers - 1];
  ss_status s;
  if ((s = ss_linear_backward(impl, ws + p->xfn, B, d, params + lay->unembed, C, dl,
                              ws + p->b[0], grads + lay->unembed, NULL)) != SS_OK ||
      (s = ss_rmsnorm_backward(impl, ws + w->xout, B, d, params + lay->final_norm,
                               SS_MODEL_NORM_EPS, ws + p->b[0], ws + p->b[1],
                               grads + lay->final_norm)) != SS_OK)
    return s;
  size_t dxi = 1;
  for (size_t l = p->layers; l-- > 0;)
    if ((s = layer_backward(cfg, impl, lay, p, params, l, ws, grads, dxi, &dxi)) != SS_OK) return s;
  return embed_backward(cfg, impl, lay, p, b, ws + p->b[dxi], grads);
}

ss_status ss_model_grad(const ss_model_config *cfg, ss_impl impl, const float *params,
                        const ss_model_batch *b, void *work, size_t work_bytes, float *grads,
                        ss_model_outputs *out) {
  model_layout lay;
  model_plan p;
  if (!grads) return SS_ERR_NULL;
  ss_status s = ss_model_check_call(cfg, impl, params, b, work, work_bytes, false, &lay, &p);
  if (s != SS_OK) return s;
  if (out && out->maps && out->map_example >= b->batch) return SS_ERR_PARAM_RANGE;
  if ((s = ss_model_run_forward(cfg, impl, &lay, &p, params, b, work, out)) != SS_OK) return s;
  return ss_model_run_backward(cfg, impl, &lay, &p, params, b, work, grads);
}
