/*
 * The model's structs, as llm.c's train_gpt2.c has them (core/src/model):
 *
 *   model_params  the parameter tensors by name: pointers into a float
 *                 arena. The same struct over the gradients' arena holds
 *                 the gradients (ParameterTensors, for params and grads).
 *   model_acts    the activations of a forward, by name, layer by layer
 *                 (ActivationTensors), in the caller's workspace. The
 *                 backward's gradients of one layer's activations are the
 *                 same struct (model_layer_acts), one instance reused by
 *                 every layer in turn (they are dead once the layer's
 *                 backward is done), plus two buffers for the gradient of
 *                 the residual stream.
 *   model_layout  the tensor table: name, kind, layer, offset, shape, init,
 *                 and which field of model_params points at it.
 *   model_plan    the sizes of one call (batch, n, rows ...) and the
 *                 workspace it needs.
 *
 * Rows: R = batch n (every position of every example). A layer computes
 * its queries, attention output, residual and MLP on Q rows: R, except the
 * last layer under SS_LOSS_AT_LAST, which computes position n-1 of each
 * example alone (Q = batch; keys and values still on all R rows).
 */
#ifndef SS_MODEL_ACTS_H
#define SS_MODEL_ACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/layers.h"
#include "softscope.h"

#define SS_MODEL_MAX_TENSORS (5 + SS_MODEL_MAX_LAYERS * 12 + 3)
/* the normalizer's parameters the model passes (registry normalizers have
   at most a handful) */
#define SS_MODEL_MAX_NORM_PARAMS 16
#define SS_MODEL_MAX_LOSS_PARAMS 8

/* ---- parameters (and their gradients) ---- */

typedef struct model_layer_params {
  float *ln1_g, *ln1_b;          /* attn_norm, attn_norm_bias (LayerNorm) */
  float *wq, *wk, *wv, *wo;      /* d x d each */
  float *ln2_g, *ln2_b;          /* mlp_norm, mlp_norm_bias */
  float *w1, *w2;                /* 4d x d, d x 4d */
  float *norm_params;            /* the normalizer's trained parameters */
} model_layer_params;

typedef struct model_params {
  float *embed_a, *embed_b, *feature, *positions;
  model_layer_params layer[SS_MODEL_MAX_LAYERS];
  float *lnf_g, *lnf_b;          /* final_norm, final_norm_bias */
  float *unembed;                /* classes x d; embed_a when tied */
} model_params;

/* ---- the tensor table ---- */

typedef struct model_tensor {
  ss_model_tensor t;   /* name, kind, layer, offset, rows, cols, init_std */
  size_t slot;         /* offsetof(model_params, the field pointing at it) */
} model_tensor;

typedef struct model_layout {
  size_t ntensors, total;        /* tensors; floats in the arena */
  model_tensor t[SS_MODEL_MAX_TENSORS];
  size_t nfloat;                 /* trained normalizer parameters per layer */
  uint32_t float_index[SS_MODEL_MAX_NORM_PARAMS]; /* their registry indices */
} model_layout;

/* ---- activations ---- */

typedef struct model_layer_acts {
  float *in;          /* R x d: the residual stream entering the layer */
  float *ln1;         /* R x d: Norm1(in) */
  float *xq, *xres;   /* Q x d: ln1 and in at the query rows (ln1, in when Q = R) */
  float *q;           /* Q x d: queries (rotated with rope) */
  float *k, *v;       /* R x d: keys (rotated with rope), values */
  float *att;         /* Q x d: the attention's output, heads side by side */
  float *res2;        /* Q x d: xres + att Wo^T */
  float *ln2;         /* Q x d: Norm2(res2) */
  float *fch;         /* Q x 4d: ln2 W1^T */
  float *fch_gelu;    /* Q x 4d: GELU(fch) */
  float *out;         /* Q x d: res2 + fch_gelu W2^T (res2 without the MLP) */
} model_layer_acts;

typedef struct model_acts {
  model_layer_acts layer[SS_MODEL_MAX_LAYERS];
  float *lnf;         /* Q x d: NormF of the last layer's out */
  float *logits;      /* Q x classes */
  float *dlogits;     /* Q x classes: each read row's d loss / d logits */
  float *row_loss;    /* Q: each read row's loss */
  float *pos;         /* n x d: the sinusoids (sinusoidal positions) */
  float *rope;        /* n x hd: cos, sin of every position and pair (rope) */
  float *map_q, *map_o; /* n x d: one example's queries and output for its map */
  float *scratch;     /* the attention's scratch */
  /* the backward's (ss_model_workspace_size only) */
  model_layer_acts grad; /* one layer's gradients (R rows; in, xq, xres, out unused) */
  float *dres[2];     /* R x d: the residual stream's gradient, in and out of a layer */
  float *dtied;       /* vocab_a x d: the unembedding's gradient when tied */
  float *saved;       /* a copy of the parameters (look-ahead optimizers) */
} model_acts;

/* ---- one call's sizes ---- */

typedef struct model_plan {
  size_t batch, n, rows, d, f, hd, heads, layers, classes;
  size_t rows_q_last;    /* Q of the last layer (and of the head) */
  size_t forward_total;  /* floats a forward alone needs */
  size_t total;          /* floats a gradient or step needs */
} model_plan;

/* ---- model_config.c ---- */

