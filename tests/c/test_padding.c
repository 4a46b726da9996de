/*
 * -Inf padding changes nothing else, one row a normalizer whose output
 * depends on the unmasked entries only: masked outputs are exactly 0 and
 * every other output is the unpadded one (scalar: bitwise, the padded terms
 * add exact zeros; SIMD: within the row's ulp bound, the lanes sum in
 * another grouping). Padding is appended, or also spread one at every third
 * slot where the kernel's output does not depend on positions (noise drawn
 * per index, a position window). Kernels with padding rules of their own
 * (top-k, the sparse threshold kernels, VQ-softmax) test them in their files.
 */
#include "softmax_testing.h"

typedef struct padding_row {
  const char *name; /* the registry normalizer (and the test's prefix) */
  double params[5];
  size_t nparams;
  size_t n, pad;
  uint64_t seed;
  float range;      /* x uniform in +-range */
  int layouts;      /* 1: appended only; 2: appended and interleaved */
  uint32_t simd_ulp;
} padding_row;

static const padding_row PADDING[] = {
    /* n counts the unmasked entries: the scale is the unpadded one */
    {.name = "ssmax", .params = {0.7}, .nparams = 1, .n = 29, .pad = 11, .seed = 41, .range = 4,
     .layouts = 2, .simd_ulp = 8},
    {.name = "softplus_l1", .params = {64}, .nparams = 1, .n = 37, .pad = 12, .seed = 45,
     .range = 1, .layouts = 2, .simd_ulp = 8},
    /* L counts the unmasked entries; one division per output: SIMD bitwise too */
    {.name = "relu_attention", .n = 43, .pad = 14, .seed = 47, .range = 3, .layouts = 2,
     .simd_ulp = 0},
    /* masked entries drop out of H and of both sums */
    {.name = "adaptive_temperature", .n = 45, .pad = 13, .seed = 43, .range = 2, .layouts = 2,
     .simd_ulp = 16},
    /* the window [4, 11) lies inside the kept part */
    {.name = "masked_softmax", .params = {4, 11}, .nparams = 2, .n = 30, .pad = 9, .seed = 60,
     .range = 5, .layouts = 1, .simd_ulp = 8},
    /* the noise is indexed by i: appended padding leaves it unchanged */
    {.name = "noisy_softmax", .params = {0.5, 0.0, 2, 8, 1}, .nparams = 5, .n = 33, .pad = 10,
     .seed = 140, .range = 4, .layouts = 1, .simd_ulp = 8},
};

/* x (n) spread into xp (n + p) with p -Inf entries: appended (layout 0) or
   one at every third slot while they last (layout 1); at[j] is where x[j]
   went. */
static void pad_row(const float *x, size_t n, size_t p, int layout, float *xp, size_t *at) {
  size_t j = 0, used = 0;
  for (size_t i = 0; i < n + p; i++) {
    if (j == n || (layout == 1 && used < p && i % 3 == 0)) {
      xp[i] = -INFINITY;
      used++;
    } else {
      at[j] = i;
      xp[i] = x[j++];
    }
  }
}

ROW_TEST(PADDING, padding_row, padding_property) {
  const ss_kernel_info *k = ss_kernel_find(T->name, SS_FAMILY_NORMALIZER);
  CHECK(k != NULL, "no normalizer %s", T->name);
  const size_t n = T->n, np = T->n + T->pad;
  float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *xp = ss_test_alloc(np * 4),
        *yp = ss_test_alloc(np * 4);
  size_t *at = ss_test_alloc(n * sizeof *at);
  st_fill(x, n, T->seed, -T->range, T->range);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(k, impl, x, n, T->params, T->nparams, y), SS_OK);
    for (int layout = 0; layout < T->layouts; layout++) {
      pad_row(x, n, T->pad, layout, xp, at);
      CHECK(st_unmasked(xp, np) == n, "layout %d", layout);
      CHECK_STATUS(ss_normalize(k, impl, xp, np, T->params, T->nparams, yp), SS_OK);
      for (size_t i = 0; i < np; i++)
        if (xp[i] == -INFINITY)
          CHECK(yp[i] == 0.0f, "%s layout %d: masked %zu = %g", ss_impl_name(impl), layout, i,
                yp[i]);
      for (size_t i = 0; i < n; i++) {
        const uint32_t u = ss_ulp_diff(y[i], yp[at[i]]);
        CHECK(impl == SS_IMPL_SCALAR ? u == 0 : u <= T->simd_ulp, "%s layout %d i=%zu: %u ulp",
              ss_impl_name(impl), layout, i, u);
      }
    }
  }
}
