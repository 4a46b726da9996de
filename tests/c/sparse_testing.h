/*
 * Test helpers for the sparse normalizers: float64 references written from
 * the papers' sort-based definitions (independent of core/src/sparse), the
 * matching st_model64 functions for finite differences, and input fillers
 * covering the orders that break naive pivoting. Header-only (static).
 */
#ifndef SS_TEST_SPARSE_TESTING_H
#define SS_TEST_SPARSE_TESTING_H

#include <stdlib.h>

#include "harness.h"
#include "softmax_testing.h"
#include "sparse/threshold.h"

static int sp_desc_double(const void *a, const void *b) {
  const double u = *(const double *)a, v = *(const double *)b;
  return (u < v) - (u > v);
}

/* qsort's comparator for floats, descending (the sort the selections are checked against). */
static int sp_desc_float(const void *a, const void *b) {
  const float u = *(const float *)a, v = *(const float *)b;
  return (u < v) - (u > v);
}

/* The sorted finite entries of x minus their max, descending, into z
   (caller: n doubles); returns their count, *max receives the max. */
static inline size_t sp_sorted_shifted(const double *x, size_t n, double *z, double *max) {
  double m = -INFINITY;
  size_t f = 0;
  for (size_t i = 0; i < n; i++)
    if (x[i] != -INFINITY) {
      z[f++] = x[i];
      if (x[i] > m) m = x[i];
    }
  for (size_t i = 0; i < f; i++) z[i] -= m;
  qsort(z, f, sizeof *z, sp_desc_double);
  *max = m;
  return f;
}

/* Sparsemax (Martins & Astudillo 2016, Algorithm 1) in double: K = largest
   k with 1 + k z_(k) > sum_{j<=k} z_(j); tau = (sum_{j<=K} z_(j) - 1) / K.
   out_i = max(x_i - tau, 0); *tau_out (x scale) and *k_out may be NULL. */
static inline void sp_sparsemax64(const double *x, size_t n, double *out, double *tau_out,
                                  size_t *k_out) {
  double *z = ss_test_alloc(n * sizeof *z), max;
  const size_t f = sp_sorted_shifted(x, n, z, &max);
  double cum = 0.0, cum_k = 0.0;
  size_t K = 0;
  for (size_t k = 1; k <= f; k++) {
    cum += z[k - 1];
    if (1.0 + (double)k * z[k - 1] > cum) {
      K = k;
      cum_k = cum;
    }
  }
  const double t = (cum_k - 1.0) / (double)K; /* relative to max */
  for (size_t i = 0; i < n; i++) {
    const double d = x[i] == -INFINITY ? -INFINITY : (x[i] - max) - t;
    out[i] = d > 0.0 ? d : 0.0;
  }
  if (tau_out) *tau_out = max + t;
  if (k_out) *k_out = K;
  ss_test_free(z);
}

/* 1.5-entmax (Peters, Niculae & Martins 2019, sort-based exact algorithm)
   in double on z = (x - max) / 2: mean_k, ms_k = running mean and mean of
   squares, delta_k = (1 - k (ms_k - mean_k^2)) / k, tau_k = mean_k -
   sqrt(max(delta_k, 0)); support = largest k with tau_k <= z_(k).
   out_i = max(z_i - tau, 0)^2; *tau_out is on the scale of x / 2. */
static inline void sp_entmax15_64(const double *x, size_t n, double *out, double *tau_out,
                                  size_t *k_out) {
  double *z = ss_test_alloc(n * sizeof *z), max;
  const size_t f = sp_sorted_shifted(x, n, z, &max);
  double s = 0.0, ss = 0.0, tau = 0.0;
  size_t K = 0;
  for (size_t k = 1; k <= f; k++) {
    const double zk = 0.5 * z[k - 1];
    s += zk;
    ss += zk * zk;
    const double mean = s / (double)k, ms = ss / (double)k;
    const double delta = (1.0 - (double)k * (ms - mean * mean)) / (double)k;
    const double tk = mean - sqrt(delta > 0.0 ? delta : 0.0);
    if (tk <= zk) {
      K = k;
      tau = tk;
    }
  }
  for (size_t i = 0; i < n; i++) {
    const double d = x[i] == -INFINITY ? -INFINITY : 0.5 * (x[i] - max) - tau;
    out[i] = d > 0.0 ? d * d : 0.0;
  }
  if (tau_out) *tau_out = 0.5 * max + tau;
  if (k_out) *k_out = K;
  ss_test_free(z);
}

