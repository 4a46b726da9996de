/*
 * Test helpers for the softmax family: float64 models of double inputs (for
 * central finite differences, which need perturbations finer than float
 * logits allow), data fillers, and the bad-input battery every normalizer
 * must pass. Header-only (static) so each test file stays self-contained.
 */
#ifndef SS_TEST_SOFTMAX_TESTING_H
#define SS_TEST_SOFTMAX_TESTING_H

#include <float.h>
#include <string.h>

#include "fd.h"
#include "reference.h"

#include "harness.h"

/* Logits uniform in [lo, hi). */
static inline void st_fill(float *x, size_t n, uint64_t seed, float lo, float hi) {
  ss_rng r = {seed};
  for (size_t i = 0; i < n; i++) x[i] = ss_rng_range(&r, lo, hi);
}

/* The number of entries that are not -Inf (the n of the length-scaled kernels). */
static inline size_t st_unmasked(const float *x, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += x[i] != -INFINITY;
  return c;
}

/* out_i = exp(beta (x_i - m)) / sum, in double, of double logits (-Inf -> 0). */
static inline void st_softmax64(const double *x, size_t n, double beta, double *out) {
  double m = -INFINITY, s = 0.0;
  for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  for (size_t i = 0; i < n; i++) {
    out[i] = x[i] == -INFINITY ? 0.0 : exp(beta * (x[i] - m));
    s += out[i];
  }
  for (size_t i = 0; i < n; i++) out[i] /= s;
}

static inline double st_logsumexp64(const double *x, size_t n) {
  double m = -INFINITY, s = 0.0;
  for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  for (size_t i = 0; i < n; i++) s += exp(x[i] - m);
  return m + log(s);
}

/* A float64 model of a normalizer: out = f(x; param). */
typedef void (*st_model64)(const double *x, size_t n, double param, double *out);

static inline void st_model_softmax(const double *x, size_t n, double t, double *out) {
  st_softmax64(x, n, 1.0 / t, out);
}
static inline void st_model_log_softmax(const double *x, size_t n, double unused,
                                        double *out) {
  (void)unused;
  const double c = st_logsumexp64(x, n);
  for (size_t i = 0; i < n; i++) out[i] = x[i] - c;
}

/* out = f(x; param) in double, of float logits. */
static inline void st_ref64(st_model64 f, double param, const float *x, size_t n, double *out) {
  double *xd = ss_test_alloc(n * sizeof *xd);
  for (size_t i = 0; i < n; i++) xd[i] = x[i];
  f(xd, n, param, out);
  ss_test_free(xd);
}

/* L = sum_i g_i f(x; param)_i of a float64 model, as a function of x
   (st_dot_of_x, at the fixed param) or of the parameter (st_dot_of_param:
   v = {param}, at the fixed x), for the differences of fd.h. */
typedef struct st_dot {
  st_model64 f;
  const double *x; /* st_dot_of_param: the fixed x (n entries) */
  size_t n;
  const float *g;
  double param;    /* st_dot_of_x: the fixed parameter */
  double *out;     /* n doubles of scratch */
} st_dot;
static inline double st_dot_at(const st_dot *c, const double *x, double param) {
  c->f(x, c->n, param, c->out);
  double l = 0.0;
  for (size_t i = 0; i < c->n; i++) l += (double)c->g[i] * c->out[i];
  return l;
}
static inline double st_dot_of_x(const double *x, size_t n, const void *ctx) {
  (void)n;
  const st_dot *c = ctx;
  return st_dot_at(c, x, c->param);
}
static inline double st_dot_of_param(const double *v, size_t one, const void *ctx) {
  (void)one;
  const st_dot *c = ctx;
  return st_dot_at(c, c->x, v[0]);
}

/* Central differences of L(x) = sum_i g_i f(x)_i: fd_j = dL/dx_j, step h.
   In double the truncation error is ~h^2 |f'''| and rounding ~1e-16 |L| / h,
   both < 1e-9 * sum|g| at h = 1e-5 for logits of size <= 100. */
