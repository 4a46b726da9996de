/* The shared part of the conformance testers (conformance.h). */
#include "conformance.h"
#include "family_adapter.h"

#include <stdlib.h>

const char *const cf_kind_name[CF_KINDS] = {"normal", "wide", "masked", "ties",
                                            "equal",  "deep", "huge", "tiny"};

long cf_param_index(const ss_kernel_info *k, const char *name) {
  for (size_t i = 0; i < k->nparams; i++)
    if (!strcmp(k->params[i].name, name)) return (long)i;
  return -1;
}

/* The largest value the n-bound allows. */
static double n_cap(const ss_param_info *p, size_t n) {
  if (p->n_bound == SS_N_BOUND_LE) return (double)n;
  if (p->n_bound == SS_N_BOUND_LT) return n ? (double)n - 1.0 : 0.0;
  return INFINITY;
}

static double clamp_n(const ss_param_info *p, size_t n, double v) {
  const double c = n_cap(p, n);
  return v > c ? (c >= p->min ? c : p->min) : v;
}

void cf_defaults(const ss_kernel_info *k, size_t n, double *p) {
  for (size_t i = 0; i < k->nparams && i < CF_MAX_PARAMS; i++)
    p[i] = clamp_n(&k->params[i], n, k->params[i].def);
}

/* The extreme valid values of a parameter: lo, hi (the bounds, or the next
   value inward for an open bound). */
static double lowest(const ss_param_info *p) {
  if (!p->min_open) return p->min;
  return p->type == SS_PARAM_FLOAT ? nextafter(p->min, INFINITY) : p->min + 1.0;
}
static double highest(const ss_param_info *p) {
  if (!p->max_open) return p->max;
  return p->type == SS_PARAM_FLOAT ? nextafter(p->max, -INFINITY) : p->max - 1.0;
}
static double inward(const ss_param_info *p, double v, double toward) {
  if (p->type == SS_PARAM_FLOAT) return nextafter(v, toward);
  return v < toward ? v + 1.0 : v - 1.0;
}

/* A random valid value: linear or log-uniform over the magnitudes. */
static double random_value(const ss_param_info *p, double lo, double hi, ss_rng *r, bool log_u) {
  if (p->type == SS_PARAM_BOOL) return (double)(ss_rng_u64(r) & 1);
  if (hi <= lo) return lo;
  double v;
  if (!log_u) {
    v = lo + (hi - lo) * ss_rng_unif(r);
  } else {
    const double big = fmax(fabs(lo), fabs(hi));
    const double small = lo > 0.0 ? lo : hi < 0.0 ? -hi : big * 1e-12;
    v = 0.0;
    for (int t = 0; t < 16; t++) {
      const double mag = exp(log(small) + (log(big) - log(small)) * ss_rng_unif(r));
      const double s = lo >= 0.0 ? 1.0 : hi <= 0.0 ? -1.0 : (ss_rng_u64(r) & 1) ? 1.0 : -1.0;
      v = s * mag;
      if (v >= lo && v <= hi) break;
      v = lo + (hi - lo) * ss_rng_unif(r);
    }
  }
  if (p->type == SS_PARAM_INT) v = floor(v);
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return v;
}

static size_t push(cf_case *out, size_t cnt, size_t cap, const double *base, size_t np, long i,
                   double v, const char *fmt, const char *name) {
  if (cnt >= cap) return cnt;
  cf_case *c = &out[cnt];
  memcpy(c->p, base, np * sizeof *base);
  if (i >= 0) c->p[i] = v;
  snprintf(c->what, sizeof c->what, fmt, name, v);
  c->param = i;
  c->want = SS_OK;
  return cnt + 1;
}

