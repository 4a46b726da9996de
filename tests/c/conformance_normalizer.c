/*
 * Conformance tester of every registered normalizer (registry-driven; see
 * conformance.h). For each kernel, each parameter case (defaults, min, max,
 * just inside each bound, seeded random values, all-random vectors) and
 * each input kind, at the lengths below:
 *   - scalar and SIMD return the same status; in-range parameters on
 *     moderate data give SS_OK (or a size / mask status), on extreme data
 *     also SS_ERR_DOMAIN; never another status;
 *   - on SS_OK every output is finite (log_probs: -Inf exactly at masked
 *     entries), probabilities are >= 0 and sum to 1 within NORM_SUM,
 *     masked (-Inf) entries are exactly +0, no output is subnormal (the
 *     exact-zero rule), and SIMD agrees with scalar:
 *       probs / weights: |y_simd - y_scalar| <= NORM_REL |y_scalar| + NORM_ABS max|y_scalar|
 *       log_probs:       |y_simd - y_scalar| <= NORM_REL (|y_scalar| + 1)
 *   - every n from 0 to 67 and n = 65539 with the defaults;
 *   - bad inputs get their status (NaN, +Inf, NaN with +Inf, all -Inf,
 *     NULL, n = 0, n > SS_MAX_N, every invalid parameter, wrong count, wrong
 *     family, unknown impl) and leave y untouched; the VJPs reject invalid
 *     parameters alike;
 *   - the VJP agrees with central differences of the forward along random
 *     directions (and the parameter VJP with differences in the parameter),
 *     within FD_TOL, wherever the differences at h and h/2 agree (a kink
 *     or support change in between makes them disagree: skipped, counted).
 */
#include <stdlib.h>

#include "family_adapter.h"
#include "fd.h"

/* Stated bounds (measured worst over this file in brackets). */
#define NORM_REL 0x1p-16 /* SIMD vs scalar, relative part */
#define NORM_ABS 0x1p-18 /* SIMD vs scalar, share of the row's largest output */
#define NORM_SUM 0x1p-16 /* |sum y - 1| for probabilities */
#define FD_TOL 2e-3      /* finite differences vs the VJP, relative */
#define FD_STEP 2e-3     /* steps h, h/2, h/4 of the differences */
#define FD_NOISE 0x1p-21 /* rounding of L = <g, y> per unit of sum |g y| */
#define VJP_SIMD 0x1p-10 /* SIMD vs scalar VJP, share of max |dx| (conditioning: b x, x / T) */

static const size_t PARAM_NS[] = {1, 2, 3, 4, 7, 16, 17, 33, 67, 1000};
#define NPARAM_NS (sizeof PARAM_NS / sizeof PARAM_NS[0])

typedef struct {
  double worst_simd; /* worst ratio to the SIMD bound */
  char worst_what[160];
} norm_stats;

/* Checks one successful output; reports and returns false on a violation. */
static bool check_output(const ss_kernel_info *k, const float *x, const float *y, size_t n,
                         const char *what) {
  double sum = 0.0;
  float xmax = -INFINITY;
  for (size_t i = 0; i < n; i++) xmax = fmaxf(xmax, x[i]);
  for (size_t i = 0; i < n; i++) {
    const bool masked = x[i] == -INFINITY;
    if (k->output == SS_OUTPUT_LOG_PROBS) {
      /* -Inf also where the exact log-probability is below -FLT_MAX */
      const bool overflows = (double)x[i] - (double)xmax < -FLT_MAX;
      if (masked || (overflows && y[i] == -INFINITY) ? y[i] != -INFINITY
                                                      : !isfinite(y[i]) || y[i] > 1e-6f) {
        ss_test_fail(__FILE__, __LINE__, "%s %s: log-prob y[%zu] = %g (x = %g)", k->name, what, i,
                     y[i], x[i]);
        return false;
      }
      continue;
    }
    if (!isfinite(y[i]) || (masked && (y[i] != 0.0f || signbit(y[i])))) {
      ss_test_fail(__FILE__, __LINE__, "%s %s: y[%zu] = %g (x = %g)", k->name, what, i, y[i], x[i]);
      return false;
    }
    if (k->output == SS_OUTPUT_PROBS && y[i] < 0.0f) {
      ss_test_fail(__FILE__, __LINE__, "%s %s: negative probability y[%zu] = %g", k->name, what, i,
                   y[i]);
      return false;
    }
    sum += y[i];
  }
  if (k->output == SS_OUTPUT_PROBS && !(fabs(sum - 1.0) <= NORM_SUM)) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: sum y - 1 = %.3g", k->name, what, n, sum - 1.0);
    return false;
  }
  size_t at;
  if (k->output != SS_OUTPUT_LOG_PROBS && !cf_no_subnormal(y, n, &at)) {
    ss_test_fail(__FILE__, __LINE__, "%s %s: y[%zu] = %a is subnormal or -0 (exact-zero rule)",
                 k->name, what, at, y[at]);
    return false;
  }
  return true;
}

