/*
 * The whole model (ss_model_forward / ss_model_grad) against the float64
 * model of model_reference.h, in every impl of the build.
 *
 * A matrix of small configs (GCASES: n <= 8, d <= 16, batch 2) that
 * together cover RMSNorm and LayerNorm; positions none, sinusoidal, learned
 * and rope; tied and untied unembedding; the loss at the last position and
 * at every position (causal); the feature on and off; no second token
 * table and one; the MLP on and off; 1, 2 and 3 layers; 1, 2 and 4 heads;
 * ssmax's s trained. Then one config per registry normalizer with a VJP
 * that outputs weights (the registry is iterated, no list), causal, the
 * loss at every position (so every row's mask is differentiated), and
 * again at the last position; its float parameters trained when it has a
 * parameter VJP. Each:
 *
 *   - forward: |loss - L64| <= FWD_REL (1 + |L64|); every logit of the read
 *     rows |z - z64| <= LOGIT_REL (1 + max |z64|); the last layer's
 *     weights of position n-1 within FWD_W of the float64 model's (which
 *     computes every row: the library's last layer, under LAST, computes
 *     position n-1 alone); under EVERY, each position's loss (batch mean)
 *     within FWD_REL (1 + |pl64|) of the float64 model's, and their mean
 *     within POS_MEAN (1 + |loss|) of the loss;
 *   - gradient: every coordinate of a tensor of at most FD_ALL values, else
 *     FD_COORDS seeded coordinates of it (every tensor), against central
 *     differences of the float64 loss at steps h, h/2, h/4 (h = FD_STEP).
 *     The float64 model rounds the attention scores to float (the
 *     normalizer takes floats), so its differences carry that rounding
 *     divided by h, and a sparse normalizer's support change between the
 *     steps is a kink: a coordinate is compared where the three differences
 *     agree within FD_AGREE |fd| + FD_ABS gmax; the matrix (softmax, ssmax:
 *     smooth) must have MATRIX_SHARE of its coordinates agree, the
 *     normalizer sweep FD_MIN_SHARE. Bound: |fd - g| <= FD_TOL |g| +
 *     FD_ABS gmax, gmax the largest |gradient| of the call (the float
 *     backward's rounding is relative to the chain's magnitudes, not to
 *     each small entry). The same bounds for the scalar and SIMD impls;
 *   - SIMD against scalar: |g_simd - g_scalar| <= SIMD_REL gmax.
 * The worst ratios to the bounds are printed.
 */
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "model_reference.h"
#include "model_testing.h"

#define FWD_REL 1e-5
#define LOGIT_REL 1e-5
#define FWD_W 1e-4
#define POS_MEAN 1e-6
#define FD_STEP 1e-2
#define FD_ALL 40
#define FD_COORDS 40
#define SWEEP_COORDS 6
#define FD_AGREE 1e-3
#define FD_TOL 2e-3
#define FD_ABS 2e-4
#define MATRIX_SHARE 0.95
#define FD_MIN_SHARE 0.5
#define SIMD_REL 1e-3
#define BATCH 2
#define MAXN 8

typedef struct {
  const char *name;
  uint32_t d, heads, layers, n, mlp, positions, norm, tied, loss_at, causal, feature, vocab_b;
  const char *normalizer;
  uint32_t train;
} gcase;

/* The first three are shapes the model had before the contract of issue 35
   (RMSNorm, no rope, untied, LAST, feature, a second table, <= 2 layers). */