size_t cf_valid_cases(const ss_kernel_info *k, size_t n, uint64_t seed, size_t randoms,
                      size_t vectors, cf_case *out, size_t cap) {
  double base[CF_MAX_PARAMS];
  const size_t np = k->nparams;
  cf_defaults(k, n, base);
  size_t cnt = push(out, 0, cap, base, np, -1, 0.0, "defaults%s", "");
  ss_rng r = {seed * 0x9E3779B97F4A7C15ull + 1};
  for (size_t i = 0; i < np; i++) {
    const ss_param_info *p = &k->params[i];
    const double lo = lowest(p), hi = fmin(highest(p), n_cap(p, n));
    if (hi < lo) continue; /* no valid value at this n */
    const double vals[4] = {lo, inward(p, lo, hi), hi, inward(p, hi, lo)};
    const char *const tag[4] = {"%s = min %.17g", "%s = min+ %.17g", "%s = max %.17g",
                                "%s = max- %.17g"};
    for (int t = 0; t < 4; t++) {
      if (vals[t] < lo || vals[t] > hi) continue;
      cnt = push(out, cnt, cap, base, np, (long)i, vals[t], tag[t], p->name);
    }
    for (size_t j = 0; j < randoms; j++)
      cnt = push(out, cnt, cap, base, np, (long)i, random_value(p, lo, hi, &r, j & 1),
                 "%s = random %.17g", p->name);
  }
  for (size_t v = 0; v < vectors && np; v++) {
    double q[CF_MAX_PARAMS];
    for (size_t i = 0; i < np; i++) {
      const ss_param_info *p = &k->params[i];
      const double lo = lowest(p), hi = fmin(highest(p), n_cap(p, n));
      q[i] = hi < lo ? base[i] : random_value(p, lo, hi, &r, ss_rng_u64(&r) & 1);
    }
    cnt = push(out, cnt, cap, q, np, -1, 0.0, "all random%s", "");
    if (cnt <= cap) snprintf(out[cnt - 1].what, sizeof out[cnt - 1].what, "all random #%zu", v);
  }
  return cnt;
}

size_t cf_invalid_cases(const ss_kernel_info *k, size_t n, cf_case *out, size_t cap) {
  double base[CF_MAX_PARAMS];
  const size_t np = k->nparams;
  cf_defaults(k, n, base);
  size_t cnt = 0;
#define BAD(val, fmt, want_)                                                 \
  do {                                                                       \
    const size_t c0 = cnt;                                                   \
    cnt = push(out, cnt, cap, base, np, (long)i, (val), fmt, p->name);       \
    if (cnt > c0) out[c0].want = (want_);                                    \
  } while (0)
  for (size_t i = 0; i < np; i++) {
    const ss_param_info *p = &k->params[i];
    const double below = p->min_open ? p->min : p->type == SS_PARAM_FLOAT ? nextafter(p->min, -INFINITY) : p->min - 1.0;
    double above = p->max_open ? p->max : p->type == SS_PARAM_FLOAT ? nextafter(p->max, INFINITY) : p->max + 1.0;
    if (above == p->max && !p->max_open) above = nextafter(p->max, INFINITY); /* past 2^53 */
    BAD(below, "%s below min: %.17g", SS_ERR_PARAM_RANGE);
    BAD(above, "%s above max: %.17g", SS_ERR_PARAM_RANGE);
    BAD(p->min - 1e300, "%s far below: %.17g", SS_ERR_PARAM_RANGE);
    BAD(p->max + 1e300, "%s far above: %.17g", SS_ERR_PARAM_RANGE);
    BAD(NAN, "%s NaN %g", SS_ERR_PARAM_RANGE);
    BAD(INFINITY, "%s %g", SS_ERR_PARAM_RANGE);
    BAD(-INFINITY, "%s %g", SS_ERR_PARAM_RANGE);
    if (p->type != SS_PARAM_FLOAT && p->max > p->min)
      BAD(lowest(p) + 0.5, "%s not integral: %g", SS_ERR_PARAM_RANGE);
    const double c = n_cap(p, n);
    if (isfinite(c) && c + 1.0 <= highest(p) && c + 1.0 >= lowest(p))
      BAD(c + 1.0, "%s past n: %g", SS_ERR_LENGTH);
  }
#undef BAD
  return cnt;
}

