/*
 * entmax15: y = [x/2 - tau]_+^2, sum y = 1 (Peters, Niculae & Martins 2019).
 *
 * Bounds (measured in brackets, over every test below):
 *   vs the float64 sort reference (the paper's running mean / mean of
 *   squares, sparse_testing.h):
 *     |y_i - ref_i| <= ENT_REL ref_i + ENT_ROOT sqrt(ref_i)
 *                      (2^-23, 1e-13: y = t^2 turns an absolute error e in
 *                      t = x/2 - tau into 2 e sqrt(y))         [ratio <= 0.50]
 *     support == the reference's K wherever no entry is within 1e-6 of tau
 *     (the reference counts entries exactly at tau, with p = 0, in K; the
 *     kernel does not), y_i == 0 exactly wherever x_i/2 < tau_ref - 1e-6
 *   |sum y - 1| <= ENT_SUM = 2^-22                                   [5.9e-8]
 *   select vs sort, SIMD vs scalar: bitwise equal y, tau and support
 *   VJP vs central differences (h = 1e-6, entries >= 1e-3 from tau):
 *     |dx - fd| <= 2e-7 (|g_j| + max|g|) + 1e-9             [ratio <= 0.23];
 *     SIMD vs scalar <= 2e-7 (|g_j| + max|g|)               [ratio <= 0.20]
 *   selection cost <= ENT_WORK = 8 m visits for m candidates    [<= 4.9 m]
 */
#include <float.h>
#include <string.h>

#include "harness.h"
#include "sparse/threshold.h"
#include "sparse_testing.h"

#define ENT_REL 0x1p-23
#define ENT_ROOT 1e-13
#define ENT_SUM 0x1p-22
#define ENT_WORK 8.0

static const ss_kernel_info *K(void) { return ss_kernel_find("entmax15", SS_FAMILY_NORMALIZER); }

static const sp_bounds ENT = {ENT_REL, ENT_ROOT, 1e-30, ENT_SUM};

static double check_ref(const float *x, size_t n, const char *what) {
  return sp_check_ref(true, &ENT, x, n, what);
}

TEST(entmax15_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 0 && k->has_backward && !k->has_param_backward &&
            k->output == SS_OUTPUT_PROBS && k->input == SS_INPUT_LOGITS,
        "descriptor");
  CHECK(!ss_impl_available(SS_IMPL_SIMD) ||
            (k->normalize[SS_IMPL_SIMD] && k->normalize_vjp[SS_IMPL_SIMD]),
        "simd entries");
}

/* The example: x = [-2, 0, 0.5] -> [0, 0.3260, 0.6740] (4 decimals). */
TEST(entmax15_golden) {
  const float x[3] = {-2.0f, 0.0f, 0.5f};
  float y[3], tau;
  size_t k;
  CHECK(sp_all_agree(ss_entmax15_ex, x, 3, y, &tau, &k, "golden"), "golden");
  CHECK(y[0] == 0.0f && fabs(y[1] - 0.3260) < 5e-5 && fabs(y[2] - 0.6740) < 5e-5 && k == 2,
        "[%g %.6f %.6f] k %zu", y[0], y[1], y[2], k);
  CHECK(check_ref(x, 3, "golden") <= 1.0, "vs reference");
  FOR_EACH_IMPL(impl) {
    float z[3];
    CHECK_STATUS(ss_normalize(K(), impl, x, 3, NULL, 0, z), SS_OK);
    CHECK(memcmp(y, z, sizeof z) == 0, "%s registry", ss_impl_name(impl));
  }
}

