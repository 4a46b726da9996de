/*
 * Conformance tester of every registered measure (registry-driven; see
 * conformance.h). For each kernel, each parameter case and each input kind
 * (by the kernel's input: probabilities, pairs of them, or logits) at the
 * lengths below:
 *   - scalar and SIMD give the same status; in-range parameters on moderate
 *     inputs give SS_OK, extreme ones may also get SS_ERR_DOMAIN (a measure
 *     undefined there, e.g. Renyi entropy of an all-zero vector), and so may
 *     a measure of values on a degenerate vector (constant, n = 1 included,
 *     or with a median |x| of 0: kurtosis, max_median_ratio), never on any
 *     other moderate one;
 *   - on SS_OK the value is never NaN, and finite unless it is +Inf exactly
 *     (a divergence with q_i = 0 < p_i);
 *   - SIMD vs scalar: |a - b| <= MEAS_REL |b| + MEAS_ABS;
 *   - every n from 0 to 67 and n = 65539 with the defaults;
 *   - bad inputs get their status (NaN, +-Inf in either input, negative
 *     probabilities (SS_ERR_DOMAIN; a measure that takes any sign says so by
 *     answering SS_OK with a finite value), NaN before -Inf before a
 *     negative entry, all -Inf logits, NULL, n = 0,
 *     n > SS_MAX_N, every invalid parameter, wrong count) and leave out
 *     untouched;
 *   - the VJP (where there is one) agrees with central differences of the
 *     measure, or answers SS_ERR_DOMAIN / SS_ERR_NONFINITE where the
 *     derivative is infinite or overflows float.
 */
#include <stdlib.h>

#include "family_adapter.h"
#include "fd.h"

/* SIMD vs scalar: |a - b| <= rel |b| + MEAS_ABS (1 + log n); rel = MEAS_REL on
   moderate inputs, MEAS_REL_EXTREME on unnormalized extreme ones (powers and
   logs of float values near FLT_MAX carry the float log's error times
   a log p) */
#define MEAS_REL 0x1p-18
#define MEAS_REL_EXTREME 0x1p-12
#define MEAS_ABS 0x1p-20
#define FD_TOL 2e-3

static const size_t PARAM_NS[] = {1, 2, 3, 5, 16, 17, 67, 300};
#define NPARAM_NS (sizeof PARAM_NS / sizeof PARAM_NS[0])

static bool pair(const ss_kernel_info *k) { return k->input == SS_INPUT_PROBS_PAIR; }

static void fill(const ss_kernel_info *k, float *p, float *q, size_t n, int kind, uint64_t seed) {
  cf_fill(p, n, k->input, kind, false, seed);
  cf_fill(q, n, k->input, kind == CF_MASKED ? CF_NORMAL : kind, false, seed + 99);
}

/* An input a measure of values may find undefined (SS_ERR_DOMAIN, as the
   header states for ss_measure): no spread (every value equal, n = 1
   included) or no typical magnitude (the median |x| is 0). */
static int cmp_abs(const void *a, const void *b) {
  const float x = fabsf(*(const float *)a), y = fabsf(*(const float *)b);
  return (x > y) - (x < y);
}
static bool degenerate_values(const float *p, size_t n) {
  bool constant = true;
  for (size_t i = 1; i < n && constant; i++) constant = p[i] == p[0];
  if (constant) return true;
  float *s = malloc(n * sizeof *s);
  if (!s) abort();
  memcpy(s, p, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_abs);
  const bool zero_median = fabsf(s[(n - 1) / 2]) == 0.0f && fabsf(s[n / 2]) == 0.0f;
  free(s);
  return zero_median;
}

static bool run_case(const ss_kernel_info *k, const float *p, const float *q, size_t n,
                     const double *prm, bool extreme, const char *what, cf_count *cnt) {
  double a = -777.0, b = -777.0;
  extreme |= k->input == SS_INPUT_VALUES && degenerate_values(p, n);
  const ss_status s0 = ss_measure(k, SS_IMPL_SCALAR, p, q, n, prm, k->nparams, &a);
  cnt->calls++;
  if (!cf_scalar_status(k, s0, cf_status_allowed(s0, extreme), what, n, prm)) return false;
  if (s0 == SS_OK) {
    cnt->ok++;
    bool inf_ok = false;
    if (pair(k))
      for (size_t i = 0; i < n; i++) inf_ok |= q[i] == 0.0f && p[i] > 0.0f;
    if (isnan(a) || (isinf(a) && !(inf_ok && a == INFINITY))) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: value %g", k->name, what, n, a);
      return false;
    }
  }
  if (!cf_has_simd()) return true;
  const ss_status s1 = ss_measure(k, SS_IMPL_SIMD, p, q, n, prm, k->nparams, &b);
  cnt->calls++;
  if (s1 != s0) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: scalar %s, SIMD %s", k->name, what, n,
                 ss_status_name(s0), ss_status_name(s1));
    cf_print_params(k, prm);
    return false;
  }
  const double rel = extreme ? MEAS_REL_EXTREME : MEAS_REL;
  if (s0 == SS_OK && a != b && !(fabs(a - b) <= rel * fabs(a) + MEAS_ABS * (1.0 + log((double)n)))) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: SIMD %.17g, scalar %.17g", k->name, what, n, b,
                 a);
    return false;
  }
  return true;
}

