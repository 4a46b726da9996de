/* softmax: the properties every build must hold. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

static const ss_kernel_info *K(void) {
  return ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
}

/* Logits spread over [-range/2, range/2). */
static void fill(float *x, size_t n, uint64_t seed, float range) {
  ss_rng r = {seed};
  for (size_t i = 0; i < n; i++) x[i] = ss_rng_range(&r, -range / 2, range / 2);
}

/* Max relative error <= 2e-6 vs float64 for every output >= 1e-30, logits
   spread over a range of 100, every n in 1..67 and a few large n. */
TEST(softmax_matches_float64_reference) {
  static const size_t big[] = {255, 1000, 4097, 65536 + 3};
  for (size_t t = 0; t < 67 + 4; t++) {
    const size_t n = t < 67 ? t + 1 : big[t - 67];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8);
    fill(x, n, 1000 + n, 100.0f);
    ref_softmax(x, n, 1.0, ref);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
      size_t at;
      const double e = ref_max_rel_err(y, ref, n, 1e-30, &at);
      CHECK(e <= 2e-6, "%s n=%zu: rel err %.3g at %zu (y=%g ref=%g)",
            ss_impl_name(impl), n, e, at, y[at], ref[at]);
    }
    ss_test_free(x);
    ss_test_free(y);
    ss_test_free(ref);
  }
}
