/*
 * The tasks (softscope.h, ss_task_*): names, shapes and batches read from
 * the one list, task_list.h (each task's generator in its own file:
 * task_retrieval.c, task_bigram_backcopy.c). A batch is a pure function of
 * (task, seed, step, batch, n): example e reads only Philox blocks (seed,
 * stream = step, index = e (n + 1) + j), j <= n, so the first examples of a
 * batch do not depend on its size.
 */
#include <string.h>

#include "model/tasks.h"

typedef struct {
  const char *name;
  ss_task_example_fn *example;
  ss_task_shape_fn *shape;
  uint32_t min_n;
} task_row;

static const task_row tasks[] = {
#define SS_TASK(kind, name, example, shape, min_n) {name, example, shape, min_n},
#include "model/task_list.h"
#undef SS_TASK
};

/* The list in enum order, one row per kind. */
enum {
#define SS_TASK(kind, name, example, shape, min_n) TASK_ROW_##kind,
#include "model/task_list.h"
#undef SS_TASK
  TASK_ROWS
};
_Static_assert((int)TASK_ROWS == (int)SS_TASK_COUNT, "task_list.h: one row per ss_task_kind");
_Static_assert(sizeof tasks / sizeof tasks[0] == SS_TASK_COUNT, "task_list.h: one row per kind");
#define SS_TASK(kind, name, example, shape, min_n) \
  _Static_assert((int)TASK_ROW_##kind == (int)kind, "task_list.h: row " name " out of enum order");
#include "model/task_list.h"
#undef SS_TASK

const char *ss_task_name(uint32_t kind) { return kind < SS_TASK_COUNT ? tasks[kind].name : NULL; }

ss_status ss_task_shape_of(const ss_task *task, ss_task_shape *out) {
  if (!task || !out) return SS_ERR_NULL;
  if (task->kind >= SS_TASK_COUNT) return SS_ERR_PARAM_RANGE;
  ss_task_shape s;
  const ss_status st = tasks[task->kind].shape(task, &s);
  if (st != SS_OK) return st;
  s.min_n = tasks[task->kind].min_n;
  *out = s;
  return SS_OK;
}

/* Interim (softscope.h): the JS API's call until it reads ss_task_shape_of. */
ss_status ss_task_dims(const ss_task *task, uint32_t *vocab_a, uint32_t *vocab_b,
                       uint32_t *classes) {
  if (!vocab_a || !vocab_b || !classes) return SS_ERR_NULL;
  ss_task_shape s;
  const ss_status st = ss_task_shape_of(task, &s);
  if (st != SS_OK) return st;
  *vocab_a = s.vocab_a, *vocab_b = s.vocab_b, *classes = s.classes;
  return SS_OK;
}

ss_status ss_task_batch(const ss_task *task, uint64_t seed, uint64_t step, size_t batch, size_t n,
                        uint32_t *tokens_a, uint32_t *tokens_b, float *feature, uint32_t *target) {
  if (!tokens_a || !target) return SS_ERR_NULL;
  ss_task_shape s;
  const ss_status st = ss_task_shape_of(task, &s);
  if (st != SS_OK) return st;
  if (batch < 1 || n < s.min_n || n > SS_MODEL_MAX_N || batch > SS_MAX_N / n)
    return SS_ERR_PARAM_RANGE;
  if (tokens_b) memset(tokens_b, 0, batch * n * sizeof *tokens_b);
  if (feature) memset(feature, 0, batch * n * sizeof *feature);
  const size_t per_target = s.loss_at == SS_LOSS_AT_EVERY ? n : 1;
  ss_task_example_fn *const example = tasks[task->kind].example;
  for (size_t e = 0; e < batch; e++) {
    const size_t at = e * n;
    example(task, seed, step, (uint64_t)e * (n + 1), n, tokens_a + at, tokens_b ? tokens_b + at : NULL,
            feature ? feature + at : NULL, target + e * per_target);
  }
  return SS_OK;
}