static const gcase GCASES[] = {
    {"rms_none_h1", 8, 1, 1, 5, 1, SS_POSITIONS_NONE, SS_MODEL_NORM_RMS, 0, SS_LOSS_AT_LAST, 0, 1, 3, "softmax", 0},
    {"rms_sin_causal_l2", 8, 2, 2, 5, 1, SS_POSITIONS_SINUSOIDAL, SS_MODEL_NORM_RMS, 0, SS_LOSS_AT_LAST, 1, 1, 3, "softmax", 0},
    {"rms_learned_h4_ssmax", 8, 4, 2, 6, 0, SS_POSITIONS_LEARNED, SS_MODEL_NORM_RMS, 0, SS_LOSS_AT_LAST, 0, 1, 3, "ssmax", 1},
    {"layernorm_last", 8, 2, 1, 6, 1, SS_POSITIONS_NONE, SS_MODEL_NORM_LAYER, 0, SS_LOSS_AT_LAST, 0, 1, 3, "softmax", 0},
    {"rope_every_tied_l3", 8, 2, 3, 8, 1, SS_POSITIONS_ROPE, SS_MODEL_NORM_RMS, 1, SS_LOSS_AT_EVERY, 1, 0, 0, "softmax", 0},
    {"rope_layernorm_last_d16", 16, 4, 1, 7, 0, SS_POSITIONS_ROPE, SS_MODEL_NORM_LAYER, 0, SS_LOSS_AT_LAST, 1, 1, 0, "softmax", 0},
    {"learned_every_tied_ssmax_l3", 8, 1, 3, 6, 1, SS_POSITIONS_LEARNED, SS_MODEL_NORM_LAYER, 1, SS_LOSS_AT_EVERY, 1, 0, 3, "ssmax", 1},
    {"sin_every_untied_d16", 16, 2, 1, 8, 1, SS_POSITIONS_SINUSOIDAL, SS_MODEL_NORM_RMS, 0, SS_LOSS_AT_EVERY, 1, 1, 0, "softmax", 0},
    {"tied_last_h4", 8, 4, 2, 5, 0, SS_POSITIONS_NONE, SS_MODEL_NORM_RMS, 1, SS_LOSS_AT_LAST, 0, 0, 3, "softmax", 0},
    {"rope_h4_l3_ssmax", 8, 4, 3, 6, 1, SS_POSITIONS_ROPE, SS_MODEL_NORM_RMS, 0, SS_LOSS_AT_LAST, 0, 1, 2, "ssmax", 1},
};
#define NGCASES (sizeof GCASES / sizeof GCASES[0])

static bool trainable(const ss_kernel_info *nk) {
  return nk->family == SS_FAMILY_NORMALIZER && nk->output != SS_OUTPUT_LOG_PROBS && nk->has_backward;
}

typedef struct {
  ss_model_config cfg;
  double np[CF_MAX_PARAMS], lp[1];
  uint32_t ta[BATCH * MAXN], tb[BATCH * MAXN], target[BATCH * MAXN];
  float f[BATCH * MAXN];
  ss_model_batch b;
} mcase;

/* vocab_a 7; classes 7 when tied (= vocab_a), else 4. tokens_b NULL
   without a second table, feature NULL without the feature (neither may be
   read then). */
static void make_case(mcase *c, const gcase *s, const ss_kernel_info *nk, uint64_t seed) {
  memset(c, 0, sizeof *c);
  cf_defaults(nk, s->n, c->np);
  const uint32_t va = 7, classes = s->tied ? 7 : 4;
  c->cfg = (ss_model_config){.vocab_a = va, .vocab_b = s->vocab_b, .classes = classes, .d = s->d,
                             .heads = s->heads, .layers = s->layers, .mlp = s->mlp,
                             .positions = s->positions, .max_n = s->n + 1, .causal = s->causal,
                             .train_norm_params = s->train && mr_norm_floats(&(ss_model_config){.normalizer = nk}) &&
                                                  nk->has_param_backward,
                             .feature = s->feature, .norm = s->norm, .tied = s->tied,
                             .loss_at = s->loss_at, .seed = seed,
                             .attention = ss_kernel_find("sdpa", SS_FAMILY_ATTENTION),
                             .normalizer = nk, .norm_params = c->np, .norm_nparams = nk->nparams,
                             .loss = ss_kernel_find("cross_entropy", SS_FAMILY_LOSS),
                             .loss_params = c->lp, .loss_nparams = 1};
  ss_rng r = {seed};
  const size_t n = s->n;
  for (size_t i = 0; i < BATCH * n; i++) {
    c->ta[i] = (uint32_t)(ss_rng_u64(&r) % va);
    c->tb[i] = s->vocab_b ? (uint32_t)(ss_rng_u64(&r) % s->vocab_b) : 0;
    c->f[i] = ss_rng_range(&r, 0.0f, 1.0f);
  }
  const size_t targets = s->loss_at == SS_LOSS_AT_EVERY ? BATCH * n : BATCH;
  for (size_t i = 0; i < targets; i++) c->target[i] = (uint32_t)(ss_rng_u64(&r) % classes);
  c->b = (ss_model_batch){BATCH, n, c->ta, s->vocab_b ? c->tb : NULL, s->feature ? c->f : NULL,
                          c->target};
}

