/*
 * sparsemax: y = [x - tau]_+, sum y = 1 (Martins & Astudillo 2016).
 *
 * Bounds (measured values in brackets, over every test below):
 *   vs the float64 sort reference of sparse_testing.h:
 *     |y_i - ref_i| <= SPM_REL ref_i + SPM_ABS   (2^-23, 1e-14)   [ratio <= 0.50:
 *     the float rounding of y; tau itself agrees to ~1e-16]
 *     support == the reference's K wherever no entry is within 1e-6 of tau
 *     y_i == 0 exactly wherever x_i < tau_ref - 1e-6
 *   |sum y - 1| <= SPM_SUM = 2^-22                                   [5.9e-8]
 *   select vs sort, SIMD vs scalar: bitwise equal y, tau and support
 *   VJP vs central differences of the float64 model (h = 1e-6; entries at
 *     least 1e-4 from tau, so no support change): |dx - fd| <=
 *     2e-7 (|g_j| + max|g|) + 1e-9                          [ratio <= 0.16]
 *   SIMD VJP vs scalar: <= 2e-7 (|g_j| + max|g|)             [ratio <= 0.24]
 *   selection cost: <= SPM_WORK = 8 m element visits for m candidates on
 *     every order and tie pattern                                   [<= 4.5 m]
 */
#include <float.h>
#include <string.h>

#include "harness.h"
#include "sparse/threshold.h"
#include "sparse_testing.h"

#define SPM_REL 0x1p-23
#define SPM_ABS 1e-14
#define SPM_SUM 0x1p-22
#define SPM_WORK 8.0

static const ss_kernel_info *K(void) { return ss_kernel_find("sparsemax", SS_FAMILY_NORMALIZER); }

TEST(sparsemax_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 0 && k->has_backward && !k->has_param_backward &&
            k->output == SS_OUTPUT_PROBS && k->input == SS_INPUT_LOGITS,
        "descriptor");
  CHECK(k->normalize[SS_IMPL_SCALAR] && k->normalize_vjp[SS_IMPL_SCALAR], "scalar entries");
  CHECK(!ss_impl_available(SS_IMPL_SIMD) ||
            (k->normalize[SS_IMPL_SIMD] && k->normalize_vjp[SS_IMPL_SIMD]),
        "simd entries");
}

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

static const sp_bounds SPM = {SPM_REL, 0.0, SPM_ABS, SPM_SUM};

static double check_ref(const float *x, size_t n, const char *what) {
  return sp_check_ref(false, &SPM, x, n, what);
}

TEST(sparsemax_matches_float64_reference) {
  static const size_t big[] = {255, 1000, 4097, 65539};
  double worst = 0.0;
  for (size_t c = 0; c < 40 + 4; c++) {
    const size_t n = c < 40 ? c + 1 : big[c - 40];
    float *x = ss_test_alloc(n * 4);
    for (int kind = 0; kind < SP_KINDS; kind++) {
      sp_fill(x, n, kind, 1000 * kind + n);
      if (kind == SP_MASKED && n == 1) x[0] = 0.5f;
      const double r = check_ref(x, n, sp_kind_name[kind]);
      CHECK(r <= 1.0, "%s n=%zu failed", sp_kind_name[kind], n);
      if (r > worst) worst = r;
    }
    ss_test_free(x);
  }
  CHECK(worst <= 1.0, "worst %.3g", worst);
}

/* Rows far from the usual scale: huge, tiny and denormal logits. */
TEST(sparsemax_extreme_magnitudes) {
  enum { N = 23 };
  float x[N];
  static const float base[] = {1e30f, -1e30f, 3e38f, -3e38f, 1e-30f, 0x1p-140f, 1e6f, -7e4f};
  for (size_t b = 0; b < sizeof base / sizeof base[0]; b++) {
    ss_rng r = {b + 1};
    for (size_t i = 0; i < N; i++) {
      const float u = ss_rng_range(&r, 0, 1);
      /* near base, in steps that float can hold there */
      x[i] =
          fabsf(base[b]) > 1e3f ? nextafterf(base[b], (i & 1) ? INFINITY : -INFINITY) : base[b] * u;
      if (i % 5 == 0) x[i] = base[b];
    }
    x[3] = -INFINITY;
    CHECK(check_ref(x, N, "extreme") <= 1.0, "base %g", base[b]);
  }
  /* spread wider than 1: only the maximum survives, exactly 1 */
  const float w[4] = {-FLT_MAX, FLT_MAX, 0.0f, -INFINITY};
  float y[4], tau;
  size_t k;
  CHECK(sp_all_agree(ss_sparsemax_ex, w, 4, y, &tau, &k, "wide"), "wide");
  CHECK(y[0] == 0.0f && y[1] == 1.0f && y[2] == 0.0f && y[3] == 0.0f && k == 1, "wide one-hot");
}

/* Every order and tie pattern at n = 65536: agreement (bitwise across
   methods and impls), the reference, and the selection's cost on the
   candidates (<= SPM_WORK m). */
