/*
 * The tiny model's configuration: its checks, the parameter arena's layout
 * (softscope.h, ss_model_param_count), the workspace plan
 * (model_plan.h, ss_model_workspace_size) and the seeded init.
 *
 * Init (GPT-2 style): every matrix and embedding N(0, 0.02^2), the two
 * matrices that write into the residual stream (wo, w2) N(0, (0.02 /
 * sqrt(2 L))^2), norm gains 1. Tensor i draws ss_normal(seed, stream i):
 * the same bits in every build.
 */
#include <math.h>
#include <string.h>

#include "common/check.h"
#include "model/model_internal.h"
#include "model/model_plan.h"

static bool flag_ok(uint32_t v) { return v <= 1; }

ss_status ss_model_config_check(const ss_model_config *cfg) {
  if (!cfg || !cfg->attention || !cfg->normalizer || !cfg->loss) return SS_ERR_NULL;
  if ((cfg->norm_nparams && !cfg->norm_params) || (cfg->loss_nparams && !cfg->loss_params))
    return SS_ERR_NULL;
  if (cfg->attention->family != SS_FAMILY_ATTENTION ||
      cfg->normalizer->family != SS_FAMILY_NORMALIZER || cfg->loss->family != SS_FAMILY_LOSS)
    return SS_ERR_FAMILY;
  if (cfg->attention->role != SS_ROLE_EXACT_ATTENTION) return SS_ERR_UNSUPPORTED;
  const uint32_t V = SS_MODEL_MAX_VOCAB;
  if (cfg->vocab_a < 1 || cfg->vocab_a > V || cfg->vocab_b < 1 || cfg->vocab_b > V ||
      cfg->classes < 1 || cfg->classes > V)
    return SS_ERR_PARAM_RANGE;
  if (cfg->d < 2 || cfg->d > SS_MODEL_MAX_D || cfg->heads < 1 ||
      cfg->heads > SS_MODEL_MAX_HEADS || cfg->d % cfg->heads || cfg->layers < 1 ||
      cfg->layers > SS_MODEL_MAX_LAYERS)
    return SS_ERR_PARAM_RANGE;
  if (!flag_ok(cfg->mlp) || !flag_ok(cfg->causal) || !flag_ok(cfg->train_norm_params) ||
      cfg->positions >= SS_POSITIONS_COUNT)
    return SS_ERR_PARAM_RANGE;
  if (cfg->positions == SS_POSITIONS_SINUSOIDAL && cfg->d % 2) return SS_ERR_PARAM_RANGE;
  if (cfg->positions == SS_POSITIONS_LEARNED && (cfg->max_n < 1 || cfg->max_n > SS_MODEL_MAX_N))
    return SS_ERR_PARAM_RANGE;
  /* the normalizer */
  if (cfg->norm_nparams > SS_MODEL_MAX_NORM_PARAMS) return SS_ERR_PARAM_COUNT;
  ss_status s = ss_params_check(cfg->normalizer, cfg->norm_params, cfg->norm_nparams);
  if (s != SS_OK) return s;
  if (!cfg->normalizer->has_backward) return SS_ERR_NO_BACKWARD;
  if (cfg->train_norm_params && !cfg->normalizer->has_param_backward) {
    for (size_t i = 0; i < cfg->normalizer->nparams; i++)
      if (cfg->normalizer->params[i].type == SS_PARAM_FLOAT) return SS_ERR_NO_BACKWARD;
  }
  /* the loss: target first, its other parameters valid */
  if (ss_param_index(cfg->loss, "target") != 0) return SS_ERR_UNSUPPORTED;
  if (cfg->loss_nparams != cfg->loss->nparams) return SS_ERR_PARAM_COUNT;
  if (cfg->loss_nparams > SS_MODEL_MAX_LOSS_PARAMS) return SS_ERR_PARAM_COUNT;
  double lp[SS_MODEL_MAX_LOSS_PARAMS];
  for (size_t i = 0; i < cfg->loss_nparams; i++) lp[i] = cfg->loss_params[i];
  lp[0] = 0.0;
  return ss_params_check(cfg->loss, lp, cfg->loss_nparams);
}

ss_status ss_model_check(const ss_model_config *cfg) { return ss_model_config_check(cfg); }

/* ---- layout ---- */

static size_t add_tensor(model_layout *lay, const char *name, uint32_t layer, size_t rows,
                         size_t cols) {
  ss_model_tensor *t = &lay->t[lay->ntensors++];
  t->name = name, t->layer = layer, t->offset = lay->total, t->rows = rows, t->cols = cols;
  lay->total += rows * cols;
  return t->offset;
}