static inline void st_fd_vjp(st_model64 f, const float *x, const float *g, size_t n,
                             double param, double h, double *fd) {
  double *xp = ss_test_alloc(n * sizeof *xp), *out = ss_test_alloc(n * sizeof *out);
  for (size_t i = 0; i < n; i++) xp[i] = x[i];
  st_dot c = {.f = f, .n = n, .g = g, .param = param, .out = out};
  for (size_t j = 0; j < n; j++) fd[j] = fd_central64(st_dot_of_x, &c, xp, n, j, h);
  ss_test_free(xp);
  ss_test_free(out);
}

/* The central difference in the parameter of L = sum_i g_i f(x64; param)_i
   at param, step h. */
static inline double st_fd_param(st_model64 f, const double *x64, const float *g, size_t n,
                                 double param, double h) {
  double *out = ss_test_alloc(n * sizeof *out), v = param;
  st_dot c = {.f = f, .x = x64, .n = n, .g = g, .out = out};
  const double fd = fd_central64(st_dot_of_param, &c, &v, 1, 0, h);
  ss_test_free(out);
  return fd;
}

/* |sum y - 1| <= tol for k's output (no parameters) at n = 2^20, x uniform
   in +-ranges[r] / 2 (seed seed0 + r), in every impl; false after reporting
   the first sum out of bound. */
static inline bool st_sums_to_one_large(const ss_kernel_info *k, const float *ranges, size_t nr,
                                        uint64_t seed0, double tol) {
  const size_t n = (size_t)1 << 20;
  float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
  for (size_t r = 0; r < nr; r++) {
    st_fill(x, n, seed0 + r, -ranges[r] / 2, ranges[r] / 2);
    FOR_EACH_IMPL(impl) {
      ss_test_count(1);
      const ss_status st = ss_normalize(k, impl, x, n, NULL, 0, y);
      double s = 0.0;
      for (size_t i = 0; i < n; i++) s += y[i];
      if (st != SS_OK || !(fabs(s - 1.0) <= tol)) {
        ss_test_fail(__FILE__, __LINE__, "%s %s range %g: %s, sum - 1 = %.3g", k->name,
                     ss_impl_name(impl), ranges[r], ss_status_str(st), s - 1.0);
        return false;
      }
    }
  }
  ss_test_free(x);
  ss_test_free(y);
  return true;
}

/* The softmax VJP of k (softmax, online or two-pass: dx = y (g - <g, y>))
   against that formula in float64 from the float64 softmax, at each n of
   ns, x uniform in +-4 and g in +-1 (seeds seed + n and seed + 10 + n):
   |dx - ref| <= 1e-6 max|ref| + fwd_rel y_i (|g_i - dot| + max|g|) + 1e-9.
   The middle term carries a forward error of fwd_rel in y into dx (y =
   1 - 3e-8 for n = 1 gives dx = 3e-8 g, not 0). False after reporting. */
static inline bool st_softmax_vjp_formula(const ss_kernel_info *k, const size_t *ns, size_t count,
                                          uint64_t seed, double fwd_rel) {
  for (size_t t = 0; t < count; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *g = ss_test_alloc(n * 4),
          *dx = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8);
    st_fill(x, n, seed + n, -4.0f, 4.0f);
    st_fill(g, n, seed + 10 + n, -1.0f, 1.0f);
    ref_softmax(x, n, 1.0, ref);
    double dot = 0.0, scale = 0.0, gmax = 0.0;
    for (size_t i = 0; i < n; i++) dot += g[i] * ref[i], gmax = fmax(gmax, fabs(g[i]));
    for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(ref[i] * (g[i] - dot)));
    FOR_EACH_IMPL(impl) {
      ss_test_count(2);
      ss_status st = ss_normalize(k, impl, x, n, NULL, 0, y);
      if (st == SS_OK) st = ss_normalize_vjp(k, impl, x, y, g, n, NULL, 0, dx);
      if (st != SS_OK) {
        ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: %s", k->name, ss_impl_name(impl), n,
                     ss_status_str(st));
        return false;
      }
      for (size_t i = 0; i < n; i++) {
        const double r = ref[i] * (g[i] - dot);
        const double fwd = fwd_rel * ref[i] * (fabs(g[i] - dot) + gmax);
        ss_test_count(1);
        if (!(fabs(dx[i] - r) <= 1e-6 * scale + fwd + 1e-9)) {
          ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu i=%zu: %g vs %g", k->name,
                       ss_impl_name(impl), n, i, dx[i], r);
          return false;
        }
      }
    }
  }
  return true;
}