/* The buffers of the params and lengths sweeps: p and q. */
typedef struct {
  float *p, *q;
} meas_bufs;

static meas_bufs bufs_alloc(size_t n) {
  meas_bufs b = {ss_test_alloc(n * 4), ss_test_alloc(n * 4)};
  return b;
}

/* One sweep run: rows of the run's kind, then run_case. */
static bool sweep_run(const cf_run *r, void *ctx, cf_count *cnt) {
  meas_bufs *b = ctx;
  fill(r->k, b->p, b->q, r->n, r->kind, r->seed);
  return run_case(r->k, b->p, b->q, r->n, r->p, r->extreme, r->what, cnt);
}

TEST(conformance_measure_params) {
  meas_bufs b = bufs_alloc(PARAM_NS[NPARAM_NS - 1]);
  const cf_sweep s = {.family = SS_FAMILY_MEASURE, .run = sweep_run, .ctx = &b};
  CHECK(CF_PARAMS_SWEEP("measure params", &s, PARAM_NS, 700, 6, 4), "see above");
}

TEST(conformance_measure_lengths) {
  meas_bufs b = bufs_alloc(CF_LARGE_N);
  const cf_sweep s = {.family = SS_FAMILY_MEASURE, .run = sweep_run, .ctx = &b,
                      .length_seed = CF_SEED_BY_KIND, .adapter = &cf_measure_adapter};
  CHECK(cf_lengths_sweep("measure lengths", &s), "see above");
}

/* The measure's own bad inputs (beyond cf_bad_input_battery): the order
   of -Inf and a negative entry, a negative entry alone (SS_ERR_DOMAIN or a
   finite value), all -Inf logits, and the VJP's arguments. */
static bool measure_extra(const cf_adapter *a, const ss_kernel_info *k, ss_impl impl,
                          float *const rows[CF_ROWS], size_t N, const double *prm, size_t np) {
  static const size_t where[] = {0, 5, 16, 22};
  const bool logits = k->input == SS_INPUT_LOGITS;
  float *p = rows[0], *q = rows[1];
  const float *const in[CF_ROWS] = {p, q};
  bool ok = true;
  for (int side = 0; side < cf_rows_read(a, k) && !logits; side++)
    for (size_t w = 0; w < sizeof where / sizeof where[0] && ok; w++) {
      float *v = rows[side];
      fill(k, p, q, N, CF_NORMAL, 5);
      v[where[w]] = -INFINITY;
      /* precedence: NaN before -Inf and negative, -Inf before negative */
      v[(where[w] + 3) % N] = -1.0f;
      ok &= cf_expect(a, k, impl, in, N, prm, np, SS_ERR_NONFINITE, "-Inf and negative");
      v[(where[w] + 7) % N] = NAN;
      ok &= cf_expect(a, k, impl, in, N, prm, np, SS_ERR_NAN, "NaN, -Inf and negative");
      fill(k, p, q, N, CF_NORMAL, 5);
      v[where[w]] = -1e-3f;
      double out = -777.0;
      const ss_status s = ss_measure(k, impl, p, q, N, prm, np, &out);
      if (!(s == SS_ERR_DOMAIN ? out == -777.0 : s == SS_OK && isfinite(out))) {
        ss_test_fail(__FILE__, __LINE__, "%s: a negative entry gives %s, %g", k->name,
                     ss_status_name(s), out);
        ok = false;
      }
    }
  if (logits) {
    for (size_t i = 0; i < N; i++) p[i] = -INFINITY;
    ok &= cf_expect(a, k, impl, in, N, prm, np, SS_ERR_ALL_MASKED, "all -Inf");
  }
  fill(k, p, q, N, CF_NORMAL, 6);
  float dp[CF_OUT_N];
  if (k->has_backward) {
    if (ss_measure_vjp(k, impl, p, N, prm, np, NAN, dp) != SS_ERR_NONFINITE ||
        ss_measure_vjp(k, impl, p, N, prm, np, INFINITY, dp) != SS_ERR_NONFINITE ||
        ss_measure_vjp(k, impl, NULL, N, prm, np, 1.0, dp) != SS_ERR_NULL ||
        ss_measure_vjp(k, impl, p, 0, prm, np, 1.0, dp) != SS_ERR_EMPTY) {
      ss_test_fail(__FILE__, __LINE__, "%s vjp: bad g / NULL / empty", k->name);
      ok = false;
    }
    p[3] = NAN;
    if (ss_measure_vjp(k, impl, p, N, prm, np, 1.0, dp) != SS_ERR_NAN) {
      ss_test_fail(__FILE__, __LINE__, "%s vjp: NaN input", k->name);
      ok = false;
    }
  } else if (ss_measure_vjp(k, impl, p, N, prm, np, 1.0, dp) != SS_ERR_NO_BACKWARD) {
    ss_test_fail(__FILE__, __LINE__, "%s: vjp without a backward", k->name);
    ok = false;
  }
  return ok;
}

