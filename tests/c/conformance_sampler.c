/*
 * Conformance tester of every registered sampler (registry-driven; see
 * conformance.h). For each kernel, each parameter case and each input kind
 * at the lengths below:
 *   - scalar and SIMD give the same status and bit-identical probs, draws
 *     and samples (the determinism contract of ss_sample_fn);
 *   - in-range parameters on moderate data give SS_OK (or a size status),
 *     on extreme data also SS_ERR_DOMAIN;
 *   - on SS_OK: probs finite, >= 0, never subnormal (the exact-zero rule),
 *     summing to 1 within SAMP_SUM for index and relaxed draws, exactly 0 at
 *     masked logits; drawn indices < n with probs > 0; relaxed samples on
 *     the simplex with their maximum at the drawn index; vector samples
 *     finite, 0 at masked logits; and draws are a prefix-stable function of
 *     the draw number (the first d draws of a call with more draws are the
 *     same);
 *   - every n from 0 to 67 and n = 65539 with the defaults;
 *   - bad inputs get their status (by input kind: NaN, +Inf, all -Inf,
 *     negative or zero weights, non-finite values; NULL, n = 0, n >
 *     SS_MAX_N, draws * n > SS_MAX_N, every invalid parameter, wrong count)
 *     and leave probs untouched; the VJP checks x, g (NaN, Inf), NULL and
 *     n = 0 alike and leaves dx untouched;
 *   - the VJP of relaxed (soft) samples agrees with central differences of
 *     the forward with the same seed (hard, one-hot samples have a
 *     surrogate gradient: not differenced).
 * Calls whose draws * n exceed DRAW_BUDGET skip the draws (probs only) so
 * the suite stays fast; conformance_sampler_max_draws runs draws = max.
 */
#include "family_adapter.h"
#include "fd.h"

#define SAMP_SUM 0x1p-16   /* |sum - 1| of probs and relaxed samples */
#define DRAW_BUDGET 65536  /* draws * n beyond which a case skips the draws */
#define FD_TOL 2e-3
#define FD_NOISE 0x1p-21

static const size_t PARAM_NS[] = {1, 2, 3, 5, 16, 17, 67, 300};
#define NPARAM_NS (sizeof PARAM_NS / sizeof PARAM_NS[0])

static bool is_sampler(const ss_kernel_info *k) { return k->family == SS_FAMILY_SAMPLER; }

static size_t draws_of(const ss_kernel_info *k, const double *p) {
  return (size_t)ss_param_value(k, p, "draws", 0.0);
}

/* Output buffers of one call. */
typedef struct {
  float *probs, *samples;
  uint32_t *idx;
} outs;

static outs outs_alloc(size_t n, size_t draws_cap) {
  outs o = {ss_test_alloc(n * 4), ss_test_alloc(draws_cap * n * 4 + 4),
            ss_test_alloc(draws_cap * 4 + 4)};
  return o;
}

static const float *fail_x; /* the input of the case being checked, for messages */

static bool fail(const ss_kernel_info *k, const char *what, size_t n, const char *msg, double a,
                 double b) {
  ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: %s (%.9g, %.9g)", k->name, what, n, msg, a, b);
  for (size_t i = 0; fail_x && i < n && i < 8; i++) printf("      x[%zu] = %a\n", i, fail_x[i]);
  return false;
}

