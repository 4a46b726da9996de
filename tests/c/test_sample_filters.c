/*
 * The decoding filters top_k, top_p, min_p, typical (core/src/sample):
 *   - the kept set (probs > 0) equals an independent float64 reference that
 *     sorts by the filter's key and keeps tie groups whole (top-k: p >= the
 *     k-th largest; top-p / typical: the mass strictly before a tie group <
 *     p; min-p: p >= min_p p_max), on random logits, on exact ties at the
 *     boundary, with -Inf entries, and at the edges (k = 1, k = n, p = 1,
 *     min_p = 0 and 1);
 *   - probs = the float64 softmax(x / T) renormalized on the kept set, within
 *     2e-6 relative;
 *   - draws fit probs (chi-square, alpha = 1e-3, fixed seed) and never hit a
 *     dropped token;
 *   - scalar and SIMD give bitwise the same probs and draws (n up to 2^18);
 *   - the weighted selection behind top-p is expected-linear: < 8 n elements
 *     touched on 2^18 entries;
 *   - bad parameters and inputs get their status.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/simd.h"
#include "sample/mass_select.h"
#include "sample_testing.h"

typedef struct kv {
  double key, p;
} kv;
static int by_key_desc(const void *a, const void *b) {
  const double x = ((const kv *)a)->key, y = ((const kv *)b)->key;
  return (x < y) - (x > y);
}

/* keep[i] = whether i is in the tie-closed prefix (by key, descending)
   whose mass before each tie group is < P. */
static void prefix_by_key(const double *key, const double *p, size_t n, double P, bool *keep) {
  kv *a = ss_test_alloc(n * sizeof *a);
  for (size_t i = 0; i < n; i++) a[i] = (kv){key[i], p[i]};
  qsort(a, n, sizeof *a, by_key_desc);
  double before = 0.0, cut = -INFINITY;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    double g = 0.0;
    while (j < n && a[j].key == a[i].key) g += a[j++].p;
    if (before < P) cut = a[i].key;
    before += g;
    i = j;
  }
  for (size_t i = 0; i < n; i++) keep[i] = p[i] > 0.0 && key[i] >= cut;
  ss_test_free(a);
}

typedef enum { F_TOPK, F_TOPP, F_MINP, F_TYPICAL } filt;
static const char *FNAME[] = {"top_k", "top_p", "min_p", "typical"};

/* The reference kept set of a filter with parameter v at temperature t. */
static void reference(filt f, const float *x, size_t n, double v, double t, bool *keep, double *p) {
  st_softmax_t64(x, n, t, p);
  double *key = ss_test_alloc(n * sizeof *key);
  if (f == F_TOPK) {
    for (size_t i = 0; i < n; i++) key[i] = p[i];
    double *s = ss_test_alloc(n * sizeof *s);
    memcpy(s, p, n * sizeof *s);
    kv *a = ss_test_alloc(n * sizeof *a);
    for (size_t i = 0; i < n; i++) a[i] = (kv){s[i], 0};
    qsort(a, n, sizeof *a, by_key_desc);
    const double thr = a[(size_t)v - 1].key;
    for (size_t i = 0; i < n; i++) keep[i] = p[i] > 0.0 && p[i] >= thr;
  } else if (f == F_TOPP) {
    if (v >= 1.0) {
      for (size_t i = 0; i < n; i++) keep[i] = p[i] > 0.0;
    } else {
      prefix_by_key(p, p, n, v, keep);
    }
  } else if (f == F_MINP) {
    double pm = 0.0;
    for (size_t i = 0; i < n; i++) pm = p[i] > pm ? p[i] : pm;
    for (size_t i = 0; i < n; i++) keep[i] = p[i] > 0.0 && p[i] >= v * pm;
  } else {
    double h = 0.0;
    for (size_t i = 0; i < n; i++) if (p[i] > 0.0) h -= p[i] * log(p[i]);
    for (size_t i = 0; i < n; i++) key[i] = p[i] > 0.0 ? -fabs(-log(p[i]) - h) : -INFINITY;
    if (v >= 1.0)
      for (size_t i = 0; i < n; i++) keep[i] = p[i] > 0.0;
    else
      prefix_by_key(key, p, n, v, keep);
  }
  ss_test_free(key);
}

static const char *PNAME[] = {"k", "p", "min_p", "p"};

