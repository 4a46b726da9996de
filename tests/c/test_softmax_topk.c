/* ss_softmax_topk: the fused top-k equals "full softmax, then sort". */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

/* probs vs the softmax kernel of the same impl (measured ~2e-7: only the
   sum's rounding differs); vs float64 like softmax. */
#define REL_SOFTMAX 1e-6
#define REL_F64 2e-6

static const float *sort_x; /* qsort context */
/* Descending by logit, ties by lower index: the order exp preserves. */
static int by_logit(const void *a, const void *b) {
  const uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  if (sort_x[i] > sort_x[j]) return -1;
  if (sort_x[i] < sort_x[j]) return 1;
  return (i > j) - (i < j);
}

static void fill(float *x, size_t n, uint64_t seed, int kind) {
  ss_rng r = {seed};
  for (size_t i = 0; i < n; i++) {
    switch (kind) {
      case 0: x[i] = ss_rng_range(&r, -50.0f, 50.0f); break;
      case 1: x[i] = (float)(ss_rng_u64(&r) % 5); break; /* many ties */
      case 2: /* ties and masks */
        x[i] = ss_rng_u64(&r) % 3 == 0 ? -INFINITY : (float)(ss_rng_u64(&r) % 4);
        break;
      case 3: x[i] = (float)i * 0.01f; break;  /* ascending: all insert */
      default: x[i] = -(float)i * 0.01f; break; /* descending: all skip */
    }
  }
  if (kind == 2) x[n / 2] = 1.0f; /* never all -Inf */
}

/* Run one case and compare with the sorted full softmax. */
static bool check_case(const float *x, size_t n, size_t k, int kind) {
  const ss_kernel_info *K = ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
  uint32_t *order = ss_test_alloc(n * 4), *idx = ss_test_alloc(k * 4);
  float *y = ss_test_alloc(n * 4), *p = ss_test_alloc(k * 4);
  double *ref = ss_test_alloc(n * 8);
  for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
  sort_x = x;
  qsort(order, n, 4, by_logit);
  ref_softmax(x, n, 1.0, ref);
  FOR_EACH_IMPL(impl) {
    if (ss_normalize(K, impl, x, n, NULL, 0, y) != SS_OK) {
      ss_test_fail(__FILE__, __LINE__, "softmax failed");
      return false;
    }
    ss_status s = ss_softmax_topk(impl, x, n, k, p, idx);
    if (s != SS_OK) {
      ss_test_fail(__FILE__, __LINE__, "%s n=%zu k=%zu kind=%d: status %s",
                   ss_impl_name(impl), n, k, kind, ss_status_str(s));
      return false;
    }
    for (size_t j = 0; j < k; j++) {
      const uint32_t i = order[j];
      if (idx[j] != i) {
        ss_test_fail(__FILE__, __LINE__, "%s n=%zu k=%zu kind=%d: rank %zu index %u, want %u",
                     ss_impl_name(impl), n, k, kind, j, idx[j], i);
        return false;
      }
      /* relative above 1e-30, absolute below (denormal outputs) */
      const double e1 = y[i] >= 1e-30f ? fabs((double)p[j] - y[i]) / y[i]
                                       : (fabs((double)p[j] - y[i]) > 1e-30 ? 1.0 : 0.0);
      const double e2 = ref[i] >= 1e-30 ? fabs(p[j] - ref[i]) / ref[i]
                                        : (fabs(p[j] - ref[i]) > 1e-30 ? 1.0 : 0.0);
      if (!(e1 <= REL_SOFTMAX) || !(e2 <= REL_F64) || (j && p[j] > p[j - 1])) {
        ss_test_fail(__FILE__, __LINE__,
                     "%s n=%zu k=%zu kind=%d rank %zu: p=%.9g softmax=%.9g ref=%.9g",
                     ss_impl_name(impl), n, k, kind, j, p[j], y[i], ref[i]);
        return false;
      }
    }
  }
  ss_test_free(order);
  ss_test_free(idx);
  ss_test_free(y);
  ss_test_free(p);
  ss_test_free(ref);
  return true;
}

TEST(topk_equals_sorted_softmax) {
  static const size_t big[] = {255, 1000, 1024, 1025, 4097, 70000};
  for (size_t t = 0; t < 67 + 6; t++) {
    const size_t n = t < 67 ? t + 1 : big[t - 67];
    float *x = ss_test_alloc(n * 4);
    const size_t ks[] = {1, 2, 3, 5, 16, 17, n / 2, n - 1, n};
    for (int kind = 0; kind < 5; kind++) {
      fill(x, n, 100 * n + (uint64_t)kind, kind);
      for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++) {
        const size_t k = ks[q];
        if (k < 1 || k > n) continue;
        if (n > 5000 && k > 64 && k < n - 1) continue; /* keep it quick */
        if (!check_case(x, n, k, kind)) return;
      }
    }
    ss_test_free(x);
  }
}

TEST(topk_large_n) {
  const size_t n = (size_t)1 << 20;
  float *x = ss_test_alloc(n * 4);
  fill(x, n, 7, 0);
  static const size_t ks[] = {1, 10, 1000};
  for (size_t q = 0; q < 3; q++)
    if (!check_case(x, n, ks[q], 0)) return;
}