/* One call in every impl: same status, allowed status, checked output,
   SIMD within the bound. Returns false after reporting. */
static bool run_case(const ss_kernel_info *k, const float *x, size_t n, const double *p,
                     bool extreme, float *y0, float *y1, const char *what, cf_count *cnt,
                     norm_stats *st) {
  const ss_status s0 = ss_normalize(k, SS_IMPL_SCALAR, x, n, p, k->nparams, y0);
  cnt->calls++;
  if (!cf_scalar_status(k, s0, cf_status_allowed(s0, extreme), what, n, p)) return false;
  if (s0 == SS_OK) {
    cnt->ok++;
    if (!check_output(k, x, y0, n, what)) return false;
  }
  if (!cf_has_simd()) return true;
  const ss_status s1 = ss_normalize(k, SS_IMPL_SIMD, x, n, p, k->nparams, y1);
  cnt->calls++;
  if (s1 != s0) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: scalar %s, SIMD %s", k->name, what, n,
                 ss_status_name(s0), ss_status_name(s1));
    cf_print_params(k, p);
    return false;
  }
  if (s0 != SS_OK) return true;
  if (!check_output(k, x, y1, n, what)) return false;
  size_t at = 0;
  const bool logp = k->output == SS_OUTPUT_LOG_PROBS;
  /* the same exact zeros in every impl (weights: y_i = x_i p_i, scale x) */
  if (!logp && !cf_same_support(y0, y1, k->output == SS_OUTPUT_WEIGHTS ? x : NULL, n, &at)) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: support differs at y[%zu]: scalar %a, SIMD %a (x %a)",
                 k->name, what, n, at, y0[at], y1[at], x[at]);
    cf_print_params(k, p);
    return false;
  }
  double r = 0.0;
  const double ymax = cf_max_abs(y0, n);
  for (size_t i = 0; i < n; i++) {
    const double b = y0[i], a = y1[i];
    if (a == b) continue;
    const double bound = logp ? NORM_REL * (fabs(b) + 1.0) : NORM_REL * fabs(b) + NORM_ABS * ymax;
    const double ri = fabs(a - b) / bound;
    if (ri > r) r = ri, at = i;
  }
  if (r > st->worst_simd) {
    st->worst_simd = r;
    snprintf(st->worst_what, sizeof st->worst_what, "%s n=%zu", what, n);
  }
  if (r > 1.0) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: SIMD y[%zu] = %.9g, scalar %.9g (%.3g x bound)",
                 k->name, what, n, at, y1[at], y0[at], r);
    for (size_t i = 0; i < n && i < 8; i++)
      printf("      x[%zu] = %a  scalar %a  SIMD %a\n", i, x[i], y0[i], y1[i]);
    return false;
  }
  return true;
}

static bool is_normalizer(const ss_kernel_info *k) { return k->family == SS_FAMILY_NORMALIZER; }

/* The buffers of the params and lengths sweeps, and the kernel's worst
   SIMD difference so far. */
typedef struct {
  float *x, *y0, *y1;
  norm_stats st;
} norm_sweep;

static norm_sweep sweep_alloc(size_t n) {
  norm_sweep w = {ss_test_alloc(n * 4), ss_test_alloc(n * 4), ss_test_alloc(n * 4), {0, {0}}};
  return w;
}

static void sweep_begin(const ss_kernel_info *k, void *ctx) {
  (void)k;
  norm_sweep *w = ctx;
  w->st = (norm_stats){0, {0}};
}

/* One sweep run: an input of the run's kind, then run_case. */
static bool sweep_run(const cf_run *r, void *ctx, cf_count *cnt) {
  norm_sweep *w = ctx;
  cf_fill(w->x, r->n, r->k->input, r->kind, false, r->seed);
  return run_case(r->k, w->x, r->n, r->p, r->extreme, w->y0, w->y1, r->what, cnt, &w->st);
}

