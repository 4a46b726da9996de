/*
 * Optimizer updates (core/src/optim):
 *   - every optimizer follows its paper's equations: 8 steps on random
 *     vectors (n = 37 and 256, so SIMD tails are covered), weights and
 *     gradients U(-1, 1), agree with the float64 reference of
 *     optim_reference.h within 2e-5 (max |w - w_ref| / max(1, |w_ref|));
 *   - SIMD vs scalar: bit-identical for the element-wise updates; within
 *     1e-6 (same measure) for those that reduce a norm (adagrad_norm, lars,
 *     lamb, sage, perpgrad: a different summation order) and adam_atan2
 *     (a polynomial atan2 vs libm's);
 *   - special cases: AdamW with weight_decay 0 is Adam; AdaBound with equal
 *     bounds (gamma -> inf) and beta1 = 0 is SGD at final_lr; SAM's ascent
 *     point with rho = 0 is w, so SAM is SGD; perpGrad's update is
 *     orthogonal to w (cosine < 1e-5); Adam-atan2 is invariant to scaling the
 *     gradient (bit-identical for a power of two, 1e-6 for 3.7);
 *   - bad hyperparameters and inputs get their status and leave w and the
 *     state untouched.
 */
#include <string.h>

#include "harness.h"
#include "optim_reference.h"

static const char *const ALL[] = {
    "sgd",  "momentum", "nesterov",   "adagrad", "adagrad_norm", "rmsprop", "adam",
    "adamw", "amsgrad", "adabound",   "amsbound", "adabelief",   "lion",    "sage",
    "adam_atan2", "lars", "lamb", "sam", "perpgrad", "ema", "ogda"};
#define NALL (sizeof ALL / sizeof ALL[0])

static const ss_kernel_info *OPT(const char *name) {
  return ss_kernel_find(name, SS_FAMILY_OPTIMIZER);
}

/* Registry defaults with test values that exercise every term. */
static size_t test_params(const ss_kernel_info *k, double *p) {
  for (size_t i = 0; i < k->nparams; i++) {
    const char *nm = k->params[i].name;
    p[i] = k->params[i].def;
    if (!strcmp(nm, "lr")) p[i] = !strcmp(k->name, "adagrad_norm") ? 0.1 : !strcmp(k->name, "lars") ? 1.0 : 0.01;
    if (!strcmp(nm, "weight_decay")) p[i] = 0.05;
    if (!strcmp(nm, "beta2") && p[i] > 0.99) p[i] = 0.99;
    if (!strcmp(nm, "gamma")) p[i] = 0.5;   /* adabound: bounds that bite */
    if (!strcmp(nm, "final_lr")) p[i] = 0.05;
    if (!strcmp(nm, "trust")) p[i] = 0.02;
    if (!strcmp(nm, "momentum") && !strcmp(k->name, "sam")) p[i] = 0.5;
  }
  return k->nparams;
}

static void fill(float *x, size_t n, ss_rng *r) {
  for (size_t i = 0; i < n; i++) x[i] = ss_rng_range(r, -1.0f, 1.0f);
}

static double max_rel(const float *a, const double *b, size_t n) {
  double e = 0;
  for (size_t i = 0; i < n; i++) {
    const double d = fabs((double)a[i] - b[i]) / fmax(1.0, fabs(b[i]));
    if (d > e) e = d;
  }
  return e;
}

