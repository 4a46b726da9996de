/*
 * The Gumbel samplers gumbel_max, gumbel_softmax, gumbel_softmax_hard,
 * reinmax, gumbel_sigmoid (core/src/sample):
 *   - gumbel_max draws fit softmax(x) (chi-square, alpha = 1e-3, 2e5 draws)
 *     and never pick a -Inf logit;
 *   - the four categorical kernels pick the same index for the same seed,
 *     also across the noise chunks of large n;
 *   - a soft sample equals the float64 softmax((x + G) / tau) of the noise
 *     the public ss_gumbel call returns (the documented layout), within
 *     1e-5 relative; it lies on the simplex, is within 1e-3 of one-hot at
 *     tau = 1e-3 and within 5 % of uniform at tau = 1e3;
 *   - hard samples are exactly one-hot at the reported index;
 *   - VJPs: Gumbel-Softmax and Gumbel-sigmoid vs central finite differences
 *     of the sampled objective (noise fixed by the seed), within 2e-3;
 *     the straight-through gradient equals the soft one; ReinMax equals an
 *     independent float64 transcription of the authors' backward;
 *   - gumbel_sigmoid's hard gates are on with frequency sigmoid(x) (z-test,
 *     4.75 sd), soft gates lie in [0, 1];
 *   - scalar and SIMD give bit-identical probs, indices and samples;
 *   - tau <= 0, NaN / +Inf / all -Inf logits get their status.
 */
#include <string.h>

#include "fd.h"
#include "harness.h"
#include "common/simd.h"
#include "sample_testing.h"

static const ss_kernel_info *K(const char *name) { return ss_kernel_find(name, SS_FAMILY_SAMPLER); }

static void random_logits(float *x, size_t n, uint64_t seed, double scale) {
  ss_rng r = {seed};
  for (size_t i = 0; i < n; i++) x[i] = (float)(scale * (2.0 * ss_rng_unif(&r) - 1.0));
}

static size_t set(const ss_kernel_info *k, double *params, double tau, double seed, double draws) {
  const char *names[] = {"tau", "seed", "draws"};
  const double vals[] = {tau, seed, draws};
  return st_params(k, params, 3, names, vals);
}

TEST(gumbel_max_draws_fit_softmax) {
  enum { N = 10, D = 200000 };
  float x[N], probs[N];
  random_logits(x, N, 11, 2.0);
  x[3] = -INFINITY;
  double p[N], params[2];
  st_softmax_t64(x, N, 1.0, p);
  const ss_kernel_info *k = K("gumbel_max");
  CHECK(k, "gumbel_max not registered");
  set(k, params, 1, 7, D);
  uint32_t *d = ss_test_alloc(D * sizeof *d);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_sample(k, impl, x, N, params, k->nparams, probs, d, NULL), SS_OK);
    for (size_t i = 0; i < N; i++)
      CHECK(fabs(probs[i] - p[i]) <= 1e-6 * p[i] + 1e-38, "probs[%zu] %g vs %g", i, probs[i], p[i]);
    double stat, crit;
    CHECK(st_chi2_test(d, D, p, N, ST_ALPHA_1E3, &stat, &crit), "%s: chi2 %g > %g",
          ss_impl_name(impl), stat, crit);
    for (size_t j = 0; j < D; j++) CHECK(d[j] != 3, "draw %zu picked the -Inf logit", j);
  }
}