/* After a kernel's parameter cases: the defaults on moderate data must work. */
static bool params_end(const ss_kernel_info *k, bool ok, void *ctx, cf_count *cnt) {
  (void)cnt;
  norm_sweep *w = ctx;
  double p[CF_MAX_PARAMS];
  cf_defaults(k, 67, p);
  cf_fill(w->x, 67, k->input, CF_NORMAL, false, 1);
  if (ok && ss_normalize(k, SS_IMPL_SCALAR, w->x, 67, p, k->nparams, w->y0) != SS_OK) {
    ss_test_fail(__FILE__, __LINE__, "%s: defaults fail on N(0, 1) logits at n = 67", k->name);
    ok = false;
  }
  if (getenv("CF_VERBOSE"))
    printf("    %-22s worst SIMD/bound %.3g at %s\n", k->name, w->st.worst_simd, w->st.worst_what);
  return ok;
}

/* Every parameter case x every input kind at the PARAM_NS lengths. */
TEST(conformance_normalizer_params) {
  norm_sweep w = sweep_alloc(PARAM_NS[NPARAM_NS - 1]);
  const cf_sweep s = {.family = SS_FAMILY_NORMALIZER, .run = sweep_run, .ctx = &w,
                      .begin = sweep_begin, .end = params_end};
  CHECK(CF_PARAMS_SWEEP("normalizer params", &s, PARAM_NS, 100, 4, 4), "see above");
}

/* The defaults at every n from 0 to 67 and at a large n, every input kind. */
TEST(conformance_normalizer_lengths) {
  norm_sweep w = sweep_alloc(CF_LARGE_N);
  const cf_sweep s = {.family = SS_FAMILY_NORMALIZER, .run = sweep_run, .ctx = &w,
                      .length_seed = 3, .begin = sweep_begin, .adapter = &cf_normalizer_adapter};
  CHECK(cf_lengths_sweep("normalizer lengths", &s), "see above");
}

/* Masking: -Inf entries at random places (and all but one) get exactly +0
   (-Inf for log-probabilities); checked by run_case on every kind, here on
   rows where most entries are masked, including the maximum's neighbours. */
TEST(conformance_normalizer_masking) {
  cf_count cnt = {0};
  enum { N = 67 };
  float x[N], y0[N], y1[N];
  bool all_ok = true;
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *k = ss_kernel_at(ki);
    if (!is_normalizer(k)) continue;
    cnt.kernels++;
    norm_stats st = {0, {0}};
    bool ok = true;
    for (size_t n = 1; n <= N && ok; n += (n < 8 ? 1 : 11)) {
      double p[CF_MAX_PARAMS];
      cf_defaults(k, n, p);
      for (int pattern = 0; pattern < 4 && ok; pattern++) {
        ss_rng r = {n * 31 + (uint64_t)pattern};
        for (size_t i = 0; i < n; i++) {
          const bool masked = pattern == 0   ? i != n / 2            /* all but one */
                              : pattern == 1 ? i % 2 == 1            /* every other */
                              : pattern == 2 ? ss_rng_u64(&r) % 4 != 0 /* most */
                                             : i == 0 || i + 1 == n; /* the ends */
          x[i] = masked ? -INFINITY : (float)(2.0 * ss_rng_normal(&r));
        }
        if (pattern == 3 && n <= 2) x[0] = 1.0f;
        x[n / 2] = x[n / 2] == -INFINITY ? 0.5f : x[n / 2];
        char what[64];
        snprintf(what, sizeof what, "[defaults, mask pattern %d]", pattern);
        ok = run_case(k, x, n, p, false, y0, y1, what, &cnt, &st);
      }
    }
    all_ok &= ok;
  }
  cf_report("normalizer masking", &cnt);
  CHECK(all_ok, "see above");
}

/* The normalizer's own bad inputs (beyond cf_bad_input_battery): all -Inf
   at every few lengths, the VJPs checking the parameters like the forward
   and their own g / NULL / empty arguments, and ss_measure refusing a
   normalizer. */
