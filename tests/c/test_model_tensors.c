/*
 * The parameter arena's table (softscope.h, ss_model_tensor_at) against
 * the layout written out here from softscope.h's comment, for configs that
 * cover each optional tensor (second token table, feature, learned
 * positions, LayerNorm's biases (attn_norm_bias and mlp_norm_bias per
 * layer, final_norm_bias once), the MLP, trained
 * normalizer parameters, the unembedding (absent when tied)) and 1 to 8
 * layers:
 *   - the same names, in the same order, with the documented kind, layer,
 *     rows x cols and init_std (0.02 for embeddings and matrices, 0.02 /
 *     sqrt(2 layers) for wo and w2, 0 for gains, biases and normalizer
 *     parameters); offsets tile the arena, param_count is the sum of
 *     rows x cols;
 *   - after ss_model_init: gains exactly 1, biases exactly 0, trained
 *     normalizer parameters their cfg values (rounded to float), and each
 *     embedding or matrix of N values a sample of N(0, init_std^2): mean
 *     within 5 init_std / sqrt(N) of 0, standard deviation within
 *     5 / sqrt(2 N) of init_std (relative; 5 sigma of the estimates).
 */
#include <string.h>

#include "conformance.h"
#include "model_testing.h"

typedef struct {
  const char *name;
  uint32_t kind, layer;
  size_t rows, cols;
  double std;
} want_tensor;

typedef struct {
  want_tensor t[16 + 12 * SS_MODEL_MAX_LAYERS];
  size_t count;
} want_table;

static void push(want_table *W, const char *name, uint32_t kind, uint32_t layer, size_t rows,
                 size_t cols, double std) {
  W->t[W->count++] = (want_tensor){name, kind, layer, rows, cols, std};
}

/* softscope.h's order, written out. */
static void want_of(const ss_model_config *c, size_t norm_floats, want_table *W) {
  W->count = 0;
  const size_t d = c->d;
  const bool ln = c->norm == SS_MODEL_NORM_LAYER;
  const double s = 0.02, sr = 0.02 / sqrt(2.0 * c->layers);
  push(W, "embed_a", SS_TENSOR_EMBEDDING, 0, c->vocab_a, d, s);
  if (c->vocab_b) push(W, "embed_b", SS_TENSOR_EMBEDDING, 0, c->vocab_b, d, s);
  if (c->feature) push(W, "feature", SS_TENSOR_EMBEDDING, 0, 1, d, s);
  if (c->positions == SS_POSITIONS_LEARNED) push(W, "positions", SS_TENSOR_EMBEDDING, 0, c->max_n, d, s);
  for (uint32_t l = 0; l < c->layers; l++) {
    push(W, "attn_norm", SS_TENSOR_GAIN, l, 1, d, 0);
    if (ln) push(W, "attn_norm_bias", SS_TENSOR_BIAS, l, 1, d, 0);
    push(W, "wq", SS_TENSOR_MATRIX, l, d, d, s);
    push(W, "wk", SS_TENSOR_MATRIX, l, d, d, s);
    push(W, "wv", SS_TENSOR_MATRIX, l, d, d, s);
    push(W, "wo", SS_TENSOR_MATRIX, l, d, d, sr);
    if (c->mlp) {
      push(W, "mlp_norm", SS_TENSOR_GAIN, l, 1, d, 0);
      if (ln) push(W, "mlp_norm_bias", SS_TENSOR_BIAS, l, 1, d, 0);
      push(W, "w1", SS_TENSOR_MATRIX, l, 4 * d, d, s);
      push(W, "w2", SS_TENSOR_MATRIX, l, d, 4 * d, sr);
    }
    if (c->train_norm_params && norm_floats)
      push(W, "norm_params", SS_TENSOR_NORMALIZER, l, 1, norm_floats, 0);
  }
  push(W, "final_norm", SS_TENSOR_GAIN, 0, 1, d, 0);
  if (ln) push(W, "final_norm_bias", SS_TENSOR_BIAS, 0, 1, d, 0);
  if (!c->tied) push(W, "unembed", SS_TENSOR_MATRIX, 0, c->classes, d, s);
}

typedef struct {
  const char *label;
  uint32_t vocab_b, feature, positions, norm, tied, mlp, layers, heads;
  const char *normalizer;
  uint32_t train;
} tcase;

static const tcase TCASES[] = {
    {"rms_untied_learned_ssmax", 3, 1, SS_POSITIONS_LEARNED, SS_MODEL_NORM_RMS, 0, 1, 2, 2, "ssmax", 1},
    {"layernorm_tied_rope", 0, 0, SS_POSITIONS_ROPE, SS_MODEL_NORM_LAYER, 1, 0, 3, 4, "softmax", 0},
    {"layernorm_untied_sin_mlp", 0, 1, SS_POSITIONS_SINUSOIDAL, SS_MODEL_NORM_LAYER, 0, 1, 1, 1, "softmax", 0},
    {"rms_tied_8_layers", 2, 0, SS_POSITIONS_NONE, SS_MODEL_NORM_RMS, 1, 1, 8, 8, "ssmax", 1},
    {"layernorm_learned_trained", 5, 1, SS_POSITIONS_LEARNED, SS_MODEL_NORM_LAYER, 0, 1, 2, 4, "ssmax", 1},
};