/* Parameters larger than the init's (so attention is far from uniform):
   embeddings and matrices N(0, 0.4^2), gains U(0.8, 1.2), biases
   U(-0.2, 0.2), trained normalizer parameters as configured (the kinds of
   softscope.h's names, model_reference.h). */
static float *make_params(const ss_model_config *cfg, uint64_t seed) {
  const size_t P = ss_model_param_count(cfg);
  float *w = ss_test_alloc(P * 4 + 4);
  if (ss_model_init(cfg, w) != SS_OK) return NULL;
  ss_rng r = {seed};
  const size_t nt = ss_model_tensor_count(cfg);
  for (size_t i = 0; i < nt; i++) {
    ss_model_tensor t;
    ss_model_tensor_at(cfg, i, &t);
    const uint32_t kind = mr_kind_of(t.name);
    if (kind == SS_TENSOR_NORMALIZER) continue;
    for (size_t j = 0; j < t.rows * t.cols; j++)
      w[t.offset + j] = kind == SS_TENSOR_GAIN   ? ss_rng_range(&r, 0.8f, 1.2f)
                        : kind == SS_TENSOR_BIAS ? ss_rng_range(&r, -0.2f, 0.2f)
                                                 : (float)(0.4 * ss_rng_normal(&r));
  }
  return w;
}

static double worst_fwd, worst_fd, worst_simd;

/* The float64 model's loss as a function of the parameters P. */
typedef struct {
  const ss_model_config *cfg;
  const ss_model_batch *b;
} loss_ctx;
static double loss_of(const double *P, size_t np, const void *ctx) {
  (void)np;
  const loss_ctx *c = ctx;
  return mr_loss(c->cfg, P, c->b);
}

/* One case: forward and gradient checks; *checked of *total coordinates
   compared (the others' differences disagree). Returns false when the
   float64 model cannot run the case (the normalizer rejects its rows). */