static bool normalizer_extra(const cf_adapter *a, const ss_kernel_info *k, ss_impl impl,
                             float *const rows[CF_ROWS], size_t N, const double *p, size_t np) {
  bool ok = true;
  float *x = rows[0];
  const float *const in[CF_ROWS] = {x, NULL};
  double pn[CF_MAX_PARAMS + 1];
  for (size_t i = 0; i < N; i++) x[i] = -INFINITY;
  for (size_t n = 1; n <= N && ok; n += 4) {
    cf_defaults(k, n, pn);
    ok &= cf_expect(a, k, impl, in, n, pn, np, SS_ERR_ALL_MASKED, "all -Inf");
  }
  cf_fill(x, N, SS_INPUT_LOGITS, CF_NORMAL, false, 6);
  size_t cap;
  cf_case *cases = cf_cases_alloc(&cap);
  const size_t nc = cf_invalid_cases(k, N, cases, cap);
  float y0[CF_OUT_N], g0[CF_OUT_N], db[CF_OUT_N];
  double dp[CF_MAX_PARAMS];
  for (size_t i = 0; i < N; i++) g0[i] = 0.25f;
  ss_normalize(k, impl, x, N, p, np, y0);
  for (size_t c = 0; c < nc && ok && k->has_backward; c++) {
    /* the VJPs check the parameters alike */
    cf_poison(db, N);
    dp[0] = 7.0;
    const ss_status sv = ss_normalize_vjp(k, impl, x, y0, g0, N, cases[c].p, np, db);
    const ss_status sp = k->has_param_backward
                             ? ss_normalize_param_vjp(k, impl, x, y0, g0, N, cases[c].p, np, dp)
                             : cases[c].want;
    if (sv != cases[c].want || sp != cases[c].want || !cf_untouched(db, N) || dp[0] != 7.0) {
      ss_test_fail(__FILE__, __LINE__, "%s %s %s: vjp %s, param vjp %s, want %s%s", k->name,
                   ss_impl_name(impl), cases[c].what, ss_status_name(sv), ss_status_name(sp),
                   ss_status_name(cases[c].want), cf_untouched(db, N) ? "" : " (dx written)");
      ok = false;
    }
  }
  double out;
  if (ss_measure(k, impl, x, NULL, N, p, np, &out) != SS_ERR_FAMILY) {
    ss_test_fail(__FILE__, __LINE__, "%s: ss_measure on a normalizer", k->name);
    ok = false;
  }
  if (k->has_backward) {
    float y[CF_OUT_N], g[CF_OUT_N], dx[CF_OUT_N];
    ss_normalize(k, impl, x, N, p, np, y);
    for (size_t i = 0; i < N; i++) g[i] = 1.0f;
    g[3] = NAN;
    cf_poison(dx, N);
    const ss_status s = ss_normalize_vjp(k, impl, x, y, g, N, p, np, dx);
    g[3] = INFINITY;
    const ss_status s2 = ss_normalize_vjp(k, impl, x, y, g, N, p, np, dx);
    if (s != SS_ERR_NAN || s2 != SS_ERR_NONFINITE || !cf_untouched(dx, N)) {
      ss_test_fail(__FILE__, __LINE__, "%s %s vjp: NaN g %s, Inf g %s", k->name,
                   ss_impl_name(impl), ss_status_name(s), ss_status_name(s2));
      ok = false;
    }
    if (ss_normalize_vjp(k, impl, x, NULL, g, N, p, np, dx) != SS_ERR_NULL ||
        ss_normalize_vjp(k, impl, x, y, g, 0, p, np, dx) != SS_ERR_EMPTY) {
      ss_test_fail(__FILE__, __LINE__, "%s vjp: NULL / empty", k->name);
      ok = false;
    }
  } else {
    float d[CF_OUT_N];
    if (ss_normalize_vjp(k, impl, x, x, x, N, p, np, d) != SS_ERR_NO_BACKWARD) {
      ss_test_fail(__FILE__, __LINE__, "%s: vjp without a backward", k->name);
      ok = false;
    }
  }
  return ok;
}

TEST(conformance_normalizer_bad_inputs) {
  static const size_t where[] = {0, 5, 16, 31, 33, 36};
  CHECK(CF_FAMILY_BAD_INPUTS(&cf_normalizer_adapter, 37, where, normalizer_extra, 0), "see above");
}

/* ---- finite differences ---------------------------------------------------- */

/* L = sum g_i y_i(x; p) in double, from the scalar forward; NAN on failure. */
static double objective(const ss_kernel_info *k, const float *x, size_t n, const double *p,
                        const float *g, float *y) {
  if (ss_normalize(k, SS_IMPL_SCALAR, x, n, p, k->nparams, y) != SS_OK) return NAN;
  double l = 0.0;
  for (size_t i = 0; i < n; i++)
    if (x[i] != -INFINITY) l += (double)g[i] * y[i];
  return l;
}

/* L as a function of x (at c->p) or of the parameters (at c->x), for the
   differences. */