TEST(entmax15_matches_float64_reference) {
  static const size_t big[] = {255, 1000, 4097, 65539};
  double worst = 0.0;
  for (size_t c = 0; c < 40 + 4; c++) {
    const size_t n = c < 40 ? c + 1 : big[c - 40];
    float *x = ss_test_alloc(n * 4);
    for (int kind = 0; kind < SP_KINDS; kind++) {
      sp_fill(x, n, kind, 2000 * kind + n);
      if (kind == SP_MASKED && n == 1) x[0] = 0.5f;
      const double r = check_ref(x, n, sp_kind_name[kind]);
      CHECK(r <= 1.0, "%s n=%zu failed", sp_kind_name[kind], n);
      if (r > worst) worst = r;
    }
    ss_test_free(x);
  }
  CHECK(worst <= 1.0, "worst %.3g", worst);
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

TEST(entmax15_extreme_magnitudes) {
  enum { N = 23 };
  float x[N];
  static const float base[] = {1e30f, -1e30f, 3e38f, -3e38f, 1e-30f, 0x1p-140f, 1e6f, -7e4f};
  for (size_t b = 0; b < sizeof base / sizeof base[0]; b++) {
    ss_rng r = {b + 1};
    for (size_t i = 0; i < N; i++) {
      const float u = ss_rng_range(&r, 0, 1);
      x[i] =
          fabsf(base[b]) > 1e3f ? nextafterf(base[b], (i & 1) ? INFINITY : -INFINITY) : base[b] * u;
      if (i % 5 == 0) x[i] = base[b];
    }
    x[3] = -INFINITY;
    CHECK(check_ref(x, N, "extreme") <= 1.0, "base %g", base[b]);
  }
  const float w[4] = {-FLT_MAX, FLT_MAX, 0.0f, -INFINITY};
  float y[4], tau;
  size_t k;
  CHECK(sp_all_agree(ss_entmax15_ex, w, 4, y, &tau, &k, "wide"), "wide");
  CHECK(y[0] == 0.0f && y[1] == 1.0f && y[2] == 0.0f && y[3] == 0.0f && k == 1, "wide one-hot");
}

TEST(entmax15_adversarial_orders) {
  enum { N = 65536 };
  float *x = ss_test_alloc(N * 4);
  for (int kind = 0; kind < SP_KINDS; kind++) {
    sp_fill(x, N, kind, 88 + kind);
    CHECK(check_ref(x, N, sp_kind_name[kind]) <= 1.0, "%s", sp_kind_name[kind]);
    size_t m;
    const double w = sp_select_work(SS_SPARSE_ENTMAX15, x, N, &m);
    if (m >= 1000) CHECK(w <= ENT_WORK, "%s: work %.2f m (m = %zu)", sp_kind_name[kind], w, m);
  }
}

/* All equal: tau = x/2 - 1/sqrt(n), y = 1/n within 1 ulp (one sqrt and one
   square in double, rounded once). */
TEST(entmax15_all_equal) {
  static const size_t ns[] = {1, 2, 3, 5, 7, 100, 1023, 4096};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), tau;
    size_t k;
    for (size_t i = 0; i < n; i++) x[i] = 7.5f;
    CHECK(sp_all_agree(ss_entmax15_ex, x, n, y, &tau, &k, "all equal"), "n=%zu", n);
    for (size_t i = 0; i < n; i++)
      CHECK(ss_ulp_diff(y[i], (float)(1.0 / (double)n)) <= 1 && y[i] == y[0],
            "n=%zu: y[%zu] = %.9g", n, i, y[i]);
    CHECK(k == n, "support %zu", k);
  }
}

/* Entries exactly at tau (p = 0 on the boundary) are zero and not in the
   support: [4, 2] has z gaps (0, 1) and sum (z_j - z_2)^2 = 1, not < 1, so
   y = [1, 0]; [2, 2, 0]: the 0 has excess 2 >= 1, the tied pair gets 1/2
   each; [6, 6, 4, 4]: excess at 4 is 2 -> [1/2, 1/2, 0, 0]. */
TEST(entmax15_ties_at_threshold) {
  struct {
    float x[4];
    size_t n;
    float y[4];
    size_t k;
  } cases[] = {
      {{4, 2}, 2, {1, 0}, 1},
      {{2, 2, 0}, 3, {0.5f, 0.5f, 0}, 2},
      {{6, 4, 6, 4}, 4, {0.5f, 0, 0.5f, 0}, 2},
      {{1, -1, -5}, 3, {1, 0, 0}, 1},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    float y[4], tau;
    size_t k;
    CHECK(sp_all_agree(ss_entmax15_ex, cases[c].x, cases[c].n, y, &tau, &k, "ties"), "case %zu", c);
    for (size_t i = 0; i < cases[c].n; i++)
      CHECK(y[i] == cases[c].y[i], "case %zu: y[%zu] = %.9g want %.9g", c, i, y[i], cases[c].y[i]);
    CHECK(k == cases[c].k, "case %zu: support %zu", c, k);
  }
}

/* n = 1: y = 1, tau = x/2 - 1. */
TEST(entmax15_n1) {
  static const float xs[] = {0.0f, -5.5f, 1e30f, -1e30f, 0x1p-149f, FLT_MAX};
  FOR_EACH_IMPL(impl) {
    for (size_t t = 0; t < sizeof xs / sizeof xs[0]; t++) {
      for (int m = 0; m < 2; m++) {
        float y, tau;
        size_t k;
        CHECK_STATUS(ss_entmax15_ex(impl, (ss_threshold_method)m, &xs[t], 1, &y, &tau, &k), SS_OK);
        CHECK(y == 1.0f && k == 1 && tau == (float)(0.5 * (double)xs[t] - 1.0),
              "%s x=%g: y=%g tau=%g", ss_impl_name(impl), xs[t], y, tau);
      }
    }
  }
}

TEST(entmax15_inf_padding) {
  static const size_t ns[] = {1, 5, 16, 37, 300};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++)
    for (int kind = 0; kind < SP_MASKED; kind++)
      CHECK(sp_check_inf_padding(ss_entmax15_ex, kind, ns[t]), "%s n=%zu", sp_kind_name[kind],
            ns[t]);
}

