/*
 * Categorical draws by inverse CDF, with no allocation and O(log n + B) per
 * draw after one O(n) pass:
 *
 *   the weights are cut into at most SS_DRAW_BLOCKS blocks of B entries;
 *   P[b] = sum of the blocks before b (4-lane sums, sample_internal.h);
 *   draw d: u = uniform d of (seed, stream) in (0, 1) (a double from one
 *   Philox block), t = u * P[nb]; binary search for the block b with
 *   P[b] <= t < P[b + 1], then a running sum inside block b picks the first
 *   i with t < P[b] + w_b0 + ... + w_i.
 *
 * Entries with w_i = 0 are never drawn (the running sum does not pass t on
 * them). The running sum inside a block is sequential while P used 4-lane
 * order, so at the very end of a block they can disagree by rounding; the
 * last positive entry of the block is taken then (an O(ulp) effect).
 * Everything here is scalar code shared by both impls, so draws depend only
 * on the bits of w (which the callers make identical on both paths).
 */
#include <math.h>

#include "common/check.h"
#include "common/rng.h"
#include "sample/sample_internal.h"

#define SS_DRAW_BLOCKS 2048 /* 16 KiB of prefix sums on the stack */

static size_t pick_in_block(const float *w, size_t lo, size_t hi, double base, double t) {
  double acc = base;
  size_t last = lo;
  for (size_t i = lo; i < hi; i++) {
    if (!(w[i] > 0.0f)) continue;
    acc += (double)w[i];
    last = i;
    if (t < acc) return i;
  }
  return last;
}

void ss_draw_weights(const float *w, size_t n, uint64_t seed, uint64_t stream,
                     uint64_t first, size_t draws, uint32_t *out) {
  if (draws == 0) return;
  size_t bs = (n + SS_DRAW_BLOCKS - 1) / SS_DRAW_BLOCKS;
  if (bs < 64) bs = 64;
  const size_t nb = (n + bs - 1) / bs;
  double pre[SS_DRAW_BLOCKS + 1];
  pre[0] = 0.0;
  for (size_t b = 0; b < nb; b++) {
    const size_t lo = b * bs, hi = lo + bs < n ? lo + bs : n;
    pre[b + 1] = pre[b] + ss_sum4_scalar(w + lo, hi - lo);
  }
  const double total = pre[nb];
  for (size_t d = 0; d < draws; d++) {
    uint32_t blk[4];
    ss_philox_block(seed, stream, first + d, blk);
    const double t = ss_philox_u01d(blk[1], blk[0]) * total;
    /* largest b with pre[b] <= t, among blocks of positive mass */
    size_t lo = 0, hi = nb; /* invariant: pre[lo] <= t, answer in [lo, hi) */
    while (hi - lo > 1) {
      const size_t mid = lo + (hi - lo) / 2;
      if (pre[mid] <= t) lo = mid;
      else hi = mid;
    }
    /* Block lo has mass (else lo + 1 would also satisfy pre <= t), unless
       lo is the last block and t rounded up to the total: then step back
       to the last block with mass. */
    while (lo > 0 && !(pre[lo + 1] > pre[lo])) lo--;
    const size_t a = lo * bs, e = a + bs < n ? a + bs : n;
    out[d] = (uint32_t)pick_in_block(w, a, e, pre[lo], t);
  }
}

ss_status ss_categorical(const float *w, size_t n, uint64_t seed,
                         uint64_t stream, uint64_t first, size_t draws,
                         uint32_t *out) {
  if (!w || (draws && !out)) return SS_ERR_NULL;
  ss_status s = ss_check_n(n);
  if (s != SS_OK) return s;
  if (draws > ((size_t)1 << 31)) return SS_ERR_TOO_LARGE;
  s = ss_check_probs(w, n);
  if (s == SS_ERR_NAN) return s;
  if (s != SS_OK) return SS_ERR_DOMAIN;
  if (!(ss_sum4_scalar(w, n) > 0.0)) return SS_ERR_DOMAIN;
  ss_draw_weights(w, n, seed, stream, first, draws, out);
  return SS_OK;
}