TEST(sparsemax_adversarial_orders) {
  enum { N = 65536 };
  float *x = ss_test_alloc(N * 4);
  for (int kind = 0; kind < SP_KINDS; kind++) {
    sp_fill(x, N, kind, 77 + kind);
    CHECK(check_ref(x, N, sp_kind_name[kind]) <= 1.0, "%s", sp_kind_name[kind]);
    size_t m;
    const double w = sp_select_work(SS_SPARSE_SPARSEMAX, x, N, &m);
    if (m >= 1000) CHECK(w <= SPM_WORK, "%s: work %.2f m (m = %zu)", sp_kind_name[kind], w, m);
  }
}

/* y = 1/n exactly (rounded once) on an all-equal row, any n. */
TEST(sparsemax_all_equal) {
  static const size_t ns[] = {1, 2, 3, 5, 7, 100, 1023, 4096};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), tau;
    size_t k;
    for (size_t i = 0; i < n; i++) x[i] = -3.75f;
    CHECK(sp_all_agree(ss_sparsemax_ex, x, n, y, &tau, &k, "all equal"), "n=%zu", n);
    for (size_t i = 0; i < n; i++)
      CHECK(y[i] == (float)(1.0 / (double)n), "n=%zu: y[%zu] = %.9g", n, i, y[i]);
    CHECK(k == n, "support %zu", k);
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

TEST(sparsemax_n1) {
  static const float xs[] = {0.0f, -5.5f, 1e30f, -1e30f, 0x1p-149f, FLT_MAX};
  FOR_EACH_IMPL(impl) {
    for (size_t t = 0; t < sizeof xs / sizeof xs[0]; t++) {
      for (int m = 0; m < 2; m++) {
        float y, tau;
        size_t k;
        CHECK_STATUS(ss_sparsemax_ex(impl, (ss_threshold_method)m, &xs[t], 1, &y, &tau, &k), SS_OK);
        CHECK(y == 1.0f && k == 1 && tau == (float)((double)xs[t] - 1.0), "%s x=%g: y=%g tau=%g",
              ss_impl_name(impl), xs[t], y, tau);
      }
    }
  }
}

/* -Inf padding: padded entries exactly 0, the others bitwise unchanged. */
TEST(sparsemax_inf_padding) {
  static const size_t ns[] = {1, 5, 16, 37, 300};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++)
    for (int kind = 0; kind < SP_MASKED; kind++)
      CHECK(sp_check_inf_padding(ss_sparsemax_ex, kind, ns[t]), "%s n=%zu", sp_kind_name[kind],
            ns[t]);
}

/* n = 2^20 once, both impls (sp_all_agree runs them) and the reference. */
TEST(sparsemax_large_n) {
  const size_t n = (size_t)1 << 20;
  float *x = ss_test_alloc(n * 4);
  sp_fill(x, n, SP_NORMAL, 2020);
  CHECK(check_ref(x, n, "2^20 normal") <= 1.0, "2^20 normal");
  sp_fill(x, n, SP_NARROW, 2021);
  CHECK(check_ref(x, n, "2^20 narrow") <= 1.0, "2^20 narrow");
}

/* The SIMD narrowing with a margin of -0.05 overshoots tau: the exact
   check must catch it and the result stay bitwise the scalar one. */
TEST(sparsemax_simd_fallback) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
#if SS_HAVE_SIMD
  const int e = sp_check_fallback(SS_SPARSE_SPARSEMAX, 4000, -0.05);
  CHECK(e >= 5, "the fallback was needed on only %d rows", e);
#endif
}

/* VJP vs central differences of the float64 model, away from support
   changes (every entry >= 1e-4 from tau), and SIMD vs scalar. */
TEST(sparsemax_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40, 100};
  int tested = 0;
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *g = ss_test_alloc(n * 4),
          *dx = ss_test_alloc(n * 4), *dx0 = ss_test_alloc(n * 4);
    double *fd = ss_test_alloc(n * 8), *ref = ss_test_alloc(n * 8);
    for (uint64_t seed = 0; seed < 6; seed++) {
      st_fill(x, n, 900 + 10 * n + seed, -1.0f, 1.0f);
      if (n > 3) x[2] = -INFINITY;
      st_fill(g, n, 950 + n + seed, -2.0f, 2.0f);
      double tau, gmax = 0.0;
      sp_ref(false, x, n, ref, &tau, NULL);
      bool clear = true;
      for (size_t i = 0; i < n; i++) {
        if (x[i] != -INFINITY && fabs(x[i] - tau) < 1e-4) clear = false;
        gmax = fmax(gmax, fabs(g[i]));
      }
      if (!clear) continue;
      tested++;
      /* the model needs finite inputs for the perturbation: -Inf stays -Inf */
      st_fd_vjp(sp_model_sparsemax, x, g, n, 0.0, 1e-6, fd);
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
