/*
 * Test functions, schedules and the trajectory engine (core/src/optim):
 *   - every test function's analytic gradient equals the central finite
 *     difference (h = 1e-6, within 1e-5 relative) at 64 random points of its
 *     view; every listed minimum has |grad| < 1e-6 and f = fmin; for the game
 *     the field is (df/dx, -df/dy); the grid equals pointwise evaluation;
 *   - every optimizer reaches |w - w*| < 1e-3 on the convex quadratic within
 *     a stated budget of steps (table below: lr, schedule, budget, each about
 *     1.5x the steps it needs); perpGrad instead keeps |w| non-decreasing
 *     (its step is orthogonal to w, so it cannot reach the minimum at 0);
 *     SAM settles at distance rho (its fixed point on a quadratic);
 *   - on the bilinear game x y, simultaneous GDA (sgd on the field) spirals
 *     out (radius up every step, x100 after 2000 steps at lr 0.1) while
 *     optimistic GDA converges (radius < 1e-3);
 *   - schedules: constant 1; cosine 1 after warm-up and min at the end,
 *     non-increasing; wsd 1 on the plateau then linear to min;
 *   - the engine: a run advanced in chunks equals one run bit for bit; the
 *     same seed gives the same noisy path and another seed another; clipping
 *     bounds every sgd step by lr clip; a divergent run stops early without
 *     an error; ema reports its average; bad options get their status.
 */
#include <string.h>

#include "fd.h"
#include "harness.h"

static const ss_kernel_info *OPT(const char *name) {
  return ss_kernel_find(name, SS_FAMILY_OPTIMIZER);
}
static size_t FN(const char *name) { return (size_t)ss_testfn_find(name); }

/* Test function *ctx at v = (x, y). */
static double testfn_of(const double *v, size_t two, const void *ctx) {
  (void)two;
  double f, dummy[2];
  ss_testfn_eval(*(const size_t *)ctx, v[0], v[1], &f, dummy);
  return f;
}

TEST(test_functions_gradients_and_minima) {
  CHECK(ss_testfn_count() == 8, "eight functions");
  for (size_t f = 0; f < ss_testfn_count(); f++) {
    const ss_testfn_info *fi = ss_testfn_at(f);
    CHECK(ss_testfn_find(fi->name) == (long)f, "find %s", fi->name);
    ss_rng r = {40 + f};
    for (int s = 0; s < 64; s++) {
      const double x = fi->xmin + (fi->xmax - fi->xmin) * ss_rng_unif(&r);
      const double y = fi->ymin + (fi->ymax - fi->ymin) * ss_rng_unif(&r);
      double v, g[2], xy[2] = {x, y};
      CHECK_STATUS(ss_testfn_eval(f, x, y, &v, g), SS_OK);
      const double fx = fd_central64(testfn_of, &f, xy, 2, 0, 1e-6);
      const double fy = (fi->game ? -1 : 1) * fd_central64(testfn_of, &f, xy, 2, 1, 1e-6);
      const double scale = 1 + fabs(g[0]) + fabs(g[1]);
      CHECK(fabs(fx - g[0]) < 1e-5 * scale && fabs(fy - g[1]) < 1e-5 * scale,
            "%s at (%g, %g): grad (%g, %g) vs FD (%g, %g)", fi->name, x, y, g[0], g[1], fx, fy);
    }
    for (size_t m = 0; m < fi->nminima; m++) {
      double v, g[2];
      CHECK_STATUS(ss_testfn_eval(f, fi->minima[m][0], fi->minima[m][1], &v, g), SS_OK);
      CHECK(hypot(g[0], g[1]) < 1e-6, "%s minimum %zu: |grad| = %g", fi->name, m, hypot(g[0], g[1]));
      CHECK(fabs(v - fi->fmin) < 1e-9, "%s minimum %zu: f = %.12g, fmin %g", fi->name, m, v, fi->fmin);
    }
    double v0, g0[2];
    ss_testfn_eval(f, fi->start[0], fi->start[1], &v0, g0);
    CHECK(v0 > fi->fmin || fi->game, "%s starts above its minimum", fi->name);
    float grid[5 * 4];
    CHECK_STATUS(ss_testfn_grid(f, fi->xmin, fi->xmax, fi->ymin, fi->ymax, 5, 4, grid), SS_OK);
    for (size_t j = 0; j < 4; j++)
      for (size_t i = 0; i < 5; i++) {
        double v, g[2];
        ss_testfn_eval(f, fi->xmin + (fi->xmax - fi->xmin) * i / 4.0, fi->ymin + (fi->ymax - fi->ymin) * j / 3.0, &v, g);
        CHECK(grid[j * 5 + i] == (float)v, "%s grid (%zu, %zu)", fi->name, i, j);
      }
  }
  double v, g[2];
  float grid[4];
  CHECK_STATUS(ss_testfn_eval(0, NAN, 0, &v, g), SS_ERR_NAN);
  CHECK_STATUS(ss_testfn_eval(0, INFINITY, 0, &v, g), SS_ERR_NONFINITE);
  CHECK_STATUS(ss_testfn_eval(99, 0, 0, &v, g), SS_ERR_UNKNOWN_KERNEL);
  CHECK_STATUS(ss_testfn_grid(0, 1, 0, 0, 1, 2, 2, grid), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_testfn_grid(0, 0, 1, 0, 1, 1, 2, grid), SS_ERR_EMPTY);
  CHECK(ss_testfn_find("nope") == -1 && ss_testfn_at(99) == NULL, "unknown function");
}

