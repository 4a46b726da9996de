/*
 * masked_softmax: softmax over the kept entries, masked entries exactly 0.
 * Registry form masks [mask_from, mask_to); direct form takes keep[].
 *
 * Stated bounds (softmax's): rel err <= 2e-6 vs float64 softmax of the kept
 * entries for outputs >= 1e-30; SIMD vs scalar <= 8 ulp. Measured: within
 * softmax's figures (the kernel is softmax on the staged row, and is
 * checked here bit for bit against softmax of x with -Inf at the masked
 * entries).
 */
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"

static const ss_kernel_info *K(void) { return ss_kernel_find("masked_softmax", SS_FAMILY_NORMALIZER); }
static const ss_kernel_info *KS(void) { return ss_kernel_find("softmax", SS_FAMILY_NORMALIZER); }

TEST(masked_softmax_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 2 && k->has_backward && k->output == SS_OUTPUT_PROBS &&
            strstr(k->paper, "Kim"),
        "descriptor");
  for (int i = 0; i < 2; i++) {
    const ss_param_info *p = &k->params[i];
    CHECK(strcmp(p->name, i ? "mask_to" : "mask_from") == 0 && p->type == SS_PARAM_INT &&
              p->min == 0.0 && p->max == (double)SS_MAX_N && p->def == 0.0,
          "param %d", i);
  }
}

/* Defaults (0, 0) and any empty range mask nothing: softmax, bit for bit. */
TEST(masked_softmax_empty_mask_is_softmax) {
  float x[67], a[67], b[67];
  for (size_t n = 1; n <= 67; n++) {
    st_fill(x, n, 10 + n, -30, 30);
    const double pr[3][2] = {{0, 0}, {(double)n, (double)n}, {(double)(n / 2), (double)(n / 2)}};
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(KS(), impl, x, n, NULL, 0, b), SS_OK);
      for (int k = 0; k < 3; k++) {
        CHECK_STATUS(ss_normalize(K(), impl, x, n, pr[k], 2, a), SS_OK);
        CHECK(memcmp(a, b, n * 4) == 0, "%s n=%zu range %d: differs from softmax", ss_impl_name(impl), n, k);
      }
    }
  }
}

/* Every range [from, to) of every n <= 40: masked outputs exactly 0; the
   result equals softmax of x with -Inf written into the range, bit for bit
   (same impl); the kept outputs match float64 softmax of the kept entries
   (2e-6 relative) and sum to 1 (1e-5). */
TEST(masked_softmax_every_range) {
  float x[40], xm[40], y[40], ys[40];
  double ref[40];
  for (size_t n = 1; n <= 40; n++) {
    st_fill(x, n, 20 + n, -20, 20);
    for (size_t from = 0; from <= n; from++) {
      for (size_t to = from; to <= n; to++) {
        if (from == 0 && to == n) continue; /* everything masked: an error */
        const double pr[2] = {(double)from, (double)to};
        for (size_t i = 0; i < n; i++) xm[i] = i >= from && i < to ? -INFINITY : x[i];
        ref_softmax(xm, n, 1.0, ref);
        FOR_EACH_IMPL(impl) {
          CHECK_STATUS(ss_normalize(K(), impl, x, n, pr, 2, y), SS_OK);
          CHECK_STATUS(ss_normalize(KS(), impl, xm, n, NULL, 0, ys), SS_OK);
          CHECK(memcmp(y, ys, n * 4) == 0, "%s n=%zu [%zu,%zu): differs from softmax of -Inf row",
                ss_impl_name(impl), n, from, to);
          double s = 0.0;
          for (size_t i = 0; i < n; i++) {
            if (i >= from && i < to) CHECK(y[i] == 0.0f, "masked y[%zu] = %g", i, y[i]);
            s += y[i];
          }
          size_t at;
          const double e = ref_max_rel_err(y, ref, n, 1e-30, &at);
          CHECK(e <= 2e-6, "%s n=%zu [%zu,%zu): rel err %.3g at %zu", ss_impl_name(impl), n, from,
                to, e, at);
          CHECK(fabs(s - 1.0) <= 1e-5, "sum %.9g", s);
        }
      }
    }
  }
}

/* The direct keep[] form: random masks, equal bit for bit to the registry
   form where the mask is a range, and to softmax of the -Inf row always. */