void ss_model_layout_of(const ss_model_config *cfg, model_layout *lay) {
  memset(lay, 0, sizeof *lay);
  const size_t d = cfg->d;
  if (cfg->train_norm_params)
    for (size_t i = 0; i < cfg->normalizer->nparams; i++)
      if (cfg->normalizer->params[i].type == SS_PARAM_FLOAT)
        lay->float_index[lay->nfloat++] = (uint32_t)i;
  lay->embed_a = add_tensor(lay, "embed_a", 0, cfg->vocab_a, d);
  lay->embed_b = add_tensor(lay, "embed_b", 0, cfg->vocab_b, d);
  lay->feature = add_tensor(lay, "feature", 0, 1, d);
  if (cfg->positions == SS_POSITIONS_LEARNED)
    lay->positions = add_tensor(lay, "positions", 0, cfg->max_n, d);
  for (uint32_t l = 0; l < cfg->layers; l++) {
    model_layer_at *a = &lay->layer[l];
    a->attn_norm = add_tensor(lay, "attn_norm", l, 1, d);
    a->wq = add_tensor(lay, "wq", l, d, d);
    a->wk = add_tensor(lay, "wk", l, d, d);
    a->wv = add_tensor(lay, "wv", l, d, d);
    a->wo = add_tensor(lay, "wo", l, d, d);
    if (cfg->mlp) {
      a->mlp_norm = add_tensor(lay, "mlp_norm", l, 1, d);
      a->w1 = add_tensor(lay, "w1", l, 4 * d, d);
      a->w2 = add_tensor(lay, "w2", l, d, 4 * d);
    }
    if (lay->nfloat) a->norm_params = add_tensor(lay, "norm_params", l, 1, lay->nfloat);
  }
  lay->final_norm = add_tensor(lay, "final_norm", 0, 1, d);
  lay->unembed = add_tensor(lay, "unembed", 0, cfg->classes, d);
}

size_t ss_model_param_count(const ss_model_config *cfg) {
  if (ss_model_config_check(cfg) != SS_OK) return 0;
  model_layout lay;
  ss_model_layout_of(cfg, &lay);
  return lay.total;
}

size_t ss_model_tensor_count(const ss_model_config *cfg) {
  if (ss_model_config_check(cfg) != SS_OK) return 0;
  model_layout lay;
  ss_model_layout_of(cfg, &lay);
  return lay.ntensors;
}

ss_status ss_model_tensor_at(const ss_model_config *cfg, size_t i, ss_model_tensor *out) {
  if (!out) return SS_ERR_NULL;
  const ss_status s = ss_model_config_check(cfg);
  if (s != SS_OK) return s;
  model_layout lay;
  ss_model_layout_of(cfg, &lay);
  if (i >= lay.ntensors) return SS_ERR_LENGTH;
  *out = lay.t[i];
  return SS_OK;
}

/* ---- workspace ---- */

/* A region of `count` floats at *at, rounded up to 4; false past the limit. */
static bool region(size_t *at, size_t count, size_t *off) {
  const size_t c = (count + 3) & ~(size_t)3;
  if (c < count || *at > SIZE_MAX / 8 - c) return false;
  *off = *at;
  *at += c;
  return true;
}

bool ss_model_plan_of(const ss_model_config *cfg, size_t batch, size_t n, model_plan *p) {
  if (batch < 1 || n < 2 || n > SS_MODEL_MAX_N) return false;
  if (cfg->positions == SS_POSITIONS_LEARNED && n > cfg->max_n) return false;
  if (batch > SS_MAX_N / n || batch * n > SS_MAX_N / cfg->d / 4) return false;
  memset(p, 0, sizeof *p);
  const size_t d = cfg->d, R = batch * n, F = 4 * d;
  p->batch = batch, p->n = n, p->rows = R, p->d = d, p->f = F, p->classes = cfg->classes;
  p->heads = cfg->heads, p->layers = cfg->layers;
  size_t at = 0;
  bool ok = true;
  for (size_t l = 0; l < cfg->layers; l++) {
    model_layer_ws *w = &p->layer[l];
    const size_t Q = l + 1 == cfg->layers ? batch : R;
    w->rows_q = Q;
    ok = ok && region(&at, R * d, &w->xin) && region(&at, R * d, &w->xn);
    if (Q == R && l + 1 < cfg->layers) { /* all rows: the queries read xn itself */
      w->xq = w->xn, w->xres = w->xin;
    } else {
      ok = ok && region(&at, Q * d, &w->xq) && region(&at, Q * d, &w->xres);
    }
    ok = ok && region(&at, Q * d, &w->q) && region(&at, R * d, &w->k) && region(&at, R * d, &w->v) &&
         region(&at, Q * d, &w->o) && region(&at, Q * d, &w->xmid) &&
         region(&at, Q * d, &w->hn) && region(&at, Q * F, &w->h1) &&
         region(&at, Q * F, &w->g);
  }
  for (size_t l = 0; l + 1 < cfg->layers; l++) p->layer[l].xout = p->layer[l + 1].xin;
  ok = ok && region(&at, batch * d, &p->layer[cfg->layers - 1].xout) &&
       region(&at, batch * d, &p->xfn) && region(&at, batch * cfg->classes, &p->logits) &&
       region(&at, batch * cfg->classes, &p->dlogits);
  p->nscratch = ss_model_attention_scratch(cfg, n, n);
  ok = ok && p->nscratch && region(&at, n * d, &p->pos) && region(&at, n * d, &p->map_q) &&
       region(&at, n * d, &p->map_o) && region(&at, p->nscratch, &p->scratch);
  p->forward_total = at;
  /* the MLP's backward buffers hold the query rows of a layer: R rows
     before the last layer, batch rows in it */
  const size_t fq = cfg->layers > 1 ? R : batch;
  for (size_t i = 0; i < 6; i++) ok = ok && region(&at, R * d, &p->b[i]);
  for (size_t i = 0; i < 2; i++) ok = ok && region(&at, fq * F, &p->bf[i]);
  model_layout lay;
  ss_model_layout_of(cfg, &lay);
  ok = ok && region(&at, lay.total, &p->saved);
  p->total = at;
  return ok;
}

