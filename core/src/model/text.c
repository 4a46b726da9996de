/*
 * Text as tokens for language modelling (softscope.h, ss_text_batch):
 * nanoGPT's get_batch (Karpathy, nanoGPT train.py: ix = torch.randint(len
 * (data) - block_size, (batch_size,)); x = data[i : i + block_size], y =
 * data[i + 1 : i + 1 + block_size]) as a pure function of (seed, step).
 *
 * Window e starts at s_e = floor(r count / 2^64), r = 64 bits of Philox
 * (seed, stream = step, index = e) (word 1 high, word 0 low): uniform over
 * count = len - n offsets without BOS (s <= len - n - 1: x = text[s .. s+n),
 * y = text[s+1 .. s+n]), count = len - n + 1 with one (s <= len - n: x =
 * BOS, text[s .. s+n-1), y = text[s .. s+n)). Integer arithmetic only; the
 * first windows of a batch do not depend on its size.
 *
 * The whole text is checked against vocab on every call (one pass, O(len)):
 * the status is then a function of the arguments, not of the windows the
 * seed happens to pick.
 */
#include "common/rng.h"
#include "model/tasks.h"

ss_status ss_text_batch(const uint32_t *text, size_t len, uint32_t vocab, uint32_t bos,
                        uint64_t seed, uint64_t step, size_t batch, size_t n, uint32_t *tokens,
                        uint32_t *target) {
  if (!text || !tokens || !target) return SS_ERR_NULL;
  if (batch < 1 || n < 1 || n > SS_MODEL_MAX_N || batch > SS_MAX_N / n) return SS_ERR_PARAM_RANGE;
  const bool with_bos = bos != SS_TEXT_NO_BOS;
  if (len < n + (with_bos ? 0 : 1)) return SS_ERR_PARAM_RANGE; /* one window */
  if (with_bos && bos >= vocab) return SS_ERR_DOMAIN;
  for (size_t i = 0; i < len; i++)
    if (text[i] >= vocab) return SS_ERR_DOMAIN;
  const uint64_t count = (uint64_t)(len - n) + (with_bos ? 1 : 0);
  for (size_t e = 0; e < batch; e++) {
    uint32_t w[4];
    ss_philox_block(seed, step, e, w);
    const size_t s = (size_t)ss_task_below64(((uint64_t)w[1] << 32) | w[0], count);
    uint32_t *x = tokens + e * n, *y = target + e * n;
    if (with_bos) {
      x[0] = bos;
      for (size_t j = 1; j < n; j++) x[j] = text[s + j - 1];
      for (size_t j = 0; j < n; j++) y[j] = text[s + j];
    } else {
      for (size_t j = 0; j < n; j++) x[j] = text[s + j], y[j] = text[s + j + 1];
    }
  }
  return SS_OK;
}
