/*
 * The normalizers' direct calls (ss_softmax, ss_ssmax, ...), one row each:
 * a direct call is the registry kernel with the default impl, so for every
 * length it must give ss_normalize's output bit for bit, refuse NULL and
 * empty input, and refuse each out-of-range parameter without writing y.
 * What a kernel's direct call does beyond that (the sparse kernels' _ex
 * form, entmax's solver call, noisy_softmax's 64-bit counters) stays in
 * its own file.
 */
#include <string.h>

#include "softmax_testing.h"

/* Every direct call through one signature: p holds the registry's
   parameters in the registry's order. */
typedef ss_status (*direct_fn)(const float *x, size_t n, const double *p, float *y);

/* Calls without parameters, and calls with one double parameter. */
#define DIRECT_NO_PARAMS(fn)                                                          \
  static ss_status call_##fn(const float *x, size_t n, const double *p, float *y) { \
    (void)p;                                                                          \
    return ss_##fn(x, n, y);                                                          \
  }
#define DIRECT_ONE_PARAM(fn)                                                          \
  static ss_status call_##fn(const float *x, size_t n, const double *p, float *y) { \
    return ss_##fn(x, n, p[0], y);                                                    \
  }
DIRECT_NO_PARAMS(softmax)
DIRECT_NO_PARAMS(log_softmax)
DIRECT_NO_PARAMS(sparsemax)
DIRECT_NO_PARAMS(entmax15)
DIRECT_NO_PARAMS(softpick)
DIRECT_NO_PARAMS(relu_attention)
DIRECT_NO_PARAMS(stablemax)
DIRECT_NO_PARAMS(adaptive_temperature)
DIRECT_ONE_PARAM(softmax_temperature)
DIRECT_ONE_PARAM(entmax_bisect)
DIRECT_ONE_PARAM(entmax_halley)
DIRECT_ONE_PARAM(ssmax)
DIRECT_ONE_PARAM(softplus_l1)

/* The rest convert the registry's doubles to the call's own types. */
static ss_status call_topk_softmax(const float *x, size_t n, const double *p, float *y) {
  return ss_topk_softmax(x, n, (size_t)p[0], y);
}
static ss_status call_asentmax(const float *x, size_t n, const double *p, float *y) {
  return ss_asentmax(x, n, p[0], p[1], p[2], p[3], y);
}
static ss_status call_noisy_softmax(const float *x, size_t n, const double *p, float *y) {
  return ss_noisy_softmax(x, n, p[0], p[1], (uint64_t)p[2], (uint64_t)p[3], p[4] != 0.0, y);
}
static ss_status call_multimax(const float *x, size_t n, const double *p, float *y) {
  return ss_multimax(x, n, p, p + 4, y);
}
static ss_status call_sa_softmax(const float *x, size_t n, const double *p, float *y) {
  return ss_sa_softmax(x, n, p[0] != 0.0, y);
}

enum { DC_MAX_PARAMS = 8, DC_MAX_BAD = 3 };

typedef struct direct_call {
  const char *name;   /* the test's prefix */
  const char *kernel; /* the registry normalizer it calls */
  direct_fn call;
  double params[DC_MAX_PARAMS]; /* in range */
  size_t nparams;
  double bad[DC_MAX_BAD][DC_MAX_PARAMS]; /* each out of range in one place */
  size_t nbad;
  float range; /* x uniform in +-range */
  size_t min_n; /* the shortest input it takes (top-k: k) */
} direct_call;

