/*
 * A float64 model of the tiny attention model's forward (softscope.h,
 * ss_model_forward), written from the formulas, for the model tests:
 * every row of every layer is computed (the library's last layer computes
 * the query row alone: the two must agree), all sums in double. The one
 * float step is the attention normalizer: scores are rounded to float and
 * the registry's scalar kernel normalizes them (its accuracy is its own
 * tests'); its weights are then widened. Parameters are read in double
 * from the arena's layout (ss_model_tensor_at), so a test can move one
 * coordinate by a step no float could hold. Loss: cross-entropy in double.
 * Header-only (static), like the other *_testing.h.
 */
#ifndef SS_TEST_MODEL_REFERENCE_H
#define SS_TEST_MODEL_REFERENCE_H

#include <string.h>

#include "harness.h"

#define MR_MAX_N 16
#define MR_MAX_D 32

typedef struct mr_tensors {
  size_t embed_a, embed_b, feature, positions, final_norm, unembed;
  size_t attn_norm[2], wq[2], wk[2], wv[2], wo[2], mlp_norm[2], w1[2], w2[2], norm_params[2];
} mr_tensors;

static inline void mr_tensors_of(const ss_model_config *cfg, mr_tensors *T) {
  memset(T, 0, sizeof *T);
  const size_t nt = ss_model_tensor_count(cfg);
  for (size_t i = 0; i < nt; i++) {
    ss_model_tensor t;
    ss_model_tensor_at(cfg, i, &t);
    const size_t l = t.layer;
#define MR_AT(nm, slot) if (!strcmp(t.name, nm)) slot = t.offset;
    MR_AT("embed_a", T->embed_a) MR_AT("embed_b", T->embed_b) MR_AT("feature", T->feature)
    MR_AT("positions", T->positions) MR_AT("final_norm", T->final_norm)
    MR_AT("unembed", T->unembed) MR_AT("attn_norm", T->attn_norm[l]) MR_AT("wq", T->wq[l])
    MR_AT("wk", T->wk[l]) MR_AT("wv", T->wv[l]) MR_AT("wo", T->wo[l])
    MR_AT("mlp_norm", T->mlp_norm[l]) MR_AT("w1", T->w1[l]) MR_AT("w2", T->w2[l])
    MR_AT("norm_params", T->norm_params[l])
#undef MR_AT
  }
}

/* y = RMSNorm(x) * g, rows of d. */
static inline void mr_rmsnorm(const double *x, size_t rows, size_t d, const double *g, double *y) {
  for (size_t r = 0; r < rows; r++) {
    double ss = 0;
    for (size_t j = 0; j < d; j++) ss += x[r * d + j] * x[r * d + j];
    const double inv = 1.0 / sqrt(ss / (double)d + SS_MODEL_NORM_EPS);
    for (size_t j = 0; j < d; j++) y[r * d + j] = x[r * d + j] * inv * g[j];
  }
}

/* y = x W^T, W out x in. */
static inline void mr_linear(const double *x, size_t rows, size_t in, const double *w, size_t out,
                             double *y) {
  for (size_t r = 0; r < rows; r++)
    for (size_t o = 0; o < out; o++) {
      double s = 0;
      for (size_t i = 0; i < in; i++) s += x[r * in + i] * w[o * in + i];
      y[r * out + o] = s;
    }
}

