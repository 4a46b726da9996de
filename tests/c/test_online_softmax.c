/* online_softmax and the ss_softmax_state_* API: the properties every build
   must hold. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"

/* Stated bounds (measured worst cases are in the comments). */
#define REL_F64 2e-6   /* vs float64 softmax, outputs >= 1e-30 */
#define REL_3P 1e-6    /* vs the three-pass scalar kernel (measured ~3e-7) */
#define SUM_TOL 1e-5   /* |sum y - 1| at n = 2^20 */

static const ss_kernel_info *K(void) {
  return ss_kernel_find("online_softmax", SS_FAMILY_NORMALIZER);
}
static const ss_kernel_info *K3(void) {
  return ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
}

/* Max relative error of y against a float reference z (entries >= floor;
   below it the absolute error must be <= floor). */
static double rel_err_f(const float *y, const float *z, size_t n, size_t *at) {
  double worst = 0.0;
  size_t w = 0;
  for (size_t i = 0; i < n; i++) {
    double e = z[i] >= 1e-30 ? fabs((double)y[i] - z[i]) / z[i]
                             : (fabs((double)y[i] - z[i]) > 1e-30 ? INFINITY : 0.0);
    if (!(e <= worst)) {
      worst = isnan(e) ? INFINITY : e;
      w = i;
    }
  }
  *at = w;
  return worst;
}

static size_t test_n(size_t t) {
  static const size_t big[] = {255, 1000, 1023, 1024, 1025, 4097, 65536 + 3};
  return t < 67 ? t + 1 : big[t - 67];
}
#define N_SIZES (67 + 7)

/* The subnormal rule (common/softmax_row.h). */
TEST(online_softmax_subnormal_rule) {
  st_check_subnormal_rule(K(), NULL, 0, 1.0, REL_F64, 137.25f);
  st_check_subnormal_rule(K(), NULL, 0, 1.0, REL_F64, 1e5f); /* the multiply path */
}

TEST(online_softmax_matches_float64_reference) {
  CHECK(K() != NULL, "online_softmax not registered");
  for (size_t t = 0; t < N_SIZES; t++) {
    const size_t n = test_n(t);
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8);
    st_fill(x, n, 2000 + n, -50.0f, 50.0f);
    ref_softmax(x, n, 1.0, ref);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
      size_t at;
      const double e = ref_max_rel_err(y, ref, n, 1e-30, &at);
      CHECK(e <= REL_F64, "%s n=%zu: rel err %.3g at %zu (y=%g ref=%g)",
            ss_impl_name(impl), n, e, at, y[at], ref[at]);
    }
    ss_test_free(x);
    ss_test_free(y);
    ss_test_free(ref);
  }
}

/* Ascending input makes every element a new maximum (the rescale path on
   each step); descending never rescales. Both must stay accurate. */
TEST(online_softmax_monotone_inputs) {
  const size_t n = 5000;
  float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
  double *ref = ss_test_alloc(n * 8);
  for (int dir = 0; dir < 2; dir++) {
    for (size_t i = 0; i < n; i++)
      x[i] = (float)(dir ? 40.0 - 0.017 * (double)i : -40.0 + 0.017 * (double)i);
    ref_softmax(x, n, 1.0, ref);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
      size_t at;
      const double e = ref_max_rel_err(y, ref, n, 1e-30, &at);
      CHECK(e <= REL_F64, "%s dir=%d: rel err %.3g at %zu", ss_impl_name(impl),
            dir, e, at);
    }
  }
}

/* Large-magnitude logits: pass 2 folds 1/d into the exponent up to
   |max| = 2^16 and multiplies beyond; both sides of the switch. */
TEST(online_softmax_large_magnitude) {
  const size_t n = 2000;
  float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
  double *ref = ss_test_alloc(n * 8);
  static const float centers[] = {65000.0f, -65400.0f, 66000.0f, -1e5f, 3e7f};
  for (size_t q = 0; q < 5; q++) {
    ss_rng r = {40 + q};
    for (size_t i = 0; i < n; i++) x[i] = centers[q] + ss_rng_range(&r, -60.0f, 60.0f);
    ref_softmax(x, n, 1.0, ref);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
      size_t at;
      const double e = ref_max_rel_err(y, ref, n, 1e-30, &at);
      CHECK(e <= REL_F64, "%s center %g: rel err %.3g at %zu", ss_impl_name(impl),
            centers[q], e, at);
    }
  }
}