TEST(optimizers_match_float64_reference) {
  enum { STEPS = 8, NMAX = 256 };
  static const size_t ns[] = {37, NMAX};
  float *w = ss_test_alloc(NMAX * 4), *g = ss_test_alloc(NMAX * 4), *sl = ss_test_alloc(3 * NMAX * 4);
  double *wr = ss_test_alloc(NMAX * 8), *gr = ss_test_alloc(NMAX * 8), *tmp = ss_test_alloc(NMAX * 8);
  double *ra = ss_test_alloc(NMAX * 8), *rb = ss_test_alloc(NMAX * 8), *rc = ss_test_alloc(NMAX * 8);
  for (size_t o = 0; o < NALL; o++) {
    const ss_kernel_info *k = OPT(ALL[o]);
    CHECK(k, "%s is registered", ALL[o]);
    double p[16];
    const size_t np = test_params(k, p);
    for (size_t ni = 0; ni < 2; ni++) {
      const size_t n = ns[ni];
      if (!strcmp(k->name, "sage")) p[5] = ni ? 32 : 0; /* column-wise on the 8 x 32 case */
      FOR_EACH_IMPL(impl) {
        ss_rng r = {100 + o};
        fill(w, n, &r);
        for (size_t i = 0; i < n; i++) wr[i] = w[i];
        memset(sl, 0, 3 * n * 4);
        memset(ra, 0, n * 8), memset(rb, 0, n * 8), memset(rc, 0, n * 8);
        ref_state st = {ra, rb, rc, 0, 0};
        double sc[SS_OPT_SCALARS] = {0};
        for (int s = 0; s < STEPS; s++) {
          fill(g, n, &r);
          for (size_t i = 0; i < n; i++) gr[i] = g[i];
          CHECK_STATUS(ss_optimize(k, impl, w, g, n, p, np, sl, sc), SS_OK);
          CHECK(ref_step(k->name, wr, gr, n, p, &st, tmp), "%s has a reference", k->name);
        }
        CHECK(sc[0] == STEPS, "%s counts its steps (%g)", k->name, sc[0]);
        const double e = max_rel(w, wr, n);
        CHECK(e < 2e-5, "%s %s n=%zu: max rel error %.3g vs float64", k->name, ss_impl_name(impl), n, e);
        if (k->averaged) {
          const double eu = max_rel(sl, rc, n);
          CHECK(eu < 2e-5, "%s average: %.3g", k->name, eu);
        }
      }
    }
  }
}

static bool uses_norm(const char *name) {
  return !strcmp(name, "adagrad_norm") || !strcmp(name, "lars") || !strcmp(name, "lamb") ||
         !strcmp(name, "sage") || !strcmp(name, "perpgrad") || !strcmp(name, "adam_atan2");
}

TEST(optimizers_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  enum { N = 1031, STEPS = 10 };
  float *w[2], *sl[2], *g = ss_test_alloc(N * 4);
  for (int j = 0; j < 2; j++) w[j] = ss_test_alloc(N * 4), sl[j] = ss_test_alloc(3 * N * 4);
  double *wd = ss_test_alloc(N * 8);
  for (size_t o = 0; o < NALL; o++) {
    const ss_kernel_info *k = OPT(ALL[o]);
    double p[16], sc[2][SS_OPT_SCALARS] = {{0}};
    const size_t np = test_params(k, p);
    ss_rng r = {7 + o};
    fill(w[0], N, &r);
    memcpy(w[1], w[0], N * 4);
    memset(sl[0], 0, 3 * N * 4), memset(sl[1], 0, 3 * N * 4);
    for (int s = 0; s < STEPS; s++) {
      fill(g, N, &r);
      CHECK_STATUS(ss_optimize(k, SS_IMPL_SCALAR, w[0], g, N, p, np, sl[0], sc[0]), SS_OK);
      CHECK_STATUS(ss_optimize(k, SS_IMPL_SIMD, w[1], g, N, p, np, sl[1], sc[1]), SS_OK);
    }
    if (uses_norm(k->name)) {
      for (size_t i = 0; i < N; i++) wd[i] = w[0][i];
      const double e = max_rel(w[1], wd, N);
      CHECK(e < 1e-6, "%s: SIMD vs scalar %.3g", k->name, e);
    } else {
      CHECK(memcmp(w[0], w[1], N * 4) == 0, "%s: SIMD and scalar weights are bit-identical", k->name);
      CHECK(memcmp(sl[0], sl[1], k->opt_slots * N * 4) == 0, "%s: state bit-identical", k->name);
    }
  }
}

/* Run `steps` steps of k from w0 with the gradient sequence from seed. */
static ss_status run_steps(const ss_kernel_info *k, ss_impl impl, const double *p, size_t np,
                           float *w, float *sl, size_t n, int steps, uint64_t seed, float gscale,
                           float *g) {
  double sc[SS_OPT_SCALARS] = {0};
  memset(sl, 0, 3 * n * 4);
  ss_rng r = {seed};
  for (int s = 0; s < steps; s++) {
    fill(g, n, &r);
    for (size_t i = 0; i < n; i++) g[i] *= gscale;
    const ss_status st = ss_optimize(k, impl, w, g, n, p, np, sl, sc);
    if (st != SS_OK) return st;
  }
  return SS_OK;
}

