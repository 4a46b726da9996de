/*
 * The properties sparsemax and 1.5-entmax share, one table row a kernel:
 * both are y = [z - tau]_+^a with z = slope x (sparsemax: slope 1, a = 1;
 * entmax15: slope 1/2, a = 2), thresholded by the exact select / sort
 * search of core/src/sparse. Each ROW_TEST below runs once per row, as
 * <kernel>_<property> (e.g. sparsemax_large_n). What only one kernel has
 * (its golden values, the VJP's closed form) stays in test_sparsemax.c /
 * test_entmax15.c.
 *
 * Bounds (per row; measured in brackets over every test below):
 *   vs the float64 sort reference of sparse_testing.h (row.model, row.ref):
 *     |y_i - ref_i| <= rel ref_i + root sqrt(ref_i) + abs   [ratio <= 0.50]
 *       sparsemax (2^-23, 0, 1e-14): the float rounding of y;
 *       entmax15 (2^-23, 1e-13, 1e-30): y = t^2 turns an absolute error e
 *       in t = x/2 - tau into 2 e sqrt(y)
 *     support == the reference's K wherever no entry is within 1e-6 of tau
 *     (the entmax reference counts entries exactly at tau, with p = 0, in
 *     K; the kernel does not), y_i == 0 exactly wherever z_i < tau_ref - 1e-6
 *   |sum y - 1| <= 2^-22                                            [5.9e-8]
 *   select vs sort, SIMD vs scalar: bitwise equal y, tau and support
 *   VJP vs central differences of the float64 model (h = 1e-6; entries at
 *     least fd_clear from tau, so no support change): |dx - fd| <=
 *     2e-7 (|g_j| + max|g|) + 1e-9       [sparsemax 0.16, entmax15 0.23];
 *     SIMD vs scalar <= 2e-7 (|g_j| + max|g|)       [0.24, 0.20]
 *   selection cost <= 8 m element visits for m candidates on every order
 *     and tie pattern                                      [4.5 m, 4.9 m]
 *   all equal: y = 1/n within equal_ulps (sparsemax exactly; entmax15 one
 *     sqrt and one square in double, rounded once: 1 ulp)
 */
#include <float.h>
#include <string.h>

#include "harness.h"
#include "sparse/threshold.h"
#include "sparse_table.h"

ROW_TEST(SPARSE_KERNELS, sparse_kernel, descriptor) {
  const ss_kernel_info *k = sparse_kernel_of(T);
  CHECK(k && k->nparams == 0 && k->has_backward && !k->has_param_backward &&
            k->output == SS_OUTPUT_PROBS && k->input == SS_INPUT_LOGITS,
        "descriptor");
  CHECK(k->normalize[SS_IMPL_SCALAR] && k->normalize_vjp[SS_IMPL_SCALAR], "scalar entries");
  CHECK(!ss_impl_available(SS_IMPL_SIMD) ||
            (k->normalize[SS_IMPL_SIMD] && k->normalize_vjp[SS_IMPL_SIMD]),
        "simd entries");
}

ROW_TEST(SPARSE_KERNELS, sparse_kernel, matches_float64_reference) {
  static const size_t big[] = {255, 1000, 4097, 65539};
  double worst = 0.0;
  for (size_t c = 0; c < 40 + 4; c++) {
    const size_t n = c < 40 ? c + 1 : big[c - 40];
    float *x = ss_test_alloc(n * 4);
    for (int kind = 0; kind < SP_KINDS; kind++) {
      sp_fill(x, n, kind, T->seed.ref * kind + n);
      if (kind == SP_MASKED && n == 1) x[0] = 0.5f;
      const double r = sparse_check_ref(T, x, n, sp_kind_name[kind]);
      CHECK(r <= 1.0, "%s n=%zu failed", sp_kind_name[kind], n);
      if (r > worst) worst = r;
    }
    ss_test_free(x);
  }
  CHECK(worst <= 1.0, "worst %.3g", worst);
}

/* Rows far from the usual scale: huge, tiny and denormal logits. */
ROW_TEST(SPARSE_KERNELS, sparse_kernel, extreme_magnitudes) {
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
    CHECK(sparse_check_ref(T, x, N, "extreme") <= 1.0, "base %g", base[b]);
  }
  /* spread wider than 1: only the maximum survives, exactly 1 */
  const float w[4] = {-FLT_MAX, FLT_MAX, 0.0f, -INFINITY};
  float y[4], tau;
  size_t k;
  CHECK(sp_all_agree(T->ex, w, 4, y, &tau, &k, "wide"), "wide");
  CHECK(y[0] == 0.0f && y[1] == 1.0f && y[2] == 0.0f && y[3] == 0.0f && k == 1, "wide one-hot");
}

/* Every order and tie pattern at n = 65536: agreement (bitwise across
   methods and impls), the reference, and the selection's cost on the
   candidates (<= SPARSE_WORK m). */