TEST(masked_softmax_direct_keep_mask) {
  static const size_t ns[] = {1, 3, 4, 5, 16, 17, 31, 64, 67, 1000};
  for (size_t t = 0; t < 10; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *xm = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4),
          *ys = ss_test_alloc(n * 4);
    uint8_t *keep = ss_test_alloc(n);
    ss_rng r = {n};
    for (int rep = 0; rep < 8; rep++) {
      st_fill(x, n, 30 * n + (uint64_t)rep, -10, 10);
      for (size_t i = 0; i < n; i++) keep[i] = ss_rng_unif(&r) < 0.6 ? (uint8_t)(1 + i % 200) : 0;
      keep[n / 2] = 1;
      for (size_t i = 0; i < n; i++) xm[i] = keep[i] ? x[i] : -INFINITY;
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_masked_softmax(impl, x, keep, n, y), SS_OK);
        CHECK_STATUS(ss_normalize(KS(), impl, xm, n, NULL, 0, ys), SS_OK);
        CHECK(memcmp(y, ys, n * 4) == 0, "%s n=%zu rep %d: differs", ss_impl_name(impl), n, rep);
      }
    }
    /* a range as keep[]: same bits as the registry form */
    for (size_t i = 0; i < n; i++) keep[i] = !(i >= n / 3 && i < n / 2);
    const double pr[2] = {(double)(n / 3), (double)(n / 2)};
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_masked_softmax(impl, x, keep, n, y), SS_OK);
      CHECK_STATUS(ss_normalize(K(), impl, x, n, pr, 2, ys), SS_OK);
      CHECK(memcmp(y, ys, n * 4) == 0, "%s n=%zu: keep[] vs range differ", ss_impl_name(impl), n);
    }
  }
}

TEST(masked_softmax_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  float x[67], a[67], b[67];
  uint32_t worst = 0;
  for (size_t n = 2; n <= 67; n++) {
    st_fill(x, n, 40 + n, -20, 20);
    const double pr[2] = {(double)(n / 4), (double)(n / 2)};
    CHECK_STATUS(ss_normalize(K(), SS_IMPL_SCALAR, x, n, pr, 2, a), SS_OK);
    CHECK_STATUS(ss_normalize(K(), SS_IMPL_SIMD, x, n, pr, 2, b), SS_OK);
    for (size_t i = 0; i < n; i++)
      if (a[i] >= 1e-30f) worst = fmaxf(worst, ss_ulp_diff(a[i], b[i]));
  }
  CHECK(worst <= 8, "worst %u ulp", worst);
}

/* Parameter relations and data errors, each with its status, y untouched:
   mask_to > n LENGTH, a non-integer or
   out-of-range parameter PARAM_RANGE (registry), nothing finite kept
   ALL_MASKED, NaN / +Inf inside the masked range still NAN / POS_INF. */
TEST(masked_softmax_errors) {
  enum { N = 21 };
  float x[N], y[N];
  st_fill(x, N, 50, -3, 3);
  const struct {
    double from, to;
    ss_status want;
  } cases[] = {
      {0, N + 1, SS_ERR_LENGTH},  {N + 1, N + 1, SS_ERR_LENGTH}, {N + 1, 3, SS_ERR_LENGTH},
      {0, N, SS_ERR_ALL_MASKED},  {2.5, 4, SS_ERR_PARAM_RANGE}, {-1, 3, SS_ERR_PARAM_RANGE},
      {0, (double)SS_MAX_N + 1, SS_ERR_PARAM_RANGE},
  };
  FOR_EACH_IMPL(impl) {
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      const double pr[2] = {cases[c].from, cases[c].to};
      st_poison(y, N);
      CHECK_STATUS(ss_normalize(K(), impl, x, N, pr, 2, y), cases[c].want);
      CHECK(st_untouched(y, N), "%s case %zu: y written", ss_impl_name(impl), c);
    }
    /* mask_from >= mask_to is the empty range: softmax, bit for bit */
    float ys[N];
    CHECK_STATUS(ss_normalize(K(), impl, x, N, (double[]){5, 4}, 2, y), SS_OK);
    CHECK_STATUS(ss_normalize(K(), impl, x, N, (double[]){0, 0}, 2, ys), SS_OK);
    CHECK(memcmp(y, ys, sizeof y) == 0, "%s: from > to is not the empty range", ss_impl_name(impl));
    st_poison(y, N);
    float xb[N];
    const double pr[2] = {3, 9};
    memcpy(xb, x, sizeof xb);
    for (size_t i = 0; i < N; i++)
      if (i < 3 || i >= 9) xb[i] = -INFINITY; /* every kept entry -Inf */
    CHECK_STATUS(ss_normalize(K(), impl, xb, N, pr, 2, y), SS_ERR_ALL_MASKED);
    memcpy(xb, x, sizeof xb);
    xb[5] = NAN;
    CHECK_STATUS(ss_normalize(K(), impl, xb, N, pr, 2, y), SS_ERR_NAN);
    xb[5] = INFINITY;
    CHECK_STATUS(ss_normalize(K(), impl, xb, N, pr, 2, y), SS_ERR_POS_INF);
    xb[17] = NAN;
    CHECK_STATUS(ss_normalize(K(), impl, xb, N, pr, 2, y), SS_ERR_NAN);
    CHECK(st_untouched(y, N), "%s: y written on a data error", ss_impl_name(impl));
    /* direct form */
    uint8_t keep[N] = {0};
    CHECK_STATUS(ss_masked_softmax(impl, x, keep, N, y), SS_ERR_ALL_MASKED);
    keep[4] = 1;
    memcpy(xb, x, sizeof xb);
    xb[4] = -INFINITY;
    CHECK_STATUS(ss_masked_softmax(impl, xb, keep, N, y), SS_ERR_ALL_MASKED);
    xb[20] = NAN;
    CHECK_STATUS(ss_masked_softmax(impl, xb, keep, N, y), SS_ERR_NAN);
    xb[20] = INFINITY;
    CHECK_STATUS(ss_masked_softmax(impl, xb, keep, N, y), SS_ERR_POS_INF);
    CHECK(st_untouched(y, N), "%s: y written (direct)", ss_impl_name(impl));
    CHECK_STATUS(ss_masked_softmax(impl, NULL, keep, N, y), SS_ERR_NULL);
    CHECK_STATUS(ss_masked_softmax(impl, x, NULL, N, y), SS_ERR_NULL);
    CHECK_STATUS(ss_masked_softmax(impl, x, keep, N, NULL), SS_ERR_NULL);
    CHECK_STATUS(ss_masked_softmax(impl, x, keep, 0, y), SS_ERR_EMPTY);
    CHECK_STATUS(ss_masked_softmax(impl, x, keep, SS_MAX_N + 1, y), SS_ERR_TOO_LARGE);
  }
  uint8_t keep[N];
  memset(keep, 1, sizeof keep);
  CHECK_STATUS(ss_masked_softmax(SS_IMPL_COUNT, x, keep, N, y), SS_ERR_UNSUPPORTED);
  if (!ss_impl_available(SS_IMPL_SIMD))
    CHECK_STATUS(ss_masked_softmax(SS_IMPL_SIMD, x, keep, N, y), SS_ERR_UNSUPPORTED);
}