static bool check_output(const ss_kernel_info *k, const float *x, size_t n, size_t draws,
                         const outs *o, bool with_draws, const char *what) {
  fail_x = x;
  const bool logits = k->input == SS_INPUT_LOGITS;
  double sum = 0.0;
  /* probs are a distribution, or (vector draws) the mean of one draw: of
     either sign for a VALUES input (dare's rescaled weights) */
  const bool signed_mean = k->draws == SS_DRAW_VECTOR && k->input == SS_INPUT_VALUES;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(o->probs[i]) || (o->probs[i] < 0.0f && !signed_mean))
      return fail(k, what, n, "probs not finite and >= 0", (double)i, o->probs[i]);
    if (logits && x[i] == -INFINITY && o->probs[i] != 0.0f)
      return fail(k, what, n, "masked logit with probs > 0", (double)i, o->probs[i]);
    sum += o->probs[i];
  }
  size_t at;
  if (!cf_no_subnormal(o->probs, n, &at))
    return fail(k, what, n, "subnormal probs (exact-zero rule)", (double)at, o->probs[at]);
  if (k->draws != SS_DRAW_VECTOR && !(fabs(sum - 1.0) <= SAMP_SUM))
    return fail(k, what, n, "sum of probs", sum, 1.0);
  if (!with_draws) return true;
  for (size_t d = 0; d < draws; d++) {
    if (k->draws != SS_DRAW_VECTOR) {
      const uint32_t j = o->idx[d];
      if (j >= n || !(o->probs[j] > 0.0f)) return fail(k, what, n, "drawn index", (double)j, d);
    }
    if (k->draws == SS_DRAW_INDEX) continue;
    const float *s = o->samples + d * n;
    double ssum = 0.0;
    float smax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
      if (!isfinite(s[i])) return fail(k, what, n, "sample not finite", (double)i, s[i]);
      if (logits && x[i] == -INFINITY && s[i] != 0.0f)
        return fail(k, what, n, "masked logit with a sample != 0", (double)i, s[i]);
      ssum += s[i];
      smax = fmaxf(smax, s[i]);
    }
    if (!cf_no_subnormal(s, n, &at))
      return fail(k, what, n, "subnormal sample (exact-zero rule)", (double)at, s[at]);
    if (k->draws == SS_DRAW_RELAXED) {
      for (size_t i = 0; i < n; i++)
        if (s[i] < 0.0f) return fail(k, what, n, "negative relaxed sample", (double)i, s[i]);
      if (!(fabs(ssum - 1.0) <= SAMP_SUM)) return fail(k, what, n, "relaxed sample sum", ssum, d);
      if (s[o->idx[d]] != smax) return fail(k, what, n, "index is not the sample's argmax", d, smax);
    }
  }
  return true;
}

static bool same_bits(const void *a, const void *b, size_t bytes) { return memcmp(a, b, bytes) == 0; }

/* One case in every impl. */
static bool run_case(const ss_kernel_info *k, const float *x, size_t n, const double *p,
                     bool extreme, outs *o0, outs *o1, const char *what, cf_count *cnt) {
  const size_t draws = draws_of(k, p);
  const bool with_draws = (double)draws * (double)n <= DRAW_BUDGET;
  uint32_t *idx0 = with_draws ? o0->idx : NULL, *idx1 = with_draws ? o1->idx : NULL;
  float *s0 = with_draws ? o0->samples : NULL, *s1 = with_draws ? o1->samples : NULL;
  const ss_status st0 = ss_sample(k, SS_IMPL_SCALAR, x, n, p, k->nparams, o0->probs, idx0, s0);
  cnt->calls++;
  if (!cf_scalar_status(k, st0, cf_status_allowed(st0, extreme), what, n, p)) return false;
  if (st0 == SS_OK) {
    cnt->ok++;
    if (!check_output(k, x, n, draws, o0, with_draws, what)) return false;
    /* prefix stability: fewer draws give the first ones */
    if (with_draws && draws > 1 && k->draws != SS_DRAW_VECTOR) {
      double q[CF_MAX_PARAMS];
      memcpy(q, p, k->nparams * sizeof *q);
      q[cf_param_index(k, "draws")] = (double)(draws / 2);
      if (ss_sample(k, SS_IMPL_SCALAR, x, n, q, k->nparams, o1->probs, o1->idx, NULL) != SS_OK ||
          !same_bits(o1->idx, o0->idx, draws / 2 * 4))
        return fail(k, what, n, "draws depend on the number of draws", (double)draws, 0);
    }
  }
  if (!cf_has_simd()) return true;
  const ss_status st1 = ss_sample(k, SS_IMPL_SIMD, x, n, p, k->nparams, o1->probs, idx1, s1);
  cnt->calls++;
  if (st1 != st0) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: scalar %s, SIMD %s", k->name, what, n,
                 ss_status_name(st0), ss_status_name(st1));
    cf_print_params(k, p);
    return false;
  }
  if (st0 != SS_OK) return true;
  if (!same_bits(o0->probs, o1->probs, n * 4)) return fail(k, what, n, "SIMD probs differ", 0, 0);
  if (with_draws && k->draws != SS_DRAW_VECTOR && !same_bits(o0->idx, o1->idx, draws * 4))
    return fail(k, what, n, "SIMD draws differ", 0, 0);
  if (with_draws && k->draws != SS_DRAW_INDEX && !same_bits(o0->samples, o1->samples, draws * n * 4))
    return fail(k, what, n, "SIMD samples differ", 0, 0);
  return true;
}