TEST(topk_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  const size_t n = 33333;
  float *x = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4),
        *b = ss_test_alloc(n * 4);
  uint32_t *ia = ss_test_alloc(n * 4), *ib = ss_test_alloc(n * 4);
  for (int kind = 0; kind < 5; kind++) {
    fill(x, n, 99 + (uint64_t)kind, kind);
    static const size_t ks[] = {1, 7, 100, 33333};
    for (size_t q = 0; q < 4; q++) {
      const size_t k = ks[q];
      CHECK_STATUS(ss_softmax_topk(SS_IMPL_SCALAR, x, n, k, a, ia), SS_OK);
      CHECK_STATUS(ss_softmax_topk(SS_IMPL_SIMD, x, n, k, b, ib), SS_OK);
      for (size_t j = 0; j < k; j++) {
        CHECK(ia[j] == ib[j], "kind %d k=%zu rank %zu: %u vs %u", kind, k, j, ia[j], ib[j]);
        const double e = a[j] >= 1e-30f ? fabs((double)b[j] - a[j]) / a[j]
                                        : (fabs((double)b[j] - a[j]) > 1e-30 ? 1.0 : 0.0);
        CHECK(e <= REL_SOFTMAX, "kind %d k=%zu rank %zu: %.9g vs %.9g", kind, k, j, b[j], a[j]);
      }
    }
  }
}

/* Fewer finite logits than k: the masked ones follow with probability 0,
   by index. */
TEST(topk_masked_entries) {
  float x[9] = {-INFINITY, 2.0f, -INFINITY, -INFINITY, 1.0f, -INFINITY, 2.0f,
                -INFINITY, -INFINITY};
  float p[9];
  uint32_t ix[9];
  const uint32_t want[9] = {1, 6, 4, 0, 2, 3, 5, 7, 8};
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_softmax_topk(impl, x, 9, 9, p, ix), SS_OK);
    for (int j = 0; j < 9; j++) CHECK(ix[j] == want[j], "rank %d: %u", j, ix[j]);
    /* exp(2), exp(2), exp(1) over their sum, in float64 */
    const double s = 2 * exp(2.0) + exp(1.0);
    CHECK(fabs(p[0] - exp(2.0) / s) <= 2e-7 && p[0] == p[1] &&
              fabs(p[2] - exp(1.0) / s) <= 2e-7,
          "%g %g %g", p[0], p[1], p[2]);
    for (int j = 3; j < 9; j++) CHECK(p[j] == 0.0f, "masked p %g", p[j]);
  }
}

TEST(topk_bad_inputs) {
  float x[40], p[40];
  uint32_t ix[40];
  ss_rng r = {1};
  for (int i = 0; i < 40; i++) x[i] = ss_rng_range(&r, -5, 5);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_softmax_topk(impl, x, 40, 0, p, ix), SS_ERR_LENGTH);
    CHECK_STATUS(ss_softmax_topk(impl, x, 40, 41, p, ix), SS_ERR_LENGTH);
    CHECK_STATUS(ss_softmax_topk(impl, x, 0, 1, p, ix), SS_ERR_EMPTY);
    CHECK_STATUS(ss_softmax_topk(impl, x, SS_MAX_N + 1, 1, p, ix), SS_ERR_TOO_LARGE);
    CHECK_STATUS(ss_softmax_topk(impl, NULL, 40, 1, p, ix), SS_ERR_NULL);
    CHECK_STATUS(ss_softmax_topk(impl, x, 40, 1, NULL, ix), SS_ERR_NULL);
    CHECK_STATUS(ss_softmax_topk(impl, x, 40, 1, p, NULL), SS_ERR_NULL);
    float b[40];
    memcpy(b, x, sizeof b);
    b[39] = NAN;
    CHECK_STATUS(ss_softmax_topk(impl, b, 40, 3, p, ix), SS_ERR_NAN);
    b[0] = NAN; /* NaN inside the initial heap */
    CHECK_STATUS(ss_softmax_topk(impl, b, 40, 3, p, ix), SS_ERR_NAN);
    b[0] = INFINITY; /* NaN wins over +Inf, as in softmax */
    CHECK_STATUS(ss_softmax_topk(impl, b, 40, 3, p, ix), SS_ERR_NAN);
    b[39] = 0.0f;
    CHECK_STATUS(ss_softmax_topk(impl, b, 40, 3, p, ix), SS_ERR_POS_INF);
    for (int i = 0; i < 40; i++) b[i] = -INFINITY;
    CHECK_STATUS(ss_softmax_topk(impl, b, 40, 3, p, ix), SS_ERR_ALL_MASKED);
  }
  CHECK_STATUS(ss_softmax_topk((ss_impl)5, x, 40, 1, p, ix), SS_ERR_UNSUPPORTED);
  if (!ss_impl_available(SS_IMPL_SIMD))
    CHECK_STATUS(ss_softmax_topk(SS_IMPL_SIMD, x, 40, 1, p, ix), SS_ERR_UNSUPPORTED);
}
