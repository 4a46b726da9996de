/*
 * Bigram-Backcopy (Guo, Pai, Bai, Jiao, Jordan & Mei 2024, "Active-Dormant
 * Attention Heads: Mechanistically Demystifying Extreme-Token Phenomena in
 * LLMs", arXiv 2410.13835, sec. 2; code: github.com/GuoTianYu2000/
 * Active-Dormant-Attention, BBM/data.py, class bbm): a language of V =
 * `values` tokens plus BOS = V, whose triggers are tokens 0 .. keys-1.
 *
 *   seq[0] = BOS
 *   seq[1] ~ uniform over the non-triggers [keys, V)
 *   seq[t+1] = seq[t-1]                 if seq[t] is a trigger (back-copy)
 *            ~ P(. | seq[t])            otherwise (the bigram table)
 *
 * tokens_a = seq[0 .. n), target = seq[1 .. n] (loss at every position).
 * The paper's model is a 1-3 layer transformer; its layer-0 head becomes
 * active (attends to the previous token) on triggers and dormant (a sink on
 * BOS) elsewhere.
 *
 * What follows the paper's code, and what is decided here:
 * - The paper's table is the character-bigram table of TinyShakespeare (65
 *   characters + BOS; nothing transits to BOS) and its k = 3 triggers are
 *   the most frequent characters. There is no corpus in core, so the table
 *   here is a fixed seeded random table, and the triggers are simply tokens
 *   0 .. keys-1 (about keys/V of the tokens, 3/64 = 4.7% at the paper's
 *   sizes, where its triggers -- ' ', 'e', 't' -- are ~30% of the text).
 *   Use values 64, keys 3 for the paper's sizes.
 * - Row x of the table: weight w(x, y) = q(u) + 1 for y in [0, V), where u
 *   is 16 bits of Philox (SS_TASK_BB_TABLE_SEED, stream = x, index = y / 8:
 *   word (y % 8) / 2, low half for even y, high for odd) and q(u) = u^8 /
 *   2^112 computed as three floor squarings (u2 = u u >> 16, u4 = u2 u2 >>
 *   16, q = u4 u4 >> 16), in [0, 65535]. A power of a uniform is a
 *   Dirichlet-like row of small concentration (a Gamma(a) draw ~ U^(1/a) for
 *   small a; here a = 1/8): a few large weights, ~1/4 of the entries at the
 *   floor 1 (u < 2^14) -- peaked and nearly sparse like a character-bigram
 *   row, never zero (every row a distribution, even at V = 2). Integer
 *   arithmetic only: the same table in every build, without libm.
 * - The first token: the paper draws it from the unigram marginal with the
 *   triggers removed (no_trigger_init); here, uniformly over the
 *   non-triggers. So the first trigger always follows a non-trigger, a copy
 *   is always a non-trigger, and no trigger ever follows BOS or another
 *   trigger (by induction; the tests check it). (Had the first token been
 *   a trigger, "copy the token before" would have read BOS; and a trigger
 *   drawn after a trigger would lock the sequence into t t' t t' ...)
 * - A draw from row x: r = 64 bits of the example's block (word 1 high,
 *   word 0 low), c = floor(r W / 2^64) with W = the row's total (< 2^27),
 *   the next token = the first y whose cumulative weight exceeds c (inverse
 *   CDF, one uniform; bias below W 2^-64 relative).
 * - Blocks: example e reads Philox (seed, stream = step, index = e (n + 1) +
 *   j): block 0 for seq[1] (word 0), block j for seq[j+1] (words 0, 1).
 *
 * Cost: no state, no table in memory (core has no globals and the caller's
 * work memory is not at hand): a bigram draw derives its row, V / 8 Philox
 * blocks and V additions into a V-entry stack array (4 KB at most). V is
 * therefore capped at SS_TASK_BB_MAX_VALUES = 1024: 128 blocks per token,
 * e.g. ~2 M blocks (tens of ms) for a 64 x 256 batch; at V = 64, 8 blocks.
 */
#include "common/rng.h"
#include "model/tasks.h"

ss_status ss_task_bb_shape(const ss_task *t, ss_task_shape *out) {
  if (t->values < 2 || t->values > SS_TASK_BB_MAX_VALUES) return SS_ERR_PARAM_RANGE;
  if (t->keys < 1 || t->keys > t->values - 1) return SS_ERR_PARAM_RANGE;
  out->vocab_a = t->values + 1, out->vocab_b = 0, out->classes = t->values + 1;
  out->feature = 0, out->loss_at = SS_LOSS_AT_EVERY;
  return SS_OK;
}

/* cum[y] = w(x, 0) + ... + w(x, y), y < V; returns the total. */
static uint32_t table_row(uint32_t x, uint32_t values, uint32_t *cum) {
  uint32_t total = 0, w[4] = {0, 0, 0, 0};
  for (uint32_t y = 0; y < values; y++) {
    if (y % 8 == 0) ss_philox_block(SS_TASK_BB_TABLE_SEED, x, y / 8, w);
    const uint32_t word = w[(y % 8) / 2], u = y % 2 ? word >> 16 : word & 0xffffu;
    const uint32_t u2 = (u * u) >> 16, u4 = (u2 * u2) >> 16, q = (u4 * u4) >> 16;
    total += q + 1;
    cum[y] = total;
  }
  return total;
}

/* The first y with cum[y] > c (c < cum[values - 1]). */
static uint32_t first_above(const uint32_t *cum, uint32_t values, uint32_t c) {
  uint32_t lo = 0, hi = values - 1;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (cum[mid] > c) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

void ss_task_bb_example(const ss_task *t, uint64_t seed, uint64_t step, uint64_t base, size_t n,
                        uint32_t *a, uint32_t *b, float *f, uint32_t *target) {
  (void)b, (void)f; /* no second table, no feature: the caller's zeros */
  const uint32_t v = t->values, keys = t->keys;
  uint32_t cum[SS_TASK_BB_MAX_VALUES];
  uint32_t w[4];
  ss_philox_block(seed, step, base, w);
  uint32_t prev = v, cur = keys + ss_task_below(w[0], v - keys); /* BOS, the first token */
  a[0] = prev, target[0] = cur;
  for (size_t j = 1; j < n; j++) {
    uint32_t next;
    if (cur < keys) {
      next = prev; /* back-copy: never BOS (see above) */
    } else {
      ss_philox_block(seed, step, base + j, w);
      const uint64_t r = ((uint64_t)w[1] << 32) | w[0];
      const uint32_t total = table_row(cur, v, cum);
      next = first_above(cum, v, (uint32_t)ss_task_below64(r, total));
    }
    a[j] = cur, target[j] = next;
    prev = cur, cur = next;
  }
}