/* Runs filter f and checks kept set, probs and (if draws) the fit. */
static bool check_filter(filt f, const float *x, size_t n, double v, double t, size_t draws,
                         uint64_t seed) {
  const ss_kernel_info *k = ss_kernel_find(FNAME[f], SS_FAMILY_SAMPLER);
  if (!k) { ss_test_fail(__FILE__, __LINE__, "%s not registered", FNAME[f]); return false; }
  double params[4];
  const char *names[] = {PNAME[f], "temperature", "seed", "draws"};
  const double vals[] = {v, t, (double)seed, (double)draws};
  st_params(k, params, 4, names, vals);
  float *probs = ss_test_alloc(n * sizeof *probs);
  uint32_t *d = ss_test_alloc((draws ? draws : 1) * sizeof *d);
  bool *keep = ss_test_alloc(n * sizeof *keep);
  double *p = ss_test_alloc(n * sizeof *p);
  reference(f, x, n, v, t, keep, p);
  double kept = 0.0;
  for (size_t i = 0; i < n; i++) kept += keep[i] ? p[i] : 0.0;
  for (ss_impl impl = SS_IMPL_SCALAR; impl < SS_IMPL_COUNT; impl = (ss_impl)(impl + 1)) {
    if (!ss_impl_available(impl)) continue;
    const ss_status s = ss_sample(k, impl, x, n, params, k->nparams, probs, d, NULL);
    if (s != SS_OK) { ss_test_fail(__FILE__, __LINE__, "%s: %s", FNAME[f], ss_status_str(s)); return false; }
    for (size_t i = 0; i < n; i++) {
      if ((probs[i] > 0.0f) != keep[i]) {
        ss_test_fail(__FILE__, __LINE__, "%s %s=%g T=%g n=%zu (%s): entry %zu kept %d, reference %d (p %g)",
                     FNAME[f], PNAME[f], v, t, n, ss_impl_name(impl), i, probs[i] > 0.0f, keep[i], p[i]);
        return false;
      }
      const double want = keep[i] ? p[i] / kept : 0.0;
      if (fabs(probs[i] - want) > 2e-6 * want + 1e-38) {
        ss_test_fail(__FILE__, __LINE__, "%s: probs[%zu] %g vs %g", FNAME[f], i, probs[i], want);
        return false;
      }
    }
    if (draws) {
      double *q = ss_test_alloc(n * sizeof *q), stat, crit;
      for (size_t i = 0; i < n; i++) q[i] = keep[i] ? p[i] / kept : 0.0;
      if (!st_chi2_test(d, draws, q, n, ST_ALPHA_1E3, &stat, &crit)) {
        ss_test_fail(__FILE__, __LINE__, "%s (%s): chi2 %g > %g", FNAME[f], ss_impl_name(impl), stat, crit);
        return false;
      }
    }
  }
  return true;
}

TEST(filters_keep_the_reference_set_on_random_logits) {
  enum { N = 500 };
  float x[N];
  st_fill(x, N, 31, -4.0f, 4.0f);
  x[7] = x[100] = -INFINITY;
  static const double vals[4][3] = {{1, 20, N}, {0.3, 0.9, 1.0}, {0.0, 0.05, 1.0}, {0.2, 0.9, 1.0}};
  static const double temps[] = {0.6, 1.0, 2.0};
  for (int f = 0; f < 4; f++)
    for (int vi = 0; vi < 3; vi++)
      for (int ti = 0; ti < 3; ti++) {
        double v = vals[f][vi];
        if (f == F_TOPK && v == N) v = N; /* k = n keeps every finite entry */
        if (!check_filter((filt)f, x, N, v, temps[ti], vi == 1 && ti == 1 ? 30000 : 0, 5 + f)) return;
      }
}

TEST(filters_keep_tie_groups_whole) {
  /* values 3, 3, 2, 2, 2, 1, 0, 0: boundaries inside tie groups */
  const float x[8] = {2.0f, 0.0f, 3.0f, 2.0f, 1.0f, 3.0f, 0.0f, 2.0f};
  for (double k = 1; k <= 8; k++)
    if (!check_filter(F_TOPK, x, 8, k, 1.0, 0, 1)) return;
  for (double p = 0.05; p < 1.0; p += 0.1)
    if (!check_filter(F_TOPP, x, 8, p, 1.0, 0, 1)) return;
  if (!check_filter(F_TOPP, x, 8, 1.0, 1.0, 0, 1)) return;
  if (!check_filter(F_MINP, x, 8, 1.0, 1.0, 0, 1)) return;
  for (double p = 0.05; p < 1.0; p += 0.15)
    if (!check_filter(F_TYPICAL, x, 8, p, 1.0, 0, 1)) return;
  /* k = 2 of [3, 3, 2, ...] keeps exactly the two 3s; k = 3 all 2s too */
  const ss_kernel_info *k = ss_kernel_find("top_k", SS_FAMILY_SAMPLER);
  double params[4] = {3, 1, 0, 0};
  float probs[8];
  CHECK_STATUS(ss_sample(k, SS_IMPL_SCALAR, x, 8, params, 4, probs, NULL, NULL), SS_OK);
  int kept = 0;
  for (int i = 0; i < 8; i++) kept += probs[i] > 0.0f;
  CHECK(kept == 5, "k = 3 keeps the two 3s and the three 2s: %d", kept);
}

