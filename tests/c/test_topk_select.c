/*
 * sample/topk_select.c: the top_k sampler's threshold for k <= 256, the
 * k-th largest by one pass with a heap of k floats (scalar) and the same
 * pass skipping four entries at a time below the heap's root (SIMD).
 *
 * Asserted: both return the k-th entry of a qsort of the same values
 * (duplicates counted) on every order and tie pattern of sparse_testing.h
 * (ties at the k-th value, all equal, sorted either way, -Inf entries), at
 * lengths on both sides of the SIMD blocks of 8 and k from 1 to n and to
 * the heap's bound; the input is left as it was; and the top_k sampler's
 * kept set is exactly {i : e_i >= the k-th largest e} on both sides of the
 * heap's bound (k 256 by the heap, 257 by the quickselect).
 */
#include <string.h>

#include "harness.h"
#include "sample/sample_internal.h"
#include "sparse_testing.h"

TEST(topk_kth_matches_sort) {
  static const size_t ns[] = {1, 2, 7, 8, 9, 17, 100, 1000, 65537};
  float heap[256];
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *keep = ss_test_alloc(n * 4), *s = ss_test_alloc(n * 4);
    for (int kind = 0; kind < SP_KINDS; kind++) {
      sp_fill(x, n, kind, 300 + n);
      memcpy(keep, x, n * 4);
      memcpy(s, x, n * 4);
      qsort(s, n, 4, sp_desc_float);
      const size_t ks[] = {1, 2, 5, 50, 255, 256, n / 2 + 1, n};
      for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
        const size_t k = ks[j];
        if (k > n || k > 256) continue;
        const float a = ss_topk_kth_scalar(x, n, k, heap);
        CHECK(a == s[k - 1] || (a != a && s[k - 1] != s[k - 1]), "scalar %s n=%zu k=%zu: got %g want %g",
              sp_kind_name[kind], n, k, a, s[k - 1]);
#if SS_HAVE_SIMD
        const float b = ss_topk_kth_simd(x, n, k, heap);
        CHECK(b == s[k - 1], "simd %s n=%zu k=%zu: got %g want %g", sp_kind_name[kind], n, k, b, s[k - 1]);
#endif
      }
      CHECK(memcmp(x, keep, n * 4) == 0, "%s n=%zu: the input changed", sp_kind_name[kind], n);
    }
  }
}

/* The sampler's kept set, by the heap (k <= 256) and by the quickselect (k > 256), is the set a sort gives. */
TEST(topk_sampler_kept_set_either_side_of_the_heap) {
  enum { N = 4099 };
  const ss_kernel_info *k = ss_kernel_find("top_k", SS_FAMILY_SAMPLER);
  CHECK(k != NULL, "top_k in the registry");
  if (!k) return;
  float *x = ss_test_alloc(N * 4), *p = ss_test_alloc(N * 4), *e = ss_test_alloc(N * 4), *s = ss_test_alloc(N * 4);
  ss_status st;
  for (int kind = 0; kind < SP_KINDS; kind++) {
    sp_fill(x, N, kind, 77);
    ss_det_exp_scalar(x, N, 1.0, e, &st);
    memcpy(s, e, N * 4);
    qsort(s, N, 4, sp_desc_float);
    for (size_t kk = 255; kk <= 258; kk++) {
      double params[8];
      for (size_t i = 0; i < k->nparams; i++) params[i] = k->params[i].def;
      params[0] = (double)kk;
      for (int impl = 0; impl < SS_IMPL_COUNT; impl++) {
        if (!ss_impl_available((ss_impl)impl)) continue;
        uint32_t idx;
        st = ss_sample(k, (ss_impl)impl, x, N, params, k->nparams, p, &idx, NULL);
        CHECK(st == SS_OK, "%s k=%zu %s: status %d", sp_kind_name[kind], kk, ss_impl_name((ss_impl)impl), st);
        size_t bad = 0;
        for (size_t i = 0; i < N; i++) bad += (p[i] > 0.0f) != (e[i] >= s[kk - 1] && e[i] > 0.0f);
        CHECK(bad == 0, "%s k=%zu %s: %zu entries kept or dropped against the sort", sp_kind_name[kind], kk,
              ss_impl_name((ss_impl)impl), bad);
      }
    }
  }
}