ROW_TEST(SPARSE_KERNELS, sparse_kernel, adversarial_orders) {
  enum { N = 65536 };
  float *x = ss_test_alloc(N * 4);
  for (int kind = 0; kind < SP_KINDS; kind++) {
    sp_fill(x, N, kind, T->seed.orders + kind);
    CHECK(sparse_check_ref(T, x, N, sp_kind_name[kind]) <= 1.0, "%s", sp_kind_name[kind]);
    size_t m;
    const double w = sp_select_work(T->kind, x, N, &m);
    if (m >= 1000) CHECK(w <= SPARSE_WORK, "%s: work %.2f m (m = %zu)", sp_kind_name[kind], w, m);
  }
}

/* y = 1/n (within equal_ulps; every entry the same) on an all-equal row. */
ROW_TEST(SPARSE_KERNELS, sparse_kernel, all_equal) {
  static const size_t ns[] = {1, 2, 3, 5, 7, 100, 1023, 4096};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), tau;
    size_t k;
    for (size_t i = 0; i < n; i++) x[i] = T->equal_x;
    CHECK(sp_all_agree(T->ex, x, n, y, &tau, &k, "all equal"), "n=%zu", n);
    for (size_t i = 0; i < n; i++)
      CHECK(ss_ulp_diff(y[i], (float)(1.0 / (double)n)) <= T->equal_ulps && y[i] == y[0],
            "n=%zu: y[%zu] = %.9g", n, i, y[i]);
    CHECK(k == n, "support %zu", k);
  }
}

/* n = 1: y = 1, tau = z - 1. */
ROW_TEST(SPARSE_KERNELS, sparse_kernel, n1) {
  static const float xs[] = {0.0f, -5.5f, 1e30f, -1e30f, 0x1p-149f, FLT_MAX};
  FOR_EACH_IMPL(impl) {
    for (size_t t = 0; t < sizeof xs / sizeof xs[0]; t++) {
      for (int m = 0; m < 2; m++) {
        float y, tau;
        size_t k;
        CHECK_STATUS(T->ex(impl, (ss_threshold_method)m, &xs[t], 1, &y, &tau, &k), SS_OK);
        CHECK(y == 1.0f && k == 1 && tau == (float)(T->slope * (double)xs[t] - 1.0),
              "%s x=%g: y=%g tau=%g", ss_impl_name(impl), xs[t], y, tau);
      }
    }
  }
}

/* -Inf padding: padded entries exactly 0, the others bitwise unchanged. */
ROW_TEST(SPARSE_KERNELS, sparse_kernel, inf_padding) {
  static const size_t ns[] = {1, 5, 16, 37, 300};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++)
    for (int kind = 0; kind < SP_MASKED; kind++)
      CHECK(sp_check_inf_padding(T->ex, kind, ns[t]), "%s n=%zu", sp_kind_name[kind], ns[t]);
}

/* n = 2^20 once, both impls (sp_all_agree runs them) and the reference. */
ROW_TEST(SPARSE_KERNELS, sparse_kernel, large_n) {
  const size_t n = (size_t)1 << 20;
  float *x = ss_test_alloc(n * 4);
  sp_fill(x, n, SP_NORMAL, T->seed.large);
  CHECK(sparse_check_ref(T, x, n, "2^20 normal") <= 1.0, "2^20 normal");
  sp_fill(x, n, SP_NARROW, T->seed.large + 1);
  CHECK(sparse_check_ref(T, x, n, "2^20 narrow") <= 1.0, "2^20 narrow");
}

/* The SIMD narrowing with a margin of -0.05 overshoots tau: the exact
   check must catch it and the result stay bitwise the scalar one. */
ROW_TEST(SPARSE_KERNELS, sparse_kernel, simd_fallback) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
#if SS_HAVE_SIMD
  const int e = sp_check_fallback(T->kind, 4000, -0.05);
  CHECK(e >= 5, "the fallback was needed on only %d rows", e);
#else
  (void)T;
#endif
}

/* VJP vs central differences of the float64 model, away from support
   changes (every z at least fd_clear from tau), and SIMD vs scalar. */
