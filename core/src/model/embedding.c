/*
 * Token embedding (torch.nn.Embedding) and sinusoidal positions (Vaswani
 * et al. 2017, "Attention Is All You Need", section 3.5).
 *
 *   forward   y[t, :] = table[tokens[t], :]               (a gather)
 *   backward  dtable[v, :] = sum_{t: tokens[t] = v} dy[t, :]   (a scatter-add)
 *   positions y[p, 2i] = sin(p w_i), y[p, 2i + 1] = cos(p w_i),
 *             w_i = 10000^(-2i / d)
 *
 * The scatter-add adds in float, in token order, starting from +0: the
 * scalar and SIMD impls do the same additions (four lanes at a time in
 * SIMD) and give the same bits in every build. Error: for a row v drawn
 * c_v times, |dtable - exact| <= (c_v - 1) 2^-24 sum_t |dy[t, j]|. A sum
 * beyond float's range is SS_ERR_DOMAIN.
 *
 * Positions: in double (libm exp, sin, cos), rounded once:
 * |y - y64| <= 2^-24 |y64| + 2^-53 p (libms agree to a float ulp but for
 * rare rounding ties).
 */
#include <math.h>
#include <string.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "model/layers.h"
#include "model/model_internal.h"

/* Every token below vocab. */
static bool tokens_ok(const uint32_t *tokens, size_t count, size_t vocab) {
  for (size_t t = 0; t < count; t++)
    if (tokens[t] >= vocab) return false;
  return true;
}

ss_status ss_embedding(const float *table, size_t vocab, size_t d, const uint32_t *tokens,
                       size_t count, float *y) {
  if (!table || !tokens || !y) return SS_ERR_NULL;
  ss_status s = ss_model_check_shape(vocab, d);
  if (s != SS_OK || (s = ss_model_check_shape(count, d)) != SS_OK) return s;
  if (!tokens_ok(tokens, count, vocab)) return SS_ERR_DOMAIN;
  for (size_t t = 0; t < count; t++)
    if ((s = ss_check_finite_fast(table + (size_t)tokens[t] * d, d)) != SS_OK) return s;
  for (size_t t = 0; t < count; t++)
    memcpy(y + t * d, table + (size_t)tokens[t] * d, d * sizeof(float));
  return SS_OK;
}

/* dst[j] += src[j], j < d, one function per impl (the same float additions). */
static void add_row_scalar(float *dst, const float *src, size_t d) {
  for (size_t j = 0; j < d; j++) dst[j] += src[j];
}

#if SS_HAVE_SIMD
static void add_row_simd(float *dst, const float *src, size_t d) {
  size_t j = 0;
  for (; j + 8 <= d; j += 8) {
    wasm_v128_store(dst + j, wasm_f32x4_add(wasm_v128_load(dst + j), wasm_v128_load(src + j)));
    wasm_v128_store(dst + j + 4, wasm_f32x4_add(wasm_v128_load(dst + j + 4), wasm_v128_load(src + j + 4)));
  }
  for (; j + 4 <= d; j += 4)
    wasm_v128_store(dst + j, wasm_f32x4_add(wasm_v128_load(dst + j), wasm_v128_load(src + j)));
  for (; j < d; j++) dst[j] += src[j];
}
#endif

SS_ALWAYS_INLINE void scatter(ss_impl impl, const float *dy, const uint32_t *tokens, size_t count,
                              size_t d, float *dtable) {
  for (size_t t = 0; t < count; t++)
    SS_BY_IMPL(impl, add_row)(dtable + (size_t)tokens[t] * d, dy + t * d, d);
}

ss_status ss_embedding_backward(ss_impl impl, const float *dy, const uint32_t *tokens,
                                size_t count, size_t vocab, size_t d, float *dtable) {
  if (!dy || !tokens || !dtable) return SS_ERR_NULL;
  if (!ss_model_impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  ss_status s = ss_model_check_shape(vocab, d);
  if (s != SS_OK || (s = ss_model_check_shape(count, d)) != SS_OK) return s;
  if (!tokens_ok(tokens, count, vocab)) return SS_ERR_DOMAIN;
  if ((s = ss_check_finite_fast(dy, count * d)) != SS_OK) return s;
  return ss_embedding_backward_run(impl, dy, tokens, count, vocab, d, dtable);
}

ss_status ss_embedding_backward_run(ss_impl impl, const float *dy, const uint32_t *tokens,
                                    size_t count, size_t vocab, size_t d, float *dtable) {
  memset(dtable, 0, vocab * d * sizeof(float));
  scatter(impl, dy, tokens, count, d, dtable);
  /* a float sum that overflowed is +-Inf (the inputs are finite) */
  return ss_check_finite_fast(dtable, vocab * d) == SS_OK ? SS_OK : SS_ERR_DOMAIN;
}

void ss_positions_sinusoidal_row(size_t p, size_t d, float *y) {
  const double l = log(10000.0);
  for (size_t i = 0; i < d / 2; i++) {
    const double w = exp(-(double)(2 * i) / (double)d * l);
    y[2 * i] = (float)sin((double)p * w);
    y[2 * i + 1] = (float)cos((double)p * w);
  }
}

ss_status ss_positions_sinusoidal(size_t n, size_t d, float *y) {
  if (!y) return SS_ERR_NULL;
  ss_status s = ss_model_check_shape(n, d);
  if (s != SS_OK) return s;
  if (d % 2) return SS_ERR_LENGTH;
  for (size_t p = 0; p < n; p++) ss_positions_sinusoidal_row(p, d, y + p * d);
  return SS_OK;
}
