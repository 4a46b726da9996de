/*
 * The model's configuration: its checks, the tensor table (softscope.h,
 * ss_model_tensor: the arena's layout, each tensor's kind and init), the
 * workspace (model_acts.h: every activation's place) and the seeded init.
 *
 * Init (GPT-2 style, by kind): embeddings and matrices N(0, 0.02^2), the two
 * matrices that write into the residual stream (wo, w2) N(0, (0.02 /
 * sqrt(2 L))^2), gains 1, biases 0. Tensor i draws ss_normal(seed, stream
 * i): the same bits in every build.
 */
#include <math.h>
#include <string.h>

#include "common/check.h"
#include "model/model_internal.h"
#include "model/model_acts.h"

static bool flag_ok(uint32_t v) { return v <= 1; }

#define STR_(x) #x
#define STR(x) STR_(x)
/* A rejection: its status, the ss_model_config member that causes it and
   why (softscope.h, ss_model_check_field). */
#define REJECT(status, member, why) \
  do {                              \
    *field = (member);              \
    *reason = (why);                \
    return (status);                \
  } while (0)
#define VOCAB_RANGE "must be in [1, " STR(SS_MODEL_MAX_VOCAB) "]"

static ss_status config_check(const ss_model_config *cfg, const char **field, const char **reason) {
  *field = NULL, *reason = NULL;
  if (!cfg) REJECT(SS_ERR_NULL, "cfg", "is NULL");
  if (!cfg->attention) REJECT(SS_ERR_NULL, "attention", "is NULL");
  if (!cfg->normalizer) REJECT(SS_ERR_NULL, "normalizer", "is NULL");
  if (!cfg->loss) REJECT(SS_ERR_NULL, "loss", "is NULL");
  if (cfg->norm_nparams && !cfg->norm_params)
    REJECT(SS_ERR_NULL, "norm_params", "is NULL with norm_nparams > 0");
  if (cfg->loss_nparams && !cfg->loss_params)
    REJECT(SS_ERR_NULL, "loss_params", "is NULL with loss_nparams > 0");
  if (cfg->attention->family != SS_FAMILY_ATTENTION)
    REJECT(SS_ERR_FAMILY, "attention", "is not an attention kernel");
  if (cfg->normalizer->family != SS_FAMILY_NORMALIZER)
    REJECT(SS_ERR_FAMILY, "normalizer", "is not a normalizer");
  if (cfg->loss->family != SS_FAMILY_LOSS) REJECT(SS_ERR_FAMILY, "loss", "is not a loss");
  if (cfg->attention->role != SS_ROLE_EXACT_ATTENTION)
    REJECT(SS_ERR_UNSUPPORTED, "attention", "is linear attention, which has no backward pass");
  const uint32_t V = SS_MODEL_MAX_VOCAB;
  if (cfg->vocab_a < 1 || cfg->vocab_a > V) REJECT(SS_ERR_PARAM_RANGE, "vocab_a", VOCAB_RANGE);
  if (cfg->vocab_b > V)
    REJECT(SS_ERR_PARAM_RANGE, "vocab_b", "must be 0 or in [1, " STR(SS_MODEL_MAX_VOCAB) "]");
  if (cfg->classes < 1 || cfg->classes > V) REJECT(SS_ERR_PARAM_RANGE, "classes", VOCAB_RANGE);
  if (cfg->d < 2 || cfg->d > SS_MODEL_MAX_D)
    REJECT(SS_ERR_PARAM_RANGE, "d", "must be in [2, " STR(SS_MODEL_MAX_D) "]");
  if (cfg->heads < 1 || cfg->heads > SS_MODEL_MAX_HEADS)
    REJECT(SS_ERR_PARAM_RANGE, "heads", "must be in [1, " STR(SS_MODEL_MAX_HEADS) "]");
  if (cfg->d % cfg->heads) REJECT(SS_ERR_PARAM_RANGE, "heads", "must divide d");
  if (cfg->layers < 1 || cfg->layers > SS_MODEL_MAX_LAYERS)
    REJECT(SS_ERR_PARAM_RANGE, "layers", "must be in [1, " STR(SS_MODEL_MAX_LAYERS) "]");
  /* the flags, in the struct's order */
  if (!flag_ok(cfg->mlp)) REJECT(SS_ERR_PARAM_RANGE, "mlp", "must be 0 or 1");
  if (!flag_ok(cfg->causal)) REJECT(SS_ERR_PARAM_RANGE, "causal", "must be 0 or 1");
  if (!flag_ok(cfg->train_norm_params))
    REJECT(SS_ERR_PARAM_RANGE, "train_norm_params", "must be 0 or 1");
  if (!flag_ok(cfg->feature)) REJECT(SS_ERR_PARAM_RANGE, "feature", "must be 0 or 1");
  if (!flag_ok(cfg->tied)) REJECT(SS_ERR_PARAM_RANGE, "tied", "must be 0 or 1");
  if (cfg->positions >= SS_POSITIONS_COUNT)
    REJECT(SS_ERR_PARAM_RANGE, "positions", "must be an ss_positions");
  if (cfg->norm >= SS_MODEL_NORM_COUNT) REJECT(SS_ERR_PARAM_RANGE, "norm", "must be an ss_model_norm");
  if (cfg->loss_at >= SS_LOSS_AT_COUNT) REJECT(SS_ERR_PARAM_RANGE, "loss_at", "must be an ss_loss_at");
  /* the rules between members: the one named is the one a caller changes */
  if (cfg->positions == SS_POSITIONS_SINUSOIDAL && cfg->d % 2)
    REJECT(SS_ERR_PARAM_RANGE, "d", "must be even with sinusoidal positions");
  if (cfg->positions == SS_POSITIONS_ROPE && (cfg->d / cfg->heads) % 2)
    REJECT(SS_ERR_PARAM_RANGE, "heads", "must leave d / heads even with rotary positions");
  if (cfg->tied && cfg->classes != cfg->vocab_a)
    REJECT(SS_ERR_PARAM_RANGE, "tied", "needs as many classes as input tokens (classes == vocab_a)");
  if (cfg->loss_at == SS_LOSS_AT_EVERY && !cfg->causal)
    REJECT(SS_ERR_PARAM_RANGE, "causal", "must be on with the loss at every position");
  if (cfg->positions == SS_POSITIONS_LEARNED && (cfg->max_n < 1 || cfg->max_n > SS_MODEL_MAX_N))
    REJECT(SS_ERR_PARAM_RANGE, "max_n",
           "must be in [1, " STR(SS_MODEL_MAX_N) "] with learned positions");
  /* the normalizer */
  if (cfg->norm_nparams > SS_MODEL_MAX_NORM_PARAMS)
    REJECT(SS_ERR_PARAM_COUNT, "norm_nparams", "must be the normalizer's parameter count");
  ss_status s = ss_params_check(cfg->normalizer, cfg->norm_params, cfg->norm_nparams);
  if (s == SS_ERR_PARAM_COUNT)
    REJECT(s, "norm_nparams", "must be the normalizer's parameter count");
  if (s != SS_OK) REJECT(s, "norm_params", "are outside the normalizer's registry ranges");
  if (!cfg->normalizer->has_backward) REJECT(SS_ERR_NO_BACKWARD, "normalizer", "has no backward pass");
  if (cfg->train_norm_params && !cfg->normalizer->has_param_backward) {
    for (size_t i = 0; i < cfg->normalizer->nparams; i++)
      if (cfg->normalizer->params[i].type == SS_PARAM_FLOAT)
        REJECT(SS_ERR_NO_BACKWARD, "train_norm_params",
               "needs a normalizer with a gradient for its parameters");
  }
  /* the loss: target first, its other parameters valid */
  if (ss_param_index(cfg->loss, "target") != 0)
    REJECT(SS_ERR_UNSUPPORTED, "loss", "does not take a target as its first parameter");
  if (cfg->loss_nparams != cfg->loss->nparams || cfg->loss_nparams > SS_MODEL_MAX_LOSS_PARAMS)
    REJECT(SS_ERR_PARAM_COUNT, "loss_nparams", "must be the loss's parameter count");
  double lp[SS_MODEL_MAX_LOSS_PARAMS];
  for (size_t i = 0; i < cfg->loss_nparams; i++) lp[i] = cfg->loss_params[i];
  lp[0] = 0.0;
  s = ss_params_check(cfg->loss, lp, cfg->loss_nparams);
  if (s != SS_OK) REJECT(s, "loss_params", "are outside the loss's registry ranges");
  return SS_OK;
}

