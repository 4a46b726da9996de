/*
 * libFuzzer target: every registered sampler through ss_sample and
 * ss_sample_vjp, kernel by registry index, raw or steered parameters, raw
 * float bits. Properties: no sanitizer report; scalar and SIMD give the same
 * status and bit-identical probs, draws and samples (the determinism
 * contract); on SS_OK probs and samples finite, no subnormal (the
 * exact-zero rule), drawn indices < n with probs > 0; VJPs: same status,
 * no NaN. Draws beyond FZ_DRAWS are not asked for (probs only).
 */
#include "fuzz_common.h"

#define FZ_DRAWS 64
static float x[FZ_MAX_N], p0[FZ_MAX_N], p1[FZ_MAX_N], s0[FZ_DRAWS * 256], s1[FZ_DRAWS * 256];
static float g[FZ_DRAWS * 256], d0[FZ_MAX_N], d1[FZ_MAX_N];
static uint32_t i0[FZ_DRAWS], i1[FZ_DRAWS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  const ss_kernel_info *k = fz_pick(&f, SS_FAMILY_SAMPLER);
  const size_t n = fz_len(&f, FZ_MAX_N);
  double p[17];
  fz_params(&f, k, n, p);
  fz_floats(&f, x, n);
  fz_case(k, p, x, n);
  const double draws = ss_param_value(k, p, "draws", 0.0);
  const bool with = draws >= 0 && draws <= FZ_DRAWS && n <= 256;
  const bool simd = ss_impl_available(SS_IMPL_SIMD);
  const ss_status a = ss_sample(k, SS_IMPL_SCALAR, x, n, p, k->nparams, p0, with ? i0 : NULL,
                                with ? s0 : NULL);
  const ss_status b = simd ? ss_sample(k, SS_IMPL_SIMD, x, n, p, k->nparams, p1, with ? i1 : NULL,
                                       with ? s1 : NULL)
                           : a;
  FZ_CHECK(a == b, "%s n=%zu: scalar %s, SIMD %s", k->name, n, ss_status_name(a), ss_status_name(b));
  if (a != SS_OK) return 0;
  const size_t d = with ? (size_t)draws : 0;
  FZ_CHECK(fz_finite(p0, n) && fz_no_subnormal(p0, n), "%s: probs not finite / subnormal", k->name);
  if (simd) FZ_CHECK(!memcmp(p0, p1, n * 4), "%s: SIMD probs differ", k->name);
  if (k->draws != SS_DRAW_VECTOR)
    for (size_t t = 0; t < d; t++) {
      FZ_CHECK(i0[t] < n && p0[i0[t]] > 0.0f, "%s: draw %zu = %u", k->name, t, i0[t]);
      FZ_CHECK(!simd || i0[t] == i1[t], "%s: SIMD draw %zu differs", k->name, t);
    }
  if (k->draws != SS_DRAW_INDEX) {
    FZ_CHECK(fz_finite(s0, d * n) && fz_no_subnormal(s0, d * n), "%s: samples not finite", k->name);
    FZ_CHECK(!simd || !memcmp(s0, s1, d * n * 4), "%s: SIMD samples differ", k->name);
  }
  if (!k->has_backward || !with) return 0;
  fz_floats(&f, g, d * n);
  const ss_status v0 = ss_sample_vjp(k, SS_IMPL_SCALAR, x, n, p, k->nparams, g, d0);
  const ss_status v1 = simd ? ss_sample_vjp(k, SS_IMPL_SIMD, x, n, p, k->nparams, g, d1) : v0;
  FZ_CHECK(v0 == v1, "%s vjp: scalar %s, SIMD %s", k->name, ss_status_name(v0), ss_status_name(v1));
  if (v0 == SS_OK) FZ_CHECK(fz_no_nan(d0, n) && (!simd || fz_no_nan(d1, n)), "%s: NaN VJP", k->name);
  return 0;
}