/* Moderate VALUES inputs are positive (dirichlet's concentrations); the
   extreme kinds carry both signs. */
static void fill(const ss_kernel_info *k, float *x, size_t n, int kind, uint64_t seed) {
  cf_fill(x, n, k->input, kind, kind < CF_MODERATE_KINDS, seed);
}

/* The buffers of the params and lengths sweeps. */
typedef struct {
  float *x;
  outs o0, o1;
} samp_sweep;

static samp_sweep sweep_alloc(size_t n, size_t draws_cap) {
  samp_sweep w = {ss_test_alloc(n * 4), outs_alloc(n, draws_cap), outs_alloc(n, draws_cap)};
  return w;
}

/* One sweep run: an input of the run's kind, then run_case. */
static bool sweep_run(const cf_run *r, void *ctx, cf_count *cnt) {
  samp_sweep *w = ctx;
  fill(r->k, w->x, r->n, r->kind, r->seed);
  return run_case(r->k, w->x, r->n, r->p, r->extreme, &w->o0, &w->o1, r->what, cnt);
}

TEST(conformance_sampler_params) {
  samp_sweep w = sweep_alloc(PARAM_NS[NPARAM_NS - 1], DRAW_BUDGET);
  const cf_sweep s = {.family = SS_FAMILY_SAMPLER, .run = sweep_run, .ctx = &w};
  CHECK(CF_PARAMS_SWEEP("sampler params", &s, PARAM_NS, 200, 4, 4), "see above");
}

TEST(conformance_sampler_lengths) {
  samp_sweep w = sweep_alloc(CF_LARGE_N, 1);
  const cf_sweep s = {.family = SS_FAMILY_SAMPLER, .run = sweep_run, .ctx = &w, .length_seed = 3,
                      .adapter = &cf_sampler_adapter};
  CHECK(cf_lengths_sweep("sampler lengths", &s), "see above");
}

/* draws at its maximum: every sampler validates and computes probs (n = 2,
   no draws asked for: probs only); the first index sampler of the registry
   also draws all 2^24 (bit-identical across impls, index 0 drawn at its
   probability within 6 standard errors). */