TEST(optimizer_special_cases) {
  enum { N = 101 };
  float *a = ss_test_alloc(N * 4), *b = ss_test_alloc(N * 4), *g = ss_test_alloc(N * 4);
  float *s1 = ss_test_alloc(3 * N * 4), *s2 = ss_test_alloc(3 * N * 4);
  FOR_EACH_IMPL(impl) {
    /* AdamW with zero decay = Adam (whose own L2 decay is 0 too) */
    double pa[5] = {0.01, 0.9, 0.99, 1e-8, 0.0};
    ss_rng r = {1};
    fill(a, N, &r);
    memcpy(b, a, N * 4);
    CHECK_STATUS(run_steps(OPT("adam"), impl, pa, 5, a, s1, N, 12, 5, 1.0f, g), SS_OK);
    CHECK_STATUS(run_steps(OPT("adamw"), impl, pa, 5, b, s2, N, 12, 5, 1.0f, g), SS_OK);
    CHECK(memcmp(a, b, N * 4) == 0, "adamw(wd=0) == adam");
    /* AdaBound with equal bounds (gamma huge) and beta1 = 0 is SGD at final_lr */
    const double pb[7] = {1e-3, 0.0, 0.999, 1e-8, 0.0, 0.05, 1e300}, ps[2] = {0.05, 0.0};
    fill(a, N, &r);
    memcpy(b, a, N * 4);
    CHECK_STATUS(run_steps(OPT("adabound"), impl, pb, 7, a, s1, N, 12, 6, 1.0f, g), SS_OK);
    CHECK_STATUS(run_steps(OPT("sgd"), impl, ps, 2, b, s2, N, 12, 6, 1.0f, g), SS_OK);
    CHECK(memcmp(a, b, N * 4) == 0, "adabound(lower = upper = final_lr, beta1 = 0) == sgd(final_lr)");
    /* SAM: rho = 0 puts the ascent point at w, and the step is SGD's */
    fill(a, N, &r), fill(g, N, &r);
    CHECK_STATUS(ss_sam_perturb(impl, a, g, N, 0.0, b), SS_OK);
    CHECK(memcmp(a, b, N * 4) == 0, "sam_perturb(rho = 0) == w");
    CHECK_STATUS(ss_sam_perturb(impl, a, g, N, 0.3, b), SS_OK);
    double d2 = 0;
    for (size_t i = 0; i < N; i++) d2 += ((double)b[i] - a[i]) * ((double)b[i] - a[i]);
    CHECK(fabs(sqrt(d2) - 0.3) < 1e-6, "the ascent step has length rho: %.9g", sqrt(d2));
    const double pm[4] = {0.02, 0.0, 0.0, 0.0};
    fill(a, N, &r);
    memcpy(b, a, N * 4);
    CHECK_STATUS(run_steps(OPT("sam"), impl, pm, 4, a, s1, N, 5, 8, 1.0f, g), SS_OK);
    CHECK_STATUS(run_steps(OPT("sgd"), impl, (double[]){0.02, 0.0}, 2, b, s2, N, 5, 8, 1.0f, g), SS_OK);
    CHECK(memcmp(a, b, N * 4) == 0, "sam's step with momentum 0 is sgd's");
    /* perpGrad moves orthogonally to w */
    fill(a, N, &r), fill(g, N, &r);
    memcpy(b, a, N * 4);
    double sc[SS_OPT_SCALARS] = {0};
    CHECK_STATUS(ss_optimize(OPT("perpgrad"), impl, b, g, N, (double[]){0.1}, 1, NULL, sc), SS_OK);
    double dot = 0, dn = 0, wn = 0;
    for (size_t i = 0; i < N; i++) {
      const double d = (double)b[i] - a[i];
      dot += d * a[i], dn += d * d, wn += (double)a[i] * a[i];
    }
    CHECK(dn > 0 && fabs(dot) / sqrt(dn * wn) < 1e-5, "perpgrad: cos(update, w) = %.3g", dot / sqrt(dn * wn));
    /* Adam-atan2 is invariant to the gradient's scale */
    const double pt[6] = {0.01, 0.9, 0.99, 0.0, 1.27, 1.0};
    for (int c = 0; c < 2; c++) {
      const float scale = c ? 3.7f : 4.0f;
      fill(a, N, &r);
      memcpy(b, a, N * 4);
      CHECK_STATUS(run_steps(OPT("adam_atan2"), impl, pt, 6, a, s1, N, 10, 9, 1.0f, g), SS_OK);
      CHECK_STATUS(run_steps(OPT("adam_atan2"), impl, pt, 6, b, s2, N, 10, 9, scale, g), SS_OK);
      if (c == 0) {
        CHECK(memcmp(a, b, N * 4) == 0, "adam_atan2: g x 4 gives the same bits");
      } else {
        double e = 0;
        for (size_t i = 0; i < N; i++) e = fmax(e, fabs((double)a[i] - b[i]));
        CHECK(e < 1e-6, "adam_atan2: g x 3.7 moves w by %.3g", e);
      }
    }
    /* while Adam with eps is not scale invariant at small gradients */
    fill(a, N, &r);
    memcpy(b, a, N * 4);
    const double pe[5] = {0.01, 0.9, 0.99, 1e-3, 0.0};
    CHECK_STATUS(run_steps(OPT("adam"), impl, pe, 5, a, s1, N, 10, 9, 1e-3f, g), SS_OK);
    CHECK_STATUS(run_steps(OPT("adam"), impl, pe, 5, b, s2, N, 10, 9, 1.0f, g), SS_OK);
    CHECK(memcmp(a, b, N * 4) != 0, "adam with eps 1e-3 depends on the gradient's scale");
  }
}