static double g_from, g_to; /* the mask of the float64 model below */
static void model_masked(const double *x, size_t n, double unused, double *out) {
  (void)unused;
  double *xm = ss_test_alloc(n * sizeof *xm);
  for (size_t i = 0; i < n; i++) xm[i] = (double)i >= g_from && (double)i < g_to ? -INFINITY : x[i];
  st_softmax64(xm, n, 1.0, out);
  ss_test_free(xm);
}

/* VJP vs central differences: softmax's VJP over the kept entries, exactly
   0 on the masked ones. Tolerance as softmax's. */
TEST(masked_softmax_vjp_matches_finite_differences) {
  static const size_t ns[] = {2, 5, 16, 17, 40};
  for (size_t t = 0; t < 5; t++) {
    const size_t n = ns[t];
    float x[40], y[40], g[40], dx[40];
    double fd[40];
    st_fill(x, n, 70 + n, -3, 3);
    st_fill(g, n, 80 + n, -2, 2);
    g_from = (double)(n / 3);
    g_to = (double)(n / 3 + n / 2);
    const double pr[2] = {g_from, g_to};
    st_fd_vjp(model_masked, x, g, n, 0.0, 1e-5, fd);
    double G = 0.0;
    for (size_t i = 0; i < n; i++) G += fabs(g[i]);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, pr, 2, y), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, n, pr, 2, dx), SS_OK);
      for (size_t j = 0; j < n; j++) {
        if ((double)j >= g_from && (double)j < g_to) {
          CHECK(dx[j] == 0.0f, "%s n=%zu: masked dx[%zu] = %g", ss_impl_name(impl), n, j, dx[j]);
          continue;
        }
        const double tol = 8e-6 * y[j] * (fabs(g[j]) + G) + 1e-9 * G;
        CHECK(fabs(dx[j] - fd[j]) <= tol, "%s n=%zu j=%zu: dx=%.9g fd=%.9g", ss_impl_name(impl), n,
              j, dx[j], fd[j]);
      }
    }
  }
}

TEST(masked_softmax_single_entry) {
  const float x[1] = {-7.0f};
  float y[1];
  const double none[2] = {0, 0}, all[2] = {0, 1};
  const uint8_t keep[1] = {1};
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, 1, none, 2, y), SS_OK);
    CHECK(y[0] == 1.0f, "%s: %g", ss_impl_name(impl), y[0]);
    CHECK_STATUS(ss_normalize(K(), impl, x, 1, all, 2, y), SS_ERR_ALL_MASKED);
    y[0] = 0.0f;
    CHECK_STATUS(ss_masked_softmax(impl, x, keep, 1, y), SS_OK);
    CHECK(y[0] == 1.0f, "%s direct: %g", ss_impl_name(impl), y[0]);
  }
}