typedef struct {
  const ss_kernel_info *k;
  const float *x;
  size_t n;
  const double *p;
  const float *g;
  float *y;
} objective_ctx;
static double objective_of_x(const float *x, size_t n, const void *ctx) {
  const objective_ctx *c = ctx;
  return objective(c->k, x, n, c->p, c->g, c->y);
}
static double objective_of_p(const double *p, size_t np, const void *ctx) {
  (void)np;
  const objective_ctx *c = ctx;
  return objective(c->k, c->x, c->n, p, c->g, c->y);
}

/* One backward check at (x, p): the VJP of both impls along 3 random
   directions and, for float parameters, the parameter VJP. Returns false
   after reporting a failure; counts checks and skips. */
#define BWD_MAX_N 64
static bool check_backward(const ss_kernel_info *k, const float *x, size_t n, const double *p,
                           uint64_t seed, const char *what, cf_count *cnt) {
  float y[BWD_MAX_N], g[BWD_MAX_N], dx[BWD_MAX_N], dx0[BWD_MAX_N], v[BWD_MAX_N],
      xp[2 * BWD_MAX_N], yt[BWD_MAX_N];
  ss_rng r = {seed};
  /* g = 0 on masked entries: L stays finite for log-probabilities */
  for (size_t i = 0; i < n; i++) g[i] = x[i] == -INFINITY ? 0.0f : (float)ss_rng_normal(&r);
  bool ok = true;
  double gmax = 0.0;
  for (size_t i = 0; i < n; i++) gmax = fmax(gmax, fabs(g[i]));
  /* both impls' VJPs at the scalar forward's y: the VJP's own arithmetic
     (the forwards are compared elsewhere; near-zero y of a large alpha turn
     their small differences into large ones in y^{2 - alpha}) */
  if (ss_normalize(k, SS_IMPL_SCALAR, x, n, p, k->nparams, y) != SS_OK) return true;
  FOR_EACH_IMPL(impl) {
    const ss_status s = ss_normalize_vjp(k, impl, x, y, g, n, p, k->nparams, dx);
    if (s != SS_OK) {
      ss_test_fail(__FILE__, __LINE__, "%s %s %s: vjp status %s", k->name, ss_impl_name(impl),
                   what, ss_status_name(s));
      return false;
    }
    for (size_t i = 0; i < n; i++)
      if (!isfinite(dx[i]) ||
          (x[i] == -INFINITY && dx[i] != 0.0f && k->output != SS_OUTPUT_LOG_PROBS)) {
        ss_test_fail(__FILE__, __LINE__, "%s %s %s: dx[%zu] = %g (x = %g)", k->name,
                     ss_impl_name(impl), what, i, dx[i], x[i]);
        return false;
      }
    if (impl == SS_IMPL_SCALAR) {
      memcpy(dx0, dx, n * 4);
      continue;
    }
    const double scale = cf_max_abs(dx0, n) + 1e-6 * gmax;
    for (size_t i = 0; i < n; i++)
      if (fabs((double)dx[i] - dx0[i]) > VJP_SIMD * scale + 0x1p-16 * gmax) {
        ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: SIMD dx[%zu] = %.9g, scalar %.9g (y %a)",
                     k->name, what, n, i, dx[i], dx0[i], y[i]);
        return false;
      }
  }
  /* directional differences of the scalar forward, Richardson-extrapolated
     from steps h and h/2; the rounding of L (float outputs) sets the floor */
  double gy = 0.0;
  ss_normalize(k, SS_IMPL_SCALAR, x, n, p, k->nparams, yt);
  for (size_t i = 0; i < n; i++)
    if (x[i] != -INFINITY) gy += fabs((double)g[i] * yt[i]);
  const objective_ctx oc = {k, x, n, p, g, yt};
  for (int dir = 0; dir < 3 && ok; dir++) {
    for (size_t i = 0; i < n; i++) v[i] = (ss_rng_u64(&r) & 1) ? 1.0f : -1.0f;
    double f[3], pred[3];
    for (int s = 0; s < 3; s++)
      f[s] = fd_along32(objective_of_x, &oc, x, n, v, FD_STEP / (1 << s), dx0, &pred[s], xp);
    const double noise = FD_NOISE * gy / (FD_STEP / 4);
    const double smooth = 0.1 * FD_TOL * fabs(pred[1]) + noise;
    if (!fd_steady(f, smooth)) {
      cnt->fd_skipped++; /* not smooth at this scale: a kink, or a support change */
      continue;
    }
    cnt->fd_checked++;
    if (!fd_agrees(pred[1], f[1], FD_TOL, fabs(pred[1]), noise)) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: <dx, v> = %.9g, differences %.9g %.9g %.9g",
                   k->name, what, n, pred[1], f[0], f[1], f[2]);
      for (size_t i = 0; i < n && i < 8; i++)
        printf("      x[%zu] = %a  g = %a  v = %g  dx = %.9g\n", i, x[i], g[i], v[i], dx0[i]);
      ok = false;
    }
  }
  if (!ok || !k->has_param_backward) return ok;
  double dp[CF_MAX_PARAMS];
  if (ss_normalize(k, SS_IMPL_SCALAR, x, n, p, k->nparams, y) != SS_OK) return ok;
  const ss_status s = ss_normalize_param_vjp(k, SS_IMPL_SCALAR, x, y, g, n, p, k->nparams, dp);
  if (s != SS_OK) {
    ss_test_fail(__FILE__, __LINE__, "%s %s: param vjp status %s", k->name, what, ss_status_name(s));
    return false;
  }
  /* every impl's parameter gradient against the differences below */
  double dq[SS_IMPL_COUNT][CF_MAX_PARAMS];
  FOR_EACH_IMPL(impl) {
    if (ss_normalize_param_vjp(k, impl, x, y, g, n, p, k->nparams, dq[impl]) != SS_OK) {
      ss_test_fail(__FILE__, __LINE__, "%s %s: SIMD param vjp failed", k->name, what);
      return false;
    }
    for (size_t i = 0; i < k->nparams; i++)
      if (!isfinite(dq[impl][i])) {
        ss_test_fail(__FILE__, __LINE__, "%s %s: %s dparam[%zu] = %g", k->name, what,
                     ss_impl_name(impl), i, dq[impl][i]);
        return false;
      }
  }
  for (size_t i = 0; i < k->nparams; i++) {
    const ss_param_info *pi = &k->params[i];
    if (pi->type != SS_PARAM_FLOAT) {
      if (dp[i] != 0.0) {
        ss_test_fail(__FILE__, __LINE__, "%s: dparam of int/bool %s = %g", k->name, pi->name, dp[i]);
        return false;
      }
      continue;
    }
    double q[CF_MAX_PARAMS], est[3];
    const double h0 = FD_STEP * fmax(fabs(p[i]), 1.0);
    const bool valid = p[i] - h0 > pi->min && p[i] + h0 < pi->max;
    memcpy(q, p, k->nparams * sizeof *q);
    for (int t = 0; t < 3 && valid; t++)
      est[t] = fd_central64(objective_of_p, &oc, q, k->nparams, i, h0 / (1 << t));
    const double noise = FD_NOISE * gy / (h0 / 4);
    const double smooth = 0.1 * FD_TOL * fabs(dp[i]) + noise;
    if (!valid || !fd_steady(est, smooth)) {
      cnt->fd_skipped++;
      continue;
    }
    cnt->fd_checked++;
    FOR_EACH_IMPL(impl) {
      if (!fd_agrees(dq[impl][i], est[1], FD_TOL, fabs(dp[i]), noise)) {
        ss_test_fail(__FILE__, __LINE__, "%s %s %s n=%zu: d/d%s = %.9g, differences %.9g %.9g %.9g",
                     k->name, ss_impl_name(impl), what, n, pi->name, dq[impl][i], est[0], est[1],
                     est[2]);
        return false;
      }
    }
  }
  return ok;
}

/* One backward run: an input of the run's kind, then check_backward. */
static bool backward_run(const cf_run *r, void *ctx, cf_count *cnt) {
  (void)ctx;
  float x[BWD_MAX_N];
  cf_fill(x, r->n, r->k->input, r->kind, false, r->seed);
  return check_backward(r->k, x, r->n, r->p, 5 * r->c + r->t, r->what, cnt);
}

TEST(conformance_normalizer_backward) {
  static const size_t ns[] = {1, 2, 3, 5, 8, 17, 40};
  const cf_sweep s = {.family = SS_FAMILY_NORMALIZER, .run = backward_run, .backward_only = true,
                      .kinds = CF_KIND_BIT(CF_NORMAL) | CF_KIND_BIT(CF_MASKED),
                      .seed_stride = 17, .min_fd_checked = 10};
  CHECK(CF_PARAMS_SWEEP("normalizer backward", &s, ns, 300, 1, 2), "see above");
}
