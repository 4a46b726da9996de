/*
 * common/select: quickselect and sort on float buffers (used by the sparse
 * normalizers and the top-k / top-p samplers).
 *
 * Asserted: the k-th largest equals the k-th entry of a qsort of the same
 * values (duplicates counted), the k largest end up in v[0..k), the
 * three-way partition's layout, sort order, and the expected-linear cost:
 * quickselect touches <= SEL_WORK n elements on every order and tie pattern
 * of sparse_testing.h (median of three pseudo-random pivots: ~2.5-3.5 n
 * expected; measured max 4.1 n, k = n/3 + 1 on the narrow family).
 */
#include <string.h>

#include "common/select.h"
#include "harness.h"
#include "sparse_testing.h"

#define SEL_WORK 6.0

TEST(select_kth_largest_matches_sort) {
  static const size_t ns[] = {1, 2, 3, 7, 16, 31, 100, 1000, 65536};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *v = ss_test_alloc(n * 4), *s = ss_test_alloc(n * 4);
    for (int kind = 0; kind < SP_KINDS; kind++) {
      sp_fill(x, n, kind, 100 + n);
      memcpy(s, x, n * 4);
      qsort(s, n, 4, sp_desc_float);
      const size_t ks[] = {1, 2, n / 3 + 1, n / 2 + 1, n - 1 ? n - 1 : 1, n};
      double worst = 0.0;
      for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
        const size_t k = ks[j];
        if (k > n) continue;
        memcpy(v, x, n * 4);
        size_t work = 0;
        const float got = ss_select_kth_largest(v, n, k, &work);
        CHECK(got == s[k - 1], "%s n=%zu k=%zu: got %g want %g", sp_kind_name[kind], n, k, got,
              s[k - 1]);
        /* the k largest are in v[0..k): their multiset is s[0..k) */
        qsort(v, k, 4, sp_desc_float);
        CHECK(memcmp(v, s, k * 4) == 0, "%s n=%zu k=%zu: prefix is not the k largest",
              sp_kind_name[kind], n, k);
        if (n >= 1000) worst = fmax(worst, (double)work / (double)n);
      }
      CHECK(worst <= SEL_WORK, "%s n=%zu: work %.2f n", sp_kind_name[kind], n, worst);
    }
  }
}

TEST(select_partition3_layout) {
  enum { N = 101 };
  float v[N];
  ss_rng r = {3};
  for (size_t i = 0; i < N; i++) v[i] = (float)(ss_rng_u64(&r) % 7);
  v[50] = -INFINITY;
  v[51] = INFINITY;
  size_t gt, eq;
  ss_partition3_desc(v, N, 3.0f, &gt, &eq);
  for (size_t i = 0; i < N; i++) {
    if (i < gt)
      CHECK(v[i] > 3.0f, "v[%zu]=%g in the > part", i, v[i]);
    else if (i < gt + eq)
      CHECK(v[i] == 3.0f, "v[%zu]=%g in the == part", i, v[i]);
    else
      CHECK(v[i] < 3.0f, "v[%zu]=%g in the < part", i, v[i]);
  }
  CHECK(eq > 0 && gt > 0 && gt + eq < N, "degenerate split %zu %zu", gt, eq);
}

TEST(select_sort_desc) {
  static const size_t ns[] = {1, 2, 17, 1000, 100000};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *s = ss_test_alloc(n * 4);
    for (int kind = 0; kind < SP_KINDS; kind++) {
      sp_fill(x, n, kind, 300 + n);
      memcpy(s, x, n * 4);
      qsort(s, n, 4, sp_desc_float);
      ss_sort_desc(x, n);
      CHECK(memcmp(x, s, n * 4) == 0, "%s n=%zu: not sorted like qsort", sp_kind_name[kind], n);
    }
  }
}

/* The pivot is one of the values and the same for the same input (fixed
   stream): results are reproducible run to run. */
TEST(select_pivot_deterministic) {
  enum { N = 1000 };
  float x[N];
  st_fill(x, N, 11, -1, 1);
  ss_select_rng a = SS_SELECT_RNG_INIT, b = SS_SELECT_RNG_INIT;
  for (int i = 0; i < 100; i++) {
    const float p = ss_select_pivot(x, N, &a);
    CHECK(p == ss_select_pivot(x, N, &b), "pivot stream differs");
    bool found = false;
    for (size_t j = 0; j < N && !found; j++) found = x[j] == p;
    CHECK(found, "pivot %g not an element", p);
  }
}