cf_case *cf_cases_alloc(size_t *cap) {
  *cap = 512;
  return ss_test_alloc(*cap * sizeof(cf_case));
}

/* ---- data ---------------------------------------------------------------- */

void cf_fill(float *x, size_t n, ss_input_kind input, int kind, bool positive, uint64_t seed) {
  ss_rng r = {seed * 7919 + (uint64_t)kind * 104729 + n};
  const bool logits = input == SS_INPUT_LOGITS;
  for (size_t i = 0; i < n; i++) {
    double v;
    switch (kind) {
      case CF_NORMAL: v = ss_rng_normal(&r); break;
      case CF_WIDE: v = -20.0 + 40.0 * ss_rng_unif(&r); break;
      case CF_MASKED:
        v = -3.0 + 6.0 * ss_rng_unif(&r);
        if (ss_rng_u64(&r) % 4 == 0) v = logits ? -INFINITY : 0.0;
        break;
      case CF_TIES: v = (double)(ss_rng_u64(&r) % 4); break;
      case CF_EQUAL: v = 0.25; break;
      case CF_DEEP: v = i == 0 ? 0.0 : -110.0 * ss_rng_unif(&r); break;
      case CF_HUGE: {
        static const double mags[] = {FLT_MAX, 3e38, 1e38, 1e30, 1e20, 1e10, 1e5, 1.0};
        v = mags[ss_rng_u64(&r) % 8] * (0.5 + 0.5 * ss_rng_unif(&r));
        if (v > FLT_MAX) v = FLT_MAX;
        if (ss_rng_u64(&r) & 1) v = -v;
        break;
      }
      default: { /* tiny */
        static const double mags[] = {1e-30, 1e-38, 1e-40, 1e-44, 0x1p-149, 0.0};
        v = mags[ss_rng_u64(&r) % 6] * (ss_rng_u64(&r) % 6 == 5 ? 1.0 : 0.5 + ss_rng_unif(&r));
        if (ss_rng_u64(&r) & 1) v = -v;
        break;
      }
    }
    if (!logits && input != SS_INPUT_VALUES) v = fabs(v); /* probabilities */
    if (input == SS_INPUT_VALUES && positive) v = fabs(v) + (kind == CF_TINY ? 0x1p-149 : 1e-3);
    x[i] = (float)v;
  }
  if (logits && n && kind == CF_MASKED) x[n / 2] = 1.0f;
  /* probabilities: normalized on the moderate kinds */
  if (input == SS_INPUT_PROBS || input == SS_INPUT_PROBS_PAIR) {
    if (kind < CF_MODERATE_KINDS) {
      double s = 0.0;
      for (size_t i = 0; i < n; i++) s += x[i];
      if (s == 0.0 && n) x[n / 2] = 1.0f, s = 1.0;
      for (size_t i = 0; i < n; i++) x[i] = (float)((double)x[i] / s);
    }
  }
}

bool cf_status_allowed(ss_status s, bool extreme) {
  return s == SS_OK || s == SS_ERR_LENGTH || s == SS_ERR_ALL_MASKED ||
         (extreme && s == SS_ERR_DOMAIN);
}

bool cf_scalar_status(const ss_kernel_info *k, ss_status s, bool allowed, const char *what,
                      size_t n, const double *p) {
  if (!allowed) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: scalar status %s", k->name, what, n,
                 ss_status_name(s));
    cf_print_params(k, p);
  }
  return allowed;
}

bool cf_same_support(const float *a, const float *b, const float *scale, size_t n, size_t *at) {
  for (size_t i = 0; i < n; i++) {
    if ((a[i] == 0.0f) == (b[i] == 0.0f)) continue;
    const double nz = fabs(a[i] == 0.0f ? (double)b[i] : (double)a[i]);
    const double sc = scale && isfinite(scale[i]) ? fmax(1.0, fabs((double)scale[i])) : 1.0;
    if (nz >= FLT_MIN * (1.0 - 0x1p-19) * sc && nz < FLT_MIN * (1.0 + 0x1p-19) * sc) continue;
    *at = i;
    return false;
  }
  return true;
}