/* The same on float input. */
static inline void sp_ref(bool entmax, const float *x, size_t n, double *out, double *tau,
                          size_t *k) {
  double *xd = ss_test_alloc(n * sizeof *xd);
  for (size_t i = 0; i < n; i++) xd[i] = x[i];
  if (entmax)
    sp_entmax15_64(xd, n, out, tau, k);
  else
    sp_sparsemax64(xd, n, out, tau, k);
  ss_test_free(xd);
}

/* st_model64 shapes (the parameter is unused). */
static inline void sp_model_sparsemax(const double *x, size_t n, double unused, double *out) {
  (void)unused;
  sp_sparsemax64(x, n, out, NULL, NULL);
}
static inline void sp_model_entmax15(const double *x, size_t n, double unused, double *out) {
  (void)unused;
  sp_entmax15_64(x, n, out, NULL, NULL);
}

/* Input families. Orders and ties that make fixed pivots quadratic or
   two-way partitions degrade, plus narrow rows where every entry is a
   candidate (all within 1 of the max). */
enum {
  SP_UNIFORM5,   /* U[-5, 5) */
  SP_UNIFORM50,  /* U[-50, 50) */
  SP_NARROW,     /* U[0, 1): every entry within 1 of the max */
  SP_NORMAL,     /* 2 N(0, 1) */
  SP_INT_TIES,   /* {0, ..., 4} */
  SP_ASCENDING,  /* i / n: sorted, narrow */
  SP_DESCENDING, /* -i / n */
  SP_ALL_EQUAL,  /* 0.25 */
  SP_ORGAN_PIPE, /* up then down, narrow */
  SP_QUARTERS,   /* {0, 0.25, ..., 1}: many duplicates near the threshold */
  SP_MASKED,     /* U[-3, 3) with a quarter -Inf */
  SP_KINDS
};
static const char *const sp_kind_name[SP_KINDS] = {
    "uniform5",   "uniform50", "narrow",     "normal",   "int_ties", "ascending",
    "descending", "all_equal", "organ_pipe", "quarters", "masked"};

static inline void sp_fill(float *x, size_t n, int kind, uint64_t seed) {
  ss_rng r = {seed};
  for (size_t i = 0; i < n; i++) {
    const double t = (double)i / (double)n;
    switch (kind) {
      case SP_UNIFORM5:
        x[i] = ss_rng_range(&r, -5, 5);
        break;
      case SP_UNIFORM50:
        x[i] = ss_rng_range(&r, -50, 50);
        break;
      case SP_NARROW:
        x[i] = ss_rng_range(&r, 0, 1);
        break;
      case SP_NORMAL:
        x[i] = (float)(2.0 * ss_rng_normal(&r));
        break;
      case SP_INT_TIES:
        x[i] = (float)(ss_rng_u64(&r) % 5);
        break;
      case SP_ASCENDING:
        x[i] = (float)t;
        break;
      case SP_DESCENDING:
        x[i] = (float)-t;
        break;
      case SP_ALL_EQUAL:
        x[i] = 0.25f;
        break;
      case SP_ORGAN_PIPE:
        x[i] = (float)(t < 0.5 ? t : 1.0 - t);
        break;
      case SP_QUARTERS:
        x[i] = 0.25f * (float)(ss_rng_u64(&r) % 5);
        break;
      default:
        x[i] = ss_rng_u64(&r) % 4 == 0 ? -INFINITY : ss_rng_range(&r, -3, 3);
        break;
    }
  }
  if (kind == SP_MASKED) x[n / 2] = 1.0f; /* never all -Inf */
}

/* ss_sparsemax_ex / ss_entmax15_ex. */
typedef ss_status (*sp_ex_fn)(ss_impl, ss_threshold_method, const float *, size_t, float *, float *,
                              size_t *);

/* Runs every available impl with both methods and requires bitwise equal
   y, tau and support: the support test is exact, so select vs sort and
   SIMD vs scalar must agree to the bit. y/tau/k receive the result (the
   scalar select one). Returns false after reporting a failure. */
