/*
 * The retrieval tasks of the tiny model (softscope.h, ss_task_batch; listed
 * in task_list.h), seeded generators after the papers whose claims the
 * experiments view checks:
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
 * tokens_b and feature are optional (NULL: not written); max_retrieval has
 * no second table (tokens_b 0), the kv tasks no feature (0).
 */
#include <stdbool.h>

#include "common/rng.h"
#include "model/tasks.h"

static ss_status check_values(const ss_task *t) {
  return t->values < 2 || t->values > SS_MODEL_MAX_VOCAB - 1 ? SS_ERR_PARAM_RANGE : SS_OK;
}

static ss_status check_kv(const ss_task *t) {
  if (check_values(t) != SS_OK) return SS_ERR_PARAM_RANGE;
  return t->keys < 2 || t->keys > SS_MODEL_MAX_VOCAB / 2 - 1 ? SS_ERR_PARAM_RANGE : SS_OK;
}

ss_status ss_task_max_shape(const ss_task *t, ss_task_shape *out) {
  if (check_values(t) != SS_OK) return SS_ERR_PARAM_RANGE;
  out->vocab_a = t->values + 1, out->vocab_b = 0, out->classes = t->values;
  out->feature = 1, out->loss_at = SS_LOSS_AT_LAST;
  return SS_OK;
}

ss_status ss_task_kv_shape(const ss_task *t, ss_task_shape *out) {
  if (check_kv(t) != SS_OK) return SS_ERR_PARAM_RANGE;
  out->vocab_a = 2 * t->keys, out->vocab_b = t->values + 1, out->classes = t->values;
  out->feature = 0, out->loss_at = SS_LOSS_AT_LAST;
  return SS_OK;
}

ss_status ss_task_kv_or_none_shape(const ss_task *t, ss_task_shape *out) {
  if (check_kv(t) != SS_OK) return SS_ERR_PARAM_RANGE;
  out->vocab_a = 2 * t->keys + 1, out->vocab_b = t->values + 1, out->classes = t->values + 1;
  out->feature = 0, out->loss_at = SS_LOSS_AT_LAST;
  return SS_OK;
}

/* Items j < n-1: (value, priority); the query QUERY = values, feature 0.
   Target: the value of the first item of maximal priority. */
void ss_task_max_example(const ss_task *t, uint64_t seed, uint64_t step, uint64_t base, size_t n,
                         uint32_t *a, uint32_t *b, float *f, uint32_t *target) {
  (void)b; /* no second table: left at the caller's zeros */
  size_t best = 0;
  float best_f = 0.0f;
  for (size_t j = 0; j + 1 < n; j++) {
    uint32_t w[4];
    ss_philox_block(seed, step, base + j, w);
    const float fj = ss_philox_u01f(w[1]);
    a[j] = ss_task_below(w[0], t->values);
    if (f) f[j] = fj;
    if (j == 0 || fj > best_f) best = j, best_f = fj;
  }
  a[n - 1] = t->values;
  *target = a[best];
}

/* kv tasks: items at positions [first, n - 1), the query at n - 1. */
static void kv_example(const ss_task *t, uint64_t seed, uint64_t step, uint64_t base, size_t n,
                       bool with_none, uint32_t *a, uint32_t *b, uint32_t *target) {
  const size_t first = with_none ? 1 : 0, items = n - 1 - first;
  uint32_t c[4];
  ss_philox_block(seed, step, base + n, c);
  const size_t needle = first + ss_task_below(c[0], (uint32_t)items);
  const uint32_t key = ss_task_below(c[1], t->keys);
  const bool present = !with_none || (c[2] >> 31);
  uint32_t needle_value = 0;
  for (size_t j = first; j + 1 < n; j++) {
    uint32_t w[4];
    ss_philox_block(seed, step, base + j, w);
    uint32_t k = ss_task_below(w[0], t->keys - 1);
    k += k >= key; /* another key than the query's */
    if (present && j == needle) k = key;
    const uint32_t v = ss_task_below(w[1], t->values);
    a[j] = k;
    if (b) b[j] = v;
    if (j == needle) needle_value = v;
  }
  if (with_none) {
    a[0] = 2 * t->keys;
    if (b) b[0] = t->values;
  }
  a[n - 1] = t->keys + key;
  if (b) b[n - 1] = t->values;
  *target = present ? needle_value : t->values;
}

void ss_task_kv_example(const ss_task *t, uint64_t seed, uint64_t step, uint64_t base, size_t n,
                        uint32_t *a, uint32_t *b, float *f, uint32_t *target) {
  (void)f;
  kv_example(t, seed, step, base, n, false, a, b, target);
}

void ss_task_kv_or_none_example(const ss_task *t, uint64_t seed, uint64_t step, uint64_t base,
                                size_t n, uint32_t *a, uint32_t *b, float *f, uint32_t *target) {
  (void)f;
  kv_example(t, seed, step, base, n, true, a, b, target);
}