#define ST_SENTINEL (-1234.5f)

static inline bool st_untouched(const float *y, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (memcmp(&y[i], &(float){ST_SENTINEL}, sizeof(float)) != 0) return false;
  return true;
}
static inline void st_poison(float *y, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] = ST_SENTINEL;
}

/* Every bad input of a normalizer gets its own status and leaves y as it was.
   params must hold nparams + 1 valid values (for the wrong-count case).
   n = 37 reaches the 16-wide body, the 4-wide loop and the partial tail. */
static inline void st_normalizer_bad_inputs(const ss_kernel_info *k,
                                            const double *params, size_t np) {
  enum { N = 37 };
  float x[N], y[N];
  CHECK(k != NULL, "kernel not registered");
  static const size_t where[] = {0, 5, 16, 31, 33, 36};
  FOR_EACH_IMPL(impl) {
    const char *in = ss_impl_name(impl);
    for (size_t w = 0; w < sizeof where / sizeof where[0]; w++) {
      st_fill(x, N, 7, -5, 5);
      x[where[w]] = NAN;
      st_poison(y, N);
      CHECK_STATUS(ss_normalize(k, impl, x, N, params, np, y), SS_ERR_NAN);
      CHECK(st_untouched(y, N), "%s NaN at %zu: y written", in, where[w]);
      x[where[w]] = INFINITY;
      CHECK_STATUS(ss_normalize(k, impl, x, N, params, np, y), SS_ERR_POS_INF);
      CHECK(st_untouched(y, N), "%s +Inf at %zu: y written", in, where[w]);
      x[(where[w] + 9) % N] = NAN; /* NaN wins over +Inf, in either order */
      CHECK_STATUS(ss_normalize(k, impl, x, N, params, np, y), SS_ERR_NAN);
      CHECK(st_untouched(y, N), "%s NaN+Inf: y written", in);
    }
    for (size_t i = 0; i < N; i++) x[i] = -INFINITY;
    for (size_t n = 1; n <= N; n += 4) {
      CHECK_STATUS(ss_normalize(k, impl, x, n, params, np, y), SS_ERR_ALL_MASKED);
      CHECK(st_untouched(y, N), "%s all -Inf n=%zu: y written", in, n);
    }
    st_fill(x, N, 8, -5, 5);
    CHECK_STATUS(ss_normalize(k, impl, NULL, N, params, np, y), SS_ERR_NULL);
    CHECK_STATUS(ss_normalize(k, impl, x, N, params, np, NULL), SS_ERR_NULL);
    CHECK_STATUS(ss_normalize(k, impl, x, 0, params, np, y), SS_ERR_EMPTY);
    /* n is checked before any access, so the small buffers are never read. */
    CHECK_STATUS(ss_normalize(k, impl, x, SS_MAX_N + 1, params, np, y), SS_ERR_TOO_LARGE);
    CHECK_STATUS(ss_normalize(k, impl, x, (size_t)-1, params, np, y), SS_ERR_TOO_LARGE);
    CHECK_STATUS(ss_normalize(k, impl, x, N, params, np + 1, y), SS_ERR_PARAM_COUNT);
    if (np > 0) {
      CHECK_STATUS(ss_normalize(k, impl, x, N, params, np - 1, y), SS_ERR_PARAM_COUNT);
      CHECK_STATUS(ss_normalize(k, impl, x, N, NULL, np, y), SS_ERR_NULL);
    }
    CHECK(st_untouched(y, N), "%s: y written on an argument error", in);
    double out = 0;
    CHECK_STATUS(ss_measure(k, impl, x, NULL, N, params, np, &out), SS_ERR_FAMILY);
  }
  CHECK_STATUS(ss_normalize(k, SS_IMPL_COUNT, x, N, params, np, y), SS_ERR_UNSUPPORTED);
  CHECK_STATUS(ss_normalize(k, (ss_impl)-1, x, N, params, np, y), SS_ERR_UNSUPPORTED);
  if (!ss_impl_available(SS_IMPL_SIMD))
    CHECK_STATUS(ss_normalize(k, SS_IMPL_SIMD, x, N, params, np, y), SS_ERR_UNSUPPORTED);
  CHECK(st_untouched(y, N), "y written on an unsupported impl");
}