TEST(conformance_sampler_max_draws) {
  bool all_ok = true, drawn = false;
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *k = ss_kernel_at(ki);
    const long di = is_sampler(k) ? cf_param_index(k, "draws") : -1;
    if (di < 0) continue;
    const float x[2] = {0.25f, 0.5f};
    double p[CF_MAX_PARAMS];
    cf_defaults(k, 2, p);
    p[di] = k->params[di].max;
    const size_t draws = (size_t)p[di];
    float probs[2], probs1[2];
    FOR_EACH_IMPL(impl) {
      const ss_status s = ss_sample(k, impl, x, 2, p, k->nparams, probs1, NULL, NULL);
      if (s != SS_OK || !isfinite(probs1[0])) {
        ss_test_fail(__FILE__, __LINE__, "%s %s draws = max: %s", k->name, ss_impl_name(impl),
                     ss_status_name(s));
        all_ok = false;
      }
    }
    if (drawn || k->draws != SS_DRAW_INDEX) continue;
    drawn = true;
    uint32_t *i0 = ss_test_alloc(draws * 4), *i1 = cf_has_simd() ? ss_test_alloc(draws * 4) : NULL;
    const ss_status s0 = ss_sample(k, SS_IMPL_SCALAR, x, 2, p, k->nparams, probs, i0, NULL);
    bool ok = s0 == SS_OK;
    size_t c0 = 0;
    for (size_t d = 0; ok && d < draws; d++) c0 += i0[d] == 0;
    if (ok && i1)
      ok = ss_sample(k, SS_IMPL_SIMD, x, 2, p, k->nparams, probs, i1, NULL) == SS_OK &&
           memcmp(i0, i1, draws * 4) == 0;
    const double sd = sqrt(probs[0] * (1.0 - probs[0]) / (double)draws);
    if (!ok || fabs((double)c0 / (double)draws - probs[0]) > 6.0 * sd) {
      ss_test_fail(__FILE__, __LINE__, "%s draws = %zu: status %s, share %.6f of probs %.6f",
                   k->name, draws, ss_status_name(s0), (double)c0 / (double)draws, probs[0]);
      all_ok = false;
    }
    ss_test_free(i0);
    if (i1) ss_test_free(i1);
  }
  CHECK(drawn, "no index sampler registered");
  CHECK(all_ok, "see above");
}

/* ---- bad inputs -------------------------------------------------------- */

/* The sampler's own bad inputs (beyond cf_bad_input_battery): a negative
   weight, nothing to draw from (all -Inf logits, all-zero weights) at
   every few lengths, draws * n past SS_MAX_N, and the VJP's arguments. */
