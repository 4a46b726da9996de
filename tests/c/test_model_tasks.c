/*
 * The tasks' generators (ss_task_batch, core/src/model/tasks.c): each
 * example's properties checked from its tokens, independently of the
 * generator's code path:
 *   max_retrieval: items carry values below `values` and priorities in
 *     (0, 1), the query is QUERY = values with feature 0, and the target is
 *     the value of the first item of maximal priority;
 *   kv_retrieval: the query is keys + k*, k* appears exactly once among the
 *     items, the other keys are below `keys`, the target is k*'s value;
 *   kv_or_none: BOS first, k* appears at most once, the target is NONE =
 *     values exactly when it is absent, which happens in 1/2 of the examples
 *     (within 5 sd over TASK_EXAMPLES);
 * and every needle position occurs; a batch is a pure function of (seed,
 * step, n): the same twice, its first examples the same at a larger batch,
 * another seed or step another batch; bad arguments get their status.
 */
#include <string.h>

#include "harness.h"

#define TASK_EXAMPLES 2000
#define TN 12

typedef struct {
  uint32_t a[TASK_EXAMPLES * TN], b[TASK_EXAMPLES * TN], t[TASK_EXAMPLES];
  float f[TASK_EXAMPLES * TN];
} task_data;

static task_data D1, D2;

static ss_status draw(const ss_task *task, uint64_t seed, uint64_t step, size_t batch, size_t n,
                      task_data *d) {
  return ss_task_batch(task, seed, step, batch, n, d->a, d->b, d->f, d->t);
}

TEST(task_max_retrieval_target_is_max_priority_value) {
  const ss_task task = {SS_TASK_MAX_RETRIEVAL, 10, 0};
  uint32_t va, vb, c;
  CHECK_STATUS(ss_task_dims(&task, &va, &vb, &c), SS_OK);
  CHECK(va == 11 && vb == 1 && c == 10, "dims %u %u %u", va, vb, c);
  CHECK_STATUS(draw(&task, 3, 9, TASK_EXAMPLES, TN, &D1), SS_OK);
  for (size_t e = 0; e < TASK_EXAMPLES; e++) {
    const uint32_t *a = D1.a + e * TN, *b = D1.b + e * TN;
    const float *f = D1.f + e * TN;
    CHECK(a[TN - 1] == 10 && f[TN - 1] == 0.0f && b[TN - 1] == 0, "example %zu: query", e);
    size_t best = 0;
    for (size_t j = 0; j + 1 < TN; j++) {
      CHECK(a[j] < 10 && b[j] == 0 && f[j] > 0.0f && f[j] < 1.0f, "example %zu item %zu", e, j);
      if (f[j] > f[best]) best = j;
    }
    CHECK(D1.t[e] == a[best], "example %zu: target %u, max-priority value %u", e, D1.t[e], a[best]);
  }
}

/* The count of k* among items [first, n-1) and the needle's index. */
static size_t needle_of(const uint32_t *a, size_t first, size_t n, uint32_t key, size_t *at) {
  size_t count = 0;
  for (size_t j = first; j + 1 < n; j++)
    if (a[j] == key) count++, *at = j;
  return count;
}

TEST(task_kv_retrieval_needle_appears_exactly_once) {
  const ss_task task = {SS_TASK_KV_RETRIEVAL, 6, 5};
  uint32_t va, vb, c;
  CHECK_STATUS(ss_task_dims(&task, &va, &vb, &c), SS_OK);
  CHECK(va == 10 && vb == 7 && c == 6, "dims %u %u %u", va, vb, c);
  CHECK_STATUS(draw(&task, 4, 0, TASK_EXAMPLES, TN, &D1), SS_OK);
  size_t seen[TN] = {0};
  for (size_t e = 0; e < TASK_EXAMPLES; e++) {
    const uint32_t *a = D1.a + e * TN, *b = D1.b + e * TN;
    CHECK(a[TN - 1] >= 5 && a[TN - 1] < 10 && b[TN - 1] == 6, "example %zu: query", e);
    const uint32_t key = a[TN - 1] - 5;
    for (size_t j = 0; j + 1 < TN; j++)
      CHECK(a[j] < 5 && b[j] < 6 && D1.f[e * TN + j] == 0.0f, "example %zu item %zu", e, j);
    size_t at = 0;
    CHECK(needle_of(a, 0, TN, key, &at) == 1, "example %zu: key %u not exactly once", e, key);
    CHECK(D1.t[e] == b[at], "example %zu: target %u, needle's value %u", e, D1.t[e], b[at]);
    seen[at]++;
  }
  for (size_t j = 0; j + 1 < TN; j++) CHECK(seen[j] > 0, "no needle at position %zu", j);
}