TEST(online_softmax_sums_to_one_large) {
  static const float ranges[] = {1.0f, 30.0f, 100.0f};
  CHECK(st_sums_to_one_large(K(), ranges, 3, 77, SUM_TOL), "see above");
}

TEST(online_softmax_matches_three_pass) {
  for (size_t t = 0; t < N_SIZES; t++) {
    const size_t n = test_n(t);
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4),
          *z = ss_test_alloc(n * 4);
    st_fill(x, n, 3000 + n, -30.0f, 30.0f);
    CHECK_STATUS(ss_normalize(K3(), SS_IMPL_SCALAR, x, n, NULL, 0, z), SS_OK);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
      size_t at;
      const double e = rel_err_f(y, z, n, &at);
      CHECK(e <= REL_3P, "%s n=%zu: rel diff %.3g at %zu", ss_impl_name(impl),
            n, e, at);
    }
    ss_test_free(x);
    ss_test_free(y);
    ss_test_free(z);
  }
}

TEST(online_softmax_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  for (size_t t = 0; t < N_SIZES; t++) {
    const size_t n = test_n(t);
    float *x = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4),
          *b = ss_test_alloc(n * 4);
    st_fill(x, n, 4000 + n, -50.0f, 50.0f);
    if (n > 8) x[n / 3] = -INFINITY; /* a mask on the way */
    CHECK_STATUS(ss_normalize(K(), SS_IMPL_SCALAR, x, n, NULL, 0, a), SS_OK);
    CHECK_STATUS(ss_normalize(K(), SS_IMPL_SIMD, x, n, NULL, 0, b), SS_OK);
    size_t at;
    const double e = rel_err_f(b, a, n, &at);
    CHECK(e <= REL_3P, "n=%zu: simd vs scalar rel diff %.3g at %zu", n, e, at);
    if (n > 8) CHECK(b[n / 3] == 0.0f && a[n / 3] == 0.0f, "masked entry not 0");
    ss_test_free(x);
    ss_test_free(a);
    ss_test_free(b);
  }
}

/* ---- the state API ------------------------------------------------------ */

/* Online softmax of x through the state API, chunks given by their ends. */
static ss_status chunked(ss_impl impl, const float *x, const size_t *ends,
                         size_t nchunks, float *y, ss_softmax_state *out) {
  ss_softmax_state s;
  ss_softmax_state_init(&s);
  size_t at = 0;
  for (size_t c = 0; c < nchunks; c++) {
    ss_status st = ss_softmax_state_update(&s, impl, x + at, ends[c] - at);
    if (st != SS_OK) return st;
    at = ends[c];
  }
  at = 0;
  for (size_t c = 0; c < nchunks; c++) {
    ss_status st = ss_softmax_state_apply(&s, impl, x + at, ends[c] - at, y + at);
    if (st != SS_OK) return st;
    at = ends[c];
  }
  if (out) *out = s;
  return SS_OK;
}

/* n = 13: all 2^12 ways of cutting the vector into chunks, each impl,
   equal to the three-pass kernel within REL_3P. */
TEST(state_every_composition_of_13) {
  const size_t n = 13;
  float x[13], y[13], z[13];
  st_fill(x, n, 13, -20.0f, 20.0f);
  x[5] = -INFINITY;
  CHECK_STATUS(ss_normalize(K3(), SS_IMPL_SCALAR, x, n, NULL, 0, z), SS_OK);
  size_t count = 0;
  for (unsigned mask = 0; mask < (1u << 12); mask++) {
    size_t ends[13], nc = 0;
    for (size_t i = 1; i < n; i++)
      if (mask & (1u << (i - 1))) ends[nc++] = i;
    ends[nc++] = n;
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(chunked(impl, x, ends, nc, y, NULL), SS_OK);
      size_t at;
      const double e = rel_err_f(y, z, n, &at);
      CHECK(e <= REL_3P, "%s mask=%#x: rel diff %.3g at %zu",
            ss_impl_name(impl), mask, e, at);
      CHECK(y[5] == 0.0f, "masked entry %g", y[5]);
      count++;
    }
  }
  CHECK(count >= 4096, "ran %zu compositions", count);
}

/* Merge a list of states by a random binary tree. */
static ss_softmax_state merge_tree(ss_softmax_state *st, size_t k, ss_rng *r) {
  while (k > 1) {
    const size_t i = (size_t)(ss_rng_u64(r) % (k - 1));
    ss_softmax_state a = st[i];
    /* Random operand order: merge must be commutative. */
    if (ss_rng_u64(r) & 1) {
      ss_softmax_state b = st[i + 1];
      ss_softmax_state_merge(&b, &a);
      a = b;
    } else {
      ss_softmax_state_merge(&a, &st[i + 1]);
    }
    st[i] = a;
    memmove(st + i + 1, st + i + 2, (k - i - 2) * sizeof *st);
    k--;
  }
  return st[0];
}

