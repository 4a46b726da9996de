/*
 * The calibration inputs of the tiny model's weight matrices
 * (softscope.h, ss_model_linear_inputs): the activations that multiply a
 * matrix in a forward, as post-training quantization (AdaRound's X)
 * wants them. After one forward (ss_model_run_forward) every input lives
 * in its own workspace region (model_plan.h):
 *
 *   wq           the layer's normed input at its query rows  (xq: xn's rows)
 *   wk, wv       the layer's normed input, every row         (xn)
 *   wo           the attention output at the query rows      (o)
 *   w1           the second norm's output                    (hn)
 *   w2           GELU's output                               (g)
 *   unembed      the final norm's output at the query row    (xfn)
 *
 * The query rows are every row before the last layer and row n-1 of each
 * example in it (the last layer computes that row alone: softscope.h), so
 * a sample is one row the matrix multiplies: batch n of them for wk, wv
 * and the layers before the last, batch for the last layer's wq, wo, w1,
 * w2 and the unembedding. The rows (samples x cols) are written
 * transposed, cols x samples, sample by sample in row order: X of
 * ss_adaround.
 */
#include <string.h>

#include "model/model_internal.h"
#include "model/model_plan.h"

/* Tensor i's input region and its rows in the plan; false when tensor i is
   not a linear layer's weight (embeddings, positions, gains, normalizer
   parameters). */
static bool input_of(const model_layout *lay, const model_plan *p, size_t i, size_t *at,
                     size_t *rows) {
  const ss_model_tensor *t = &lay->t[i];
  const model_layer_ws *w = &p->layer[t->layer];
  if (!strcmp(t->name, "unembed")) *at = p->xfn, *rows = p->batch;
  else if (!strcmp(t->name, "wq")) *at = w->xq, *rows = w->rows_q;
  else if (!strcmp(t->name, "wk") || !strcmp(t->name, "wv")) *at = w->xn, *rows = p->rows;
  else if (!strcmp(t->name, "wo")) *at = w->o, *rows = w->rows_q;
  else if (!strcmp(t->name, "w1")) *at = w->hn, *rows = w->rows_q;
  else if (!strcmp(t->name, "w2")) *at = w->g, *rows = w->rows_q;
  else return false;
  return true;
}

ss_status ss_model_linear_inputs(const ss_model_config *cfg, ss_impl impl, const float *params,
                                 const ss_model_batch *b, void *work, size_t work_bytes,
                                 size_t tensor, float *out, size_t out_cap, size_t *samples) {
  if (!out || !samples) return SS_ERR_NULL;
  model_layout lay;
  model_plan p;
  ss_status s = ss_model_check_call(cfg, impl, params, b, work, work_bytes, true, &lay, &p);
  if (s != SS_OK) return s;
  if (tensor >= lay.ntensors) return SS_ERR_LENGTH;
  size_t at, rows;
  if (!input_of(&lay, &p, tensor, &at, &rows)) return SS_ERR_DOMAIN;
  const size_t cols = lay.t[tensor].cols;
  *samples = rows;
  if (out_cap / cols < rows) return SS_ERR_BUFFER;
  float *ws = work;
  if ((s = ss_model_run_forward(cfg, impl, &lay, &p, params, b, ws, NULL)) != SS_OK) return s;
  const float *x = ws + at;
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) out[c * rows + r] = x[r * cols + c];
  return SS_OK;
}