TEST(sage_damper_is_bounded_by_one) {
  enum { ROWS = 16, COLS = 8, N = ROWS * COLS };
  float *w = ss_test_alloc(N * 4), *g = ss_test_alloc(N * 4), *sl = ss_test_alloc(3 * N * 4);
  const double p[6] = {0.01, 0.9, 0.99, 1e-8, 0.0, COLS};
  FOR_EACH_IMPL(impl) {
    ss_rng r = {3};
    fill(w, N, &r);
    memset(sl, 0, sizeof(float) * 3 * N);
    double sc[SS_OPT_SCALARS] = {0};
    for (int s = 0; s < 20; s++) {
      fill(g, N, &r);
      for (size_t i = 0; i < N; i++) g[i] *= (i % COLS == 0) ? 50.0f : 1.0f; /* one loud column */
      float before[N];
      memcpy(before, w, sizeof before);
      CHECK_STATUS(ss_optimize(OPT("sage"), impl, w, g, N, p, 6, sl, sc), SS_OK);
      for (size_t i = 0; i < N; i++)
        CHECK(fabsf(w[i] - before[i]) <= 0.01f + 2e-7f, "|step| <= lr (H <= 1), up to rounding w");
      const float *h = sl + 2 * N;
      for (size_t j = 0; j < COLS; j++) CHECK(h[j] >= 0 && h[j] <= 1, "H_%zu = %g in [0, 1]", j, h[j]);
      if (s > 2) CHECK(h[0] < 0.5f * h[1], "the loud column is damped: H0 = %g, H1 = %g", h[0], h[1]);
    }
  }
}

TEST(optimizer_state_sizes_and_sam_perturb_range) {
  /* (bad inputs and parameters of ss_optimize: the conformance tester) */
  enum { N = 8 };
  float w[N], g[N], sl[3 * N] = {0};
  for (size_t i = 0; i < N; i++) w[i] = (float)i - 3.5f, g[i] = 0.25f * (float)i;
  const ss_kernel_info *adam = OPT("adam");
  double sc[SS_OPT_SCALARS] = {0};
  const double p[5] = {1e-3, 0.9, 0.999, 1e-8, 0};
  CHECK_STATUS(ss_sam_perturb(SS_IMPL_SCALAR, w, g, N, -0.1, sl), SS_ERR_PARAM_RANGE);
  CHECK(ss_opt_state_size(adam, 10) == 20 && ss_opt_state_size(OPT("sgd"), 10) == 0 &&
            ss_opt_state_size(ss_kernel_find("softmax", SS_FAMILY_NORMALIZER), 10) == 0,
        "state sizes");
  CHECK_STATUS(ss_optimize(adam, SS_IMPL_SCALAR, w, g, N, p, 5, sl, sc), SS_OK);
  CHECK(sc[0] == 1, "a good call takes one step");
}