static bool check_case(const char *label, const gcase *s, const ss_kernel_info *nk, uint64_t seed,
                       size_t coords, size_t *checked, size_t *total) {
  mcase c;
  make_case(&c, s, nk, seed);
  const ss_model_config *cfg = &c.cfg;
  ss_test_count(1);
  if (ss_model_check(cfg) != SS_OK) {
    ss_test_fail(__FILE__, __LINE__, "%s: ss_model_check: %s", label,
                 ss_status_name(ss_model_check(cfg)));
    return true;
  }
  mr_tensors T;
  ss_test_count(1);
  if (!mr_tensors_of(cfg, &T)) {
    ss_test_fail(__FILE__, __LINE__, "%s: the tensor table is not softscope.h's", label);
    return true;
  }
  float *w = make_params(cfg, seed + 7);
  const size_t P = ss_model_param_count(cfg), H = cfg->heads, n = s->n, L = cfg->layers,
               C = cfg->classes;
  const bool every = cfg->loss_at == SS_LOSS_AT_EVERY;
  const size_t rows = every ? BATCH * n : BATCH;
  const size_t ws_bytes = ss_model_workspace_size(cfg, BATCH, n);
  ss_test_count(1);
  if (!w || ws_bytes == 0) {
    ss_test_fail(__FILE__, __LINE__, "%s: init or workspace size", label);
    return true;
  }
  void *ws = ss_test_alloc(ws_bytes);
  double *P64 = ss_test_alloc(P * 8), *qa64 = ss_test_alloc(BATCH * H * n * 8),
         *z64 = ss_test_alloc(rows * C * 8), *pl64 = ss_test_alloc(n * 8);
  for (size_t i = 0; i < P; i++) P64[i] = w[i];
  mr_outputs ro = {.logits = z64, .position_loss = pl64, .query_attn = qa64};
  const double L64 = mr_forward(cfg, P64, &c.b, &ro);
  if (isnan(L64)) return false;
  double zmax = 0;
  for (size_t i = 0; i < rows * C; i++) zmax = fmax(zmax, fabs(z64[i]));
  float *g[SS_IMPL_COUNT] = {0};
  FOR_EACH_IMPL(impl) {
    const char *in = ss_impl_name(impl);
    float *qa = ss_test_alloc(BATCH * H * n * 4), *maps = ss_test_alloc(L * H * n * n * 4),
          *z = ss_test_alloc(rows * C * 4), *pl = ss_test_alloc(n * 4);
    ss_model_outputs out = {.query_attn = qa, .maps = maps, .map_example = 1, .logits = z,
                            .position_loss = pl};
    g[impl] = ss_test_alloc(P * 4);
    ss_test_count(1);
    const ss_status st = ss_model_grad(cfg, impl, w, &c.b, ws, ws_bytes, g[impl], &out);
    if (st != SS_OK) {
      ss_test_fail(__FILE__, __LINE__, "%s %s: ss_model_grad: %s", label, in, ss_status_name(st));
      return true;
    }
    ss_test_count(1);
    const double e = fabs(out.loss - L64) / (FWD_REL * (1 + fabs(L64)));
    worst_fwd = e > worst_fwd ? e : worst_fwd;
    if (!(e <= 1)) {
      ss_test_fail(__FILE__, __LINE__, "%s %s: loss %.9g, float64 %.9g", label, in, out.loss, L64);
      return true;
    }
    for (size_t i = 0; i < rows * C; i++) {
      ss_test_count(1);
      const double ez = fabs(z[i] - z64[i]) / (LOGIT_REL * (1 + zmax));
      worst_fwd = ez > worst_fwd ? ez : worst_fwd;
      if (!(ez <= 1)) {
        ss_test_fail(__FILE__, __LINE__, "%s %s: logit %zu %.9g, float64 %.9g", label, in, i,
                     z[i], z64[i]);
        return true;
      }
    }
    for (size_t i = 0; i < BATCH * H * n; i++) {
      ss_test_count(1);
      if (!(fabs(qa[i] - qa64[i]) <= FWD_W)) {
        ss_test_fail(__FILE__, __LINE__, "%s %s: query weight %zu %.9g, float64 %.9g", label, in,
                     i, qa[i], qa64[i]);
        return true;
      }
    }
    /* the map of example 1 holds, in the last layer's row n-1, the query
       row's weights */
    for (size_t h = 0; h < H; h++)
      for (size_t j = 0; j < n; j++) {
        ss_test_count(1);
        if (maps[(((L - 1) * H + h) * n + n - 1) * n + j] != qa[(1 * H + h) * n + j]) {
          ss_test_fail(__FILE__, __LINE__, "%s %s: the map's last row differs from the query row",
                       label, in);
          return true;
        }
      }
    if (every) {
      double mean = 0;
      for (size_t p = 0; p < n; p++) {
        mean += pl[p] / (double)n;
        ss_test_count(1);
        if (!(fabs(pl[p] - pl64[p]) <= FWD_REL * (1 + fabs(pl64[p])))) {
          ss_test_fail(__FILE__, __LINE__, "%s %s: position %zu loss %.9g, float64 %.9g", label,
                       in, p, pl[p], pl64[p]);
          return true;
        }
      }
      ss_test_count(1);
      if (!(fabs(mean - out.loss) <= POS_MEAN * (1 + fabs(out.loss)))) {
        ss_test_fail(__FILE__, __LINE__, "%s %s: the positions' losses average %.9g, loss %.9g",
                     label, in, mean, out.loss);
        return true;
      }
    }
    ss_test_count(1);
    if (!mt_all_finite(g[impl], P)) {
      ss_test_fail(__FILE__, __LINE__, "%s %s: a gradient is not finite", label, in);
      return true;
    }
  }
  double gmax = 0;
  for (size_t i = 0; i < P; i++) gmax = fmax(gmax, fabs(g[SS_IMPL_SCALAR][i]));
  if (g[SS_IMPL_SIMD])
    for (size_t i = 0; i < P; i++) {
      const double e = fabs(g[SS_IMPL_SIMD][i] - g[SS_IMPL_SCALAR][i]) / (SIMD_REL * gmax);
      worst_simd = e > worst_simd ? e : worst_simd;
      ss_test_count(1);
      if (!(e <= 1)) {
        ss_test_fail(__FILE__, __LINE__, "%s: simd grad[%zu] %.9g, scalar %.9g", label, i,
                     g[SS_IMPL_SIMD][i], g[SS_IMPL_SCALAR][i]);
        return true;
      }
    }
  ss_rng r = {seed + 99};
  const loss_ctx lc = {cfg, &c.b};
  const size_t nt = ss_model_tensor_count(cfg);
  for (size_t ti = 0; ti < nt; ti++) {
    ss_model_tensor t;
    ss_model_tensor_at(cfg, ti, &t);
    const size_t size = t.rows * t.cols, count = size <= FD_ALL ? size : coords;
    for (size_t k = 0; k < count; k++) {
      const size_t i = t.offset + (size <= FD_ALL ? k : (size_t)(ss_rng_u64(&r) % size));
      double fd[3];
      for (int si = 0; si < 3; si++)
        fd[si] = fd_central64(loss_of, &lc, P64, P, i, FD_STEP / (double)(1 << si));
      (*total)++;
      if (!fd_steady(fd, FD_AGREE * fabs(fd[2]) + FD_ABS * gmax)) continue;
      (*checked)++;
      FOR_EACH_IMPL(impl) {
        const double gi = g[impl][i];
        const double e = fabs(fd[2] - gi) / (FD_TOL * fabs(gi) + FD_ABS * gmax);
        worst_fd = e > worst_fd ? e : worst_fd;
        ss_test_count(1);
        if (!(e <= 1)) {
          ss_test_fail(__FILE__, __LINE__,
                       "%s %s layer %u %s[%zu]: grad %.9g, differences %.9g %.9g %.9g (gmax %.3g)",
                       label, ss_impl_name(impl), t.layer, t.name, i - t.offset, gi, fd[0], fd[1],
                       fd[2], gmax);
          return true;
        }
      }
    }
  }
  return true;
}