TEST(filters_bitwise_identical_across_impls_at_256k) {
#if !SS_HAVE_SIMD
  SKIP("no SIMD in this build");
#else
  enum { N = 1 << 18, D = 2000 };
  float *x = ss_test_alloc(N * sizeof *x), *p0 = ss_test_alloc(N * 4), *p1 = ss_test_alloc(N * 4);
  uint32_t *d0 = ss_test_alloc(D * 4), *d1 = ss_test_alloc(D * 4);
  ss_rng r = {77};
  for (size_t i = 0; i < N; i++) x[i] = (float)(2.0 * ss_rng_normal(&r));
  static const double v[4] = {50, 0.9, 0.05, 0.9};
  for (int f = 0; f < 4; f++) {
    const ss_kernel_info *k = ss_kernel_find(FNAME[f], SS_FAMILY_SAMPLER);
    double params[4] = {v[f], 0.9, 3, D};
    CHECK_STATUS(ss_sample(k, SS_IMPL_SCALAR, x, N, params, 4, p0, d0, NULL), SS_OK);
    CHECK_STATUS(ss_sample(k, SS_IMPL_SIMD, x, N, params, 4, p1, d1, NULL), SS_OK);
    CHECK(memcmp(p0, p1, N * 4) == 0, "%s probs", FNAME[f]);
    CHECK(memcmp(d0, d1, D * 4) == 0, "%s draws", FNAME[f]);
    for (size_t j = 0; j < D; j++) CHECK(p0[d0[j]] > 0.0f, "%s drew a dropped token", FNAME[f]);
  }
#endif
}

static float key_id(float a, const void *c) { (void)c; return a; }
static double mass_id(float a, const void *c) { (void)c; return a; }

TEST(mass_select_is_expected_linear) {
  enum { N = 1 << 18 };
  float *a = ss_test_alloc(N * sizeof *a);
  ss_rng r = {9};
  const ss_mass_spec spec = {key_id, mass_id, NULL};
  static const double ps[] = {0.01, 0.5, 0.9, 0.999};
  for (int order = 0; order < 3; order++)
    for (int j = 0; j < 4; j++) {
      double total = 0.0;
      for (size_t i = 0; i < N; i++) {
        a[i] = order == 0 ? (float)ss_rng_unif(&r) : order == 1 ? (float)(i + 1) / N : (float)(N - i) / N;
        total += a[i];
      }
      size_t work = 0;
      ss_mass_select(a, N, ps[j] * total, &spec, &work);
      CHECK(work < 8u * N, "order %d p %g: %zu elements touched (n = %d)", order, ps[j], work, N);
    }
}
/* ss_mass_threshold_bits (top-p's histogram threshold) against the sorted
   tie-closed prefix (prefix_by_key) on inputs with ties, zeros, values
   spanning 40 octaves, one dominant entry, n from 1 to 2^17 and P from tiny
   to all the mass: the same threshold whenever it reports ok (it may only
   decline, never differ), the input left unchanged. */
TEST(mass_threshold_bits_matches_sorted_prefix) {
  static const size_t ns[] = {1, 2, 7, 100, 4099, 1 << 17};
  static const double ps[] = {1e-9, 0.1, 0.5, 0.9, 0.999, 1.0};
  ss_rng r = {21};
  size_t declined = 0, runs = 0;
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++)
    for (int kind = 0; kind < 4; kind++) {
      const size_t n = ns[t];
      float *a = ss_test_alloc(n * 4), *copy = ss_test_alloc(n * 4);
      double *key = ss_test_alloc(n * 8), total = 0.0;
      bool *keep = ss_test_alloc(n);
      for (size_t i = 0; i < n; i++) {
        const double u = ss_rng_unif(&r);
        a[i] = kind == 0 ? (float)u                                   /* uniform */
             : kind == 1 ? (float)((int)(u * 8) / 8.0)                /* ties and zeros */
             : kind == 2 ? (float)exp(-30.0 * u)                       /* 40 octaves */
             : (i == n / 2 ? 1.0f : (float)(1e-6 * u));                /* one dominant */
        key[i] = a[i];
        total += a[i];
      }
      memcpy(copy, a, n * 4);
      for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++) {
        const double P = ps[j] * total;
        bool ok;
        const float k = ss_mass_threshold_bits(a, n, P, &ok);
        CHECK(memcmp(a, copy, n * 4) == 0, "n=%zu kind %d: input changed", n, kind);
        runs++;
        if (!ok) {
          declined++;
          continue;
        }
        prefix_by_key(key, key, n, P, keep);
        for (size_t i = 0; i < n; i++)
          CHECK(keep[i] == (a[i] > 0.0f && a[i] >= k),
                "n=%zu kind %d P=%g: i=%zu a=%a threshold %a, reference keeps %d", n, kind, ps[j], i,
                a[i], k, keep[i]);
      }
    }
  CHECK(declined * 10 <= runs, "declined %zu of %zu", declined, runs);
}
