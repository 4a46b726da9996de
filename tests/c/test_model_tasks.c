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
 * Every task of the list (task_list.h) has its shape, batches at its min_n
 * and not below, tokens within its vocabularies and zeros where it has no
 * second table or feature; batches of every task and 4 KB of the grammar
 * text hash to values pinned natively (the wasm builds must match them).
 * Bigram-Backcopy's own properties: test_model_bigram_backcopy.c.
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
  CHECK_STATUS(ss_task_dims(&task, &va, &vb, &c), SS_OK); /* interim: the shape's first three */
  CHECK(va == 11 && vb == 0 && c == 10, "dims %u %u %u", va, vb, c);
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
  CHECK_STATUS(ss_task_batch(&ok, 1, 0, 2, 4, D1.a, NULL, NULL, D1.t), SS_OK); /* optional */
  CHECK_STATUS(ss_task_batch(&ok, 1, 0, 2, 4, D1.a, D1.b, D1.f, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_task_dims(&ok, NULL, &vb, &c), SS_ERR_NULL);
  ss_task_shape sh;
  CHECK_STATUS(ss_task_shape_of(NULL, &sh), SS_ERR_NULL);
  CHECK_STATUS(ss_task_shape_of(&ok, NULL), SS_ERR_NULL);
  const ss_task bad_kind = {SS_TASK_COUNT, 6, 5}, few_values = {SS_TASK_MAX_RETRIEVAL, 1, 0},
                few_keys = {SS_TASK_KV_RETRIEVAL, 6, 1},
                many_values = {SS_TASK_MAX_RETRIEVAL, SS_MODEL_MAX_VOCAB, 0},
                kv_none = {SS_TASK_KV_OR_NONE, 6, 5};
  CHECK_STATUS(ss_task_dims(&bad_kind, &va, &vb, &c), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_shape_of(&bad_kind, &sh), SS_ERR_PARAM_RANGE);
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

/* Every task of the list: a name, a shape with min_n >= 2, batches at min_n
   and not below, ss_task_dims the shape's first three. */
TEST(task_shapes_of_every_task) {
  static const uint32_t want[SS_TASK_COUNT][6] = {
      /* vocab_a, vocab_b, classes, feature, loss_at, min_n for values 7, keys 4 */
      {8, 0, 7, 1, SS_LOSS_AT_LAST, 2},
      {8, 8, 7, 0, SS_LOSS_AT_LAST, 2},
      {9, 8, 8, 0, SS_LOSS_AT_LAST, 3},
      {8, 0, 8, 0, SS_LOSS_AT_EVERY, 2}};
  for (uint32_t kind = 0; kind < SS_TASK_COUNT; kind++) {
    const ss_task task = {kind, 7, 4};
    ss_task_shape s;
    uint32_t va, vb, c;
    CHECK(ss_task_name(kind) != NULL, "kind %u: no name", kind);
    CHECK_STATUS(ss_task_shape_of(&task, &s), SS_OK);
    const uint32_t got[6] = {s.vocab_a, s.vocab_b, s.classes, s.feature, s.loss_at, s.min_n};
    CHECK(!memcmp(got, want[kind], sizeof got), "%s: shape %u %u %u %u %u %u", ss_task_name(kind),
          got[0], got[1], got[2], got[3], got[4], got[5]);
    CHECK_STATUS(ss_task_dims(&task, &va, &vb, &c), SS_OK);
    CHECK(va == s.vocab_a && vb == s.vocab_b && c == s.classes, "%s: dims", ss_task_name(kind));
    memset(D1.b, 0xff, sizeof D1.b), memset(D1.f, 0xff, sizeof D1.f);
    CHECK_STATUS(draw(&task, 1, 0, 8, s.min_n, &D1), SS_OK);
    CHECK_STATUS(draw(&task, 1, 0, 8, s.min_n - 1, &D1), SS_ERR_PARAM_RANGE);
    CHECK_STATUS(draw(&task, 1, 0, 8, TN, &D1), SS_OK);
    for (size_t i = 0; i < 8 * TN; i++) {
      CHECK(D1.a[i] < s.vocab_a && (s.vocab_b ? D1.b[i] < s.vocab_b : D1.b[i] == 0) &&
                (s.feature || D1.f[i] == 0.0f),
            "%s: item %zu out of its vocabularies", ss_task_name(kind), i);
      if (s.loss_at == SS_LOSS_AT_EVERY || i < 8) CHECK(D1.t[i] < s.classes, "%s: target", ss_task_name(kind));
    }
  }
}

static uint64_t fnv(uint64_t h, const void *p, size_t bytes) {
  const unsigned char *c = p;
  for (size_t i = 0; i < bytes; i++) h = (h ^ c[i]) * 1099511628211ull;
  return h;
}

/* Batches and 4 KB of the grammar text hashed (FNV-1a 64 of the bytes),
   pinned to the values computed once natively: the same in the wasm scalar,
   SIMD and relaxed builds proves the generators are bit-identical. */
TEST(task_pinned_batches_and_grammar) {
  static const uint64_t pinned[SS_TASK_COUNT + 2] = {
      0x879f6da5c1981717ull, 0x1929e0351d4d6fe2ull, 0x44faec259476fad3ull,
      0x15b2e8c85c82092aull, 0xf94de3bcee6fe072ull, 0x6563007039100af6ull};
  uint64_t got[SS_TASK_COUNT + 2];
  for (uint32_t kind = 0; kind < SS_TASK_COUNT; kind++) {
    const ss_task task = {kind, 10, 5};
    CHECK_STATUS(draw(&task, 42, 7, 16, TN, &D1), SS_OK);
    const size_t targets = kind == SS_TASK_BIGRAM_BACKCOPY ? 16 * TN : 16;
    uint64_t h = 1469598103934665603ull;
    h = fnv(h, D1.a, 16 * TN * 4), h = fnv(h, D1.b, 16 * TN * 4);
    h = fnv(h, D1.f, 16 * TN * 4), got[kind] = fnv(h, D1.t, targets * 4);
  }
  {
    const ss_task task = {SS_TASK_BIGRAM_BACKCOPY, 1024, 3};
    CHECK_STATUS(draw(&task, 42, 7, 4, TN, &D1), SS_OK);
    got[SS_TASK_COUNT] = fnv(fnv(1469598103934665603ull, D1.a, 4 * TN * 4), D1.t, 4 * TN * 4);
  }
  static char text[4096];
  CHECK_STATUS(ss_grammar_text(2024, text, sizeof text), SS_OK);
  got[SS_TASK_COUNT + 1] = fnv(1469598103934665603ull, text, sizeof text);
  for (size_t i = 0; i < SS_TASK_COUNT + 2; i++)
    CHECK(got[i] == pinned[i], "hash %zu (%s): %016llx, pinned %016llx", i,
          i < SS_TASK_COUNT ? ss_task_name((uint32_t)i) : i == SS_TASK_COUNT ? "bigram V 1024" : "grammar",
          (unsigned long long)got[i], (unsigned long long)pinned[i]);
}
