/* The tasks' generators and shapes, declared from the one list
   (task_list.h), and the uniform draws they share. */
#ifndef SS_MODEL_TASKS_H
#define SS_MODEL_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include "softscope.h"

/* One example: Philox blocks (seed, stream = step, index = base + j), j <=
   n (base = e (n + 1) for example e of a batch: an example never reads
   another's blocks). a: n tokens; b, f: n each or NULL (the caller's
   tokens_b / feature, zero-filled beforehand where not NULL); target: 1,
   or n for a task whose loss is at every position. */
typedef void ss_task_example_fn(const ss_task *t, uint64_t seed, uint64_t step, uint64_t base,
                                size_t n, uint32_t *a, uint32_t *b, float *f, uint32_t *target);
/* SS_ERR_PARAM_RANGE for the task's fields out of range; else the shape
   (all fields but min_n, which the list gives). */
typedef ss_status ss_task_shape_fn(const ss_task *t, ss_task_shape *out);

/* Bigram-Backcopy (task_bigram_backcopy.c): the largest V (its table is
   V x V, derived per drawn token: O(V) per token), and the seed of its
   fixed transition table (the same for every run seed: "bigram01"). */
#define SS_TASK_BB_MAX_VALUES 1024u
#define SS_TASK_BB_TABLE_SEED UINT64_C(0x62696772616d3031)

#define SS_TASK(kind, name, example, shape, min_n) \
  ss_task_example_fn example;                      \
  ss_task_shape_fn shape;
#include "model/task_list.h"
#undef SS_TASK

/* floor(u m / 2^32): uniform in [0, m) up to m 2^-32 per outcome. */
static inline uint32_t ss_task_below(uint32_t u, uint32_t m) {
  return (uint32_t)(((uint64_t)u * m) >> 32);
}

/* floor(r m / 2^64) for a 64-bit uniform r: uniform in [0, m) up to
   2^-64 per integer of [0, m). The 128-bit product from 32-bit halves
   (integer arithmetic: the same in every build). */
static inline uint64_t ss_task_below64(uint64_t r, uint64_t m) {
  const uint64_t r0 = r & 0xffffffffu, r1 = r >> 32, m0 = m & 0xffffffffu, m1 = m >> 32;
  const uint64_t lo = r0 * m0, mid1 = r1 * m0, mid2 = r0 * m1, hi = r1 * m1;
  const uint64_t carry = ((lo >> 32) + (mid1 & 0xffffffffu) + (mid2 & 0xffffffffu)) >> 32;
  return hi + (mid1 >> 32) + (mid2 >> 32) + carry;
}

#endif