TEST(model_tensor_table_order_kinds_and_init) {
  for (size_t ci = 0; ci < sizeof TCASES / sizeof TCASES[0]; ci++) {
    const tcase *T = &TCASES[ci];
    const ss_kernel_info *nk = ss_kernel_find(T->normalizer, SS_FAMILY_NORMALIZER);
    double np[CF_MAX_PARAMS], lp[1] = {0};
    cf_defaults(nk, 8, np);
    size_t floats = 0;
    for (size_t i = 0; i < nk->nparams; i++) floats += nk->params[i].type == SS_PARAM_FLOAT;
    /* vocab_a 40, classes 40 (tied allows it), d 32: tables big enough for
       the init's statistics */
    const ss_model_config cfg = {.vocab_a = 40, .vocab_b = T->vocab_b, .classes = 40, .d = 32,
                                 .heads = T->heads, .layers = T->layers, .mlp = T->mlp,
                                 .positions = T->positions, .max_n = 9, .causal = 1,
                                 .train_norm_params = T->train, .feature = T->feature,
                                 .norm = T->norm, .tied = T->tied, .loss_at = SS_LOSS_AT_LAST,
                                 .seed = 11 + ci,
                                 .attention = ss_kernel_find("sdpa", SS_FAMILY_ATTENTION),
                                 .normalizer = nk, .norm_params = np, .norm_nparams = nk->nparams,
                                 .loss = ss_kernel_find("cross_entropy", SS_FAMILY_LOSS),
                                 .loss_params = lp, .loss_nparams = 1};
    CHECK_STATUS(ss_model_check(&cfg), SS_OK);
    want_table W;
    want_of(&cfg, floats, &W);
    const size_t nt = ss_model_tensor_count(&cfg), P = ss_model_param_count(&cfg);
    CHECK(nt == W.count, "%s: %zu tensors, want %zu", T->label, nt, W.count);
    float *w = ss_test_alloc(P * 4 + 4);
    CHECK_STATUS(ss_model_init(&cfg, w), SS_OK);
    size_t at = 0;
    for (size_t i = 0; i < nt; i++) {
      ss_model_tensor t;
      const want_tensor *e = &W.t[i];
      CHECK_STATUS(ss_model_tensor_at(&cfg, i, &t), SS_OK);
      CHECK(t.name && !strcmp(t.name, e->name) && t.layer == e->layer,
            "%s: tensor %zu is %s (layer %u), want %s (layer %u)", T->label, i,
            t.name ? t.name : "NULL", t.layer, e->name, e->layer);
      CHECK(t.kind == e->kind, "%s: %s kind %u, want %u", T->label, e->name, t.kind, e->kind);
      CHECK(t.rows == e->rows && t.cols == e->cols, "%s: %s is %zu x %zu, want %zu x %zu",
            T->label, e->name, t.rows, t.cols, e->rows, e->cols);
      CHECK(t.offset == at, "%s: %s at %zu, want %zu", T->label, e->name, t.offset, at);
      CHECK(fabs(t.init_std - e->std) <= 1e-15, "%s: %s init_std %.17g, want %.17g", T->label,
            e->name, t.init_std, e->std);
      const size_t N = t.rows * t.cols;
      const float *x = w + t.offset;
      if (e->kind == SS_TENSOR_GAIN || e->kind == SS_TENSOR_BIAS) {
        for (size_t j = 0; j < N; j++)
          CHECK(x[j] == (e->kind == SS_TENSOR_GAIN ? 1.0f : 0.0f), "%s: %s[%zu] = %.9g after init",
                T->label, e->name, j, x[j]);
      } else if (e->kind == SS_TENSOR_NORMALIZER) {
        size_t f = 0;
        for (size_t j = 0; j < nk->nparams; j++)
          if (nk->params[j].type == SS_PARAM_FLOAT) {
            CHECK(x[f] == (float)np[j], "%s: norm_params[%zu] = %.9g, cfg %.9g", T->label, f, x[f], np[j]);
            f++;
          }
      } else {
        double mean = 0, ss = 0;
        for (size_t j = 0; j < N; j++) mean += x[j];
        mean /= (double)N;
        for (size_t j = 0; j < N; j++) ss += (x[j] - mean) * (x[j] - mean);
        const double sd = sqrt(ss / (double)N);
        CHECK(fabs(mean) <= 5 * e->std / sqrt((double)N), "%s: %s layer %u mean %.3g (std %.3g, N %zu)",
              T->label, e->name, e->layer, mean, e->std, N);
        CHECK(fabs(sd / e->std - 1) <= 5 / sqrt(2.0 * (double)N),
              "%s: %s layer %u standard deviation %.4g, want %.4g (N %zu)", T->label, e->name,
              e->layer, sd, e->std, N);
      }
      at += N;
    }
    CHECK(at == P, "%s: the tensors hold %zu values, param_count %zu", T->label, at, P);
  }
}