ROW_TEST(SPARSE_KERNELS, sparse_kernel, vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40, 100};
  const ss_kernel_info *K = sparse_kernel_of(T);
  int tested = 0;
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *g = ss_test_alloc(n * 4),
          *dx = ss_test_alloc(n * 4), *dx0 = ss_test_alloc(n * 4);
    double *fd = ss_test_alloc(n * 8), *ref = ss_test_alloc(n * 8);
    for (uint64_t seed = 0; seed < 6; seed++) {
      st_fill(x, n, T->seed.fd_x + 10 * n + seed, -T->fd_range, T->fd_range);
      if (n > 3) x[2] = -INFINITY;
      st_fill(g, n, T->seed.fd_g + n + seed, -2.0f, 2.0f);
      double tau, gmax = 0.0;
      sp_ref(T->entmax, x, n, ref, &tau, NULL);
      bool clear = true;
      for (size_t i = 0; i < n; i++) {
        if (x[i] != -INFINITY && fabs(T->slope * x[i] - tau) < T->fd_clear) clear = false;
        gmax = fmax(gmax, fabs(g[i]));
      }
      if (!clear) continue;
      tested++;
      /* the model needs finite inputs for the perturbation: -Inf stays -Inf */
      st_fd_vjp(T->model, x, g, n, 0.0, 1e-6, fd);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(K, impl, x, n, NULL, 0, y), SS_OK);
        CHECK_STATUS(ss_normalize_vjp(K, impl, x, y, g, n, NULL, 0, dx), SS_OK);
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

/* Entries exactly at tau are zero and not in the support, in every impl
   and method (the row's hand-worked ties, sparse_table.h). */
ROW_TEST(SPARSE_KERNELS, sparse_kernel, ties_at_threshold) {
  for (size_t c = 0; c < T->nties; c++) {
    const sparse_tie *t = &T->ties[c];
    float y[4], tau;
    size_t k;
    CHECK(sp_all_agree(T->ex, t->x, t->n, y, &tau, &k, "ties"), "case %zu", c);
    for (size_t i = 0; i < t->n; i++)
      CHECK(y[i] == t->y[i], "case %zu: y[%zu] = %.9g want %.9g", c, i, y[i], t->y[i]);
    CHECK(k == t->k, "case %zu: support %zu", c, k);
  }
}

/* ss_<kernel> is the registry's default call; ss_<kernel>_ex takes NULL
   tau/support and refuses what ss_normalize refuses, plus an unknown
   method or impl, without writing y. */
ROW_TEST(SPARSE_KERNELS, sparse_kernel, direct_calls) {
  enum { N = 19 };
  float x[N], a[N], b[N], tau;
  size_t k;
  st_fill(x, N, T->seed.direct, -T->fd_range, T->fd_range);
  CHECK_STATUS(T->direct(x, N, a), SS_OK);
  CHECK_STATUS(T->ex(SS_IMPL_SCALAR, SS_THRESHOLD_SORT, x, N, b, NULL, NULL), SS_OK);
  CHECK(memcmp(a, b, sizeof a) == 0, "NULL tau/support");
  st_poison(b, N);
  static const int bad_methods[] = {-1, 2, 7};
  for (size_t m = 0; m < sizeof bad_methods / sizeof bad_methods[0]; m++)
    CHECK_STATUS(T->ex(SS_IMPL_SCALAR, (ss_threshold_method)bad_methods[m], x, N, b, &tau, &k),
                 SS_ERR_PARAM_RANGE);
  CHECK_STATUS(T->ex(SS_IMPL_COUNT, SS_THRESHOLD_SELECT, x, N, b, &tau, &k), SS_ERR_UNSUPPORTED);
  if (!ss_impl_available(SS_IMPL_SIMD))
    CHECK_STATUS(T->ex(SS_IMPL_SIMD, SS_THRESHOLD_SELECT, x, N, b, &tau, &k), SS_ERR_UNSUPPORTED);
  CHECK_STATUS(T->ex(SS_IMPL_SCALAR, SS_THRESHOLD_SELECT, NULL, N, b, &tau, &k), SS_ERR_NULL);
  CHECK_STATUS(T->ex(SS_IMPL_SCALAR, SS_THRESHOLD_SELECT, x, N, NULL, &tau, &k), SS_ERR_NULL);
  CHECK_STATUS(T->ex(SS_IMPL_SCALAR, SS_THRESHOLD_SELECT, x, 0, b, &tau, &k), SS_ERR_EMPTY);
  CHECK_STATUS(T->ex(SS_IMPL_SCALAR, SS_THRESHOLD_SELECT, x, SS_MAX_N + 1, b, &tau, &k),
               SS_ERR_TOO_LARGE);
  const float keep = x[4];
  x[4] = NAN;
  CHECK_STATUS(T->ex(SS_IMPL_SCALAR, SS_THRESHOLD_SORT, x, N, b, &tau, &k), SS_ERR_NAN);
  x[4] = INFINITY;
  CHECK_STATUS(T->ex(SS_IMPL_SCALAR, SS_THRESHOLD_SELECT, x, N, b, &tau, &k), SS_ERR_POS_INF);
  x[4] = keep;
  for (size_t i = 0; i < N; i++) x[i] = -INFINITY;
  FOR_EACH_IMPL(impl)
  CHECK_STATUS(T->ex(impl, SS_THRESHOLD_SELECT, x, N, b, &tau, &k), SS_ERR_ALL_MASKED);
  CHECK(st_untouched(b, N), "y written on an error");
}
