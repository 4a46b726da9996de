/*
 * The model's entry points (softscope.h: ss_model_forward, ss_model_grad):
 * the inputs checked once (ss_model_check_call), then the parts in order,
 * as llm.c's gpt2_forward and gpt2_backward:
 *
 *   forward   embed -> layer 0 .. L-1 -> head (loss)
 *   backward  head -> layer L-1 .. 0 -> embed, the residual stream's
 *             gradient passed between them in two buffers (dres[0, 1])
 *
 * Every sum is a layer's own or a float addition in a fixed order: a
 * forward and a gradient are the same bits on every rerun in one build
 * (the builds differ only where the layers do: relaxed FMA in the matrix
 * products, the SIMD impls' bounds).
 */
#include "model/model_acts.h"
#include "model/model_internal.h"

ss_status ss_model_run_forward(const model_ctx *c, const float *params, ss_model_outputs *out) {
  model_params P;
  ss_model_params_of(c->cfg, c->lay, (float *)params, &P);
  ss_status s = ss_model_embed_forward(c, &P);
  for (size_t l = 0; s == SS_OK && l < c->p->layers; l++)
    s = ss_model_layer_forward(c, &P, l, out);
  return s == SS_OK ? ss_model_head_forward(c, &P, out) : s;
}

ss_status ss_model_run_backward(const model_ctx *c, const float *params, float *grads) {
  model_params P, G;
  ss_model_params_of(c->cfg, c->lay, (float *)params, &P);
  ss_model_params_of(c->cfg, c->lay, grads, &G);
  float **dres = c->A->dres;
  ss_status s = ss_model_head_backward(c, &P, dres[0], &G);
  size_t cur = 0;
  for (size_t l = c->p->layers; s == SS_OK && l-- > 0; cur ^= 1)
    s = ss_model_layer_backward(c, &P, l, dres[cur], dres[cur ^ 1], &G);
  return s == SS_OK ? ss_model_embed_backward(c, dres[cur], &G) : s;
}

ss_status ss_model_forward(const ss_model_config *cfg, ss_impl impl, const float *params,
                           const ss_model_batch *b, void *work, size_t work_bytes,
                           ss_model_outputs *out) {
  model_layout lay;
  model_plan p;
  model_acts A;
  ss_status s = ss_model_check_call(cfg, impl, params, b, work, work_bytes, true, &lay, &p, &A);
  if (s != SS_OK) return s;
  if (out && (out->maps || out->hidden || out->values) && out->map_example >= b->batch)
    return SS_ERR_PARAM_RANGE;
  const model_ctx c = {.cfg = cfg, .impl = impl, .lay = &lay, .p = &p, .b = b, .A = &A};
  return ss_model_run_forward(&c, params, out);
}

ss_status ss_model_grad(const ss_model_config *cfg, ss_impl impl, const float *params,
                        const ss_model_batch *b, void *work, size_t work_bytes, float *grads,
                        ss_model_outputs *out) {
  model_layout lay;
  model_plan p;
  model_acts A;
  if (!grads) return SS_ERR_NULL;
  ss_status s = ss_model_check_call(cfg, impl, params, b, work, work_bytes, false, &lay, &p, &A);
  if (s != SS_OK) return s;
  if (out && (out->maps || out->hidden || out->values) && out->map_example >= b->batch)
    return SS_ERR_PARAM_RANGE;
  const model_ctx c = {.cfg = cfg, .impl = impl, .lay = &lay, .p = &p, .b = b, .A = &A};
  if ((s = ss_model_run_forward(&c, params, out)) != SS_OK) return s;
  return ss_model_run_backward(&c, params, grads);
}
