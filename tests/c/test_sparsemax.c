/*
 * sparsemax: y = [x - tau]_+, sum y = 1 (Martins & Astudillo 2016).
 *
 * What only sparsemax has: its golden values, ties at tau, the VJP's closed
 * form and the direct calls. The properties it shares with entmax15
 * (float64 reference, extremes, orders, padding, finite differences, ...)
 * run from its row of sparse_table.h (test_sparse_table.c).
 *   VJP on a large row: dx = g - mean_S g on the support S, 0 off it,
 *     within 2e-7; sum dx <= 1e-7 |S|
 */
#include <float.h>
#include <string.h>

#include "harness.h"
#include "sparse/threshold.h"
#include "sparse_table.h"

static const ss_kernel_info *K(void) { return ss_kernel_find("sparsemax", SS_FAMILY_NORMALIZER); }

/* The paper's / issue's example: x = [-2, 0, 0.5] -> [0, 0.25, 0.75],
   tau = -0.25 (exact in float: every step here is exact). */
TEST(sparsemax_golden) {
  const float x[3] = {-2.0f, 0.0f, 0.5f};
  float y[3], tau;
  size_t k;
  FOR_EACH_IMPL(impl) {
    for (int m = 0; m < 2; m++) {
      CHECK_STATUS(ss_sparsemax_ex(impl, (ss_threshold_method)m, x, 3, y, &tau, &k), SS_OK);
      CHECK(y[0] == 0.0f && y[1] == 0.25f && y[2] == 0.75f && tau == -0.25f && k == 2,
            "%s m=%d: [%g %g %g] tau %g k %zu", ss_impl_name(impl), m, y[0], y[1], y[2], tau, k);
    }
    CHECK_STATUS(ss_normalize(K(), impl, x, 3, NULL, 0, y), SS_OK);
    CHECK(y[0] == 0.0f && y[1] == 0.25f && y[2] == 0.75f, "%s registry", ss_impl_name(impl));
  }
}

/* Entries exactly at tau get 0 and are not in the support, in every method:
   [1, 0] has tau = 0; [3, 2, 2, 1] has K = 1 (1 + 2*2 > 3 + 2 fails by
   equality), tau = 2, so both 2s sit on tau: [1, 0, 0, 0]. */
TEST(sparsemax_ties_at_threshold) {
  struct {
    float x[4];
    size_t n;
    float y[4];
    size_t k;
  } cases[] = {
      {{1, 0}, 2, {1, 0}, 1},
      {{3, 2, 2, 1}, 4, {1, 0, 0, 0}, 1},
      {{1, 1, 0}, 3, {0.5f, 0.5f, 0}, 2},
      {{0, 0.5f, 0.5f, -0.5f}, 4, {0, 0.5f, 0.5f, 0}, 2},
      {{2, 2, 2, 1}, 4, {1.0f / 3, 1.0f / 3, 1.0f / 3, 0}, 3},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    float y[4], tau;
    size_t k;
    CHECK(sp_all_agree(ss_sparsemax_ex, cases[c].x, cases[c].n, y, &tau, &k, "ties"), "case %zu",
          c);
    for (size_t i = 0; i < cases[c].n; i++)
      CHECK(y[i] == cases[c].y[i], "case %zu: y[%zu] = %.9g want %.9g", c, i, y[i], cases[c].y[i]);
    CHECK(k == cases[c].k, "case %zu: support %zu", c, k);
  }
}

/* The VJP projects onto {sum dx = 0} over the support: sum dx = 0 and
   dx = g - mean on S, for a large row (SIMD block sums). */
TEST(sparsemax_vjp_large) {
  enum { N = 5003 };
  float *x = ss_test_alloc(N * 4), *y = ss_test_alloc(N * 4), *g = ss_test_alloc(N * 4),
        *dx = ss_test_alloc(N * 4);
  sp_fill(x, N, SP_NARROW, 3);
  st_fill(g, N, 4, -1, 1);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, N, NULL, 0, y), SS_OK);
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_OK);
    double mean = 0.0, sum = 0.0;
    size_t k = 0;
    for (size_t i = 0; i < N; i++)
      if (y[i] > 0) {
        mean += g[i];
        k++;
      }
    mean /= (double)k;
    for (size_t i = 0; i < N; i++) {
      const double want = y[i] > 0 ? g[i] - mean : 0.0;
      CHECK(fabs(dx[i] - want) <= 2e-7, "%s dx[%zu]=%.9g want %.9g", ss_impl_name(impl), i, dx[i],
            want);
      sum += dx[i];
    }
    CHECK(k > 10 && fabs(sum) <= 1e-7 * (double)k, "%s: k=%zu sum dx %.3g", ss_impl_name(impl), k,
          sum);
  }
}

TEST(sparsemax_direct_calls) {
  enum { N = 19 };
  float x[N], a[N], b[N], tau;
  size_t k;
  st_fill(x, N, 15, -1, 1);
  CHECK_STATUS(ss_sparsemax(x, N, a), SS_OK);
  CHECK_STATUS(ss_normalize(K(), ss_impl_default(), x, N, NULL, 0, b), SS_OK);
  CHECK(memcmp(a, b, sizeof a) == 0, "direct call differs");
  CHECK_STATUS(ss_sparsemax_ex(SS_IMPL_SCALAR, SS_THRESHOLD_SORT, x, N, b, NULL, NULL), SS_OK);
  CHECK(memcmp(a, b, sizeof a) == 0, "NULL tau/support");
  st_poison(b, N);
  CHECK_STATUS(ss_sparsemax_ex(SS_IMPL_SCALAR, (ss_threshold_method)2, x, N, b, &tau, &k),
               SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_sparsemax_ex(SS_IMPL_SCALAR, (ss_threshold_method)-1, x, N, b, &tau, &k),
               SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_sparsemax_ex(SS_IMPL_COUNT, SS_THRESHOLD_SELECT, x, N, b, &tau, &k),
               SS_ERR_UNSUPPORTED);
  CHECK_STATUS(ss_sparsemax_ex(SS_IMPL_SCALAR, SS_THRESHOLD_SELECT, NULL, N, b, &tau, &k),
               SS_ERR_NULL);
  CHECK_STATUS(ss_sparsemax_ex(SS_IMPL_SCALAR, SS_THRESHOLD_SELECT, x, N, NULL, &tau, &k),
               SS_ERR_NULL);
  CHECK_STATUS(ss_sparsemax_ex(SS_IMPL_SCALAR, SS_THRESHOLD_SELECT, x, 0, b, &tau, &k),
               SS_ERR_EMPTY);
  CHECK_STATUS(ss_sparsemax_ex(SS_IMPL_SCALAR, SS_THRESHOLD_SELECT, x, SS_MAX_N + 1, b, &tau, &k),
               SS_ERR_TOO_LARGE);
  x[4] = NAN;
  CHECK_STATUS(ss_sparsemax_ex(SS_IMPL_SCALAR, SS_THRESHOLD_SORT, x, N, b, &tau, &k), SS_ERR_NAN);
  CHECK(st_untouched(b, N), "y written on an error");
  if (!ss_impl_available(SS_IMPL_SIMD))
    CHECK_STATUS(ss_sparsemax_ex(SS_IMPL_SIMD, SS_THRESHOLD_SELECT, x, N, b, &tau, &k),
                 SS_ERR_UNSUPPORTED);
}