static inline bool sp_all_agree(sp_ex_fn f, const float *x, size_t n, float *y, float *tau,
                                size_t *k, const char *what) {
  float *y2 = ss_test_alloc(n * sizeof *y2);
  bool ok = true;
  ss_status s = f(SS_IMPL_SCALAR, SS_THRESHOLD_SELECT, x, n, y, tau, k);
  if (s != SS_OK) {
    ss_test_fail(__FILE__, __LINE__, "%s n=%zu: status %s", what, n, ss_status_str(s));
    ok = false;
  }
  FOR_EACH_IMPL(impl) {
    for (int m = 0; m < 2 && ok; m++) {
      float t2;
      size_t k2;
      s = f(impl, (ss_threshold_method)m, x, n, y2, &t2, &k2);
      if (s != SS_OK || memcmp(y, y2, n * sizeof *y) != 0 || memcmp(tau, &t2, sizeof t2) != 0 ||
          *k != k2) {
        size_t at = 0;
        while (at + 1 < n && memcmp(&y[at], &y2[at], sizeof *y) == 0) at++;
        ss_test_fail(__FILE__, __LINE__,
                     "%s n=%zu: %s %s differs from scalar select (status %d; tau %.9g vs "
                     "%.9g; support %zu vs %zu; y[%zu] %.9g vs %.9g)",
                     what, n, ss_impl_name(impl), m ? "sort" : "select", (int)s, t2, *tau, k2, *k,
                     at, y2[at], y[at]);
        ok = false;
      }
    }
  }
  ss_test_free(y2);
  return ok;
}

/* Stated error bounds of a kernel against its float64 reference:
   |y_i - ref_i| <= rel ref_i + root sqrt(ref_i) + abs, |sum y - 1| <= sum. */
typedef struct sp_bounds {
  double rel, root, abs, sum;
} sp_bounds;

/* One row against the reference: bitwise agreement of every impl and
   method (sp_all_agree), the error bound, exact zeros below tau, support
   (== #{y > 0}; == the reference's K when no entry is within 1e-6 of tau),
   sum, and tau. Returns the worst err / bound (> 1 on failure). */
static inline double sp_check_ref(bool entmax, const sp_bounds *b, const float *x, size_t n,
                                  const char *what) {
  sp_ex_fn f = entmax ? ss_entmax15_ex : ss_sparsemax_ex;
  float *y = ss_test_alloc(n * 4), tau;
  double *ref = ss_test_alloc(n * 8), tref, worst = 0.0, sum = 0.0;
  size_t k, kref, near = 0, pos = 0;
  if (!sp_all_agree(f, x, n, y, &tau, &k, what)) return 2.0;
  sp_ref(entmax, x, n, ref, &tref, &kref);
  for (size_t i = 0; i < n; i++) {
    const double e = fabs(y[i] - ref[i]);
    const double r = e / (b->rel * ref[i] + b->root * sqrt(ref[i]) + b->abs);
    if (r > worst) worst = r;
    if (r > 1.0) {
      ss_test_fail(__FILE__, __LINE__, "%s n=%zu i=%zu: y=%.9g ref=%.17g", what, n, i, y[i],
                   ref[i]);
      return 2.0;
    }
    const double z = entmax ? 0.5 * (double)x[i] : (double)x[i];
    if (x[i] != -INFINITY && fabs(z - tref) < 1e-6) near++;
    if (z < tref - 1e-6 && y[i] != 0.0f) {
      ss_test_fail(__FILE__, __LINE__, "%s i=%zu: y=%g below tau is not exactly 0", what, i, y[i]);
      return 2.0;
    }
    pos += y[i] > 0.0f;
    sum += y[i];
  }
  if (pos != k || (near == 0 && k != kref) || fabs(sum - 1.0) > b->sum ||
      fabs(tau - tref) > 0x1p-23 * fabs(tref) + 1e-13) {
    ss_test_fail(__FILE__, __LINE__,
                 "%s n=%zu: support %zu (#y>0 %zu, ref %zu), sum-1 %.3g, tau %.9g ref %.17g", what,
                 n, k, pos, kref, sum - 1.0, tau, tref);
    return 2.0;
  }
  ss_test_free(y);
  ss_test_free(ref);
  return worst;
}

/* The exact search's cost on the candidates of x (entries >= the floor):
   element visits / m; *m_out = m. */