bool cf_no_subnormal(const float *y, size_t n, size_t *at) {
  for (size_t i = 0; i < n; i++)
    if ((y[i] != 0.0f && fabsf(y[i]) < FLT_MIN) || (y[i] == 0.0f && signbit(y[i]))) {
      if (at) *at = i;
      return false;
    }
  return true;
}

double cf_max_abs(const float *y, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; i++)
    if (isfinite(y[i]) && fabs(y[i]) > m) m = fabs(y[i]);
  return m;
}

double cf_worst_ratio(const float *a, const float *b, size_t n, double rel, double abs,
                      size_t *at) {
  double worst = 0.0;
  if (at) *at = 0;
  for (size_t i = 0; i < n; i++) {
    if (memcmp(&a[i], &b[i], sizeof a[i]) == 0) continue;
    double r;
    if (!isfinite(a[i]) || !isfinite(b[i]))
      r = a[i] == b[i] ? 0.0 : INFINITY;
    else
      r = fabs((double)a[i] - b[i]) / (rel * fabs((double)b[i]) + abs);
    if (r > worst) {
      worst = r;
      if (at) *at = i;
    }
  }
  return worst;
}

void cf_poison(float *y, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] = CF_POISON;
}

bool cf_untouched(const float *y, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (memcmp(&y[i], &(float){CF_POISON}, sizeof(float)) != 0) return false;
  return true;
}

bool cf_has_simd(void) { return ss_impl_available(SS_IMPL_SIMD); }

void cf_print_params(const ss_kernel_info *k, const double *p) {
  printf("      params:");
  for (size_t i = 0; i < k->nparams; i++) printf(" %s=%.17g", k->params[i].name, p[i]);
  printf("\n");
}

void cf_report(const char *family, const cf_count *c) {
  ss_test_count(c->calls + c->fd_checked); /* each call's status and output, each difference */
  printf("    %s: %zu kernels, %zu parameter cases, %zu calls (%zu SS_OK), finite differences "
         "%zu checked / %zu skipped\n",
         family, c->kernels, c->cases, c->calls, c->ok, c->fd_checked, c->fd_skipped);
}

/* ---- the sweeps ------------------------------------------------------------ */

/* Kernel k at length n with parameters p on each kind of the sweep, in
   order; the input seed is `seed` (+ kind when by_kind). Stops at the first
   failing run. */
static bool run_kinds(const cf_sweep *s, const ss_kernel_info *k, size_t n, const double *p,
                      const char *label, size_t c, size_t t, uint64_t seed, bool by_kind,
                      cf_count *cnt) {
  const unsigned kinds = s->kinds ? s->kinds : CF_ALL_KINDS;
  cf_run r = {k, n, p, label, 0, false, 0, c, t, {0}};
  for (int kind = 0; kind < CF_KINDS; kind++) {
    if (!(kinds & CF_KIND_BIT(kind))) continue;
    r.kind = kind;
    r.extreme = kind >= CF_MODERATE_KINDS;
    r.seed = seed + (by_kind ? (uint64_t)kind : 0);
    snprintf(r.what, sizeof r.what, "[%s, %s]", label, cf_kind_name[kind]);
    if (!s->run(&r, s->ctx, cnt)) return false;
  }
  return true;
}

/* Whether k is swept by s; counts it. */
static bool sweeps(const cf_sweep *s, const ss_kernel_info *k, cf_count *cnt) {
  if (s->backward_only && !k->has_backward) return false;
  cnt->kernels++;
  if (s->begin) s->begin(k, s->ctx);
  return true;
}

/* The end of k's sweep: the family's hook, then enough difference checks
   (`checked` of them for k). */
