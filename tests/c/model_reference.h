/*
 * A float64 model of the model's forward (softscope.h, "The model: one
 * causal transformer ..."), written from the formulas, for the model tests:
 *
 *   h0_j = E_a[a_j] (+ E_b[b_j], vocab_b > 0) (+ f_j u, feature)
 *          (+ learned: P[j]; sinusoidal: y[j, 2i] = sin(j w_i),
 *             y[j, 2i+1] = cos(j w_i), w_i = 10000^(-2i/d))
 *   per layer: x = Norm1(h); q, k, v = x Wq^T, x Wk^T, x Wv^T (out x in);
 *     rope: in each head of hd = d / heads values, the pair (2i, 2i+1) of
 *     q_j and k_j rotated by j SS_MODEL_ROPE_BASE^(-2i/hd) (j = the row's
 *     position in its example);
 *     s_ij = (q_i,h . k_j,h) / sqrt(hd) (sdpa's default scale), -Inf at
 *     j > i when causal; w_i = the registry normalizer of s_i;
 *     h = h + (sum_j w_ij v_j) Wo^T;  mlp: h = h + GELU_tanh(Norm2(h) W1^T) W2^T
 *   logits = NormF(h) W_U^T (W_U = unembed, or E_a when tied);
 *   loss = mean over the read rows (position n-1 of each example with
 *   SS_LOSS_AT_LAST, every position with SS_LOSS_AT_EVERY) of
 *   logsumexp(logits) - logits[target].
 *   Norm: RMSNorm x / sqrt(mean(x^2) + eps) g, or LayerNorm
 *   (x - mean) / sqrt(biased var + eps) g + b; eps = SS_MODEL_NORM_EPS.
 *
 * Every row of every layer is computed (the library's last layer computes
 * position n-1 alone under SS_LOSS_AT_LAST: the two must agree), all sums
 * in double. The one float step is the attention normalizer, as sdpa
 * (core/src/attention/sdpa.c) runs it: a row of scores rounded to float,
 * -Inf at the masked keys, normalized by the registry's scalar kernel (its
 * accuracy is its own tests'), its weights then widened. Parameters are
 * read in double from the arena's layout (ss_model_tensor_at), so a test
 * can move one coordinate by a step no float could hold.
 *
 * The tensors are found in one place: mr_tensors_of reads the table
 * ss_model_tensor_at gives into a struct of named offsets (as llm.c's
 * ParameterTensors), through the name table MR_NAMES below (the names and
 * kinds of softscope.h's layout comment), and checks that the table holds
 * exactly the tensors the config implies. Header-only (static), like the
 * other *_testing.h.
 */
#ifndef SS_TEST_MODEL_REFERENCE_H
#define SS_TEST_MODEL_REFERENCE_H

#include <stddef.h>
#include <string.h>

#include "harness.h"

#define MR_MAX_N 16
#define MR_MAX_D 32
#define MR_MAX_C 64
#define MR_MAX_L SS_MODEL_MAX_LAYERS
#define MR_NONE ((size_t)-1)

/* Arena offsets of the tensors (MR_NONE: absent from this config). */
typedef struct mr_tensors {
  size_t embed_a, embed_b, feature, positions, final_norm, final_norm_bias, unembed;
  size_t attn_norm[MR_MAX_L], attn_norm_bias[MR_MAX_L], wq[MR_MAX_L], wk[MR_MAX_L],
      wv[MR_MAX_L], wo[MR_MAX_L], mlp_norm[MR_MAX_L], mlp_norm_bias[MR_MAX_L], w1[MR_MAX_L],
      w2[MR_MAX_L], norm_params[MR_MAX_L];
} mr_tensors;

/* softscope.h's tensor names: where each goes, whether it is per layer,
   its kind. */