static inline double sp_select_work(ss_sparse_kind kind, const float *x, size_t n, size_t *m_out) {
  float *v = ss_test_alloc(n * sizeof *v), max = -INFINITY;
  for (size_t i = 0; i < n; i++) max = fmaxf(max, x[i]);
  ss_grid g;
  ss_grid_init(&g, kind, max);
  const size_t m = ss_compact_ge_scalar(x, n, ss_sparse_floor(kind, max), v);
  ss_support s;
  size_t work = 0;
  ss_sparse_select(v, m, &g, &s, &work);
  ss_test_free(v);
  *m_out = m;
  return (double)work / (double)m;
}

/* -Inf padding: x (n entries of family `kind`) spread among -Inf entries.
   The padded entries must be exactly +0 and the others, tau and the
   support bitwise unchanged (tau depends only on the support's values). */
static inline bool sp_check_inf_padding(sp_ex_fn f, int kind, size_t n) {
  const size_t np = 2 * n + 3;
  float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
  float *xp = ss_test_alloc(np * 4), *yp = ss_test_alloc(np * 4);
  size_t *at = ss_test_alloc(n * sizeof *at);
  sp_fill(x, n, kind, 40 + n);
  ss_rng r = {n};
  size_t j = 0;
  for (size_t i = 0; i < np; i++) {
    const bool pad = j == n || (np - i > n - j && ss_rng_u64(&r) % 2);
    if (pad) {
      xp[i] = -INFINITY;
    } else {
      at[j] = i;
      xp[i] = x[j++];
    }
  }
  bool ok = true;
  FOR_EACH_IMPL(impl) {
    for (int m = 0; m < 2 && ok; m++) {
      float tau, taup;
      size_t k, kp;
      ok = f(impl, (ss_threshold_method)m, x, n, y, &tau, &k) == SS_OK &&
           f(impl, (ss_threshold_method)m, xp, np, yp, &taup, &kp) == SS_OK && tau == taup &&
           k == kp;
      for (size_t i = 0, q = 0; i < np && ok; i++) {
        if (q < n && at[q] == i)
          ok = memcmp(&yp[i], &y[q++], 4) == 0;
        else
          ok = yp[i] == 0.0f && !signbit(yp[i]);
      }
      if (!ok)
        ss_test_fail(__FILE__, __LINE__, "%s %s %s n=%zu: padding changed the result",
                     ss_impl_name(impl), m ? "sort" : "select", sp_kind_name[kind], n);
    }
  }
  return ok;
}

#if SS_HAVE_SIMD
/* With a negative margin the SIMD narrowing overshoots tau and leaves out
   entries of the support; the driver must notice (exactly) and fall back,
   so the result stays bitwise the scalar one. Returns how many of the
   rows really needed the fallback (-1 on a mismatch). */
static inline int sp_check_fallback(ss_sparse_kind kind, size_t n, double margin) {
  float *x = ss_test_alloc(n * 4), *v = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4),
        *b = ss_test_alloc(n * 4);
  int exercised = 0;
  for (int fam = 0; fam < SP_KINDS; fam++) {
    sp_fill(x, n, fam, 5 + fam);
    float max = -INFINITY, excluded, ta, tb;
    for (size_t i = 0; i < n; i++) max = fmaxf(max, x[i]);
    ss_grid g;
    ss_grid_init(&g, kind, max);
    const size_t m =
        ss_sparse_narrow_simd(x, n, &g, ss_sparse_floor(kind, max), margin, v, &excluded);
    size_t ka, kb;
    if (ss_sparse_run_margin(kind, SS_IMPL_SCALAR, SS_THRESHOLD_SELECT, x, n, 0.0, a, &ta, &ka) !=
            SS_OK ||
        ss_sparse_run_margin(kind, SS_IMPL_SIMD, SS_THRESHOLD_SELECT, x, n, margin, b, &tb, &kb) !=
            SS_OK ||
        memcmp(a, b, n * 4) != 0 || ta != tb || ka != kb) {
      ss_test_fail(__FILE__, __LINE__, "%s: fallback result differs", sp_kind_name[fam]);
      return -1;
    }
    /* the narrowed set missed part of the support */
    const float z = kind == SS_SPARSE_ENTMAX15 ? 0.5f * excluded : excluded;
    if (m == 0 || z > ta) exercised++;
  }
  return exercised;
}
#endif

#endif