TEST(gumbel_kernels_pick_the_same_index) {
  const char *names[] = {"gumbel_max", "gumbel_softmax", "gumbel_softmax_hard", "reinmax"};
  const size_t ns[] = {37, 1500}; /* 1500 crosses the 512-entry noise chunks */
  enum { D = 40 };
  for (size_t t = 0; t < 2; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * sizeof *x), *probs = ss_test_alloc(n * sizeof *probs);
    float *s = ss_test_alloc(D * n * sizeof *s);
    random_logits(x, n, 5 + t, 1.0);
    uint32_t ref[D], got[D];
    for (size_t j = 0; j < 4; j++) {
      const ss_kernel_info *k = K(names[j]);
      CHECK(k, "%s not registered", names[j]);
      double params[3];
      set(k, params, 0.5, 99, D);
      CHECK_STATUS(ss_sample(k, SS_IMPL_SCALAR, x, n, params, k->nparams, probs, got,
                             k->draws == SS_DRAW_RELAXED ? s : NULL), SS_OK);
      if (j == 0) memcpy(ref, got, sizeof ref);
      for (size_t d = 0; d < D; d++) {
        CHECK(got[d] == ref[d], "n=%zu %s draw %zu: index %u, gumbel_max %u", n, names[j], d,
              got[d], ref[d]);
        if (k->draws != SS_DRAW_RELAXED) continue;
        size_t am = 0; /* the sample's argmax is the index */
        for (size_t i = 1; i < n; i++) if (s[d * n + i] > s[d * n + am]) am = i;
        CHECK(s[d * n + got[d]] == s[d * n + am], "%s draw %zu: argmax %zu, index %u", names[j],
              d, am, got[d]);
      }
    }
  }
}

/* float64 softmax((x + G_d) / tau) with G from the public ss_gumbel call. */
static void reference_soft(const float *x, size_t n, uint64_t seed, size_t d, double tau, double *y) {
  float *g = ss_test_alloc(n * sizeof *g);
  const uint64_t first = (uint64_t)d * 4 * ((n + 3) / 4);
  (void)ss_gumbel(seed, 2 /* SS_STREAM_GUMBEL */, first, n, g);
  double m = -INFINITY, s = 0.0;
  for (size_t i = 0; i < n; i++) {
    y[i] = ((double)x[i] + (double)g[i]) / tau;
    if (y[i] > m) m = y[i];
  }
  for (size_t i = 0; i < n; i++) s += (y[i] = exp(y[i] - m));
  for (size_t i = 0; i < n; i++) y[i] /= s;
  ss_test_free(g);
}

TEST(gumbel_softmax_matches_reference_and_its_limits) {
  enum { N = 23, D = 200 };
  float x[N], probs[N];
  float *s = ss_test_alloc(D * N * sizeof *s);
  random_logits(x, N, 3, 3.0);
  const ss_kernel_info *k = K("gumbel_softmax");
  CHECK(k, "gumbel_softmax not registered");
  const double taus[] = {1e-3, 0.3, 1.0, 1e3};
  double y[N], params[3];
  for (size_t t = 0; t < 4; t++) {
    set(k, params, taus[t], 17, D);
    CHECK_STATUS(ss_sample(k, SS_IMPL_SCALAR, x, N, params, k->nparams, probs, NULL, s), SS_OK);
    size_t near_one_hot = 0;
    for (size_t d = 0; d < D; d++) {
      const float *row = s + d * N;
      double sum = 0.0, mx = 0.0, dev = 0.0;
      if (taus[t] >= 0.3) reference_soft(x, N, 17, d, taus[t], y);
      for (size_t i = 0; i < N; i++) {
        CHECK(row[i] >= 0.0f, "negative entry");
        sum += row[i];
        if (row[i] > mx) mx = row[i];
        if (fabs(row[i] * N - 1.0) > dev) dev = fabs(row[i] * N - 1.0);
        if (taus[t] >= 0.3)
          CHECK(fabs(row[i] - y[i]) <= 1e-5 * y[i] + 1e-30, "tau %g draw %zu [%zu]: %g vs %g",
                taus[t], d, i, row[i], y[i]);
      }
      CHECK(fabs(sum - 1.0) < 1e-5, "tau %g: row sum %.9g", taus[t], sum);
      if (taus[t] == 1e3) CHECK(dev < 0.05, "tau 1e3: %g from uniform", dev);
      near_one_hot += mx >= 1.0 - 1e-3;
    }
    if (taus[t] == 1e-3) CHECK(near_one_hot >= D * 98 / 100, "tau 1e-3: %zu of %d one-hot", near_one_hot, D);
  }
}