static bool sampler_extra(const cf_adapter *a, const ss_kernel_info *k, ss_impl impl,
                          float *const rows[CF_ROWS], size_t N, const double *p, size_t np) {
  static const size_t where[] = {0, 5, 16, 31, 36};
  float *x = rows[0];
  const float *const in[CF_ROWS] = {x, NULL};
  const long di = cf_param_index(k, "draws");
  bool ok = true;
  for (size_t w = 0; w < sizeof where / sizeof where[0] && ok && k->input == SS_INPUT_PROBS; w++) {
    fill(k, x, N, CF_NORMAL, 5);
    x[where[w]] = -1e-3f;
    ok &= cf_expect(a, k, impl, in, N, p, np, SS_ERR_DOMAIN, "negative weight");
  }
  if (k->input == SS_INPUT_LOGITS || k->input == SS_INPUT_PROBS) {
    /* all -Inf logits, or all-zero weights: nothing to draw from */
    for (size_t i = 0; i < N; i++) x[i] = k->input == SS_INPUT_LOGITS ? -INFINITY : 0.0f;
    for (size_t n = 1; n <= N && ok; n += 4) {
      double q[CF_MAX_PARAMS + 1];
      cf_defaults(k, n, q);
      if (di >= 0) q[di] = 4;
      ok &= cf_expect(a, k, impl, in, n, q, np, SS_ERR_ALL_MASKED, "all masked / zero");
    }
  }
  fill(k, x, N, CF_NORMAL, 6);
  if (di >= 0 && k->draws != SS_DRAW_INDEX) {
    /* draws * n vector entries past SS_MAX_N (no buffer is read) */
    double q[CF_MAX_PARAMS + 1];
    memcpy(q, p, sizeof q);
    q[di] = k->params[di].max;
    const size_t n = SS_MAX_N / (size_t)q[di] + 1;
    ok &= cf_expect(a, k, impl, in, n, q, np, SS_ERR_TOO_LARGE, "draws * n > SS_MAX_N");
  }
  float d[CF_OUT_N];
  if (!k->has_backward && ss_sample_vjp(k, impl, x, N, p, np, x, d) != SS_ERR_NO_BACKWARD) {
    ss_test_fail(__FILE__, __LINE__, "%s: vjp without a backward", k->name);
    ok = false;
  }
  const size_t draws = (size_t)ss_param_value(k, p, "draws", 1.0);
  if (k->has_backward && draws <= 16) {
    /* the VJP checks x, g and its arguments like the forward; dx untouched */
    static float gb[16 * CF_OUT_N];
    for (size_t i = 0; i < draws * N; i++) gb[i] = 0.5f;
    cf_fill(x, N, k->input, CF_NORMAL, true, 9);
    const ss_status ok_s = ss_sample_vjp(k, impl, x, N, p, np, gb, d);
    cf_poison(d, N);
    gb[draws * N - 1] = NAN;
    const ss_status g_nan = ss_sample_vjp(k, impl, x, N, p, np, gb, d);
    gb[draws * N - 1] = INFINITY;
    const ss_status g_inf = ss_sample_vjp(k, impl, x, N, p, np, gb, d);
    gb[draws * N - 1] = 0.5f;
    const float keep = x[3];
    x[3] = NAN;
    const ss_status x_nan = ss_sample_vjp(k, impl, x, N, p, np, gb, d);
    x[3] = keep;
    const ss_status nul = ss_sample_vjp(k, impl, x, N, p, np, NULL, d);
    const ss_status empty = ss_sample_vjp(k, impl, x, 0, p, np, gb, d);
    if (ok_s != SS_OK || g_nan != SS_ERR_NAN || g_inf != SS_ERR_NONFINITE || x_nan != SS_ERR_NAN ||
        nul != SS_ERR_NULL || empty != SS_ERR_EMPTY || !cf_untouched(d, N)) {
      ss_test_fail(__FILE__, __LINE__,
                   "%s %s vjp: ok %s, NaN g %s, Inf g %s, NaN x %s, NULL g %s, n = 0 %s%s", k->name,
                   ss_impl_name(impl), ss_status_name(ok_s), ss_status_name(g_nan),
                   ss_status_name(g_inf), ss_status_name(x_nan), ss_status_name(nul),
                   ss_status_name(empty), cf_untouched(d, N) ? "" : " (dx written)");
      ok = false;
    }
  }
  return ok;
}

TEST(conformance_sampler_bad_inputs) {
  static const size_t where[] = {0, 5, 16, 31, 36};
  CHECK(CF_FAMILY_BAD_INPUTS(&cf_sampler_adapter, 37, where, sampler_extra, 4), "see above");
}

/* ---- backward ---------------------------------------------------------- */

#define BWD_N 17
#define BWD_DRAWS 3

static double objective(const ss_kernel_info *k, const float *x, size_t n, const double *p,
                        const float *g, float *smp) {
  float probs[BWD_N];
  if (ss_sample(k, SS_IMPL_SCALAR, x, n, p, k->nparams, probs, NULL, smp) != SS_OK) return NAN;
  double l = 0.0;
  for (size_t t = 0; t < BWD_DRAWS * n; t++) l += (double)g[t] * smp[t];
  return l;
}
typedef struct {
  const ss_kernel_info *k;
  const double *p;
  const float *g;
  float *smp; /* scratch */
} objective_ctx;
static double objective_of(const float *x, size_t n, const void *ctx) {
  const objective_ctx *c = ctx;
  return objective(c->k, x, n, c->p, c->g, c->smp);
}