/* Run k with defaults overridden by (param index, value) on function fn. */
static ss_status run(const char *name, size_t fn, double lr, int sched, size_t steps, int at,
                     double val, const ss_traj_opts *extra, double *path, size_t *done) {
  const ss_kernel_info *k = OPT(name);
  double p[16];
  for (size_t j = 0; j < k->nparams; j++) p[j] = k->params[j].def;
  p[0] = lr;
  if (at >= 0) p[at] = val;
  const ss_testfn_info *fi = ss_testfn_at(fn);
  float w[2] = {(float)fi->start[0], (float)fi->start[1]}, sl[8] = {0};
  double sc[SS_OPT_SCALARS] = {0};
  ss_traj_opts o = extra ? *extra : (ss_traj_opts){0};
  o.schedule = sched, o.total = (double)steps;
  return ss_trajectory(k, ss_impl_default(), fn, p, k->nparams, &o, steps, w, sl, sc, path, done);
}

TEST(every_optimizer_converges_on_the_quadratic) {
  static const struct {
    const char *name;
    double lr;
    int sched; /* 1: cosine to 0 over the budget (sign methods oscillate at ~lr) */
    size_t budget;
    int at;
    double val;
  } T[] = {
      {"sgd", 0.1, 0, 150, -1, 0},       {"momentum", 0.03, 0, 300, -1, 0},
      {"nesterov", 0.03, 0, 200, -1, 0}, {"adagrad", 1, 0, 500, -1, 0},
      {"adagrad_norm", 1, 0, 1100, -1, 0}, {"rmsprop", 0.03, 1, 2000, -1, 0},
      {"adam", 0.1, 0, 650, -1, 0},      {"adamw", 0.1, 0, 650, -1, 0},
      {"amsgrad", 0.1, 0, 700, -1, 0},   {"adabound", 0.01, 0, 600, -1, 0},
      {"amsbound", 0.01, 0, 600, -1, 0}, {"adabelief", 0.1, 0, 500, -1, 0}, {"adabelief", 0.1, 0, 400, 5, 0} /* rectify 0 */,
      {"lion", 0.03, 1, 2000, -1, 0},    {"sage", 0.03, 1, 2000, -1, 0},
      {"adam_atan2", 0.1, 0, 550, -1, 0}, {"lars", 3, 0, 350, -1, 0},
      {"lamb", 0.03, 0, 500, -1, 0},     {"sam", 0.1, 0, 150, 1, 1e-4},
      {"ema", 0.1, 0, 1150, 1, 0.99},    {"ogda", 0.05, 0, 250, -1, 0},
  };
  static double path[3 * 2000];
  const size_t q = FN("quadratic");
  for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
    size_t done;
    CHECK_STATUS(run(T[i].name, q, T[i].lr, T[i].sched, T[i].budget, T[i].at, T[i].val, NULL, path, &done), SS_OK);
    CHECK(done == T[i].budget, "%s ran all %zu steps (%zu)", T[i].name, T[i].budget, done);
    const double d = hypot(path[3 * (done - 1)], path[3 * (done - 1) + 1]);
    CHECK(d < 1e-3, "%s (lr %g): |w - w*| = %.3g after %zu steps", T[i].name, T[i].lr, d, done);
  }
  /* perpGrad: |w| never decreases */
  size_t done;
  CHECK_STATUS(run("perpgrad", q, 0.1, 0, 500, -1, 0, NULL, path, &done), SS_OK);
  double prev = hypot(-4, 3.5);
  for (size_t i = 0; i < done; i++) {
    const double r = hypot(path[3 * i], path[3 * i + 1]);
    CHECK(r >= prev * (1 - 1e-6), "perpgrad |w| fell at step %zu: %g < %g", i, r, prev);
    prev = r;
  }
  /* SAM with rho = 0.05 settles at distance rho: grad f(w + rho g/|g|) = 0 */
  CHECK_STATUS(run("sam", q, 0.1, 0, 1000, 1, 0.05, NULL, path, &done), SS_OK);
  const double d = hypot(path[3 * 999], path[3 * 999 + 1]);
  CHECK(fabs(d - 0.05) < 1e-3, "sam(rho 0.05) settles at %g from the minimum", d);
}