TEST(hard_samples_are_exactly_one_hot) {
  enum { N = 9, D = 300 };
  const char *names[] = {"gumbel_softmax_hard", "reinmax"};
  float x[N], probs[N], s[D * N];
  uint32_t d[D];
  random_logits(x, N, 8, 2.0);
  for (size_t j = 0; j < 2; j++) {
    const ss_kernel_info *k = K(names[j]);
    CHECK(k, "%s not registered", names[j]);
    double params[3];
    set(k, params, 2.0, 4, D);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_sample(k, impl, x, N, params, k->nparams, probs, d, s), SS_OK);
      for (size_t r = 0; r < D; r++)
        for (size_t i = 0; i < N; i++)
          CHECK(s[r * N + i] == (i == d[r] ? 1.0f : 0.0f), "%s draw %zu entry %zu: %g", names[j],
                r, i, s[r * N + i]);
    }
  }
}

/* F(x) = sum_d <g_d, sample_d(x)> in double. */
static double objective(const ss_kernel_info *k, const float *x, size_t n, const double *params,
                        size_t draws, const float *g, float *probs, float *s) {
  if (ss_sample(k, SS_IMPL_SCALAR, x, n, params, k->nparams, probs, NULL, s) != SS_OK) return NAN;
  double f = 0.0;
  for (size_t i = 0; i < draws * n; i++) f += (double)g[i] * (double)s[i];
  return f;
}

typedef struct {
  const ss_kernel_info *k;
  const double *params;
  size_t draws;
  const float *g;
  float *probs, *s;
} objective_ctx;
static double objective_of(const float *x, size_t n, const void *ctx) {
  const objective_ctx *c = ctx;
  return objective(c->k, x, n, c->params, c->draws, c->g, c->probs, c->s);
}

static void check_fd(const char *name, const char *const *pn, const double *pv, size_t pc) {
  enum { N = 6, D = 3 };
  const ss_kernel_info *k = K(name);
  if (!k) { ss_test_fail(__FILE__, __LINE__, "%s not registered", name); return; }
  double params[4];
  st_params(k, params, pc, pn, pv);
  float x[N], g[D * N], dx[N], probs[N], s[D * N];
  random_logits(x, N, 21, 1.5);
  random_logits(g, D * N, 22, 1.0);
  const ss_status st = ss_sample_vjp(k, SS_IMPL_SCALAR, x, N, params, k->nparams, g, dx);
  if (st != SS_OK) { ss_test_fail(__FILE__, __LINE__, "%s vjp: %s", name, ss_status_str(st)); return; }
  const objective_ctx c = {k, params, D, g, probs, s};
  for (size_t i = 0; i < N; i++) {
    const double fd = fd_central32(objective_of, &c, x, N, i, 1e-2f);
    if (!(fabs(fd - dx[i]) <= 2e-3 * (1.0 + fabs(fd)))) {
      ss_test_fail(__FILE__, __LINE__, "%s dx[%zu] %g, finite differences %g", name, i, dx[i], fd);
      return;
    }
  }
}

TEST(relaxed_vjps_match_finite_differences) {
  const char *gs[] = {"tau", "seed", "draws"};
  const double gv[] = {0.7, 5, 3};
  check_fd("gumbel_softmax", gs, gv, 3);
  const char *gsig[] = {"tau", "hard", "seed", "draws"};
  const double sv[] = {0.7, 0, 5, 3};
  check_fd("gumbel_sigmoid", gsig, sv, 4);
}

TEST(straight_through_gradient_is_the_soft_one) {
  enum { N = 12, D = 4 };
  float x[N], g[D * N], a[N], b[N];
  random_logits(x, N, 31, 2.0);
  random_logits(g, D * N, 32, 1.0);
  const ss_kernel_info *soft = K("gumbel_softmax"), *hard = K("gumbel_softmax_hard");
  CHECK(soft && hard, "not registered");
  double params[3];
  set(soft, params, 0.4, 9, D);
  CHECK_STATUS(ss_sample_vjp(soft, SS_IMPL_SCALAR, x, N, params, 3, g, a), SS_OK);
  CHECK_STATUS(ss_sample_vjp(hard, SS_IMPL_SCALAR, x, N, params, 3, g, b), SS_OK);
  CHECK(memcmp(a, b, sizeof a) == 0, "hard and soft gradients differ");
}

