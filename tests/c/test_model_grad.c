/*
 * The whole tiny model (ss_model_forward / ss_model_grad) against the
 * float64 model of model_reference.h, for every registry normalizer with a
 * VJP that outputs weights (the registry is iterated, no list), over shapes
 * that cover heads 1 and 2, one and two layers, the MLP on and off, each
 * kind of positions, causal or not, and trained normalizer parameters:
 *
 *   - forward: the loss within FWD_REL (1 + |L|) of the float64 model's,
 *     which computes every row (the library's last layer the query row
 *     alone), and the query row's weights within FWD_W; the full map of
 *     the example asked for holds, in its last row of the last layer, the
 *     same bits as the query row's weights;
 *   - gradient: every tensor, FD_COORDS random coordinates each, against
 *     central differences of the float64 loss at steps h, h/2, h/4. The
 *     float64 model rounds only the attention scores to float (the
 *     normalizer takes floats), so its differences carry that rounding
 *     divided by h, and a sparse normalizer's support change between the
 *     steps is a kink: a coordinate is compared where the three differences
 *     agree within FD_AGREE, and at least FD_MIN_SHARE of the coordinates
 *     must be. Bound: |fd - g| <= FD_TOL |g| + FD_ABS gmax, gmax the largest
 *     |gradient| of the call (the float backward's rounding is relative to
 *     the chain's magnitudes, not to each small entry);
 *   - SIMD against scalar: |g_simd - g_scalar| <= SIMD_REL gmax.
 * Measured worst ratios to the bounds are printed.
 */
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "model_reference.h"
#include "model_testing.h"

#define FWD_REL 1e-5
#define FWD_W 1e-4
#define FD_STEP 1e-2
#define FD_COORDS 6
#define FD_AGREE 1e-3
#define FD_TOL 2e-3
#define FD_ABS 2e-4
#define FD_MIN_SHARE 0.5
#define SIMD_REL 1e-3

typedef struct {
  uint32_t d, heads, layers, mlp, positions, causal, train;
} mshape;

static const mshape SHAPES[] = {
    {8, 1, 1, 1, SS_POSITIONS_NONE, 0, 0},       {8, 2, 2, 1, SS_POSITIONS_SINUSOIDAL, 1, 0},
    {8, 2, 1, 0, SS_POSITIONS_LEARNED, 0, 1},    {8, 1, 2, 0, SS_POSITIONS_NONE, 1, 1},
    {8, 2, 2, 1, SS_POSITIONS_LEARNED, 0, 1},
};
#define NSHAPES (sizeof SHAPES / sizeof SHAPES[0])
#define BATCH 2
#define NITEMS 5

static bool trainable(const ss_kernel_info *nk) {
  return nk->family == SS_FAMILY_NORMALIZER && nk->output != SS_OUTPUT_LOG_PROBS && nk->has_backward;
}

typedef struct {
  ss_model_config cfg;
  double np[CF_MAX_PARAMS], lp[1];
  uint32_t ta[BATCH * NITEMS], tb[BATCH * NITEMS], target[BATCH];
  float f[BATCH * NITEMS];
  ss_model_batch b;
} mcase;

static void make_case(mcase *c, const mshape *s, const ss_kernel_info *nk, uint64_t seed) {
  memset(c, 0, sizeof *c);
  cf_defaults(nk, NITEMS, c->np);
  bool has_float = false;
  for (size_t i = 0; i < nk->nparams; i++) has_float |= nk->params[i].type == SS_PARAM_FLOAT;
  c->cfg = (ss_model_config){.vocab_a = 5, .vocab_b = 3, .classes = 4, .d = s->d,
                             .heads = s->heads, .layers = s->layers, .mlp = s->mlp, .feature = 1,
                             .positions = s->positions, .max_n = 7, .causal = s->causal,
                             .train_norm_params = s->train && has_float && nk->has_param_backward,
                             .seed = seed,
                             .attention = ss_kernel_find("sdpa", SS_FAMILY_ATTENTION),
                             .normalizer = nk, .norm_params = c->np, .norm_nparams = nk->nparams,
                             .loss = ss_kernel_find("cross_entropy", SS_FAMILY_LOSS),
                             .loss_params = c->lp, .loss_nparams = 1};
  ss_rng r = {seed};
  for (size_t i = 0; i < BATCH * NITEMS; i++) {
    c->ta[i] = (uint32_t)(ss_rng_u64(&r) % 5), c->tb[i] = (uint32_t)(ss_rng_u64(&r) % 3);
    c->f[i] = ss_rng_range(&r, 0.0f, 1.0f);
  }
  for (size_t e = 0; e < BATCH; e++) c->target[e] = (uint32_t)(ss_rng_u64(&r) % 4);
  c->b = (ss_model_batch){BATCH, NITEMS, c->ta, c->tb, c->f, c->target};
}