TEST(model_grad_matches_float64_config_matrix) {
  worst_fwd = worst_fd = worst_simd = 0;
  size_t all_checked = 0;
  for (size_t ci = 0; ci < NGCASES; ci++) {
    const gcase *s = &GCASES[ci];
    const ss_kernel_info *nk = ss_kernel_find(s->normalizer, SS_FAMILY_NORMALIZER);
    CHECK(nk != NULL, "%s", s->normalizer);
    size_t checked = 0, total = 0;
    /* every config runs (a failure is reported and the next one taken) */
    const bool ran = check_case(s->name, s, nk, 500 + 17 * ci, FD_COORDS, &checked, &total);
    ss_test_count(1);
    if (!ran)
      ss_test_fail(__FILE__, __LINE__, "%s: the float64 model rejects the case", s->name);
    else if (total > 0 && !(checked >= MATRIX_SHARE * (double)total))
      ss_test_fail(__FILE__, __LINE__, "%s: %zu of %zu differences agree", s->name, checked, total);
    all_checked += checked;
  }
  printf("    %zu configs, %zu coordinates; worst ratio to bound: forward %.3g, gradient %.3g, simd %.3g\n",
         NGCASES, all_checked, worst_fwd, worst_fd, worst_simd);
}

/* One normalizer in causal attention: loss at every position (every row's
   mask: query 0 sees one key) and at the last. */
static void sweep(uint32_t loss_at) {
  worst_fwd = worst_fd = worst_simd = 0;
  size_t cases = 0, skipped = 0;
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *nk = ss_kernel_at(ki);
    if (!trainable(nk)) continue;
    const gcase s = {nk->name, 8, 2, 2, 6, 1, SS_POSITIONS_SINUSOIDAL, SS_MODEL_NORM_RMS, 0,
                     loss_at, 1, 1, 3, nk->name, 1};
    size_t checked = 0, total = 0;
    if (!check_case(nk->name, &s, nk, 1000 + 31 * ki, SWEEP_COORDS, &checked, &total)) {
      skipped++;
      continue;
    }
    ss_test_count(1);
    if (total > 0 && !(checked >= FD_MIN_SHARE * (double)total))
      ss_test_fail(__FILE__, __LINE__, "%s: %zu of %zu differences agree", nk->name, checked, total);
    cases++;
  }
  CHECK(cases >= 10, "only %zu normalizers (%zu the float64 model could not run)", cases, skipped);
  printf("    %zu normalizers (%zu skipped); worst ratio to bound: forward %.3g, gradient %.3g, simd %.3g\n",
         cases, skipped, worst_fwd, worst_fd, worst_simd);
}

TEST(model_grad_causal_every_position_every_normalizer) { sweep(SS_LOSS_AT_EVERY); }
TEST(model_grad_causal_last_position_every_normalizer) { sweep(SS_LOSS_AT_LAST); }
