/*
 * Conformance tester of every registered optimizer (registry-driven; see
 * conformance.h). For each kernel, each parameter case and each input kind
 * at the lengths below, STEPS steps from a zero state:
 *   - scalar and SIMD give the same status; in-range parameters on moderate
 *     weights and gradients give SS_OK (or a size status); extreme ones may
 *     also get SS_ERR_DOMAIN (a step that overflows float);
 *   - on SS_OK: w and the state finite, the step counter advanced by one;
 *   - SIMD vs scalar: |w_simd - w_scalar| <= OPT_REL (|w_scalar| + |w0| +
 *     |w_scalar - w0|) per entry, w0 the weights before the steps (element-
 *     wise updates are bit-identical; those with a norm differ in its
 *     summation order);
 *   - every n from 0 to 67 and n = 65539 with the defaults;
 *   - bad inputs get their status and leave w, the state and the counter
 *     untouched: the shared battery through the optimizer's adapter
 *     (family_adapter.h: NaN / +-Inf in w or g, NULL w / g / outputs,
 *     n = 0, n > SS_MAX_N, every invalid parameter, wrong count, impls),
 *     then a NULL state or scalars and a step counter that is negative,
 *     fractional or >= 2^53.
 */
#include "family_adapter.h"

#define STEPS 3
#define OPT_REL 0x1p-16

static const size_t PARAM_NS[] = {1, 2, 3, 5, 16, 17, 67, 256};
#define NPARAM_NS (sizeof PARAM_NS / sizeof PARAM_NS[0])

typedef struct {
  float *w, *g, *slots;
  double sc[SS_OPT_SCALARS];
} run_state;

static run_state state_alloc(const ss_kernel_info *k, size_t n) {
  run_state s;
  s.w = ss_test_alloc(n * 4);
  s.g = ss_test_alloc(n * 4);
  s.slots = ss_test_alloc((ss_opt_state_size(k, n) + 1) * 4);
  return s;
}

/* STEPS steps in one impl from (w0, zero state) with gradients derived from
   g0 (scaled per step); returns the first non-OK status, *at the step. */
static ss_status steps(const ss_kernel_info *k, ss_impl impl, const float *w0, const float *g0,
                       size_t n, const double *p, run_state *s, cf_count *cnt, int *at) {
  memcpy(s->w, w0, n * 4);
  memset(s->slots, 0, ss_opt_state_size(k, n) * 4);
  memset(s->sc, 0, sizeof s->sc);
  for (int t = 0; t < STEPS; t++) {
    for (size_t i = 0; i < n; i++) s->g[i] = t == 0 ? g0[i] : (t == 1 ? -0.5f : 0.25f) * g0[i];
    const double before = s->sc[0];
    const ss_status st = ss_optimize(k, impl, s->w, s->g, n, p, k->nparams, s->slots, s->sc);
    cnt->calls++;
    *at = t + 1;
    if (st != SS_OK) return st;
    if (s->sc[0] != before + 1.0) return SS_STATUS_COUNT; /* reported by the caller */
  }
  return SS_OK;
}

static bool finite_all(const float *v, size_t n, size_t *at) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i])) {
      *at = i;
      return false;
    }
  return true;
}

static bool run_case(const ss_kernel_info *k, const float *w0, const float *g0, size_t n,
                     const double *p, bool extreme, run_state *a, run_state *b, const char *what,
                     cf_count *cnt) {
  int at0 = 0, at1 = 0;
  const ss_status s0 = steps(k, SS_IMPL_SCALAR, w0, g0, n, p, a, cnt, &at0);
  /* the first step from moderate data must work; later ones may overflow
     (SS_ERR_DOMAIN) when lr and weight decay at the top of their ranges
     make the iteration diverge */
  if (!cf_status_allowed(s0, extreme || at0 > 1)) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: scalar status %s", k->name, what, n,
                 s0 == SS_STATUS_COUNT ? "OK without counting the step" : ss_status_name(s0));
    cf_print_params(k, p);
    return false;
  }
  size_t at;
  if (s0 == SS_OK) {
    cnt->ok++;
    if (!finite_all(a->w, n, &at) || !finite_all(a->slots, ss_opt_state_size(k, n), &at)) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: w or state not finite at %zu after SS_OK",
                   k->name, what, n, at);
      return false;
    }
  }
  if (!cf_has_simd()) return true;
  const ss_status s1 = steps(k, SS_IMPL_SIMD, w0, g0, n, p, b, cnt, &at1);
  if (s1 != s0 || at1 != at0) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: scalar %s, SIMD %s", k->name, what, n,
                 ss_status_name(s0), ss_status_name(s1));
    cf_print_params(k, p);
    return false;
  }
  if (s0 != SS_OK) return true;
  for (size_t i = 0; i < n; i++) {
    const double ws = a->w[i], wv = b->w[i], wi = w0[i];
    if (fabs(wv - ws) > OPT_REL * (fabs(ws) + fabs(wi) + fabs(ws - wi))) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: SIMD w[%zu] = %.9g, scalar %.9g (w0 %.9g)",
                   k->name, what, n, i, wv, ws, wi);
      return false;
    }
  }
  return true;
}

/* Weights and gradients of a kind: both of either sign. */
static void fill(float *w, float *g, size_t n, int kind, uint64_t seed) {
  cf_fill(w, n, SS_INPUT_VALUES, kind, false, seed);
  cf_fill(g, n, SS_INPUT_VALUES, kind, false, seed + 77);
}