/* Parameters larger than the init's (so attention is far from uniform):
   matrices N(0, 0.4^2), gains U(0.8, 1.2), trained normalizer parameters
   as configured. */
static float *make_params(const ss_model_config *cfg, uint64_t seed) {
  const size_t P = ss_model_param_count(cfg);
  float *w = ss_test_alloc(P * 4);
  if (ss_model_init(cfg, w) != SS_OK) return NULL;
  ss_rng r = {seed};
  const size_t nt = ss_model_tensor_count(cfg);
  for (size_t i = 0; i < nt; i++) {
    ss_model_tensor t;
    ss_model_tensor_at(cfg, i, &t);
    if (!strcmp(t.name, "norm_params")) continue;
    const bool gain = strstr(t.name, "_norm") != NULL;
    for (size_t j = 0; j < t.rows * t.cols; j++)
      w[t.offset + j] = gain ? ss_rng_range(&r, 0.8f, 1.2f) : (float)(0.4 * ss_rng_normal(&r));
  }
  return w;
}

static double worst_fwd, worst_fd, worst_simd;

/* One case: forward and gradient checks. */
static void check_case(const mshape *s, const ss_kernel_info *nk, uint64_t seed, size_t *checked,
                       size_t *total) {
  mcase c;
  make_case(&c, s, nk, seed);
  CHECK_STATUS(ss_model_check(&c.cfg), SS_OK);
  const ss_model_config *cfg = &c.cfg;
  float *w = make_params(cfg, seed + 7);
  CHECK(w != NULL, "init");
  const size_t P = ss_model_param_count(cfg), H = cfg->heads, n = NITEMS, L = cfg->layers;
  const size_t ws_bytes = ss_model_workspace_size(cfg, BATCH, NITEMS);
  CHECK(ws_bytes > 0, "workspace size");
  void *ws = ss_test_alloc(ws_bytes);
  double *P64 = ss_test_alloc(P * 8), *qa64 = ss_test_alloc(BATCH * H * n * 8);
  for (size_t i = 0; i < P; i++) P64[i] = w[i];
  const double L64 = mr_loss(cfg, P64, &c.b, qa64);
  if (isnan(L64)) return; /* the normalizer rejects this data (counted by the caller) */
  float *g[SS_IMPL_COUNT] = {0};
  FOR_EACH_IMPL(impl) {
    float *qa = ss_test_alloc(BATCH * H * n * 4), *maps = ss_test_alloc(L * H * n * n * 4);
    ss_model_outputs out = {.query_attn = qa, .maps = maps, .map_example = 1};
    g[impl] = ss_test_alloc(P * 4);
    CHECK_STATUS(ss_model_grad(cfg, impl, w, &c.b, ws, ws_bytes, g[impl], &out), SS_OK);
    const double e = fabs(out.loss - L64) / (FWD_REL * (1 + fabs(L64)));
    worst_fwd = e > worst_fwd ? e : worst_fwd;
    CHECK(e <= 1, "%s %s: loss %.9g, float64 %.9g", nk->name, ss_impl_name(impl), out.loss, L64);
    for (size_t i = 0; i < BATCH * H * n; i++)
      CHECK(fabs(qa[i] - qa64[i]) <= FWD_W, "%s %s: query weight %zu %.9g, float64 %.9g",
            nk->name, ss_impl_name(impl), i, qa[i], qa64[i]);
    for (size_t h = 0; h < H; h++)
      for (size_t j = 0; j < n; j++)
        CHECK(maps[(((L - 1) * H + h) * n + n - 1) * n + j] == qa[(1 * H + h) * n + j],
              "%s %s: the map's last row differs from the query row (head %zu key %zu)",
              nk->name, ss_impl_name(impl), h, j);
    CHECK(mt_all_finite(g[impl], P), "%s: a gradient is not finite", nk->name);
  }
  double gmax = 0;
  for (size_t i = 0; i < P; i++) gmax = fmax(gmax, fabs(g[SS_IMPL_SCALAR][i]));
  if (g[SS_IMPL_SIMD])
    for (size_t i = 0; i < P; i++) {
      const double e = fabs(g[SS_IMPL_SIMD][i] - g[SS_IMPL_SCALAR][i]) / (SIMD_REL * gmax);
      worst_simd = e > worst_simd ? e : worst_simd;
      CHECK(e <= 1, "%s: simd grad[%zu] %.9g, scalar %.9g", nk->name, i, g[SS_IMPL_SIMD][i],
            g[SS_IMPL_SCALAR][i]);
    }
  ss_rng r = {seed + 99};
  const size_t nt = ss_model_tensor_count(cfg);
  for (size_t ti = 0; ti < nt; ti++) {
    ss_model_tensor t;
    ss_model_tensor_at(cfg, ti, &t);
    for (size_t k = 0; k < FD_COORDS; k++) {
      size_t i = t.offset + (size_t)(ss_rng_u64(&r) % (t.rows * t.cols));
      /* embeddings and positions: a row the batch reads (the others' gradient is 0) */
      if (!strcmp(t.name, "embed_a")) i = t.offset + c.ta[k % (BATCH * n)] * t.cols + k % t.cols;
      if (!strcmp(t.name, "embed_b")) i = t.offset + c.tb[k % (BATCH * n)] * t.cols + k % t.cols;
      if (!strcmp(t.name, "positions")) i = t.offset + (k % n) * t.cols + (k * 3) % t.cols;
      double fd[3];
      for (int si = 0; si < 3; si++) {
        const double h = FD_STEP / (double)(1 << si), x = P64[i];
        P64[i] = x + h;
        const double a = mr_loss(cfg, P64, &c.b, NULL);
        P64[i] = x - h;
        const double bb = mr_loss(cfg, P64, &c.b, NULL);
        P64[i] = x;
        fd[si] = (a - bb) / (2 * h);
      }
      (*total)++;
      const double agree = FD_AGREE * fabs(fd[2]) + FD_ABS * gmax;
      if (!(fabs(fd[0] - fd[1]) <= agree && fabs(fd[1] - fd[2]) <= agree)) continue;
      (*checked)++;
      FOR_EACH_IMPL(impl) {
        const double gi = g[impl][i];
        const double e = fabs(fd[2] - gi) / (FD_TOL * fabs(gi) + FD_ABS * gmax);
        worst_fd = e > worst_fd ? e : worst_fd;
        CHECK(e <= 1, "%s %s layer %u %s[%zu]: grad %.9g, differences %.9g %.9g %.9g (gmax %.3g)",
              nk->name, ss_impl_name(impl), t.layer, t.name, i - t.offset, gi, fd[0], fd[1],
              fd[2], gmax);
      }
    }
  }
}

TEST(model_grad_matches_float64_every_normalizer) {
  worst_fwd = worst_fd = worst_simd = 0;
  size_t cases = 0;
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *nk = ss_kernel_at(ki);
    if (!trainable(nk)) continue;
    const bool all = !strcmp(nk->name, "softmax");
    for (size_t si = 0; si < NSHAPES; si++) {
      /* softmax: every shape; the others one each, and the last (trained
         normalizer parameters) for those with a parameter VJP */
      if (!all && si != cases % NSHAPES && !(nk->has_param_backward && si == NSHAPES - 1)) continue;
      size_t checked = 0, total = 0;
      check_case(&SHAPES[si], nk, 1000 + 31 * ki + si, &checked, &total);
      if (total == 0) continue;
      CHECK(checked >= FD_MIN_SHARE * (double)total, "%s shape %zu: %zu of %zu differences agree",
            nk->name, si, checked, total);
    }
    cases++;
  }
  CHECK(cases >= 10, "only %zu normalizers", cases);
  printf("    %zu normalizers; worst ratio to bound: forward %.3g, gradient %.3g, simd %.3g\n", cases,
         worst_fwd, worst_fd, worst_simd);
}
