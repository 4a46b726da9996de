/*
 * The calibration inputs of the model's weight matrices
 * (softscope.h, ss_model_linear_inputs): the activations that multiply a
 * matrix in a forward, as post-training quantization (AdaRound's X)
 * wants them. After one forward every input lives in its own place in
 * the activations (model_acts.h):
 *
 *   wq           the layer's normed input at its query rows  (xq)
 *   wk, wv       the layer's normed input, every row         (ln1)
 *   wo           the attention output at the query rows      (att)
 *   w1           the second norm's output                    (ln2)
 *   w2           GELU's output                               (fch_gelu)
 *   unembed      the final norm's output at the read rows    (lnf)
 *   (embed_a when tied: the unembedding)
 *
 * A tensor is found by the field of model_params that points at it (its
 * slot), not by its name. The rows (samples x cols) are written
 * transposed, cols x samples, sample by sample in row order: X of
 * ss_adaround.
 */
#include <string.h>

#include "model/model_internal.h"
#include "model/model_acts.h"

#define SLOT(field) offsetof(model_params, field)

/* Tensor i's input in the activations A and its rows; false when tensor i
   is not a linear layer's weight. */
static bool input_of(const ss_model_config *cfg, const model_layout *lay, const model_plan *p,
                     const model_acts *A, size_t i, const float **x, size_t *rows) {
  const model_tensor *m = &lay->t[i];
  const size_t l = m->t.layer, Q = ss_model_rows_q(cfg, p, l);
  const model_layer_acts *a = &A->layer[l];
  if (m->slot == SLOT(unembed) || (cfg->tied && m->slot == SLOT(embed_a)))
    *x = A->lnf, *rows = p->rows_q_last;
  else if (m->slot == SLOT(layer[l].wq)) *x = a->xq, *rows = Q;
  else if (m->slot == SLOT(layer[l].wk) || m->slot == SLOT(layer[l].wv)) *x = a->ln1, *rows = p->rows;
  else if (m->slot == SLOT(layer[l].wo)) *x = a->att, *rows = Q;
  else if (m->slot == SLOT(layer[l].w1)) *x = a->ln2, *rows = Q;
  else if (m->slot == SLOT(layer[l].w2)) *x = a->fch_gelu, *rows = Q;
  else return false;
  return true;
}

ss_status ss_model_linear_inputs(const ss_model_config *cfg, ss_impl impl, const float *params,
                                 const ss_model_batch *b, void *work, size_t work_bytes,
                                 size_t tensor, float *out, size_t out_cap, size_t *samples) {
  model_layout lay;
  model_plan p;
  model_acts A;
  ss_status s = ss_model_check_call(cfg, impl, params, b, work, work_bytes, true, &lay, &p, &A);
  if (s != SS_OK) return s;
  if (!samples) return SS_ERR_NULL;
  if (tensor >= lay.ntensors) return SS_ERR_LENGTH;
  const float *x;
  size_t rows;
  if (!input_of(cfg, &lay, &p, &A, tensor, &x, &rows)) return SS_ERR_DOMAIN;
  const size_t cols = lay.t[tensor].t.cols;
  *samples = rows;
  if (out_cap == 0) return SS_OK;
  if (!out) return SS_ERR_NULL;
  if (out_cap / cols < rows) return SS_ERR_BUFFER;
  const model_ctx c = {.cfg = cfg, .impl = impl, .lay = &lay, .p = &p, .b = b, .A = &A};
  if ((s = ss_model_run_forward(&c, params, NULL)) != SS_OK) return s;
  for (size_t r = 0; r < rows; r++)
    for (size_t k = 0; k < cols; k++) out[k * rows + r] = x[r * cols + k];
  return SS_OK;
}
