/*
 * Noise for the samplers: uniforms, Gaussians and Gumbel variates of
 * (seed, stream), as direct calls and as the internal per-draw helpers.
 *
 * Gumbel(0, 1): g = -log(-log u) with u in (0, 1) open (common/rng.h), so
 * g is always finite: u in [2^-24, 1 - 2^-24] gives g in [-2.81, 16.64].
 * Both logs are det_math.h's, so the scalar and SIMD paths agree bit for
 * bit; the SIMD path draws the uniforms with the SIMD Philox and runs the
 * two logs four lanes at a time.
 */
#include <math.h>

#include "common/check.h"
#include "common/det_math.h"
#include "common/impl_pair.h"
#include "common/log_simd.h"
#include "common/rng.h"
#include "sample/noise.h"
#include "sample/sample_internal.h"

void ss_gumbel_noise_scalar(uint64_t seed, uint64_t stream, uint64_t first, size_t n, float *g) {
  ss_philox_uniform_f32_scalar(seed, stream, first, n, g);
  for (size_t i = 0; i < n; i++) g[i] = -ss_det_log_pos(-ss_det_log_pos(g[i]));
}

#if SS_HAVE_SIMD
void ss_gumbel_noise_simd(uint64_t seed, uint64_t stream, uint64_t first, size_t n, float *g) {
  ss_philox_uniform_f32_simd(seed, stream, first, n, g);
  const v128_t sign = wasm_f32x4_splat(-0.0f);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t l = wasm_v128_xor(ss_log_pos_f32x4(wasm_v128_load(g + i)), sign);
    wasm_v128_store(g + i, wasm_v128_xor(ss_log_pos_f32x4(l), sign));
  }
  for (; i < n; i++) g[i] = -ss_det_log_pos(-ss_det_log_pos(g[i]));
}
#endif

void ss_gumbel_noise(ss_impl impl, uint64_t seed, uint64_t stream, uint64_t first, size_t n, float *g) {
  SS_BY_IMPL(impl, ss_gumbel_noise)(seed, stream, first, n, g);
}

/* ---- direct calls --------------------------------------------------------- */

/* Numbers first .. first + n - 1 of the stream (number j = word j % 4 of
   block j / 4): a leading partial block one by one, then whole blocks. */
static void uniform_at(uint64_t seed, uint64_t stream, uint64_t first, size_t n, float *out) {
  size_t lead = (size_t)((4 - first % 4) % 4);
  if (lead > n) lead = n;
  for (size_t j = 0; j < lead; j++) {
    uint32_t blk[4];
    ss_philox_block(seed, stream, (first + j) / 4, blk);
    out[j] = ss_philox_u01f(blk[(first + j) % 4]);
  }
  if (n == lead) return;
#if SS_HAVE_SIMD
  ss_philox_uniform_f32_simd(seed, stream, (first + lead) / 4, n - lead, out + lead);
#else
  ss_philox_uniform_f32_scalar(seed, stream, (first + lead) / 4, n - lead, out + lead);
#endif
}

ss_status ss_uniform(uint64_t seed, uint64_t stream, uint64_t first, size_t n, float *out) {
  if (!out) return SS_ERR_NULL;
  const ss_status s = ss_check_n(n);
  if (s != SS_OK) return s;
  uniform_at(seed, stream, first, n, out);
  return SS_OK;
}

ss_status ss_normal(uint64_t seed, uint64_t stream, uint64_t first, size_t n, float *out) {
  if (!out) return SS_ERR_NULL;
  const ss_status s = ss_check_n(n);
  if (s != SS_OK) return s;
  for (size_t i = 0; i < n; i++) out[i] = (float)ss_philox_normal(seed, stream, first + i);
  return SS_OK;
}

ss_status ss_gumbel(uint64_t seed, uint64_t stream, uint64_t first, size_t n, float *out) {
  if (!out) return SS_ERR_NULL;
  const ss_status s = ss_check_n(n);
  if (s != SS_OK) return s;
  uniform_at(seed, stream, first, n, out);
  for (size_t i = 0; i < n; i++) out[i] = -ss_det_log_pos(-ss_det_log_pos(out[i]));
  return SS_OK;
}