typedef struct mr_name {
  const char *name;
  size_t field; /* offsetof in mr_tensors */
  bool per_layer;
  uint32_t kind; /* an ss_tensor_kind */
} mr_name;
#define MR_G(f, k) {#f, offsetof(mr_tensors, f), false, k}
#define MR_L(f, k) {#f, offsetof(mr_tensors, f), true, k}
static const mr_name MR_NAMES[] = {
    MR_G(embed_a, SS_TENSOR_EMBEDDING),   MR_G(embed_b, SS_TENSOR_EMBEDDING),
    MR_G(feature, SS_TENSOR_EMBEDDING),   MR_G(positions, SS_TENSOR_EMBEDDING),
    MR_L(attn_norm, SS_TENSOR_GAIN),      MR_L(attn_norm_bias, SS_TENSOR_BIAS),
    MR_L(wq, SS_TENSOR_MATRIX),           MR_L(wk, SS_TENSOR_MATRIX),
    MR_L(wv, SS_TENSOR_MATRIX),           MR_L(wo, SS_TENSOR_MATRIX),
    MR_L(mlp_norm, SS_TENSOR_GAIN),       MR_L(mlp_norm_bias, SS_TENSOR_BIAS),
    MR_L(w1, SS_TENSOR_MATRIX),           MR_L(w2, SS_TENSOR_MATRIX),
    MR_L(norm_params, SS_TENSOR_NORMALIZER), MR_G(final_norm, SS_TENSOR_GAIN),
    MR_G(final_norm_bias, SS_TENSOR_BIAS), MR_G(unembed, SS_TENSOR_MATRIX),
};
#undef MR_G
#undef MR_L
#define MR_NNAMES (sizeof MR_NAMES / sizeof MR_NAMES[0])

/* The entry of a tensor name; NULL for a name softscope.h does not list. */
static inline const mr_name *mr_name_of(const char *name) {
  for (size_t i = 0; name && i < MR_NNAMES; i++)
    if (!strcmp(MR_NAMES[i].name, name)) return &MR_NAMES[i];
  return NULL;
}

/* The kind softscope.h gives tensor `name` (SS_TENSOR_KIND_COUNT for an
   unknown name). */
static inline uint32_t mr_kind_of(const char *name) {
  const mr_name *e = mr_name_of(name);
  return e ? e->kind : SS_TENSOR_KIND_COUNT;
}

/* The normalizer's float parameters (trained with train_norm_params). */
static inline size_t mr_norm_floats(const ss_model_config *cfg) {
  size_t f = 0;
  for (size_t i = 0; i < cfg->normalizer->nparams; i++) f += cfg->normalizer->params[i].type == SS_PARAM_FLOAT;
  return f;
}

/* T from ss_model_tensor_at; false when the table is not exactly the
   tensors cfg implies (an unknown name, a repeat, a missing tensor, or a
   shape other than the documented one). */