TEST(optimistic_gda_converges_where_gda_spirals_out) {
  enum { STEPS = 2000 };
  static double path[3 * STEPS];
  const size_t b = FN("bilinear");
  const double r0 = hypot(1.5, 1);
  size_t done;
  CHECK_STATUS(run("sgd", b, 0.1, 0, STEPS, -1, 0, NULL, path, &done), SS_OK);
  CHECK(done == STEPS, "gda ran");
  double prev = r0;
  for (size_t i = 0; i < STEPS; i++) {
    const double r = hypot(path[3 * i], path[3 * i + 1]);
    CHECK(r > prev, "gda radius grows every step (step %zu: %g -> %g)", i, prev, r);
    prev = r;
  }
  CHECK(prev > 100 * r0, "gda radius %g after %d steps", prev, STEPS);
  CHECK_STATUS(run("ogda", b, 0.1, 0, STEPS, -1, 0, NULL, path, &done), SS_OK);
  const double r = hypot(path[3 * (STEPS - 1)], path[3 * (STEPS - 1) + 1]);
  CHECK(r < 1e-3, "ogda ends %g from the equilibrium", r);
}

TEST(schedules) {
  for (double t = 1; t <= 100; t++)
    CHECK(ss_schedule_factor(SS_SCHEDULE_CONSTANT, t, 100, 10, 0.2, 0.1) == 1.0, "constant");
  double prev = 2;
  for (double t = 1; t <= 100; t++) {
    const double c = ss_schedule_factor(SS_SCHEDULE_COSINE, t, 100, 10, 0, 0.1);
    if (t <= 10) CHECK(fabs(c - t / 10) < 1e-15, "warm-up %g", c);
    else CHECK(c <= prev + 1e-15 && c >= 0.1 - 1e-15, "cosine non-increasing in [min, 1]");
    if (t > 10) prev = c;
  }
  CHECK(fabs(ss_schedule_factor(SS_SCHEDULE_COSINE, 100, 100, 10, 0, 0.1) - 0.1) < 1e-15, "cosine ends at min");
  CHECK(fabs(ss_schedule_factor(SS_SCHEDULE_COSINE, 55, 100, 10, 0, 0.0) - 0.5) < 1e-12, "cosine halfway is 1/2");
  for (double t = 11; t <= 80; t++)
    CHECK(ss_schedule_factor(SS_SCHEDULE_WSD, t, 100, 10, 0.2, 0.0) == 1.0, "wsd stable at %g", t);
  CHECK(fabs(ss_schedule_factor(SS_SCHEDULE_WSD, 90, 100, 10, 0.2, 0.0) - 0.5) < 1e-12, "wsd halfway down");
  CHECK(fabs(ss_schedule_factor(SS_SCHEDULE_WSD, 100, 100, 10, 0.2, 0.1) - 0.1) < 1e-12, "wsd ends at min");
  CHECK(strcmp(ss_schedule_name(SS_SCHEDULE_WSD), "wsd") == 0, "names");
}