static bool check_backward(const ss_kernel_info *k, const float *x, size_t n, const double *p,
                           uint64_t seed, const char *what, cf_count *cnt) {
  float g[BWD_DRAWS * BWD_N], smp[BWD_DRAWS * BWD_N], dx[BWD_N], dx0[BWD_N],
      work[2 * BWD_N];
  float probs[BWD_N];
  ss_rng r = {seed};
  for (size_t t = 0; t < BWD_DRAWS * n; t++) g[t] = (float)ss_rng_normal(&r);
  if (ss_sample(k, SS_IMPL_SCALAR, x, n, p, k->nparams, probs, NULL, smp) != SS_OK) return true;
  bool hard = true;
  double gy = 0.0;
  for (size_t t = 0; t < BWD_DRAWS * n; t++) {
    hard &= smp[t] == 0.0f || smp[t] == 1.0f;
    gy += fabs((double)g[t] * smp[t]);
  }
  FOR_EACH_IMPL(impl) {
    const ss_status s = ss_sample_vjp(k, impl, x, n, p, k->nparams, g, dx);
    if (s != SS_OK) {
      ss_test_fail(__FILE__, __LINE__, "%s %s %s: vjp %s", k->name, ss_impl_name(impl), what,
                   ss_status_name(s));
      return false;
    }
    for (size_t i = 0; i < n; i++)
      if (!isfinite(dx[i]) || (x[i] == -INFINITY && dx[i] != 0.0f)) {
        ss_test_fail(__FILE__, __LINE__, "%s %s: dx[%zu] = %g", k->name, what, i, dx[i]);
        return false;
      }
    if (impl == SS_IMPL_SCALAR) {
      memcpy(dx0, dx, n * 4);
    } else {
      const double m = cf_max_abs(dx0, n);
      for (size_t i = 0; i < n; i++)
        if (fabs((double)dx[i] - dx0[i]) > 0x1p-10 * m + 0x1p-16 * gy) {
          ss_test_fail(__FILE__, __LINE__, "%s %s: SIMD dx[%zu] = %.9g, scalar %.9g", k->name,
                       what, i, dx[i], dx0[i]);
          return false;
        }
    }
  }
  if (hard) return true; /* a surrogate gradient */
  for (int dir = 0; dir < 2; dir++) {
    float v[BWD_N];
    for (size_t i = 0; i < n; i++) v[i] = (ss_rng_u64(&r) & 1) ? 1.0f : -1.0f;
    const objective_ctx oc = {k, p, g, smp};
    double f[3], pred = 0.0;
    for (int s = 0; s < 3; s++)
      f[s] = fd_along32(objective_of, &oc, x, n, v, 2e-3 / (1 << s), dx0, s == 1 ? &pred : NULL, work);
    const double noise = FD_NOISE * gy / 5e-4;
    if (!fd_steady(f, 0.1 * FD_TOL * fabs(pred) + noise)) {
      cnt->fd_skipped++;
      continue;
    }
    cnt->fd_checked++;
    if (!fd_agrees(pred, f[1], FD_TOL, fabs(pred), noise)) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: <dx, v> = %.9g, differences %.9g %.9g %.9g",
                   k->name, what, n, pred, f[0], f[1], f[2]);
      return false;
    }
  }
  return true;
}

/* One backward run: the case with BWD_DRAWS draws, an input of the run's
   kind, then check_backward. */
static bool backward_run(const cf_run *r, void *ctx, cf_count *cnt) {
  (void)ctx;
  double p[CF_MAX_PARAMS];
  memcpy(p, r->p, r->k->nparams * sizeof *p);
  p[cf_param_index(r->k, "draws")] = BWD_DRAWS;
  float x[BWD_N];
  fill(r->k, x, r->n, r->kind, r->seed);
  return check_backward(r->k, x, r->n, p, 5 * r->c + r->t, r->what, cnt);
}

TEST(conformance_sampler_backward) {
  static const size_t ns[] = {1, 2, 3, 5, 8, BWD_N};
  const cf_sweep s = {.family = SS_FAMILY_SAMPLER, .run = backward_run, .backward_only = true,
                      .kinds = CF_KIND_BIT(CF_NORMAL) | CF_KIND_BIT(CF_MASKED),
                      .seed_stride = 17};
  CHECK(CF_PARAMS_SWEEP("sampler backward", &s, ns, 400, 1, 2), "see above");
}