static bool kernel_done(const cf_sweep *s, const ss_kernel_info *k, bool ok, size_t checked,
                        cf_count *cnt) {
  if (s->end) ok = s->end(k, ok, s->ctx, cnt);
  if (ok && checked < s->min_fd_checked) {
    ss_test_fail(__FILE__, __LINE__, "%s: only %zu finite-difference checks were smooth enough",
                 k->name, checked);
    ok = false;
  }
  return ok;
}

bool cf_params_sweep(const char *label, const cf_sweep *s, const size_t *ns, size_t nns,
                     uint64_t seed0, size_t randoms, size_t vectors) {
  cf_count cnt = {0};
  size_t cap;
  cf_case *cases = cf_cases_alloc(&cap);
  const uint64_t stride = s->seed_stride ? s->seed_stride : 1000;
  bool all_ok = true;
  CF_FOR_EACH_KERNEL(k, s->family) {
    if (!sweeps(s, k, &cnt)) continue;
    const size_t before = cnt.fd_checked;
    bool ok = true;
    size_t nc = 0;
    if (s->cases_at) {
      nc = cf_valid_cases(k, s->cases_at, seed0, randoms, vectors, cases, cap);
      cnt.cases += nc;
    }
    for (size_t t = 0; t < nns && ok; t++) {
      const size_t n = ns[t];
      if (!s->cases_at) {
        nc = cf_valid_cases(k, n, seed0 + t, randoms, vectors, cases, cap);
        cnt.cases += nc;
      }
      for (size_t c = 0; c < nc && ok; c++)
        ok = run_kinds(s, k, n, cases[c].p, cases[c].what, c, t, stride * c + t, false, &cnt);
    }
    all_ok &= kernel_done(s, k, ok, cnt.fd_checked - before, &cnt);
  }
  cf_report(label, &cnt);
  ss_test_free(cases);
  return all_ok;
}

bool cf_lengths_sweep(const char *label, const cf_sweep *s) {
  cf_count cnt = {0};
  const bool by_kind = s->length_seed == CF_SEED_BY_KIND;
  const uint64_t salt = by_kind ? 0 : (uint64_t)s->length_seed;
  bool all_ok = true;
  CF_FOR_EACH_KERNEL(k, s->family) {
    if (!sweeps(s, k, &cnt)) continue;
    const size_t before = cnt.fd_checked;
    bool ok = true;
    for (size_t t = 0; t <= CF_SWEEP_N + 1 && ok; t++) {
      const size_t n = t <= CF_SWEEP_N ? t : CF_LARGE_N;
      double p[CF_MAX_PARAMS];
      cf_defaults(k, n, p);
      if (n == 0)
        ok = s->empty ? s->empty(k, p, s->ctx) : !s->adapter || cf_expect_empty(s->adapter, k, p);
      else
        ok = run_kinds(s, k, n, p, "defaults", 0, t, 7 * n + salt, by_kind, &cnt);
    }
    all_ok &= kernel_done(s, k, ok, cnt.fd_checked - before, &cnt);
  }
  cf_report(label, &cnt);
  return all_ok;
}

/* ---- every entry point checks the family ---------------------------------- */

/* Each generic entry point, given a kernel of another family (any
   registered kernel, valid arguments otherwise), returns SS_ERR_FAMILY and
   writes nothing. */