TEST(conformance_measure_bad_inputs) {
  static const size_t where[] = {0, 5, 16, 22};
  CHECK(CF_FAMILY_BAD_INPUTS(&cf_measure_adapter, 23, where, measure_extra, 0), "see above");
}

/* The VJP against central differences of the (double) measure along random
   directions of the finite entries, with steps small against the entries
   (relative h: the measure of a probability vector may be non-smooth at 0). */
/* The measure (scalar) of p at the parameters ctx; NAN when it fails. */
typedef struct {
  const ss_kernel_info *k;
  const double *prm;
} measure_ctx;
static double measure_of(const float *p, size_t n, const void *ctx) {
  const measure_ctx *c = ctx;
  double v;
  return ss_measure(c->k, SS_IMPL_SCALAR, p, NULL, n, c->prm, c->k->nparams, &v) == SS_OK ? v : NAN;
}

/* One backward run: the VJP of both impls at (p, prm), then against the
   differences. */
static bool backward_run(const cf_run *r, void *ctx, cf_count *cnt) {
  (void)ctx;
  const ss_kernel_info *k = r->k;
  const size_t n = r->n, c = r->c, t = r->t;
  const double *prm = r->p;
  float p[40], q[40], dp[40], d0[40], d[40], work[80];
  fill(k, p, q, n, r->kind, r->seed);
  const double g = 0.75;
  ss_status s0 = SS_OK;
  bool ok = true;
  FOR_EACH_IMPL(impl) {
    const ss_status s = ss_measure_vjp(k, impl, p, n, prm, k->nparams, g, dp);
    if (impl == SS_IMPL_SCALAR) s0 = s, memcpy(d0, dp, sizeof dp);
    if (s != s0 || !(s == SS_OK || s == SS_ERR_DOMAIN || s == SS_ERR_NONFINITE)) {
      ss_test_fail(__FILE__, __LINE__, "%s [%s]: vjp %s, scalar %s", k->name, r->label,
                   ss_status_name(s), ss_status_name(s0));
      ok = false;
    }
    if (s != SS_OK) continue;
    const double m = cf_max_abs(d0, n);
    for (size_t i = 0; i < n && ok; i++)
      if (!isfinite(dp[i]) || fabs((double)dp[i] - d0[i]) > 0x1p-12 * m) {
        ss_test_fail(__FILE__, __LINE__, "%s [%s] %s: dp[%zu] = %g, scalar %g", k->name,
                     r->label, ss_impl_name(impl), i, dp[i], d0[i]);
        ok = false;
      }
  }
  if (!ok || s0 != SS_OK) return ok;
  ss_rng rng = {c * 7 + t};
  const measure_ctx mc = {k, prm};
  double pred[2], f[2];
  for (int s = 0; s < 2; s++) {
    /* a fresh direction per step, each entry moved by its own size (the
       zeros of probabilities and the masked logits stay) */
    for (size_t i = 0; i < n; i++) {
      const double v = (ss_rng_u64(&rng) & 1) ? 1.0 : -1.0;
      const bool fixed = !isfinite(p[i]) || (k->input != SS_INPUT_LOGITS && p[i] == 0.0f);
      d[i] = fixed ? 0.0f : (float)(v * fmax(fabs(p[i]), 1e-3));
    }
    f[s] = g * fd_along32(measure_of, &mc, p, n, d, 1e-3 / (1 << s), d0, &pred[s], work);
  }
  /* each difference over its own prediction: 1 where the VJP is right */
  const double r0 = pred[0] != 0.0 ? f[0] / pred[0] : NAN, ratio = f[1] / pred[1];
  if (!isfinite(r0) || !isfinite(f[1]) || pred[1] == 0.0 || fabs(r0 - 1.0) > 0.1) {
    cnt->fd_skipped++;
    return true;
  }
  cnt->fd_checked++;
  /* the absolute part over <dp, x+ - x->, the prediction times the step 2h */
  if (!fd_agrees(ratio, 1.0, FD_TOL, 1.0, 1e-6 * fabs(g) / fabs(pred[1] * 1e-3))) {
    ss_test_fail(__FILE__, __LINE__, "%s [%s] n=%zu: <dp, v> = %.9g, differences %.9g", k->name,
                 r->label, n, pred[1], f[1]);
    return false;
  }
  return true;
}

TEST(conformance_measure_backward) {
  static const size_t ns[] = {1, 2, 3, 5, 8, 17, 40};
  const cf_sweep s = {.family = SS_FAMILY_MEASURE, .run = backward_run, .backward_only = true,
                      .kinds = CF_KIND_BIT(CF_NORMAL) | CF_KIND_BIT(CF_WIDE) | CF_KIND_BIT(CF_MASKED),
                      .seed_stride = 31, .min_fd_checked = 10};
  CHECK(CF_PARAMS_SWEEP("measure backward", &s, ns, 800, 2, 2), "see above");
}