size_t ss_model_workspace_size(const ss_model_config *cfg, size_t batch, size_t n) {
  if (ss_model_config_check(cfg) != SS_OK) return 0;
  model_plan p;
  if (!ss_model_plan_of(cfg, batch, n, &p)) return 0;
  return p.total * sizeof(float);
}

size_t ss_model_forward_workspace_size(const ss_model_config *cfg, size_t batch, size_t n) {
  if (ss_model_config_check(cfg) != SS_OK) return 0;
  model_plan p;
  if (!ss_model_plan_of(cfg, batch, n, &p)) return 0;
  return p.forward_total * sizeof(float);
}

ss_status ss_model_check_call(const ss_model_config *cfg, ss_impl impl, const float *params,
                              const ss_model_batch *b, const void *work, size_t work_bytes,
                              bool forward_only, model_layout *lay, model_plan *plan) {
  ss_status s = ss_model_config_check(cfg);
  if (s != SS_OK) return s;
  if (!params || !b || !work) return SS_ERR_NULL;
  if (!b->tokens_a || !b->tokens_b || !b->feature || !b->target) return SS_ERR_NULL;
  if (!ss_model_impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  if (!ss_model_plan_of(cfg, b->batch, b->n, plan)) return SS_ERR_PARAM_RANGE;
  if (work_bytes / sizeof(float) < (forward_only ? plan->forward_total : plan->total))
    return SS_ERR_BUFFER;
  ss_model_layout_of(cfg, lay);
  const size_t R = b->batch * b->n;
  for (size_t i = 0; i < R; i++)
    if (b->tokens_a[i] >= cfg->vocab_a || b->tokens_b[i] >= cfg->vocab_b) return SS_ERR_DOMAIN;
  for (size_t i = 0; i < b->batch; i++)
    if (b->target[i] >= cfg->classes) return SS_ERR_DOMAIN;
  if ((s = ss_check_finite_fast(b->feature, R)) != SS_OK) return s;
  return ss_check_finite_fast(params, lay->total);
}

ss_status ss_model_init(const ss_model_config *cfg, float *params) {
  if (!params) return SS_ERR_NULL;
  const ss_status s = ss_model_config_check(cfg);
  if (s != SS_OK) return s;
  model_layout lay;
  ss_model_layout_of(cfg, &lay);
  const float std = 0.02f, std_out = (float)(0.02 / sqrt(2.0 * cfg->layers));
  for (size_t i = 0; i < lay.ntensors; i++) {
    const ss_model_tensor *t = &lay.t[i];
    float *w = params + t->offset;
    const size_t cnt = t->rows * t->cols;
    if (strstr(t->name, "_norm")) {
      for (size_t j = 0; j < cnt; j++) w[j] = 1.0f;
    } else if (!strcmp(t->name, "norm_params")) {
      for (size_t j = 0; j < cnt; j++) w[j] = (float)cfg->norm_params[lay.float_index[j]];
    } else {
      ss_normal(cfg->seed, i, 0, cnt, w);
      const float sd = !strcmp(t->name, "wo") || !strcmp(t->name, "w2") ? std_out : std;
      for (size_t j = 0; j < cnt; j++) w[j] *= sd;
    }
  }
  return SS_OK;
}
