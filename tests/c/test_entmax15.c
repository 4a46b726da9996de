/*
 * entmax15: y = [x/2 - tau]_+^2, sum y = 1 (Peters, Niculae & Martins 2019).
 *
 * What only 1.5-entmax has: its golden values, support containing
 * sparsemax's and the VJP's closed form. The properties it shares with
 * sparsemax (float64 reference within its row's bounds, extremes, orders,
 * padding, finite differences, ties at tau (its row's hand-worked cases),
 * the direct calls, ...) run from its row of sparse_table.h
 * (test_sparse_table.c).
 *   VJP on a large row: dx = s (g - <s, g> / sum s), s = sqrt(y), within
 *     2e-7 max s; sum dx <= 1e-6 sum s
 */
#include <float.h>
#include <string.h>

#include "harness.h"
#include "sparse/threshold.h"
#include "sparse_table.h"

static const ss_kernel_info *K(void) { return ss_kernel_find("entmax15", SS_FAMILY_NORMALIZER); }

/* The example: x = [-2, 0, 0.5] -> [0, 0.3260, 0.6740] (4 decimals). */
TEST(entmax15_golden) {
  const float x[3] = {-2.0f, 0.0f, 0.5f};
  float y[3], tau;
  size_t k;
  CHECK(sp_all_agree(ss_entmax15_ex, x, 3, y, &tau, &k, "golden"), "golden");
  CHECK(y[0] == 0.0f && fabs(y[1] - 0.3260) < 5e-5 && fabs(y[2] - 0.6740) < 5e-5 && k == 2,
        "[%g %.6f %.6f] k %zu", y[0], y[1], y[2], k);
  CHECK(sparse_check_ref(sparse_row("entmax15"), x, 3, "golden") <= 1.0, "vs reference");
  FOR_EACH_IMPL(impl) {
    float z[3];
    CHECK_STATUS(ss_normalize(K(), impl, x, 3, NULL, 0, z), SS_OK);
    CHECK(memcmp(y, z, sizeof z) == 0, "%s registry", ss_impl_name(impl));
  }
}

/* 1.5-entmax lies between softmax and sparsemax: its support contains
   sparsemax's. With gaps a_j = (x_j - x_k)_+: sum a_j < 1 implies
   sum (a_j / 2)^2 <= (sum a_j)^2 / 4 < 1. */
TEST(entmax15_support_contains_sparsemax) {
  enum { N = 500 };
  float x[N], ye[N], ys[N];
  for (int kind = 0; kind < SP_KINDS; kind++) {
    sp_fill(x, N, kind, 31 + kind);
    CHECK_STATUS(ss_entmax15(x, N, ye), SS_OK);
    CHECK_STATUS(ss_sparsemax(x, N, ys), SS_OK);
    for (size_t i = 0; i < N; i++)
      CHECK(!(ys[i] > 0.0f) || ye[i] > 0.0f, "%s i=%zu: sparsemax %g but entmax 0",
            sp_kind_name[kind], i, ys[i]);
  }
}

/* Large row (SIMD block sums): dx = s (g - <s, g> / sum s), s = sqrt(y),
   against the formula in double; and sum dx = 0 (J is symmetric and
   J 1 = 0: adding a constant to x leaves y unchanged). */
TEST(entmax15_vjp_large) {
  enum { N = 5003 };
  float *x = ss_test_alloc(N * 4), *y = ss_test_alloc(N * 4), *g = ss_test_alloc(N * 4),
        *dx = ss_test_alloc(N * 4);
  sp_fill(x, N, SP_NARROW, 13);
  st_fill(g, N, 14, -1, 1);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, N, NULL, 0, y), SS_OK);
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_OK);
    double ss = 0.0, sg = 0.0, sum = 0.0, smax = 0.0;
    for (size_t i = 0; i < N; i++) {
      const double s = sqrt((double)y[i]);
      ss += s;
      sg += s * g[i];
      smax = fmax(smax, s);
    }
    for (size_t i = 0; i < N; i++) {
      const double want = sqrt((double)y[i]) * (g[i] - sg / ss);
      CHECK(fabs(dx[i] - want) <= 2e-7 * smax, "%s dx[%zu]=%.9g want %.9g", ss_impl_name(impl), i,
            dx[i], want);
      sum += dx[i];
    }
    CHECK(fabs(sum) <= 1e-6 * ss, "%s: sum dx %.3g", ss_impl_name(impl), sum);
  }
}