static inline bool mr_tensors_of(const ss_model_config *cfg, mr_tensors *T) {
  size_t *slot = (size_t *)T;
  for (size_t i = 0; i < sizeof *T / sizeof(size_t); i++) slot[i] = MR_NONE;
  const size_t nt = ss_model_tensor_count(cfg);
  if (nt == 0 || cfg->layers > MR_MAX_L) return false;
  for (size_t i = 0; i < nt; i++) {
    ss_model_tensor t;
    if (ss_model_tensor_at(cfg, i, &t) != SS_OK) return false;
    const mr_name *e = mr_name_of(t.name);
    if (!e || (!e->per_layer && t.layer) || t.layer >= cfg->layers) return false;
    size_t *at = (size_t *)((char *)T + e->field) + (e->per_layer ? t.layer : 0);
    if (*at != MR_NONE) return false;
    *at = t.offset;
  }
  const bool ln = cfg->norm == SS_MODEL_NORM_LAYER;
#define MR_WANT(off, present) \
  if ((off != MR_NONE) != (present)) return false;
  MR_WANT(T->embed_b, cfg->vocab_b > 0)
  MR_WANT(T->feature, cfg->feature != 0)
  MR_WANT(T->positions, cfg->positions == SS_POSITIONS_LEARNED)
  MR_WANT(T->final_norm_bias, ln)
  MR_WANT(T->unembed, !cfg->tied)
  MR_WANT(T->embed_a, true)
  MR_WANT(T->final_norm, true)
  for (size_t l = 0; l < cfg->layers; l++) {
    MR_WANT(T->attn_norm[l], true)
    MR_WANT(T->attn_norm_bias[l], ln)
    MR_WANT(T->wq[l], true) MR_WANT(T->wk[l], true) MR_WANT(T->wv[l], true) MR_WANT(T->wo[l], true)
    MR_WANT(T->mlp_norm[l], cfg->mlp != 0)
    MR_WANT(T->mlp_norm_bias[l], cfg->mlp && ln)
    MR_WANT(T->w1[l], cfg->mlp != 0)
    MR_WANT(T->w2[l], cfg->mlp != 0)
    MR_WANT(T->norm_params[l], cfg->train_norm_params && mr_norm_floats(cfg) > 0)
  }
#undef MR_WANT
  return true;
}