/* Large n, random chunkings, states merged by random trees (as separate
   workers would): same result as the three-pass kernel within REL_3P, and
   the state's sum within 1e-6 relative of every other tree's. */
TEST(state_random_splits_and_merge_trees) {
  const size_t n = 100003;
  float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4),
        *z = ss_test_alloc(n * 4);
  size_t *ends = ss_test_alloc(n * sizeof(size_t));
  ss_softmax_state *st = ss_test_alloc(n * sizeof *st);
  st_fill(x, n, 99, -40.0f, 40.0f);
  for (size_t i = 0; i < n; i += 97) x[i] = -INFINITY;
  CHECK_STATUS(ss_normalize(K3(), SS_IMPL_SCALAR, x, n, NULL, 0, z), SS_OK);
  ss_rng r = {5};
  double first_sum = 0.0;
  float first_max = 0.0f;
  for (int trial = 0; trial < 12; trial++) {
    const size_t maxlen = trial < 4 ? 7 : trial < 8 ? 300 : 20000;
    size_t nc = 0, at = 0;
    while (at < n) {
      size_t len = 1 + (size_t)(ss_rng_u64(&r) % maxlen);
      if (len > n - at) len = n - at;
      at += len;
      ends[nc++] = at;
    }
    FOR_EACH_IMPL(impl) {
      at = 0;
      for (size_t c = 0; c < nc; c++) {
        ss_softmax_state_init(&st[c]);
        CHECK_STATUS(ss_softmax_state_update(&st[c], impl, x + at, ends[c] - at), SS_OK);
        at = ends[c];
      }
      const ss_softmax_state s = merge_tree(st, nc, &r);
      if (trial == 0 && impl == SS_IMPL_SCALAR) {
        first_sum = s.sum;
        first_max = s.max;
      }
      CHECK(s.max == first_max, "max %g vs %g", s.max, first_max);
      CHECK(fabs(s.sum - first_sum) <= 1e-6 * first_sum,
            "%s trial %d: sum %.17g vs %.17g", ss_impl_name(impl), trial, s.sum,
            first_sum);
      at = 0;
      for (size_t c = 0; c < nc; c++) {
        CHECK_STATUS(ss_softmax_state_apply(&s, impl, x + at, ends[c] - at, y + at), SS_OK);
        at = ends[c];
      }
      size_t w;
      const double e = rel_err_f(y, z, n, &w);
      CHECK(e <= REL_3P, "%s trial %d (%zu chunks): rel diff %.3g at %zu",
            ss_impl_name(impl), trial, nc, e, w);
    }
  }
}

/* merge(a, b) == merge(b, a) bit for bit; (ab)c vs a(bc) within 1e-14. */
TEST(state_merge_commutative_associative) {
  float x[300];
  st_fill(x, 300, 8, -45.0f, 45.0f);
  ss_softmax_state s[3];
  const size_t cut[4] = {0, 17, 140, 300};
  for (int perm = 0; perm < 3; perm++) {
    FOR_EACH_IMPL(impl) {
      for (int j = 0; j < 3; j++) {
        ss_softmax_state_init(&s[j]);
        const size_t j2 = (size_t)((j + perm) % 3);
        CHECK_STATUS(ss_softmax_state_update(&s[j], impl, x + cut[j2], cut[j2 + 1] - cut[j2]), SS_OK);
      }
      ss_softmax_state ab = s[0], ba = s[1];
      CHECK_STATUS(ss_softmax_state_merge(&ab, &s[1]), SS_OK);
      CHECK_STATUS(ss_softmax_state_merge(&ba, &s[0]), SS_OK);
      CHECK(ab.max == ba.max && ab.sum == ba.sum, "not commutative: %.17g %.17g",
            ab.sum, ba.sum);
      ss_softmax_state l = ab, rr = s[1];
      CHECK_STATUS(ss_softmax_state_merge(&l, &s[2]), SS_OK);
      CHECK_STATUS(ss_softmax_state_merge(&rr, &s[2]), SS_OK);
      ss_softmax_state a = s[0];
      CHECK_STATUS(ss_softmax_state_merge(&a, &rr), SS_OK);
      CHECK(l.max == a.max, "max differs");
      CHECK(fabs(l.sum - a.sum) <= 1e-14 * l.sum, "not associative: %.17g %.17g",
            l.sum, a.sum);
    }
  }
}