TEST(trajectory_engine_properties) {
  enum { STEPS = 300 };
  static double one[3 * STEPS], parts[3 * STEPS], other[3 * STEPS];
  const ss_kernel_info *adam = OPT("adam");
  const double p[5] = {0.05, 0.9, 0.999, 1e-8, 0};
  const size_t rb = FN("rosenbrock");
  ss_traj_opts o = {.noise = 2.0, .clip = 50, .seed = 7, .schedule = SS_SCHEDULE_COSINE,
                    .total = STEPS, .warmup = 20};
  FOR_EACH_IMPL(impl) {
    float w[2] = {-1.2f, 1}, sl[4] = {0};
    double sc[SS_OPT_SCALARS] = {0};
    size_t done;
    CHECK_STATUS(ss_trajectory(adam, impl, rb, p, 5, &o, STEPS, w, sl, sc, one, &done), SS_OK);
    CHECK(done == STEPS && sc[0] == STEPS, "ran");
    float w2[2] = {-1.2f, 1}, sl2[4] = {0};
    double sc2[SS_OPT_SCALARS] = {0};
    for (size_t at = 0; at < STEPS; at += 37) {
      const size_t m = STEPS - at < 37 ? STEPS - at : 37;
      CHECK_STATUS(ss_trajectory(adam, impl, rb, p, 5, &o, m, w2, sl2, sc2, parts + 3 * at, &done), SS_OK);
      CHECK(done == m, "chunk");
    }
    CHECK(memcmp(one, parts, sizeof one) == 0, "chunks of 37 steps = one run, bit for bit");
    float w3[2] = {-1.2f, 1}, sl3[4] = {0};
    double sc3[SS_OPT_SCALARS] = {0};
    ss_traj_opts o2 = o;
    o2.seed = 8;
    CHECK_STATUS(ss_trajectory(adam, impl, rb, p, 5, &o2, STEPS, w3, sl3, sc3, other, &done), SS_OK);
    CHECK(memcmp(one, other, sizeof one) != 0, "another seed, another path");
  }
  /* noise is a function of (seed, step): sgd and momentum see the same
     noise, so with momentum 0 their paths are identical */
  {
    static double a[3 * STEPS], b[3 * STEPS];
    size_t da, db;
    ss_traj_opts on = {.noise = 1.0, .seed = 3};
    CHECK_STATUS(run("sgd", FN("quadratic"), 0.01, 0, STEPS, -1, 0, &on, a, &da), SS_OK);
    CHECK_STATUS(run("momentum", FN("quadratic"), 0.01, 0, STEPS, 1, 0.0, &on, b, &db), SS_OK);
    CHECK(memcmp(a, b, sizeof a) == 0, "same noise for every optimizer");
  }
  /* clipping: every sgd step is at most lr * clip */
  {
    size_t done;
    ss_traj_opts oc = {.clip = 0.5};
    CHECK_STATUS(run("sgd", rb, 0.01, 0, STEPS, -1, 0, &oc, one, &done), SS_OK);
    double px = -1.2, py = 1;
    for (size_t i = 0; i < done; i++) {
      const double step = hypot(one[3 * i] - px, one[3 * i + 1] - py);
      CHECK(step <= 0.01 * 0.5 + 1e-6, "step %zu: %g > lr clip (+ float rounding of w)", i, step);
      px = one[3 * i], py = one[3 * i + 1];
    }
  }
  /* divergence ends the run early, without an error */
  {
    size_t done = 99;
    CHECK_STATUS(run("sgd", rb, 1.0, 0, STEPS, -1, 0, NULL, one, &done), SS_OK);
    CHECK(done < 20, "sgd lr 1 on rosenbrock diverges within 20 steps (%zu)", done);
    for (size_t i = 0; i < 3 * done; i++) CHECK(isfinite(one[i]), "recorded points are finite");
  }
  /* ema reports its average, which lags the iterate */
  {
    const ss_kernel_info *k = OPT("ema");
    float w[2] = {-4, 3.5f}, sl[2] = {0};
    double sc[SS_OPT_SCALARS] = {0};
    size_t done;
    ss_traj_opts o0 = {0};
    CHECK_STATUS(ss_trajectory(k, ss_impl_default(), FN("quadratic"), (double[]){0.05, 0.9}, 2, &o0, 50, w, sl, sc, one, &done), SS_OK);
    CHECK(one[3 * 49] == sl[0] && one[3 * 49 + 1] == sl[1], "the reported point is the average");
    CHECK(hypot(one[3 * 49], one[3 * 49 + 1]) > hypot(w[0], w[1]), "the average lags the iterate");
  }
  /* bad options */
  {
    float w[2] = {0, 0}, sl[4] = {0};
    double sc[SS_OPT_SCALARS] = {0};
    size_t done;
    ss_traj_opts bad = {.noise = -1};
    CHECK_STATUS(ss_trajectory(adam, SS_IMPL_SCALAR, rb, p, 5, &bad, 10, w, sl, sc, one, &done), SS_ERR_PARAM_RANGE);
    bad = (ss_traj_opts){.schedule = 1, .total = 0};
    CHECK_STATUS(ss_trajectory(adam, SS_IMPL_SCALAR, rb, p, 5, &bad, 10, w, sl, sc, one, &done), SS_ERR_PARAM_RANGE);
    bad = (ss_traj_opts){.seed = 0.5};
    CHECK_STATUS(ss_trajectory(adam, SS_IMPL_SCALAR, rb, p, 5, &bad, 10, w, sl, sc, one, &done), SS_ERR_PARAM_RANGE);
    ss_traj_opts good = {0};
    CHECK_STATUS(ss_trajectory(adam, SS_IMPL_SCALAR, 99, p, 5, &good, 10, w, sl, sc, one, &done), SS_ERR_UNKNOWN_KERNEL);
    CHECK_STATUS(ss_trajectory(adam, SS_IMPL_SCALAR, rb, (double[]){-1, 0.9, 0.999, 1e-8, 0}, 5, &good, 10, w, sl, sc, one, &done),
                 SS_ERR_PARAM_RANGE);
    w[0] = NAN;
    CHECK_STATUS(ss_trajectory(adam, SS_IMPL_SCALAR, rb, p, 5, &good, 10, w, sl, sc, one, &done), SS_ERR_NAN);
    w[0] = 0;
    CHECK_STATUS(ss_trajectory(adam, SS_IMPL_SCALAR, rb, p, 5, &good, 10, w, NULL, sc, one, &done), SS_ERR_NULL);
    CHECK_STATUS(ss_trajectory(ss_kernel_find("softmax", SS_FAMILY_NORMALIZER), SS_IMPL_SCALAR, rb, NULL, 0, &good, 10, w, sl, sc, one, &done),
                 SS_ERR_FAMILY);
  }
}