/* y = Norm(x) (cfg->norm) rows of d: gain g, bias b (LayerNorm; NULL: 0). */
static inline void mr_norm(const ss_model_config *cfg, const double *x, size_t rows, size_t d,
                           const double *g, const double *b, double *y) {
  for (size_t r = 0; r < rows; r++) {
    const double *xr = x + r * d;
    double mean = 0, ss = 0;
    if (cfg->norm == SS_MODEL_NORM_LAYER) {
      for (size_t j = 0; j < d; j++) mean += xr[j];
      mean /= (double)d;
    }
    for (size_t j = 0; j < d; j++) ss += (xr[j] - mean) * (xr[j] - mean);
    const double inv = 1.0 / sqrt(ss / (double)d + SS_MODEL_NORM_EPS);
    for (size_t j = 0; j < d; j++) y[r * d + j] = (xr[j] - mean) * inv * g[j] + (b ? b[j] : 0.0);
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

/* Rotary positions on rows of d (row j at position j), heads of hd. */
static inline void mr_rope(double *x, size_t rows, size_t d, size_t heads) {
  const size_t hd = d / heads;
  for (size_t j = 0; j < rows; j++)
    for (size_t h = 0; h < heads; h++)
      for (size_t i = 0; i < hd / 2; i++) {
        const double th = (double)j * pow(SS_MODEL_ROPE_BASE, -(double)(2 * i) / (double)hd);
        const double c = cos(th), s = sin(th);
        double *p = x + j * d + h * hd + 2 * i;
        const double x0 = p[0], x1 = p[1];
        p[0] = x0 * c - x1 * s, p[1] = x0 * s + x1 * c;
      }
}

/* What the forward records of one weight matrix's inputs: the matrix at
   arena offset `offset` (the unembedding: unembed, or embed_a when tied);
   x receives the rows it multiplies (samples x its cols, count of them)
   as softscope.h's ss_model_linear_inputs describes them: in the last
   layer under SS_LOSS_AT_LAST, position n-1 alone for wq, wo, w1, w2 and
   the unembedding; every row otherwise. */
typedef struct mr_capture {
  size_t offset;
  double *x;
  size_t count;
} mr_capture;

static inline void mr_cap(mr_capture *c, size_t off, const double *x, size_t first, size_t rows,
                          size_t in) {
  if (!c || off == MR_NONE || c->offset != off) return;
  for (size_t r = first; r < rows; r++, c->count++)
    for (size_t i = 0; i < in; i++) c->x[c->count * in + i] = x[r * in + i];
}

/* What mr_forward reports besides the loss (each may be NULL): logits
   (read rows x classes, in row order: example e's row with LAST, e n + p
   with EVERY), position_loss (n values, EVERY: the loss at each position
   averaged over the batch), query_attn (batch x heads x n: the last
   layer's weights of position n-1), cap (above). */
typedef struct mr_outputs {
  double *logits, *position_loss, *query_attn;
  mr_capture *cap;
} mr_outputs;

static inline const double *mr_p(const double *P, size_t off) { return off == MR_NONE ? NULL : P + off; }

/* The mean loss of the model with parameters P (double, the arena's
   layout) on batch b; NAN when the normalizer fails, the tensor table is
   not the documented one, or a shape exceeds the MR_MAX_* buffers. */
static inline double mr_forward(const ss_model_config *cfg, const double *P, const ss_model_batch *b,
                                mr_outputs *out) {
  mr_tensors T;
  if (!mr_tensors_of(cfg, &T)) return NAN;
  const size_t n = b->n, d = cfg->d, H = cfg->heads, dh = d / H, F = 4 * d, C = cfg->classes;
  if (n > MR_MAX_N || d > MR_MAX_D || C > MR_MAX_C) return NAN;
  const bool every = cfg->loss_at == SS_LOSS_AT_EVERY;
  mr_capture *cap = out ? out->cap : NULL;
  const float scale = (float)(1.0 / sqrt((double)dh)); /* sdpa's default (ss_attn_scale) */
  static double h[MR_MAX_N * MR_MAX_D], xn[MR_MAX_N * MR_MAX_D], q[MR_MAX_N * MR_MAX_D],
      k[MR_MAX_N * MR_MAX_D], v[MR_MAX_N * MR_MAX_D], o[MR_MAX_N * MR_MAX_D],
      t[MR_MAX_N * MR_MAX_D], h1[MR_MAX_N * 4 * MR_MAX_D], xf[MR_MAX_N * MR_MAX_D],
      logits[MR_MAX_N * MR_MAX_C];
  const double *unemb = P + (cfg->tied ? T.embed_a : T.unembed);
  const size_t unemb_off = cfg->tied ? T.embed_a : T.unembed;
  if (out && out->position_loss && every)
    for (size_t p = 0; p < n; p++) out->position_loss[p] = 0;
  double total = 0;
  for (size_t e = 0; e < b->batch; e++) {
    for (size_t j = 0; j < n; j++) {
      const size_t r = e * n + j;
      for (size_t c = 0; c < d; c++) {
        double x = P[T.embed_a + b->tokens_a[r] * d + c];
        if (cfg->vocab_b) x += P[T.embed_b + b->tokens_b[r] * d + c];
        if (cfg->feature) x += (double)b->feature[r] * P[T.feature + c];
        if (cfg->positions == SS_POSITIONS_LEARNED) x += P[T.positions + j * d + c];
        if (cfg->positions == SS_POSITIONS_SINUSOIDAL) {
          const double w = pow(10000.0, -(double)(c - c % 2) / (double)d);
          x += c % 2 ? cos((double)j * w) : sin((double)j * w);
        }
        h[j * d + c] = x;
      }
    }
    for (size_t l = 0; l < cfg->layers; l++) {
      double np[64];
      if (cfg->norm_nparams > 64) return NAN;
      for (size_t i = 0; i < cfg->norm_nparams; i++) np[i] = cfg->norm_params[i];
      if (T.norm_params[l] != MR_NONE) {
        size_t f = 0;
        for (size_t i = 0; i < cfg->normalizer->nparams; i++)
          if (cfg->normalizer->params[i].type == SS_PARAM_FLOAT) np[i] = P[T.norm_params[l] + f++];
      }
      /* the rows the library computes queries of in this layer: all, or
         position n-1 in the last layer under LAST */
      const size_t q0 = l + 1 == cfg->layers && !every ? n - 1 : 0;
      mr_norm(cfg, h, n, d, P + T.attn_norm[l], mr_p(P, T.attn_norm_bias[l]), xn);
      mr_cap(cap, T.wq[l], xn, q0, n, d);
      mr_cap(cap, T.wk[l], xn, 0, n, d);
      mr_cap(cap, T.wv[l], xn, 0, n, d);
      mr_linear(xn, n, d, P + T.wq[l], d, q);
      mr_linear(xn, n, d, P + T.wk[l], d, k);
      mr_linear(xn, n, d, P + T.wv[l], d, v);
      if (cfg->positions == SS_POSITIONS_ROPE) {
        mr_rope(q, n, d, H);
        mr_rope(k, n, d, H);
      }
      for (size_t hh = 0; hh < H; hh++)
        for (size_t i = 0; i < n; i++) {
          float s[MR_MAX_N], a[MR_MAX_N];
          for (size_t j = 0; j < n; j++) {
            double dot = 0;
            for (size_t c = 0; c < dh; c++) dot += q[i * d + hh * dh + c] * k[j * d + hh * dh + c];
            s[j] = cfg->causal && j > i ? -INFINITY : (float)((double)scale * dot);
          }
          if (ss_normalize(cfg->normalizer, SS_IMPL_SCALAR, s, n, np, cfg->norm_nparams, a) != SS_OK)
            return NAN;
          if (out && out->query_attn && l + 1 == cfg->layers && i + 1 == n)
            for (size_t j = 0; j < n; j++) out->query_attn[(e * H + hh) * n + j] = a[j];
          for (size_t c = 0; c < dh; c++) {
            double acc = 0;
            for (size_t j = 0; j < n; j++) acc += (double)a[j] * v[j * d + hh * dh + c];
            o[i * d + hh * dh + c] = acc;
          }
        }
      mr_cap(cap, T.wo[l], o, q0, n, d);
      mr_linear(o, n, d, P + T.wo[l], d, t);
      for (size_t i = 0; i < n * d; i++) h[i] += t[i];
      if (cfg->mlp) {
        mr_norm(cfg, h, n, d, P + T.mlp_norm[l], mr_p(P, T.mlp_norm_bias[l]), xn);
        mr_cap(cap, T.w1[l], xn, q0, n, d);
        mr_linear(xn, n, d, P + T.w1[l], F, h1);
        for (size_t i = 0; i < n * F; i++) h1[i] = mr_gelu(h1[i]);
        mr_cap(cap, T.w2[l], h1, q0, n, F);
        mr_linear(h1, n, F, P + T.w2[l], d, t);
        for (size_t i = 0; i < n * d; i++) h[i] += t[i];
      }
    }
    /* the read rows */
    const size_t r0 = every ? 0 : n - 1, nr = n - r0;
    mr_norm(cfg, h + r0 * d, nr, d, P + T.final_norm, mr_p(P, T.final_norm_bias), xf);
    mr_cap(cap, unemb_off, xf, 0, nr, d);
    mr_linear(xf, nr, d, unemb, C, logits);
    for (size_t r = 0; r < nr; r++) {
      const double *z = logits + r * C;
      const uint32_t tg = every ? b->target[e * n + r] : b->target[e];
      double m = z[0];
      for (size_t c = 1; c < C; c++) m = z[c] > m ? z[c] : m;
      double se = 0;
      for (size_t c = 0; c < C; c++) se += exp(z[c] - m);
      const double loss = m + log(se) - z[tg];
      total += loss;
      if (out && out->position_loss && every) out->position_loss[r] += loss / (double)b->batch;
      if (out && out->logits)
        for (size_t c = 0; c < C; c++) out->logits[((every ? e * n : e) + r) * C + c] = z[c];
    }
  }
  return total / (double)(every ? b->batch * n : b->batch);
}

/* The loss alone. */
static inline double mr_loss(const ss_model_config *cfg, const double *P, const ss_model_batch *b) {
  return mr_forward(cfg, P, b, NULL);
}

#endif