/* The buffers of the params and lengths sweeps: the weights and gradients
   of the cases, and the two impls' runs (their state sized per kernel). */
typedef struct {
  size_t nmax;
  float *w0, *g0;
  run_state a, b;
} opt_sweep;

static opt_sweep sweep_alloc(size_t n) {
  opt_sweep w = {.nmax = n, .w0 = ss_test_alloc(n * 4), .g0 = ss_test_alloc(n * 4)};
  return w;
}

static void sweep_begin(const ss_kernel_info *k, void *ctx) {
  opt_sweep *w = ctx;
  w->a = state_alloc(k, w->nmax);
  w->b = state_alloc(k, w->nmax);
}

/* One sweep run: weights and gradients of the run's kind, then run_case. */
static bool sweep_run(const cf_run *r, void *ctx, cf_count *cnt) {
  opt_sweep *w = ctx;
  fill(w->w0, w->g0, r->n, r->kind, r->seed);
  return run_case(r->k, w->w0, w->g0, r->n, r->p, r->extreme, &w->a, &w->b, r->what, cnt);
}

TEST(conformance_optimizer_params) {
  opt_sweep w = sweep_alloc(PARAM_NS[NPARAM_NS - 1]);
  const cf_sweep s = {.family = SS_FAMILY_OPTIMIZER, .run = sweep_run, .ctx = &w,
                      .begin = sweep_begin};
  CHECK(CF_PARAMS_SWEEP("optimizer params", &s, PARAM_NS, 600, 4, 4), "see above");
}

TEST(conformance_optimizer_lengths) {
  opt_sweep w = sweep_alloc(CF_LARGE_N);
  const cf_sweep s = {.family = SS_FAMILY_OPTIMIZER, .run = sweep_run, .ctx = &w,
                      .length_seed = CF_SEED_BY_KIND, .begin = sweep_begin,
                      .adapter = &cf_optimizer_adapter};
  CHECK(cf_lengths_sweep("optimizer lengths", &s), "see above");
}

/* One bad call the adapter cannot make (a NULL state or scalars, a step
   counter given): its status, and w, the state and the counter untouched. */
static bool expect(const ss_kernel_info *k, ss_impl impl, float *w, const float *g, size_t n,
                   const double *p, size_t np, float *slots, double *sc, ss_status want,
                   const char *what) {
  ss_test_count(1);
  float wkeep[CF_OUT_N], skeep[4 * CF_OUT_N];
  double sckeep[SS_OPT_SCALARS];
  const size_t ns = ss_opt_state_size(k, n);
  memcpy(wkeep, w, n * 4);
  if (slots) memcpy(skeep, slots, ns * 4);
  if (sc) memcpy(sckeep, sc, sizeof sckeep);
  const ss_status s = ss_optimize(k, impl, w, g, n, p, np, slots, sc);
  const bool same = !memcmp(w, wkeep, n * 4) && (!slots || !memcmp(slots, skeep, ns * 4)) &&
                    (!sc || !memcmp(sc, sckeep, sizeof sckeep));
  if (s != want || !same) {
    ss_test_fail(__FILE__, __LINE__, "%s %s %s: got %s, want %s%s", k->name, ss_impl_name(impl),
                 what, ss_status_name(s), ss_status_name(want), same ? "" : " (state written)");
    return false;
  }
  return true;
}

/* The optimizer's own bad inputs, after the shared battery: a NULL state
   (kernels with one) or scalars, a step counter that is negative,
   fractional, >= 2^53 or not finite. */
static bool optimizer_extra(const cf_adapter *a, const ss_kernel_info *k, ss_impl impl,
                            float *const rows[CF_ROWS], size_t N, const double *p, size_t np) {
  (void)a;
  float *w = rows[0], slots[4 * CF_OUT_N] = {0};
  const float *g = rows[1];
  double sc[SS_OPT_SCALARS] = {0};
  bool ok = expect(k, impl, w, g, N, p, np, slots, NULL, SS_ERR_NULL, "scalars NULL");
  if (k->opt_slots) ok &= expect(k, impl, w, g, N, p, np, NULL, sc, SS_ERR_NULL, "state NULL");
  static const double bad_t[] = {-1.0, 0.5, 9007199254740992.0, 1e300, NAN, INFINITY};
  for (size_t b = 0; b < sizeof bad_t / sizeof bad_t[0]; b++) {
    sc[0] = bad_t[b];
    ok &= expect(k, impl, w, g, N, p, np, slots, sc, SS_ERR_DOMAIN, "bad step counter");
  }
  return ok;
}

/* The state fits 4 n floats (the adapter's buffer) and a size that would
   overflow is 0. */
TEST(conformance_optimizer_state_size) {
  CF_FOR_EACH_KERNEL(k, SS_FAMILY_OPTIMIZER) {
    CHECK(ss_opt_state_size(k, 37) <= 4 * 37 && ss_opt_state_size(k, (size_t)-1 / 2) == 0,
          "%s: state size %zu (or an overflowing one)", k->name, ss_opt_state_size(k, 37));
  }
}

TEST(conformance_optimizer_bad_inputs) {
  static const size_t where[] = {0, 5, 16, 36};
  CHECK(CF_FAMILY_BAD_INPUTS(&cf_optimizer_adapter, 37, where, optimizer_extra, 0), "see above");
}
