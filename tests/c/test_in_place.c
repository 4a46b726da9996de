/*
 * Normalizers whose descriptor says in_place (softscope.h): y = x, the same
 * buffer, gives bit for bit what a separate y gives, in every impl, at
 * lengths around the SIMD steps and the sum blocks, for every input kind
 * (masked, deep, ties, huge: the exact zeros and the statuses), one vector
 * and rows (ss_normalize_rows with y = x and one stride, the pair step of
 * short rows included). A kernel that is not in_place is not run in place:
 * its result there is undefined.
 */
#include <stdlib.h>
#include <string.h>

#include "family_adapter.h"
#include "registry/dispatch.h"

/* 1, odd, tails, 2 pair-step rows, the exp loop's 48-float step +- 1, and
   past one sum block (SS_SUM_BLOCK floats). */
static const size_t LENGTHS[] = {1, 3, 17, 64, 47, 48, 49, 1000, 4099, 70001};

/* One case: x filled with kind `kind`, the call with a separate y against
   the call on a copy of x in place (status and every bit). */
static bool in_place_case(const ss_kernel_info *k, ss_impl im, size_t n, int kind, uint64_t seed) {
  float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float)), *xy = malloc(n * sizeof(float));
  float *const two[CF_ROWS] = {x, x, x};
  double p[CF_MAX_PARAMS];
  cf_defaults(k, n, p);
  cf_fill_rows(&cf_normalizer_adapter, k, two, n, kind, seed);
  memcpy(xy, x, n * sizeof(float));
  const ss_status s = ss_normalize(k, im, x, n, p, k->nparams, y);
  const ss_status s2 = ss_normalize(k, im, xy, n, p, k->nparams, xy);
  bool ok = s == s2 && (s != SS_OK || memcmp(y, xy, n * sizeof(float)) == 0);
  if (!ok)
    ss_test_fail(__FILE__, __LINE__, "%s impl %d n %zu kind %s: in place %s, separate y %s%s", k->name, (int)im, n,
                 cf_kind_name[kind], ss_status_name(s2), ss_status_name(s), s == s2 ? " (values differ)" : "");
  ss_test_count(1);
  free(x), free(y), free(xy);
  return ok;
}

/* rows x n in one stride, y = x, against a separate y (the rows entry
   point's own agreement with single calls is tests/c/test_rows.c's). */
static bool in_place_rows_case(const ss_kernel_info *k, ss_impl im, size_t rows, size_t n, uint64_t seed) {
  const size_t stride = n + 3;
  float *x = malloc(rows * stride * sizeof(float)), *y = malloc(rows * stride * sizeof(float));
  double p[CF_MAX_PARAMS];
  cf_defaults(k, n, p);
  for (size_t r = 0; r < rows; r++) {
    float *const two[CF_ROWS] = {x + r * stride, x + r * stride, x + r * stride};
    cf_fill_rows(&cf_normalizer_adapter, k, two, n, (int)(r % CF_MODERATE_KINDS), seed + r);
    for (size_t i = n; i < stride; i++) x[r * stride + i] = -7777.25f; /* gaps */
  }
  memcpy(y, x, rows * stride * sizeof(float));
  float *sep = malloc(rows * stride * sizeof(float));
  memcpy(sep, x, rows * stride * sizeof(float));
  size_t bad = 0, bad2 = 0;
  const ss_status s = ss_normalize_rows(k, im, x, rows, n, stride, p, k->nparams, sep, stride, &bad);
  const ss_status s2 = ss_normalize_rows(k, im, y, rows, n, stride, p, k->nparams, y, stride, &bad2);
  const bool ok = s == s2 && bad == bad2 && memcmp(sep, y, rows * stride * sizeof(float)) == 0;
  if (!ok)
    ss_test_fail(__FILE__, __LINE__, "%s impl %d rows %zu n %zu: in place %s (row %zu), separate %s (row %zu)",
                 k->name, (int)im, rows, n, ss_status_name(s2), bad2, ss_status_name(s), bad);
  ss_test_count(1);
  free(x), free(y), free(sep);
  return ok;
}

TEST(in_place_normalizers_equal_separate_outputs) {
  size_t kernels = 0;
  CF_FOR_EACH_KERNEL(k, SS_FAMILY_NORMALIZER) {
    if (!k->in_place) continue;
    kernels++;
    for (int im = 0; im < SS_IMPL_COUNT; im++) {
      if (!ss_impl_available((ss_impl)im)) continue;
      for (size_t t = 0; t < sizeof LENGTHS / sizeof LENGTHS[0]; t++)
        for (int kind = 0; kind < CF_KINDS; kind++)
          if (!in_place_case(k, (ss_impl)im, LENGTHS[t], kind, 77 + 13 * t + kind)) return;
      for (size_t t = 0; t < sizeof LENGTHS / sizeof LENGTHS[0]; t++)
        if (!in_place_rows_case(k, (ss_impl)im, 7, LENGTHS[t] > 4099 ? 4099 : LENGTHS[t], 500 + t)) return;
    }
  }
  /* softmax, log_softmax, softmax_temperature (their descriptors) */
  CHECK(kernels >= 3, "%zu normalizers are in_place", kernels);
}