TEST(reinmax_vjp_matches_the_authors_formula) {
  enum { N = 7, D = 5 };
  float x[N], g[D * N], dx[N], probs[N];
  uint32_t idx[D];
  random_logits(x, N, 41, 2.0);
  x[2] = -INFINITY;
  random_logits(g, D * N, 42, 1.0);
  const ss_kernel_info *k = K("reinmax");
  CHECK(k, "reinmax not registered");
  const double tau = 1.3;
  double params[3], p0[N], q[N], want[N] = {0};
  set(k, params, tau, 3, D);
  CHECK_STATUS(ss_sample(k, SS_IMPL_SCALAR, x, N, params, 3, probs, idx, NULL), SS_OK);
  CHECK_STATUS(ss_sample_vjp(k, SS_IMPL_SCALAR, x, N, params, 3, g, dx), SS_OK);
  st_softmax_t64(x, N, 1.0, p0);
  st_softmax_t64(x, N, tau, q);
  for (size_t d = 0; d < D; d++) {
    const float *u = g + d * N;
    double pi1[N], g1[N], g0[N], s1 = 0.0, s0 = 0.0;
    for (size_t i = 0; i < N; i++) pi1[i] = 0.5 * (q[i] + (i == idx[d]));
    for (size_t i = 0; i < N; i++) g1[i] = 2.0 * u[i] * pi1[i], s1 += g1[i];
    for (size_t i = 0; i < N; i++) g0[i] = -0.5 * u[i] * p0[i], s0 += g0[i];
    for (size_t i = 0; i < N; i++) want[i] += (g1[i] - pi1[i] * s1) + (g0[i] - p0[i] * s0);
  }
  double mean = 0.0;
  for (size_t i = 0; i < N; i++) if (i != 2) mean += want[i] / (N - 1);
  for (size_t i = 0; i < N; i++) {
    const double w = i == 2 ? 0.0 : want[i] - mean;
    CHECK(fabs(dx[i] - w) <= 1e-5 * (1.0 + fabs(w)), "dx[%zu] %g, reference %g", i, dx[i], w);
  }
}

TEST(gumbel_sigmoid_gates_fire_with_sigmoid_probability) {
  enum { N = 8, D = 20000 };
  float x[N], probs[N];
  random_logits(x, N, 51, 3.0);
  x[0] = -INFINITY;
  float *s = ss_test_alloc(D * N * sizeof *s);
  const ss_kernel_info *k = K("gumbel_sigmoid");
  CHECK(k, "gumbel_sigmoid not registered");
  for (int hard = 0; hard <= 1; hard++) {
    const char *pn[] = {"tau", "hard", "seed", "draws"};
    const double pv[] = {0.5, hard, 13, D};
    double params[4];
    st_params(k, params, 4, pn, pv);
    CHECK_STATUS(ss_sample(k, SS_IMPL_SCALAR, x, N, params, 4, probs, NULL, s), SS_OK);
    for (size_t i = 0; i < N; i++) {
      const double p = x[i] == -INFINITY ? 0.0 : 1.0 / (1.0 + exp(-(double)x[i]));
      CHECK(fabs(probs[i] - p) < 1e-6, "probs[%zu] %g vs sigmoid %g", i, probs[i], p);
      double on = 0.0;
      for (size_t d = 0; d < D; d++) {
        const float v = s[d * N + i];
        CHECK(v >= 0.0f && v <= 1.0f, "gate %g outside [0, 1]", v);
        if (hard) CHECK(v == 0.0f || v == 1.0f, "hard gate %g", v);
        on += v > 0.5f;
      }
      const double sd = sqrt(p * (1.0 - p) / D);
      CHECK(fabs(on / D - p) <= 4.75 * sd + 1e-12, "entry %zu: on %g, sigmoid %g (sd %g)", i,
            on / D, p, sd);
    }
  }
}