/* AdaBelief with and without RAdam's rectification against the float64
   reference of adabelief-pytorch 0.2's step (optim_reference.h): 12 steps
   cover the momentum-SGD phase (rho_t < 5) and the rectified one, for
   b2 = 0.99 (rho_t >= 5 from t = 6) and 0.999 (t = 6 too: rho_t ~ t). And
   rho_t stays exact for b2 = 1 - 2^-53 (its series): 0.5 steps of the
   momentum phase, then rectified steps, finite. */
TEST(adabelief_rectify_matches_reference) {
  enum { N = 37, STEPS = 12 };
  const ss_kernel_info *k = OPT("adabelief");
  CHECK(k && k->nparams == 6 && !strcmp(k->params[5].name, "rectify") && k->params[5].def == 1.0,
        "adabelief has rectify (default 1)");
  float w[N], g[N], sl[2 * N];
  double wr[N], gr[N], ra[N], rb[N], rc[N], tmp[N];
  static const double b2s[] = {0.99, 0.999};
  for (int rect = 0; rect < 2; rect++)
    for (int b = 0; b < 2; b++)
      FOR_EACH_IMPL(impl) {
        const double p[6] = {0.01, 0.9, b2s[b], 1e-16, 0.05, rect};
        ss_rng r = {77 + (uint64_t)b};
        fill(w, N, &r);
        for (size_t i = 0; i < N; i++) wr[i] = w[i];
        memset(sl, 0, sizeof sl);
        memset(ra, 0, sizeof ra), memset(rb, 0, sizeof rb), memset(rc, 0, sizeof rc);
        ref_state st = {ra, rb, rc, 0, 0};
        double sc[SS_OPT_SCALARS] = {0};
        for (int s = 0; s < STEPS; s++) {
          fill(g, N, &r);
          for (size_t i = 0; i < N; i++) gr[i] = g[i];
          CHECK_STATUS(ss_optimize(k, impl, w, g, N, p, 6, sl, sc), SS_OK);
          CHECK(ref_step("adabelief", wr, gr, N, p, &st, tmp), "reference");
          const double e = max_rel(w, wr, N);
          CHECK(e < 2e-5, "rectify %d b2 %g %s step %d: rel error %.3g", rect, b2s[b],
                ss_impl_name(impl), s + 1, e);
        }
      }
  /* b2 = 1 - 2^-53: rho_t = t + 2^-53 (1 - t^2) / 6 (the direct form is
     noise there): momentum SGD for t <= 4, t = 5 on the boundary (rho_5 is
     half an ulp below 5), then the rectified step, finite, below lr g */
  const double p[6] = {0.1, 0.9, 1.0 - 0x1p-53, 1e-16, 0.0, 1.0};
  FOR_EACH_IMPL(impl) {
    float w1[4] = {1, -2, 0.5f, 3}, g1[4] = {0.5f, -1, 0.25f, 2}, s1[8] = {0};
    double sc[SS_OPT_SCALARS] = {0};
    for (int s = 0; s < 6; s++) {
      const float before = w1[3];
      CHECK_STATUS(ss_optimize(k, impl, w1, g1, 4, p, 6, s1, sc), SS_OK);
      const double step = before - w1[3];
      if (s == 4) continue;
      if (s < 4) /* lr m / bc1 = lr g (constant g) */
        CHECK(fabs(step - 0.1 * 2.0) < 1e-6, "%s t=%d: momentum step %g", ss_impl_name(impl), s + 1, step);
      else
        CHECK(isfinite(step) && step >= 0 && step < 0.2, "%s t=%d: rectified step %g",
              ss_impl_name(impl), s + 1, step);
    }
  }
}