TEST(conformance_entry_points_check_the_family) {
  enum { N = 8 };
  float x[N], q[N], g[N], out[4 * N];
  int32_t codes[N];
  uint32_t idx[N];
  double p[CF_MAX_PARAMS], d[CF_MAX_PARAMS], scalars[16];
  for (size_t i = 0; i < N; i++) x[i] = q[i] = 0.125f * (float)(i + 1), g[i] = 0.5f;
  size_t checked = 0;
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *k = ss_kernel_at(ki);
    cf_defaults(k, N, p);
    const size_t np = k->nparams;
    const ss_family f = k->family;
    cf_poison(out, 4 * N);
    ss_status s[11];
    size_t ns = 0;
#define ENTRY(fam, call) \
  if (f != (fam)) s[ns++] = (call), checked++
    ENTRY(SS_FAMILY_NORMALIZER, ss_normalize(k, SS_IMPL_SCALAR, x, N, p, np, out));
    ENTRY(SS_FAMILY_NORMALIZER, ss_normalize_vjp(k, SS_IMPL_SCALAR, x, q, g, N, p, np, out));
    ENTRY(SS_FAMILY_NORMALIZER, ss_normalize_param_vjp(k, SS_IMPL_SCALAR, x, q, g, N, p, np, d));
    ENTRY(SS_FAMILY_LOSS, ss_loss(k, SS_IMPL_SCALAR, x, N, p, np, d, out));
    ENTRY(SS_FAMILY_SAMPLER, ss_sample(k, SS_IMPL_SCALAR, x, N, p, np, out, idx, out + N));
    ENTRY(SS_FAMILY_SAMPLER, ss_sample_vjp(k, SS_IMPL_SCALAR, x, N, p, np, g, out));
    ENTRY(SS_FAMILY_QUANTIZER, ss_quantize(k, SS_IMPL_SCALAR, x, N, p, np, codes, out));
    ENTRY(SS_FAMILY_MEASURE, ss_measure(k, SS_IMPL_SCALAR, x, q, N, p, np, d));
    ENTRY(SS_FAMILY_MEASURE, ss_measure_vjp(k, SS_IMPL_SCALAR, x, N, p, np, 1.0, out));
    ENTRY(SS_FAMILY_OPTIMIZER, ss_optimize(k, SS_IMPL_SCALAR, out, g, N, p, np, out + N, scalars));
    const ss_attention_io io = {x, q, g, 2, 2, 2, 2, 1, NULL, ss_kernel_find("softmax", SS_FAMILY_NORMALIZER),
                                NULL, 0, out, NULL, out + N};
    ENTRY(SS_FAMILY_ATTENTION, ss_attend(k, SS_IMPL_SCALAR, &io, p, np));
#undef ENTRY
    for (size_t i = 0; i < ns; i++)
      CHECK(s[i] == SS_ERR_FAMILY, "%s: entry point %zu of another family gave %s", k->name, i,
            ss_status_name(s[i]));
    CHECK(cf_untouched(out, 4 * N), "%s: written through another family's entry point", k->name);
  }
  CHECK(checked >= 8 * ss_kernel_count(), "only %zu calls", checked);
}

/* ss_params_check rejects every invalid parameter case of every kernel with
   its status and ss_params_bad_index names the parameter; the defaults and
   every valid case pass. */
TEST(conformance_params_check_names_the_parameter) {
  enum { N = 64 };
  size_t cap, checked = 0;
  cf_case *cases = cf_cases_alloc(&cap);
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *k = ss_kernel_at(ki);
    const size_t np = k->nparams;
    size_t nc = cf_invalid_cases(k, N, cases, cap);
    for (size_t c = 0; c < nc; c++, checked++) {
      if (cases[c].want != SS_ERR_PARAM_RANGE) continue;
      const ss_status s = ss_params_check(k, cases[c].p, np);
      const long bad = ss_params_bad_index(k, cases[c].p, np);
      CHECK(s == SS_ERR_PARAM_RANGE && bad == cases[c].param, "%s %s: %s, bad index %ld (want %ld)",
            k->name, cases[c].what, ss_status_name(s), bad, cases[c].param);
    }
    nc = cf_valid_cases(k, N, 5, 2, 1, cases, cap);
    for (size_t c = 0; c < nc; c++, checked++)
      CHECK(ss_params_check(k, cases[c].p, np) == SS_OK && ss_params_bad_index(k, cases[c].p, np) == -1,
            "%s %s: rejected", k->name, cases[c].what);
  }
  CHECK(checked > 1000, "only %zu cases", checked);
}
