/*
 * sparsemax: y = [x - tau]_+, sum y = 1 (Martins & Astudillo 2016).
 *
 * What only sparsemax has: its golden values and the VJP's closed form. The
 * properties it shares with entmax15 (float64 reference, extremes, orders,
 * padding, finite differences, ties at tau (its row's hand-worked cases),
 * the direct calls, ...) run from its row of sparse_table.h
 * (test_sparse_table.c).
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