TEST(entmax15_large_n) {
  const size_t n = (size_t)1 << 20;
  float *x = ss_test_alloc(n * 4);
  sp_fill(x, n, SP_NORMAL, 3030);
  CHECK(check_ref(x, n, "2^20 normal") <= 1.0, "2^20 normal");
  sp_fill(x, n, SP_NARROW, 3031);
  CHECK(check_ref(x, n, "2^20 narrow") <= 1.0, "2^20 narrow");
}

TEST(entmax15_simd_fallback) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
#if SS_HAVE_SIMD
  const int e = sp_check_fallback(SS_SPARSE_ENTMAX15, 4000, -0.05);
  CHECK(e >= 5, "the fallback was needed on only %d rows", e);
#endif
}

TEST(entmax15_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40, 100};
  int tested = 0;
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *g = ss_test_alloc(n * 4),
          *dx = ss_test_alloc(n * 4), *dx0 = ss_test_alloc(n * 4);
    double *fd = ss_test_alloc(n * 8), *ref = ss_test_alloc(n * 8);
    for (uint64_t seed = 0; seed < 6; seed++) {
      st_fill(x, n, 600 + 10 * n + seed, -2.0f, 2.0f);
      if (n > 3) x[2] = -INFINITY;
      st_fill(g, n, 650 + n + seed, -2.0f, 2.0f);
      double tau, gmax = 0.0;
      sp_ref(true, x, n, ref, &tau, NULL);
      bool clear = true;
      for (size_t i = 0; i < n; i++) {
        if (x[i] != -INFINITY && fabs(0.5 * x[i] - tau) < 1e-3) clear = false;
        gmax = fmax(gmax, fabs(g[i]));
      }
      if (!clear) continue;
      tested++;
      st_fd_vjp(sp_model_entmax15, x, g, n, 0.0, 1e-6, fd);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
        CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, n, NULL, 0, dx), SS_OK);
        for (size_t j = 0; j < n; j++) {
          const double f = x[j] == -INFINITY ? 0.0 : fd[j];
          CHECK(fabs(dx[j] - f) <= 2e-7 * (fabs(g[j]) + gmax) + 1e-9,
                "%s n=%zu j=%zu: dx=%.9g fd=%.9g", ss_impl_name(impl), n, j, dx[j], f);
          if (y[j] == 0.0f) CHECK(dx[j] == 0.0f, "off-support dx[%zu] = %g", j, dx[j]);
        }
        if (impl == SS_IMPL_SCALAR)
          memcpy(dx0, dx, n * 4);
        else
          for (size_t j = 0; j < n; j++)
            CHECK(fabs(dx[j] - dx0[j]) <= 2e-7 * (fabs(g[j]) + gmax), "simd vs scalar dx[%zu]", j);
      }
    }
  }
  CHECK(tested >= 20, "only %d cases away from support changes", tested);
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

TEST(entmax15_direct_calls) {
  enum { N = 19 };
  float x[N], a[N], b[N], tau;
  size_t k;
  st_fill(x, N, 16, -2, 2);
  CHECK_STATUS(ss_entmax15(x, N, a), SS_OK);
  CHECK_STATUS(ss_normalize(K(), ss_impl_default(), x, N, NULL, 0, b), SS_OK);
  CHECK(memcmp(a, b, sizeof a) == 0, "direct call differs");
  CHECK_STATUS(ss_entmax15_ex(SS_IMPL_SCALAR, SS_THRESHOLD_SORT, x, N, b, NULL, NULL), SS_OK);
  CHECK(memcmp(a, b, sizeof a) == 0, "NULL tau/support");
  st_poison(b, N);
  CHECK_STATUS(ss_entmax15_ex(SS_IMPL_SCALAR, (ss_threshold_method)7, x, N, b, &tau, &k),
               SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_entmax15_ex(SS_IMPL_COUNT, SS_THRESHOLD_SORT, x, N, b, &tau, &k),
               SS_ERR_UNSUPPORTED);
  CHECK_STATUS(ss_entmax15_ex(SS_IMPL_SCALAR, SS_THRESHOLD_SORT, NULL, N, b, &tau, &k),
               SS_ERR_NULL);
  CHECK_STATUS(ss_entmax15_ex(SS_IMPL_SCALAR, SS_THRESHOLD_SORT, x, 0, b, &tau, &k), SS_ERR_EMPTY);
  x[0] = INFINITY;
  CHECK_STATUS(ss_entmax15_ex(SS_IMPL_SCALAR, SS_THRESHOLD_SELECT, x, N, b, &tau, &k),
               SS_ERR_POS_INF);
  for (size_t i = 0; i < N; i++) x[i] = -INFINITY;
  CHECK_STATUS(ss_entmax15_ex(ss_impl_default(), SS_THRESHOLD_SELECT, x, N, b, &tau, &k),
               SS_ERR_ALL_MASKED);
  CHECK(st_untouched(b, N), "y written on an error");
}
