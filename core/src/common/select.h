/*
 * Selection on a float buffer, in place, no allocation: the order-statistic
 * tools shared by the sparse normalizers (core/src/sparse) and the top-k /
 * top-p samplers.
 *
 *   ss_select_pivot       median of three pseudo-random elements
 *   ss_partition3_desc    three-way partition [> p | == p | < p]
 *   ss_select_kth_largest quickselect: the k-th largest value, expected O(n)
 *   ss_sort_desc          quicksort, descending, expected O(n log n)
 *
 * Why three-way: with many duplicates (an all-equal row, small integer
 * logits) a two-way partition degrades to O(n^2); here a block of equal
 * values leaves the search in one step. Why pseudo-random positions: a
 * fixed pattern (first/middle/last) is quadratic on crafted orders; a fixed
 * splitmix64 stream gives expected-linear behaviour on every order that does
 * not depend on the stream itself (sorted, reversed, organ-pipe, ...), and
 * the results stay deterministic, which the tests rely on.
 *
 * The values must not be NaN (callers validate first); +-Inf are fine.
 * `work` (may be NULL) is increased by the number of elements each
 * partition touches, so tests can check the expected-linear cost.
 */
#ifndef SS_COMMON_SELECT_H
#define SS_COMMON_SELECT_H

#include <stddef.h>
#include <stdint.h>

/* The pseudo-random stream of the pivot choices: one per call, fixed seed. */
typedef struct ss_select_rng {
  uint64_t s;
} ss_select_rng;
#define SS_SELECT_RNG_INIT {0x243F6A8885A308D3ull}

/* Median of v[a], v[b], v[c] for three pseudo-random positions (n >= 1). */
float ss_select_pivot(const float *v, size_t n, ss_select_rng *rng);

/* Rearranges v[0..n) into [> p | == p | < p]; *gt = #(> p), *eq = #(== p). */
void ss_partition3_desc(float *v, size_t n, float p, size_t *gt, size_t *eq);

/* The k-th largest of v[0..n) (1 <= k <= n; duplicates counted, so k = 2 of
   {3, 3, 1} is 3). Permutes v: afterwards the k largest values are in
   v[0..k) (in no particular order). Expected O(n). */
float ss_select_kth_largest(float *v, size_t n, size_t k, size_t *work);

/* Sorts v[0..n) into descending order. */
void ss_sort_desc(float *v, size_t n);

#endif
