/*
 * The training tasks of the tiny model (softscope.h, ss_task_batch), seeded
 * generators after the papers whose claims the experiments view checks:
 *
 *   max_retrieval  Velickovic et al. 2024, "softmax is not enough (for
 *                  sharp out-of-distribution)": items (value, priority),
 *                  answer the value of the max-priority item.
 *   kv_retrieval   Nakanishi 2025, "Scalable-Softmax Is Superior for
 *                  Attention": a needle -- pairs (key, value), then a query
 *                  key that appears exactly once; answer its value.
 *   kv_or_none     Zuhri, Fuadi & Aji 2025, "Softpick: No Attention Sink,
 *                  No Massive Activations with Rectified Softmax": the
 *                  needle with a BOS item first and, half the time, a query
 *                  key that is absent (answer NONE) -- where a softmax head
 *                  parks its weight on BOS.
 *
 * Draws: example e of a batch reads Philox blocks (seed, stream = step,
 * index = e (n + 1) + j): block j < n for item j (word 0: its value or key,
 * word 1: its priority or value), block n for the example's own choices
 * (word 0: the needle's position, word 1: the query key, word 2: present
 * or not). Integer arithmetic only: the same batch in every build.
 */
#include <string.h>

#include "common/rng.h"
#include "model/model_internal.h"

/* floor(u m / 2^32): uniform in [0, m) up to m 2^-32. */
static uint32_t below(uint32_t u, uint32_t m) { return (uint32_t)(((uint64_t)u * m) >> 32); }

const char *ss_task_name(uint32_t kind) {
  static const char *const names[SS_TASK_COUNT] = {"max_retrieval", "kv_retrieval", "kv_or_none",
                                                           "bigram_backcopy"};
  return kind < SS_TASK_COUNT ? names[kind] : NULL;
}

static ss_status check_task(const ss_task *t) {
  if (!t) return SS_ERR_NULL;
  if (t->kind >= SS_TASK_BIGRAM_BACKCOPY) return SS_ERR_PARAM_RANGE; /* (not yet generated) */
  if (t->values < 2 || t->values > SS_MODEL_MAX_VOCAB - 1) return SS_ERR_PARAM_RANGE;
  if (t->kind != SS_TASK_MAX_RETRIEVAL && (t->keys < 2 || t->keys > SS_MODEL_MAX_VOCAB / 2 - 1))
    return SS_ERR_PARAM_RANGE;
  return SS_OK;
}

ss_status ss_task_dims(const ss_task *task, uint32_t *vocab_a, uint32_t *vocab_b,
                       uint32_t *classes) {
  if (!vocab_a || !vocab_b || !classes) return SS_ERR_NULL;
  const ss_status s = check_task(task);
  if (s != SS_OK) return s;
  switch (task->kind) {
    case SS_TASK_MAX_RETRIEVAL:
      *vocab_a = task->values + 1, *vocab_b = 1, *classes = task->values;
      break;
    case SS_TASK_KV_RETRIEVAL:
      *vocab_a = 2 * task->keys, *vocab_b = task->values + 1, *classes = task->values;
      break;
    default:
      *vocab_a = 2 * task->keys + 1, *vocab_b = task->values + 1, *classes = task->values + 1;
      break;
  }
  return SS_OK;
}

static void max_example(const ss_task *t, uint64_t seed, uint64_t step, uint64_t base, size_t n,
                        uint32_t *a, uint32_t *b, float *f, uint32_t *target) {
  size_t best = 0;
  for (size_t j = 0; j + 1 < n; j++) {
    uint32_t w[4];
    ss_philox_block(seed, step, base + j, w);
    a[j] = below(w[0], t->values), b[j] = 0, f[j] = ss_philox_u01f(w[1]);
    if (f[j] > f[best]) best = j;
  }
  a[n - 1] = t->values, b[n - 1] = 0, f[n - 1] = 0.0f;
  *target = a[best];
}

/* kv tasks: items at positions [first, n - 1), the query at n - 1. */
static void kv_example(const ss_task *t, uint64_t seed, uint64_t step, uint64_t base, size_t n,
                       bool with_none, uint32_t *a, uint32_t *b, float *f, uint32_t *target) {
  const size_t first = with_none ? 1 : 0, items = n - 1 - first;
  uint32_t c[4];
  ss_philox_block(seed, step, base + n, c);
  const size_t needle = first + below(c[0], (uint32_t)items);
  const uint32_t key = below(c[1], t->keys);
  const bool present = !with_none || (c[2] >> 31);
  for (size_t j = first; j + 1 < n; j++) {
    uint32_t w[4];
    ss_philox_block(seed, step, base + j, w);
    uint32_t k = below(w[0], t->keys - 1);
    k += k >= key; /* another key than the query's */
    if (present && j == needle) k = key;
    a[j] = k, b[j] = below(w[1], t->values), f[j] = 0.0f;
  }
  if (with_none) a[0] = 2 * t->keys, b[0] = t->values, f[0] = 0.0f;
  a[n - 1] = t->keys + key, b[n - 1] = t->values, f[n - 1] = 0.0f;
  *target = present ? b[needle] : t->values;
}

ss_status ss_task_batch(const ss_task *task, uint64_t seed, uint64_t step, size_t batch, size_t n,
                        uint32_t *tokens_a, uint32_t *tokens_b, float *feature, uint32_t *target) {
  if (!tokens_a || !tokens_b || !feature || !target) return SS_ERR_NULL;
  const ss_status s = check_task(task);
  if (s != SS_OK) return s;
  const size_t min_n = task->kind == SS_TASK_KV_OR_NONE ? 3 : 2;
  if (batch < 1 || n < min_n || n > SS_MODEL_MAX_N || batch > SS_MAX_N / n)
    return SS_ERR_PARAM_RANGE;
  for (size_t e = 0; e < batch; e++) {
    const uint64_t base = (uint64_t)e * (n + 1);
    uint32_t *a = tokens_a + e * n, *b = tokens_b + e * n;
    float *f = feature + e * n;
    if (task->kind == SS_TASK_MAX_RETRIEVAL)
      max_example(task, seed, step, base, n, a, b, f, target + e);
    else
      kv_example(task, seed, step, base, n, task->kind == SS_TASK_KV_OR_NONE, a, b, f, target + e);
  }
  return SS_OK;
}