/* The subnormal rule (core/src/common/softmax_row.h) for a
   probability kernel computing softmax(beta x): on rows whose outputs sit
   around FLT_MIN (sums S of 1 and of ~40, entries at ln(FLT_MIN S) + delta
   for small and large delta, -Inf, far below), every impl gives
   - no denormal output (0 or >= FLT_MIN),
   - exactly +0 where the exact output is below FLT_MIN (1 - band),
   - a value within `band` (relative) where it is above FLT_MIN (1 + band),
   and so scalar and SIMD agree on every zero outside the band. Rows have
   the max at 0 and at `far` (e.g. outside a kernel's fast range). */
static inline void st_check_subnormal_rule(const ss_kernel_info *k, const double *params,
                                           size_t np, double beta, double band, float far) {
  enum { N = 67 };
  static const double deltas[] = {-30.0, -1.0, -0.5, -0.01, -1e-4, -1e-5, 1e-5, 1e-4,
                                  0.01, 0.5, 1.0, 5.0};
  enum { ND = sizeof deltas / sizeof deltas[0] };
  float x[N], y[N];
  double ref[N];
  CHECK(k != NULL, "kernel not registered");
  for (int rep = 0; rep < 2; rep++) {     /* rep 0: S ~ 1; rep 1: S ~ 40 */
    for (size_t shift = 0; shift < 3; shift++) { /* where the entries sit in the SIMD lanes */
      const float base = shift == 2 ? far : 0.0f;
      for (size_t i = 0; i < N; i++) x[i] = -INFINITY;
      x[0] = base;
      size_t at = 1 + shift;
      if (rep == 1)
        for (size_t j = 0; j < 39; j++) x[at++] = base;
      const double S = rep == 1 ? 40.0 : 1.0;
      for (size_t d = 0; d < ND && at < N - 2; d++) {
        const double z = log(FLT_MIN * S) + deltas[d];   /* beta (x - max) */
        x[at++] = (float)((double)base + z / beta);
      }
      x[N - 1] = (float)((double)base - 200.0 / beta);
      ref_softmax(x, N, beta, ref);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(k, impl, x, N, params, np, y), SS_OK);
        for (size_t i = 0; i < N; i++) {
          const char *in = ss_impl_name(impl);
          CHECK(y[i] == 0.0f || y[i] >= FLT_MIN, "%s rep %d i=%zu: denormal output %a (ref %g)",
                in, rep, i, y[i], ref[i]);
          if (ref[i] < FLT_MIN * (1.0 - band))
            CHECK(y[i] == 0.0f && !signbit(y[i]), "%s rep %d i=%zu: %a where the exact output "
                  "%g is below FLT_MIN", in, rep, i, y[i], ref[i]);
          else if (ref[i] >= FLT_MIN * (1.0 + band))
            CHECK(fabs(y[i] - ref[i]) <= band * ref[i], "%s rep %d i=%zu: %a, exact %a", in, rep,
                  i, y[i], ref[i]);
        }
      }
    }
  }
}

#endif
