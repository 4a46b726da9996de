/*
 * The tiny model's internal plan (core/src/model/model_*.c): where each
 * tensor lives in the parameter arena (the layout softscope.h documents),
 * where each activation lives in the caller's workspace, and the attention
 * calls the model makes (model_attention.c: the one place that knows the
 * attention kernel's parameters and its backward).
 *
 * Workspace (floats, each region rounded up to 4 floats), R = batch n rows,
 * Q = the query rows of a layer (R for layers before the last, batch for
 * the last: its position n-1 alone), F = 4 d:
 *   per layer: xin (R d: the residual entering it; layer 0's is h0),
 *     xn (R d: RMSNorm(xin)), xq (Q d: the rows of xn the queries read),
 *     xres (Q d: the rows of xin the attention adds to), q (Q d), k, v (R d),
 *     o (Q d: attention output before wo), xmid (Q d), hn (Q d), h1, g (Q F),
 *     xout (Q d; the next layer's xin)
 *   final: xfn (B d), logits, dlogits (B classes)
 *   pos (n d: sinusoids), map_q, map_o (n d: the last layer's full map of
 *   one example), attention scratch -- all a forward needs; then
 *   backward: six R d buffers, two Q F buffers (the largest Q), and a copy
 *   of the parameters (the look-ahead optimizers' point).
 */
#ifndef SS_MODEL_PLAN_H
#define SS_MODEL_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "softscope.h"

#define SS_MODEL_MAX_TENSORS (4 + SS_MODEL_MAX_LAYERS * 9 + 2)
/* the normalizer's parameters the model passes (registry normalizers have
   at most a handful) */
#define SS_MODEL_MAX_NORM_PARAMS 16
#define SS_MODEL_MAX_LOSS_PARAMS 8

typedef struct model_layer_at {
  size_t attn_norm, wq, wk, wv, wo, mlp_norm, w1, w2, norm_params;
} model_layer_at;

/* Offsets (floats) of the tensors in the parameter arena. */
typedef struct model_layout {
  size_t embed_a, embed_b, feature, positions, final_norm, unembed, total;
  model_layer_at layer[SS_MODEL_MAX_LAYERS];
  size_t nfloat;                       /* trained normalizer parameters per layer */
  uint32_t float_index[SS_MODEL_MAX_NORM_PARAMS]; /* their registry indices */
  size_t ntensors;
  ss_model_tensor t[SS_MODEL_MAX_TENSORS];
} model_layout;

typedef struct model_layer_ws {
  size_t xin, xn, xq, xres, q, k, v, o, xmid, hn, h1, g, xout;
  size_t rows_q; /* Q */
} model_layer_ws;

/* Offsets (floats) of the workspace regions. */
typedef struct model_plan {
  size_t batch, n, rows, d, f, classes, heads, layers;
  model_layer_ws layer[SS_MODEL_MAX_LAYERS];
  size_t xfn, logits, dlogits;
  size_t pos, map_q, map_o, scratch, nscratch;
  size_t b[6], bf[2]; /* backward buffers: R d, and Q F for the largest Q */
  size_t saved;
  size_t forward_total; /* floats a forward alone needs (the regions before b) */
  size_t total;         /* floats */
} model_plan;

/* The config's checks (softscope.h, ss_model_check). */
ss_status ss_model_config_check(const ss_model_config *cfg);
/* The layout of a checked config. */
void ss_model_layout_of(const ss_model_config *cfg, model_layout *lay);
/* The workspace plan of a checked config; false when batch or n is out of
   range or the size overflows. */
bool ss_model_plan_of(const ss_model_config *cfg, size_t batch, size_t n, model_plan *p);
/* The checks every entry point on a batch shares: config, impl, the batch's
   pointers, shape and values, params finite, work and its size; fills lay
   and plan. */
ss_status ss_model_check_call(const ss_model_config *cfg, ss_impl impl, const float *params,
                              const ss_model_batch *b, const void *work, size_t work_bytes,
                              bool forward_only, model_layout *lay, model_plan *plan);

/* ---- attention (model_attention.c) ---- */

/* The normalizer's parameters of layer l: cfg's, with the trained float
   ones read from the arena. */
void ss_model_norm_params(const ss_model_config *cfg, const model_layout *lay, const float *params,
                          size_t l, double *out);
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

/* ---- forward and backward (model_forward.c, model_backward.c) ---- */

/* y[i] += x[i], i < n: float additions in order (the same bits every run). */
static inline void ss_model_add(float *y, const float *x, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] += x[i];
}

/* The forward into the workspace ws (plan's regions); fills out's fields
   and pointers (out may be NULL). */
ss_status ss_model_run_forward(const ss_model_config *cfg, ss_impl impl, const model_layout *lay,
                               const model_plan *p, const float *params, const ss_model_batch *b,
                               float *ws, ss_model_outputs *out);
/* The backward after ss_model_run_forward on the same workspace. */
ss_status ss_model_run_backward(const ss_model_config *cfg, ss_impl impl, const model_layout *lay,
                                const model_plan *p, const float *params, const ss_model_batch *b,
                                float *ws, float *grads);

#endif
