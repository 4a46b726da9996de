/*
 * The model's attention calls: the registry's exact attention (cfg.attention,
 * e.g. sdpa) with its parameters set by name (heads, causal; the others at
 * their registry defaults: sdpa's scale 1 / sqrt(d / heads)), through the
 * configured normalizer, forward (ss_attend) and backward (ss_attend_vjp:
 * dq, dk, dv and the normalizer's parameter gradient). One example per
 * call: q holds the last nq of the n positions, so a causal mask (query i
 * sees keys j <= i + n - nq) is the same whether all rows or the query row
 * alone are computed.
 */
#include <string.h>

#include "model/model_acts.h"

#define MAX_ATTN_PARAMS 8

/* The attention kernel's parameters: registry defaults, heads and causal. */
static size_t attn_params(const ss_model_config *cfg, double *p) {
  const ss_kernel_info *k = cfg->attention;
  const size_t np = k->nparams < MAX_ATTN_PARAMS ? k->nparams : MAX_ATTN_PARAMS;
  for (size_t i = 0; i < np; i++) p[i] = k->params[i].def;
  const long h = ss_param_index(k, "heads"), c = ss_param_index(k, "causal");
  if (h >= 0 && (size_t)h < np) p[h] = (double)cfg->heads;
  if (c >= 0 && (size_t)c < np) p[c] = (double)cfg->causal;
  return np;
}

static ss_attention_io io_of(const ss_model_config *cfg, const double *norm_params,
                             const float *q, size_t nq, const float *k, const float *v, size_t n,
                             float *out, float *attn, float *scratch) {
  ss_attention_io io;
  memset(&io, 0, sizeof io);
  io.q = q, io.k = k, io.v = v, io.n = nq, io.m = n, io.d = cfg->d, io.dv = cfg->d;
  io.heads = cfg->heads, io.normalizer = cfg->normalizer, io.norm_params = norm_params;
  io.norm_nparams = cfg->norm_nparams, io.out = out, io.attn = attn, io.scratch = scratch;
  return io;
}

void ss_model_norm_params(const ss_model_config *cfg, const model_layout *lay,
                          const model_layer_params *L, double *out) {
  for (size_t i = 0; i < cfg->norm_nparams; i++) out[i] = cfg->norm_params[i];
  for (size_t i = 0; i < lay->nfloat; i++) out[lay->float_index[i]] = (double)L->norm_params[i];
}

size_t ss_model_attention_scratch(const ss_model_config *cfg, size_t nq, size_t n) {
  double p[MAX_ATTN_PARAMS];
  attn_params(cfg, p);
  const ss_attention_io io = io_of(cfg, cfg->norm_params, NULL, nq, NULL, NULL, n, NULL, NULL, NULL);
  const size_t f = ss_attention_scratch_size(cfg->attention, &io, p);
  const size_t b = ss_attention_vjp_scratch_size(cfg->attention, &io, p);
  return f && b ? (f > b ? f : b) : 0;
}

ss_status ss_model_attend(const ss_model_config *cfg, ss_impl impl, const double *norm_params,
                          const float *q, size_t nq, const float *k, const float *v, size_t n,
                          float *out, float *attn, float *scratch) {
  double p[MAX_ATTN_PARAMS];
  const size_t np = attn_params(cfg, p);
  const ss_attention_io io = io_of(cfg, norm_params, q, nq, k, v, n, out, attn, scratch);
  return ss_attend(cfg->attention, impl, &io, p, np);
}

ss_status ss_model_attend_vjp(const ss_model_config *cfg, ss_impl impl, const double *norm_params,
                              const float *q, size_t nq, const float *k, const float *v, size_t n,
                              const float *dout, float *dq, float *dk, float *dv, double *dnorm,
                              float *scratch) {
  double p[MAX_ATTN_PARAMS];
  const size_t np = attn_params(cfg, p);
  const ss_attention_io io = io_of(cfg, norm_params, q, nq, k, v, n, NULL, NULL, scratch);
  return ss_attend_vjp(cfg->attention, impl, &io, p, np, dout, dq, dk, dv, dnorm);
}