ss_status ss_model_config_check(const ss_model_config *cfg) {
  const char *field, *reason;
  return config_check(cfg, &field, &reason);
}

ss_status ss_model_check(const ss_model_config *cfg) { return ss_model_config_check(cfg); }

ss_status ss_model_check_field(const ss_model_config *cfg, const char **field, const char **reason) {
  const char *f, *r;
  const ss_status s = config_check(cfg, &f, &r);
  if (field) *field = f;
  if (reason) *reason = r;
  return s;
}

/* ---- the tensor table ---- */

#define SLOT(field) offsetof(model_params, field)

static size_t add(model_layout *lay, const char *name, uint32_t kind, uint32_t layer, size_t rows,
                  size_t cols, double std, size_t slot) {
  model_tensor *m = &lay->t[lay->ntensors++];
  m->t = (ss_model_tensor){.name = name, .kind = kind, .layer = layer, .offset = lay->total,
                           .rows = rows, .cols = cols, .init_std = std};
  m->slot = slot;
  lay->total += rows * cols;
  return m->t.offset;
}

/* The three norms' tensors: a gain, and a bias with LayerNorm. */
static void add_norm(model_layout *lay, const ss_model_config *cfg, const char *gain,
                     const char *bias, uint32_t l, size_t gslot, size_t bslot) {
  add(lay, gain, SS_TENSOR_GAIN, l, 1, cfg->d, 0.0, gslot);
  if (cfg->norm == SS_MODEL_NORM_LAYER) add(lay, bias, SS_TENSOR_BIAS, l, 1, cfg->d, 0.0, bslot);
}

