/*
 * The rules of one attention call that both the generic entry points
 * (registry/dispatch_attention.c) and the attention kernels
 * (core/src/attention) apply: which keys a query sees (causal, padding),
 * and the bound on |q|, |k|.
 */
#ifndef SS_COMMON_ATTN_RULES_H
#define SS_COMMON_ATTN_RULES_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "softscope.h"

/* The most normalizer parameters ss_attend_vjp takes a parameter gradient
   of (a row's gradient is held on the stack; tests/c/test_attention_backward.c
   checks every registry normalizer fits). */
#define SS_ATTN_NORM_PARAMS_MAX 32

/* Every |x_i| <= bound (x finite): the rule |q|, |k| <= SS_ATTN_QK_MAX. */
static inline bool ss_attn_within(const float *x, size_t n, float bound) {
  for (size_t i = 0; i < n; i++)
    if (fabsf(x[i]) > bound) return false;
  return true;
}

/* Query i sees keys j < ss_attn_limit(...) (causal: the keys up to its own
   position, aligned at the end: j <= i + m - n, as with a KV cache); a
   padding key (key_mask[j] == 0) is never seen. */
static inline size_t ss_attn_limit(const ss_attention_io *io, bool causal, size_t i) {
  if (!causal) return io->m;
  const long long lim = (long long)i + 1 + (long long)io->m - (long long)io->n;
  return lim <= 0 ? 0 : (size_t)lim < io->m ? (size_t)lim : io->m;
}
static inline bool ss_attn_key_ok(const ss_attention_io *io, size_t j) {
  return !io->key_mask || io->key_mask[j];
}

#endif