static inline double mr_gelu(double x) {
  return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

/* What the forward records of one weight matrix's inputs (may be NULL):
   the matrix at arena offset `offset`; x receives the rows it multiplies
   (samples x its cols, count of them), as softscope.h's
   ss_model_linear_inputs describes them: in the last layer, the query row
   (n-1) alone for wq, wo, w1, w2 and the unembedding; every row
   otherwise. */
typedef struct mr_capture {
  size_t offset;
  double *x;
  size_t count;
} mr_capture;

/* Row by row: rows [first, rows) of x (of `in` values) when off is the
   captured matrix. */
static inline void mr_cap(mr_capture *c, size_t off, const double *x, size_t first, size_t rows,
                          size_t in) {
  if (!c || c->offset != off) return;
  for (size_t r = first; r < rows; r++, c->count++)
    for (size_t i = 0; i < in; i++) c->x[c->count * in + i] = x[r * in + i];
}

/* The loss (mean cross-entropy) of the model with parameters P (double,
   the arena's layout) on the batch; NAN when the normalizer fails.
   query_attn (may be NULL): batch x heads x n weights of the last layer's
   query row; cap (may be NULL): a matrix's inputs, above. */
static inline double mr_forward(const ss_model_config *cfg, const double *P, const ss_model_batch *b,
                                double *query_attn, mr_capture *cap) {
  mr_tensors T;
  mr_tensors_of(cfg, &T);
  const size_t n = b->n, d = cfg->d, H = cfg->heads, dh = d / H, F = 4 * d, C = cfg->classes;
  const float scale = (float)(1.0 / sqrt((double)dh));
  static double h[MR_MAX_N * MR_MAX_D], xn[MR_MAX_N * MR_MAX_D], q[MR_MAX_N * MR_MAX_D],
      k[MR_MAX_N * MR_MAX_D], v[MR_MAX_N * MR_MAX_D], o[MR_MAX_N * MR_MAX_D],
      t[MR_MAX_N * MR_MAX_D], h1[MR_MAX_N * 4 * MR_MAX_D];
  double total = 0;
  for (size_t e = 0; e < b->batch; e++) {
    for (size_t j = 0; j < n; j++) {
      const size_t r = e * n + j;
      for (size_t c = 0; c < d; c++) {
        double x = P[T.embed_a + b->tokens_a[r] * d + c] + P[T.embed_b + b->tokens_b[r] * d + c] +
                   (double)b->feature[r] * P[T.feature + c];
        if (cfg->positions == SS_POSITIONS_LEARNED) x += P[T.positions + j * d + c];
        if (cfg->positions == SS_POSITIONS_SINUSOIDAL) {
          const double w = exp(-(double)(c - c % 2) / (double)d * log(10000.0));
          x += c % 2 ? cos((double)j * w) : sin((double)j * w);
        }
        h[j * d + c] = x;
      }
    }
    for (size_t l = 0; l < cfg->layers; l++) {
      double np[16];
      for (size_t i = 0; i < cfg->norm_nparams; i++) np[i] = cfg->norm_params[i];
      if (cfg->train_norm_params) {
        size_t f = 0;
        for (size_t i = 0; i < cfg->normalizer->nparams; i++)
          if (cfg->normalizer->params[i].type == SS_PARAM_FLOAT) np[i] = P[T.norm_params[l] + f++];
      }
      /* the rows the library computes in this layer's queries: all, or
         the query row in the last layer */
      const size_t q0 = l + 1 == cfg->layers ? n - 1 : 0;
      mr_rmsnorm(h, n, d, P + T.attn_norm[l], xn);
      mr_cap(cap, T.wq[l], xn, q0, n, d);
      mr_cap(cap, T.wk[l], xn, 0, n, d);
      mr_cap(cap, T.wv[l], xn, 0, n, d);
      mr_linear(xn, n, d, P + T.wq[l], d, q);
      mr_linear(xn, n, d, P + T.wk[l], d, k);
      mr_linear(xn, n, d, P + T.wv[l], d, v);
      for (size_t hd = 0; hd < H; hd++)
        for (size_t i = 0; i < n; i++) {
          float s[MR_MAX_N], a[MR_MAX_N];
          for (size_t j = 0; j < n; j++) {
            double dot = 0;
            for (size_t c = 0; c < dh; c++) dot += q[i * d + hd * dh + c] * k[j * d + hd * dh + c];
            s[j] = cfg->causal && j > i ? -INFINITY : (float)((double)scale * dot);
          }
          if (ss_normalize(cfg->normalizer, SS_IMPL_SCALAR, s, n, np, cfg->norm_nparams, a) != SS_OK)
            return NAN;
          if (query_attn && l + 1 == cfg->layers && i + 1 == n)
            for (size_t j = 0; j < n; j++) query_attn[(e * H + hd) * n + j] = a[j];
          for (size_t c = 0; c < dh; c++) {
            double acc = 0;
            for (size_t j = 0; j < n; j++) acc += (double)a[j] * v[j * d + hd * dh + c];
            o[i * d + hd * dh + c] = acc;
          }
        }
      mr_cap(cap, T.wo[l], o, q0, n, d);
      mr_linear(o, n, d, P + T.wo[l], d, t);
      for (size_t i = 0; i < n * d; i++) h[i] += t[i];
      if (cfg->mlp) {
        mr_rmsnorm(h, n, d, P + T.mlp_norm[l], xn);
        mr_cap(cap, T.w1[l], xn, q0, n, d);
        mr_linear(xn, n, d, P + T.w1[l], F, h1);
        for (size_t i = 0; i < n * F; i++) h1[i] = mr_gelu(h1[i]);
        mr_cap(cap, T.w2[l], h1, q0, n, F);
        mr_linear(h1, n, F, P + T.w2[l], d, t);
        for (size_t i = 0; i < n * d; i++) h[i] += t[i];
      }
    }
    double xf[MR_MAX_D], logits[64];
    mr_rmsnorm(h + (n - 1) * d, 1, d, P + T.final_norm, xf);
    mr_cap(cap, T.unembed, xf, 0, 1, d);
    mr_linear(xf, 1, d, P + T.unembed, C, logits);
    double m = logits[0];
    for (size_t c = 1; c < C; c++) m = logits[c] > m ? logits[c] : m;
    double se = 0;
    for (size_t c = 0; c < C; c++) se += exp(logits[c] - m);
    total += m + log(se) - logits[b->target[e]];
  }
  return total / (double)b->batch;
}

/* The loss alone (mr_forward without a capture). */
static inline double mr_loss(const ss_model_config *cfg, const double *P, const ss_model_batch *b,
                             double *query_attn) {
  return mr_forward(cfg, P, b, query_attn, NULL);
}

#endif