/* A state that saw only -Inf chunks is the identity of merge, and updating
   with an all -Inf chunk changes nothing. */
TEST(state_all_masked_is_identity) {
  float m[7];
  for (int i = 0; i < 7; i++) m[i] = -INFINITY;
  float x[50];
  st_fill(x, 50, 3, -10.0f, 10.0f);
  FOR_EACH_IMPL(impl) {
    ss_softmax_state e, s, t;
    ss_softmax_state_init(&e);
    CHECK_STATUS(ss_softmax_state_update(&e, impl, m, 7), SS_OK);
    CHECK_STATUS(ss_softmax_state_update(&e, impl, m, 3), SS_OK);
    CHECK(e.max == -INFINITY && e.sum == 0.0, "masked state (%g, %g)", e.max, e.sum);
    ss_softmax_state_init(&s);
    CHECK_STATUS(ss_softmax_state_update(&s, impl, x, 50), SS_OK);
    t = s;
    CHECK_STATUS(ss_softmax_state_merge(&t, &e), SS_OK);
    CHECK(t.max == s.max && t.sum == s.sum, "s*e != s");
    t = e;
    CHECK_STATUS(ss_softmax_state_merge(&t, &s), SS_OK);
    CHECK(t.max == s.max && t.sum == s.sum, "e*s != s");
    t = s;
    CHECK_STATUS(ss_softmax_state_update(&t, impl, m, 7), SS_OK);
    CHECK(t.max == s.max && t.sum == s.sum, "update with -Inf changed the state");
    float y[7];
    CHECK_STATUS(ss_softmax_state_apply(&e, impl, m, 7, y), SS_ERR_ALL_MASKED);
    CHECK_STATUS(ss_softmax_state_apply(&s, impl, m, 7, y), SS_OK);
    for (int i = 0; i < 7; i++) CHECK(y[i] == 0.0f, "masked y %g", y[i]);
  }
}

/* ---- bad input ---------------------------------------------------------- */

TEST(online_softmax_bad_inputs) {
  const size_t n = 3000;
  float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
  FOR_EACH_IMPL(impl) {
    /* NaN anywhere (first, middle of a block, last, after a +Inf) */
    static const size_t pos[] = {0, 5, 1023, 1024, 2999};
    for (size_t p = 0; p < 5; p++) {
      st_fill(x, n, 1, -5.0f, 5.0f);
      x[pos[p]] = NAN;
      if (p == 4) x[10] = INFINITY;
      for (size_t i = 0; i < n; i++) y[i] = 42.0f;
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_ERR_NAN);
      for (size_t i = 0; i < n; i++) CHECK(y[i] == 42.0f, "output written on error");
      st_fill(x, n, 1, -5.0f, 5.0f);
      x[pos[p]] = INFINITY;
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_ERR_POS_INF);
    }
    for (size_t i = 0; i < n; i++) x[i] = -INFINITY;
    CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_ERR_ALL_MASKED);
    CHECK_STATUS(ss_normalize(K(), impl, x, 1, NULL, 0, y), SS_ERR_ALL_MASKED);
    x[2000] = -5.0f; /* one finite logit among masks: probability 1 */
    CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
    for (size_t i = 0; i < n; i++)
      CHECK(y[i] == (i == 2000 ? 1.0f : 0.0f), "y[%zu] = %g", i, y[i]);
    CHECK_STATUS(ss_normalize(K(), impl, x, 0, NULL, 0, y), SS_ERR_EMPTY);
    CHECK_STATUS(ss_normalize(K(), impl, NULL, n, NULL, 0, y), SS_ERR_NULL);
    CHECK_STATUS(ss_normalize(K(), impl, x, SS_MAX_N + 1, NULL, 0, y), SS_ERR_TOO_LARGE);
    /* extreme finite logits */
    x[0] = FLT_MAX;
    x[1] = -FLT_MAX;
    x[2] = FLT_MAX;
    CHECK_STATUS(ss_normalize(K(), impl, x, 3, NULL, 0, y), SS_OK);
    CHECK(y[0] == 0.5f && y[1] == 0.0f && y[2] == 0.5f, "FLT_MAX: %g %g %g",
          y[0], y[1], y[2]);
  }
}