TEST(task_kv_or_none_absent_half_the_time) {
  const ss_task task = {SS_TASK_KV_OR_NONE, 6, 5};
  uint32_t va, vb, c;
  CHECK_STATUS(ss_task_dims(&task, &va, &vb, &c), SS_OK);
  CHECK(va == 11 && vb == 7 && c == 7, "dims %u %u %u", va, vb, c);
  CHECK_STATUS(draw(&task, 5, 2, TASK_EXAMPLES, TN, &D1), SS_OK);
  size_t absent = 0;
  for (size_t e = 0; e < TASK_EXAMPLES; e++) {
    const uint32_t *a = D1.a + e * TN, *b = D1.b + e * TN;
    CHECK(a[0] == 10 && b[0] == 6, "example %zu: BOS", e);
    const uint32_t key = a[TN - 1] - 5;
    CHECK(a[TN - 1] >= 5 && a[TN - 1] < 10 && b[TN - 1] == 6, "example %zu: query", e);
    size_t at = 0;
    const size_t count = needle_of(a, 1, TN, key, &at);
    CHECK(count <= 1, "example %zu: key %u %zu times", e, key, count);
    CHECK(D1.t[e] == (count ? b[at] : 6u), "example %zu: target %u", e, D1.t[e]);
    absent += count == 0;
  }
  const double share = (double)absent / TASK_EXAMPLES, sd = 0.5 / sqrt((double)TASK_EXAMPLES);
  CHECK(fabs(share - 0.5) <= 5 * sd, "absent in %.4f of the examples", share);
}

TEST(task_batches_are_pure_functions_of_seed_and_step) {
  for (uint32_t kind = 0; kind < SS_TASK_COUNT; kind++) {
    const ss_task task = {kind, 7, 4};
    CHECK_STATUS(draw(&task, 11, 3, 64, TN, &D1), SS_OK);
    CHECK_STATUS(draw(&task, 11, 3, 16, TN, &D2), SS_OK);
    CHECK(!memcmp(D1.a, D2.a, 16 * TN * 4) && !memcmp(D1.b, D2.b, 16 * TN * 4) &&
              !memcmp(D1.f, D2.f, 16 * TN * 4) && !memcmp(D1.t, D2.t, 16 * 4),
          "%s: a batch's first examples depend on its size", ss_task_name(kind));
    CHECK_STATUS(draw(&task, 12, 3, 64, TN, &D2), SS_OK);
    CHECK(memcmp(D1.a, D2.a, 64 * TN * 4) || memcmp(D1.b, D2.b, 64 * TN * 4),
          "%s: seed 12 gives seed 11's batch", ss_task_name(kind));
    CHECK_STATUS(draw(&task, 11, 4, 64, TN, &D2), SS_OK);
    CHECK(memcmp(D1.a, D2.a, 64 * TN * 4) || memcmp(D1.b, D2.b, 64 * TN * 4),
          "%s: step 4 gives step 3's batch", ss_task_name(kind));
  }
  /* pinned values: the same in every build (Philox, integer arithmetic) */
  const ss_task task = {SS_TASK_MAX_RETRIEVAL, 10, 0};
  CHECK_STATUS(draw(&task, 1, 0, 2, 4, &D1), SS_OK);
  uint64_t hsh = 1469598103934665603ull;
  for (size_t i = 0; i < 8; i++) {
    uint32_t fb;
    memcpy(&fb, &D1.f[i], 4);
    hsh = (hsh ^ D1.a[i]) * 1099511628211ull;
    hsh = (hsh ^ fb) * 1099511628211ull;
  }
  CHECK(hsh == 0x92eab7b015978067ull, "max_retrieval (seed 1, step 0, 2 x 4): hash %016llx, pinned 92eab7b015978067",
        (unsigned long long)hsh);
}

TEST(task_bad_arguments) {
  const ss_task ok = {SS_TASK_KV_RETRIEVAL, 6, 5};
  uint32_t va, vb, c;
  CHECK_STATUS(ss_task_batch(NULL, 1, 0, 2, 4, D1.a, D1.b, D1.f, D1.t), SS_ERR_NULL);
  CHECK_STATUS(ss_task_batch(&ok, 1, 0, 2, 4, NULL, D1.b, D1.f, D1.t), SS_ERR_NULL);
  CHECK_STATUS(ss_task_batch(&ok, 1, 0, 2, 4, D1.a, D1.b, D1.f, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_task_dims(&ok, NULL, &vb, &c), SS_ERR_NULL);
  const ss_task bad_kind = {SS_TASK_COUNT, 6, 5}, few_values = {SS_TASK_MAX_RETRIEVAL, 1, 0},
                few_keys = {SS_TASK_KV_RETRIEVAL, 6, 1},
                many_values = {SS_TASK_MAX_RETRIEVAL, SS_MODEL_MAX_VOCAB, 0},
                kv_none = {SS_TASK_KV_OR_NONE, 6, 5};
  CHECK_STATUS(ss_task_dims(&bad_kind, &va, &vb, &c), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_dims(&few_values, &va, &vb, &c), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_dims(&few_keys, &va, &vb, &c), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_dims(&many_values, &va, &vb, &c), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_batch(&ok, 1, 0, 0, 4, D1.a, D1.b, D1.f, D1.t), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_batch(&ok, 1, 0, 2, 1, D1.a, D1.b, D1.f, D1.t), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_batch(&kv_none, 1, 0, 2, 2, D1.a, D1.b, D1.f, D1.t), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_batch(&ok, 1, 0, 1, SS_MODEL_MAX_N + 1, D1.a, D1.b, D1.f, D1.t),
               SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_batch(&kv_none, 1, 0, 2, 3, D1.a, D1.b, D1.f, D1.t), SS_OK);
  CHECK(ss_task_name(SS_TASK_COUNT) == NULL && !strcmp(ss_task_name(0), "max_retrieval"), "names");
}