/* The config's checks (softscope.h, ss_model_check). */
ss_status ss_model_config_check(const ss_model_config *cfg);
/* The tensor table of a checked config. */
void ss_model_layout_of(const ss_model_config *cfg, model_layout *lay);
/* The struct of named tensors over an arena (params or grads). */
void ss_model_params_of(const ss_model_config *cfg, const model_layout *lay, float *arena,
                        model_params *P);
/* The plan of a checked config and the activations' places in the
   workspace ws (ws NULL: sizes only, A untouched); false when batch or n is
   out of range or a size overflows. */
bool ss_model_plan_of(const ss_model_config *cfg, size_t batch, size_t n, float *ws,
                      model_plan *p, model_acts *A);
/* The checks of every entry point on a batch, once: config, impl, the
   batch's pointers, shape and values, params finite, work and its size;
   fills lay, plan and the activations' pointers. */
ss_status ss_model_check_call(const ss_model_config *cfg, ss_impl impl, const float *params,
                              const ss_model_batch *b, void *work, size_t work_bytes,
                              bool forward_only, model_layout *lay, model_plan *plan,
                              model_acts *A);
/* Q: the rows layer l computes its queries on. */
static inline size_t ss_model_rows_q(const ss_model_config *cfg, const model_plan *p, size_t l) {
  return l + 1 == p->layers && cfg->loss_at == SS_LOSS_AT_LAST ? p->batch : p->rows;
}

/* ---- model_attention.c ---- */

/* The normalizer's parameters of layer l: cfg's, with the trained float
   ones read from the layer's tensor. */
void ss_model_norm_params(const ss_model_config *cfg, const model_layout *lay,
                          const model_layer_params *L, double *out);
/* Floats of scratch one forward or backward attention call over nq query
   rows and n keys needs (0: rejected). */
size_t ss_model_attention_scratch(const ss_model_config *cfg, size_t nq, size_t n);
/* One example: q (nq x d), k, v (n x d) -> out (nq x d), attn (heads x nq x
   n, may be NULL). The query rows are the last nq of the n positions (the
   causal mask aligns them so). */
ss_status ss_model_attend(const ss_model_config *cfg, ss_impl impl, const double *norm_params,
                          const float *q, size_t nq, const float *k, const float *v, size_t n,
                          float *out, float *attn, float *scratch);
/* Its backward given dout (nq x d): dq, dk, dv (overwritten); dnorm (may be
   NULL) receives the normalizer's parameter gradient (norm_nparams). */
ss_status ss_model_attend_vjp(const ss_model_config *cfg, ss_impl impl, const double *norm_params,
                              const float *q, size_t nq, const float *k, const float *v, size_t n,
                              const float *dout, float *dq, float *dk, float *dv, double *dnorm,
                              float *scratch);

/* ---- the forward and backward of the parts (model_embed.c, model_layer.c,
   model_head.c); inputs checked by the caller ---- */

typedef struct model_ctx {
  const ss_model_config *cfg;
  ss_impl impl;
  const model_layout *lay;
  const model_plan *p;
  const ss_model_batch *b;
  model_acts *A;
} model_ctx;

ss_status ss_model_embed_forward(const model_ctx *c, const model_params *P);
ss_status ss_model_embed_backward(const model_ctx *c, const float *dh0, model_params *G);
ss_status ss_model_layer_forward(const model_ctx *c, const model_params *P, size_t l,
                                 ss_model_outputs *out);
/* dout: the gradient at the layer's out (Q x d); din: at its in (R x d). */
ss_status ss_model_layer_backward(const model_ctx *c, const model_params *P, size_t l,
                                  const float *dout, float *din, model_params *G);
ss_status ss_model_head_forward(const model_ctx *c, const model_params *P, ss_model_outputs *out);
/* dres: the gradient at the last layer's out (Q x d). */
ss_status ss_model_head_backward(const model_ctx *c, const model_params *P, float *dres,
                                 model_params *G);

/* ---- model.c ---- */

ss_status ss_model_run_forward(const model_ctx *c, const float *params, ss_model_outputs *out);
ss_status ss_model_run_backward(const model_ctx *c, const float *params, float *grads);

/* The configured norm (RMSNorm or LayerNorm; bias NULL for RMSNorm) of
   rows x d, and its backward (dbias NULL for RMSNorm). */
static inline ss_status ss_model_norm_fwd(const model_ctx *c, const float *x, size_t rows,
                                      const float *g, const float *bias, float *y) {
  if (c->cfg->norm == SS_MODEL_NORM_LAYER)
    return ss_layernorm_run(c->impl, x, rows, c->p->d, g, bias, SS_MODEL_NORM_EPS, y);
  return ss_rmsnorm_run(c->impl, x, rows, c->p->d, g, SS_MODEL_NORM_EPS, y);
}
static inline ss_status ss_model_norm_bwd(const model_ctx *c, const float *x, size_t rows,
                                               const float *g, const float *dy, float *dx,
                                               float *dg, float *dbias) {
  if (c->cfg->norm == SS_MODEL_NORM_LAYER)
    return ss_layernorm_backward_run(c->impl, x, rows, c->p->d, g, SS_MODEL_NORM_EPS, dy, dx, dg,
                                     dbias);
  return ss_rmsnorm_backward_run(c->impl, x, rows, c->p->d, g, SS_MODEL_NORM_EPS, dy, dx, dg);
}

/* y[i] += x[i], i < n: float additions in order (the same bits every run). */
static inline void ss_model_add(float *y, const float *x, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] += x[i];
}

#endif