TEST(state_api_bad_inputs) {
  float x[40], y[40];
  st_fill(x, 40, 4, -5.0f, 5.0f);
  ss_softmax_state s;
  ss_softmax_state_init(&s);
  CHECK_STATUS(ss_softmax_state_update(NULL, SS_IMPL_SCALAR, x, 40), SS_ERR_NULL);
  CHECK_STATUS(ss_softmax_state_update(&s, SS_IMPL_SCALAR, NULL, 40), SS_ERR_NULL);
  CHECK_STATUS(ss_softmax_state_update(&s, SS_IMPL_SCALAR, x, 0), SS_ERR_EMPTY);
  CHECK_STATUS(ss_softmax_state_update(&s, (ss_impl)7, x, 40), SS_ERR_UNSUPPORTED);
  if (!ss_impl_available(SS_IMPL_SIMD))
    CHECK_STATUS(ss_softmax_state_update(&s, SS_IMPL_SIMD, x, 40), SS_ERR_UNSUPPORTED);
  CHECK_STATUS(ss_softmax_state_merge(NULL, &s), SS_ERR_NULL);
  CHECK_STATUS(ss_softmax_state_merge(&s, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_softmax_state_apply(NULL, SS_IMPL_SCALAR, x, 40, y), SS_ERR_NULL);
  CHECK_STATUS(ss_softmax_state_apply(&s, SS_IMPL_SCALAR, x, 40, NULL), SS_ERR_NULL);
  /* an empty state cannot normalize */
  CHECK_STATUS(ss_softmax_state_apply(&s, SS_IMPL_SCALAR, x, 40, y), SS_ERR_ALL_MASKED);
  FOR_EACH_IMPL(impl) {
    ss_softmax_state_init(&s);
    CHECK_STATUS(ss_softmax_state_update(&s, impl, x, 20), SS_OK);
    const ss_softmax_state keep = s;
    float bad[40];
    memcpy(bad, x, sizeof bad);
    bad[33] = NAN;
    bad[3] = INFINITY;
    CHECK_STATUS(ss_softmax_state_update(&s, impl, bad, 40), SS_ERR_NAN);
    CHECK(s.max == keep.max && s.sum == keep.sum, "state changed on error");
    bad[33] = 0.0f;
    CHECK_STATUS(ss_softmax_state_update(&s, impl, bad, 40), SS_ERR_POS_INF);
    CHECK(s.max == keep.max && s.sum == keep.sum, "state changed on error");
    /* apply: chunk not covered by the state, or bad logits */
    for (int i = 0; i < 40; i++) y[i] = 42.0f;
    float above[3] = {0.0f, keep.max + 1.0f, 0.0f};
    CHECK_STATUS(ss_softmax_state_apply(&s, impl, above, 3, y), SS_ERR_DOMAIN);
    bad[3] = NAN;
    CHECK_STATUS(ss_softmax_state_apply(&s, impl, bad, 40, y), SS_ERR_NAN);
    bad[3] = INFINITY;
    CHECK_STATUS(ss_softmax_state_apply(&s, impl, bad, 40, y), SS_ERR_POS_INF);
    for (int i = 0; i < 40; i++) CHECK(y[i] == 42.0f, "apply wrote on error");
    /* corrupt states */
    ss_softmax_state c = {NAN, 1.0};
    CHECK_STATUS(ss_softmax_state_update(&c, impl, x, 40), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_softmax_state_merge(&s, &c), SS_ERR_DOMAIN);
    c = (ss_softmax_state){1.0f, 0.5}; /* the max contributes 1: sum >= 1 */
    CHECK_STATUS(ss_softmax_state_apply(&c, impl, x, 40, y), SS_ERR_DOMAIN);
    c = (ss_softmax_state){-INFINITY, 2.0};
    CHECK_STATUS(ss_softmax_state_merge(&c, &s), SS_ERR_DOMAIN);
    c = (ss_softmax_state){INFINITY, 2.0};
    CHECK_STATUS(ss_softmax_state_merge(&s, &c), SS_ERR_DOMAIN);
    c = (ss_softmax_state){0.0f, INFINITY};
    CHECK_STATUS(ss_softmax_state_merge(&s, &c), SS_ERR_DOMAIN);
    CHECK(s.max == keep.max && s.sum == keep.sum, "state changed on error");
  }
}

/* VJP (shared with softmax) against its formula in float64. */
TEST(online_softmax_vjp) {
  static const size_t ns[] = {1, 3, 16, 67, 1000};
  CHECK(st_softmax_vjp_formula(K(), ns, 5, 50, 0.0), "see above");
}