void ss_model_layout_of(const ss_model_config *cfg, model_layout *lay) {
  memset(lay, 0, sizeof *lay);
  const size_t d = cfg->d;
  const double std = 0.02, std_out = 0.02 / sqrt(2.0 * cfg->layers);
  const uint32_t E = SS_TENSOR_EMBEDDING, M = SS_TENSOR_MATRIX;
  if (cfg->train_norm_params)
    for (size_t i = 0; i < cfg->normalizer->nparams; i++)
      if (cfg->normalizer->params[i].type == SS_PARAM_FLOAT)
        lay->float_index[lay->nfloat++] = (uint32_t)i;
  add(lay, "embed_a", E, 0, cfg->vocab_a, d, std, SLOT(embed_a));
  if (cfg->vocab_b) add(lay, "embed_b", E, 0, cfg->vocab_b, d, std, SLOT(embed_b));
  if (cfg->feature) add(lay, "feature", E, 0, 1, d, std, SLOT(feature));
  if (cfg->positions == SS_POSITIONS_LEARNED)
    add(lay, "positions", E, 0, cfg->max_n, d, std, SLOT(positions));
  for (uint32_t l = 0; l < cfg->layers; l++) {
    add_norm(lay, cfg, "attn_norm", "attn_norm_bias", l, SLOT(layer[l].ln1_g), SLOT(layer[l].ln1_b));
    add(lay, "wq", M, l, d, d, std, SLOT(layer[l].wq));
    add(lay, "wk", M, l, d, d, std, SLOT(layer[l].wk));
    add(lay, "wv", M, l, d, d, std, SLOT(layer[l].wv));
    add(lay, "wo", M, l, d, d, std_out, SLOT(layer[l].wo));
    if (cfg->mlp) {
      add_norm(lay, cfg, "mlp_norm", "mlp_norm_bias", l, SLOT(layer[l].ln2_g), SLOT(layer[l].ln2_b));
      add(lay, "w1", M, l, 4 * d, d, std, SLOT(layer[l].w1));
      add(lay, "w2", M, l, d, 4 * d, std_out, SLOT(layer[l].w2));
    }
    if (lay->nfloat)
      add(lay, "norm_params", SS_TENSOR_NORMALIZER, l, 1, lay->nfloat, 0.0,
          SLOT(layer[l].norm_params));
  }
  add_norm(lay, cfg, "final_norm", "final_norm_bias", 0, SLOT(lnf_g), SLOT(lnf_b));
  if (!cfg->tied) add(lay, "unembed", M, 0, cfg->classes, d, std, SLOT(unembed));
}