static const direct_call DIRECT_CALLS[] = {
    {.name = "softmax", .kernel = "softmax", .call = call_softmax, .range = 4},
    {.name = "log_softmax", .kernel = "log_softmax", .call = call_log_softmax, .range = 4},
    {.name = "temperature", .kernel = "softmax_temperature", .call = call_softmax_temperature,
     .params = {0.37}, .nparams = 1, .bad = {{0.0}, {NAN}, {-1.0}}, .nbad = 3, .range = 4},
    {.name = "sparsemax", .kernel = "sparsemax", .call = call_sparsemax, .range = 3},
    {.name = "entmax15", .kernel = "entmax15", .call = call_entmax15, .range = 3},
    {.name = "topk_softmax", .kernel = "topk_softmax", .call = call_topk_softmax,
     .params = {4}, .nparams = 1, .bad = {{0}}, .nbad = 1, .range = 4, .min_n = 4},
    {.name = "entmax_bisect", .kernel = "entmax_bisect", .call = call_entmax_bisect,
     .params = {1.7}, .nparams = 1, .bad = {{1.0}, {0.5}}, .nbad = 2, .range = 3},
    {.name = "entmax_halley", .kernel = "entmax_halley", .call = call_entmax_halley,
     .params = {1.7}, .nparams = 1, .bad = {{1.0}, {0.5}}, .nbad = 2, .range = 3},
    {.name = "asentmax", .kernel = "asentmax", .call = call_asentmax,
     .params = {1.7, 0.5, 1.5, 0.75}, .nparams = 4,
     .bad = {{1.5, 1.0, 1.0, 3.0}}, .nbad = 1, .range = 3},
    {.name = "noisy_softmax", .kernel = "noisy_softmax", .call = call_noisy_softmax,
     .params = {0.7, 0.02, 12, 99, 0}, .nparams = 5,
     .bad = {{-1.0, 0.02, 1, 2, 1}}, .nbad = 1, .range = 4},
    {.name = "softpick", .kernel = "softpick", .call = call_softpick, .range = 3},
    {.name = "relu_attention", .kernel = "relu_attention", .call = call_relu_attention, .range = 3},
    {.name = "stablemax", .kernel = "stablemax", .call = call_stablemax, .range = 9},
    {.name = "multimax", .kernel = "multimax", .call = call_multimax,
     .params = {-0.9, 2.5, 0.7, -0.02, -3.0, 2.0, -1.5, 3.0}, .nparams = 8, .range = 3},
    {.name = "sa_softmax_normalized", .kernel = "sa_softmax", .call = call_sa_softmax,
     .params = {1}, .nparams = 1, .range = 3},
    {.name = "sa_softmax_plain", .kernel = "sa_softmax", .call = call_sa_softmax,
     .params = {0}, .nparams = 1, .range = 3},
    {.name = "adaptive_temperature", .kernel = "adaptive_temperature",
     .call = call_adaptive_temperature,
     .range = 3},
    {.name = "ssmax", .kernel = "ssmax", .call = call_ssmax,
     .params = {0.9}, .nparams = 1, .bad = {{0.0}, {-2.0}}, .nbad = 2, .range = 4},
    {.name = "softplus_l1", .kernel = "softplus_l1", .call = call_softplus_l1,
     .params = {32}, .nparams = 1, .bad = {{0.0}}, .nbad = 1, .range = 1},
};

static const size_t DC_LENGTHS[] = {1, 7, 19, 33, 50};

/* The direct call gives ss_normalize's bytes at every length. */
ROW_TEST(DIRECT_CALLS, direct_call, direct_call) {
  const ss_kernel_info *k = ss_kernel_find(T->kernel, SS_FAMILY_NORMALIZER);
  CHECK(k != NULL, "no normalizer %s", T->kernel);
  CHECK(k->nparams == T->nparams, "%s takes %zu params, row has %zu", T->kernel, k->nparams,
        T->nparams);
  float x[50], a[50], b[50];
  for (size_t l = 0; l < sizeof DC_LENGTHS / sizeof DC_LENGTHS[0]; l++) {
    const size_t n = DC_LENGTHS[l];
    if (n < T->min_n) continue;
    st_fill(x, n, 700 + l, -T->range, T->range);
    CHECK_STATUS(T->call(x, n, T->params, a), SS_OK);
    CHECK_STATUS(ss_normalize(k, ss_impl_default(), x, n, T->params, T->nparams, b), SS_OK);
    CHECK(memcmp(a, b, n * sizeof a[0]) == 0, "n=%zu: direct call differs", n);
  }
}

/* NULL input or output and n = 0 are refused; so is each out-of-range
   parameter, and y is left as it was. */
ROW_TEST(DIRECT_CALLS, direct_call, direct_call_refuses) {
  enum { N = 19 };
  float x[N], y[N];
  st_fill(x, N, 9, -T->range, T->range);
  st_poison(y, N);
  CHECK_STATUS(T->call(NULL, N, T->params, y), SS_ERR_NULL);
  CHECK_STATUS(T->call(x, N, T->params, NULL), SS_ERR_NULL);
  CHECK_STATUS(T->call(x, 0, T->params, y), SS_ERR_EMPTY);
  for (size_t b = 0; b < T->nbad; b++)
    CHECK_STATUS(T->call(x, N, T->bad[b], y), SS_ERR_PARAM_RANGE);
  CHECK(st_untouched(y, N), "y written on error");
}