void ss_model_params_of(const ss_model_config *cfg, const model_layout *lay, float *arena,
                        model_params *P) {
  memset(P, 0, sizeof *P);
  for (size_t i = 0; i < lay->ntensors; i++)
    *(float **)((char *)P + lay->t[i].slot) = arena + lay->t[i].t.offset;
  if (cfg->tied) P->unembed = P->embed_a;
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
  *out = lay.t[i].t;
  return SS_OK;
}

/* ---- the workspace ---- */

/* Carves regions of floats, each rounded up to 4 (16-byte aligned), from a
   workspace; with base NULL only counts. ok turns false past the limit. */
typedef struct carver {
  float *base;
  size_t at;
  bool ok;
} carver;

static float *take(carver *c, size_t count) {
  const size_t n = (count + 3) & ~(size_t)3;
  if (n < count || c->at > SIZE_MAX / 8 - n) {
    c->ok = false;
    return NULL;
  }
  const size_t off = c->at;
  c->at += n;
  return c->base ? c->base + off : NULL;
}

/* a * b, or SIZE_MAX when it overflows (take() then fails). */
static size_t mul(size_t a, size_t b) { return b && a > SIZE_MAX / b ? SIZE_MAX : a * b; }

bool ss_model_plan_of(const ss_model_config *cfg, size_t batch, size_t n, float *ws,
                      model_plan *p, model_acts *A) {
  if (batch < 1 || n < (cfg->loss_at == SS_LOSS_AT_EVERY ? 1u : 2u) || n > SS_MODEL_MAX_N) return false;
  if (cfg->positions == SS_POSITIONS_LEARNED && n > cfg->max_n) return false;
  if (batch > SS_MAX_N / n || batch * n > SS_MAX_N / cfg->d / 4) return false;
  memset(p, 0, sizeof *p);
  const size_t d = cfg->d, R = batch * n, F = 4 * d, C = cfg->classes;
  p->batch = batch, p->n = n, p->rows = R, p->d = d, p->f = F, p->classes = C;
  p->heads = cfg->heads, p->layers = cfg->layers, p->hd = d / cfg->heads;
  p->rows_q_last = ss_model_rows_q(cfg, p, cfg->layers - 1);
  model_acts scratch_acts;
  model_acts *a = A ? A : &scratch_acts;
  memset(a, 0, sizeof *a);
  carver c = {.base = A ? ws : NULL, .at = 0, .ok = true};
  a->layer[0].in = take(&c, R * d);
  for (size_t l = 0; l < cfg->layers; l++) {
    model_layer_acts *L = &a->layer[l];
    const size_t Q = ss_model_rows_q(cfg, p, l);
    if (l) L->in = a->layer[l - 1].out;
    L->ln1 = take(&c, R * d);
    if (Q == R) {
      L->xq = L->ln1, L->xres = L->in;
    } else {
      L->xq = take(&c, Q * d), L->xres = take(&c, Q * d);
    }
    L->q = take(&c, Q * d), L->k = take(&c, R * d), L->v = take(&c, R * d);
    L->att = take(&c, Q * d), L->res2 = take(&c, Q * d);
    if (cfg->mlp) {
      L->ln2 = take(&c, Q * d), L->fch = take(&c, Q * F), L->fch_gelu = take(&c, Q * F);
      L->out = take(&c, Q * d);
    } else {
      L->out = L->res2;
    }
  }
  const size_t Q = p->rows_q_last;
  a->lnf = take(&c, Q * d);
  a->logits = take(&c, mul(Q, C)), a->dlogits = take(&c, mul(Q, C)), a->row_loss = take(&c, Q);
  if (cfg->positions == SS_POSITIONS_SINUSOIDAL) a->pos = take(&c, n * d);
  if (cfg->positions == SS_POSITIONS_ROPE) a->rope = take(&c, n * p->hd);
  a->map_q = take(&c, n * d), a->map_o = take(&c, n * d);
  const size_t nscratch = ss_model_attention_scratch(cfg, n, n);
  a->scratch = take(&c, nscratch);
  p->forward_total = c.at;
  model_layer_acts *G = &a->grad;
  G->ln1 = take(&c, R * d), G->q = take(&c, R * d), G->k = take(&c, R * d);
  G->v = take(&c, R * d), G->att = take(&c, R * d), G->res2 = take(&c, R * d);
  if (cfg->mlp) G->ln2 = take(&c, R * d), G->fch = take(&c, R * F), G->fch_gelu = take(&c, R * F);
  a->dres[0] = take(&c, R * d), a->dres[1] = take(&c, R * d);
  if (cfg->tied) a->dtied = take(&c, mul(cfg->vocab_a, d));
  model_layout lay;
  ss_model_layout_of(cfg, &lay);
  a->saved = take(&c, lay.total);
  p->total = c.at;
  return c.ok && nscratch && p->total <= SIZE_MAX / sizeof(float);
}

size_t ss_model_workspace_size(const ss_model_config *cfg, size_t batch, size_t n) {
  if (ss_model_config_check(cfg) != SS_OK) return 0;
  model_plan p;
  if (!ss_model_plan_of(cfg, batch, n, NULL, &p, NULL)) return 0;
  return p.total * sizeof(float);
}

size_t ss_model_forward_workspace_size(const ss_model_config *cfg, size_t batch, size_t n) {
  if (ss_model_config_check(cfg) != SS_OK) return 0;
  model_plan p;
  if (!ss_model_plan_of(cfg, batch, n, NULL, &p, NULL)) return 0;
  return p.forward_total * sizeof(float);
}

ss_status ss_model_check_call(const ss_model_config *cfg, ss_impl impl, const float *params,
                              const ss_model_batch *b, void *work, size_t work_bytes,
                              bool forward_only, model_layout *lay, model_plan *plan,
                              model_acts *A) {
  ss_status s = ss_model_config_check(cfg);
  if (s != SS_OK) return s;
  if (!params || !b || !work) return SS_ERR_NULL;
  if (!b->tokens_a || (cfg->vocab_b && !b->tokens_b) || (cfg->feature && !b->feature) ||
      !b->target)
    return SS_ERR_NULL;
  if (!ss_model_impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  if (!ss_model_plan_of(cfg, b->batch, b->n, NULL, plan, NULL)) return SS_ERR_PARAM_RANGE;
  if (work_bytes / sizeof(float) < (forward_only ? plan->forward_total : plan->total))
    return SS_ERR_BUFFER;
  ss_model_plan_of(cfg, b->batch, b->n, work, plan, A);
  ss_model_layout_of(cfg, lay);
  const size_t R = b->batch * b->n;
  const size_t T = cfg->loss_at == SS_LOSS_AT_EVERY ? R : b->batch;
  for (size_t i = 0; i < R; i++)
    if (b->tokens_a[i] >= cfg->vocab_a || (cfg->vocab_b && b->tokens_b[i] >= cfg->vocab_b))
      return SS_ERR_DOMAIN;
  for (size_t i = 0; i < T; i++)
    if (b->target[i] >= cfg->classes) return SS_ERR_DOMAIN;
  if (cfg->feature && (s = ss_check_finite_fast(b->feature, R)) != SS_OK) return s;
  return ss_check_finite_fast(params, lay->total);
}

/* ---- init ---- */

ss_status ss_model_init(const ss_model_config *cfg, float *params) {
  if (!params) return SS_ERR_NULL;
  const ss_status s = ss_model_config_check(cfg);
  if (s != SS_OK) return s;
  model_layout lay;
  ss_model_layout_of(cfg, &lay);
  for (size_t i = 0; i < lay.ntensors; i++) {
    const ss_model_tensor *t = &lay.t[i].t;
    float *w = params + t->offset;
    const size_t cnt = t->rows * t->cols;
    switch ((ss_tensor_kind)t->kind) {
      case SS_TENSOR_GAIN:
        for (size_t j = 0; j < cnt; j++) w[j] = 1.0f;
        break;
      case SS_TENSOR_BIAS:
        memset(w, 0, cnt * sizeof(float));
        break;
      case SS_TENSOR_NORMALIZER:
        for (size_t j = 0; j < cnt; j++) w[j] = (float)cfg->norm_params[lay.float_index[j]];
        break;
      case SS_TENSOR_EMBEDDING:
      case SS_TENSOR_MATRIX:
      case SS_TENSOR_KIND_COUNT: {
        ss_normal(cfg->seed, i, 0, cnt, w);
        const float sd = (float)t->init_std;
        for (size_t j = 0; j < cnt; j++) w[j] *= sd;
        break;
      }
    }
  }
  return SS_OK;
}
