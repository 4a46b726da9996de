/*
 * libFuzzer target: every registered measure through ss_measure and
 * ss_measure_vjp, kernel by registry index, raw or steered parameters, raw
 * float bits for p (and q). Properties: no sanitizer report; scalar and
 * SIMD give the same status; on SS_OK the value is never NaN and finite
 * unless a divergence is +Inf with q_i = 0 < p_i; the VJP: same status,
 * no NaN.
 */
#include "fuzz_common.h"

static float p[FZ_MAX_N], q[FZ_MAX_N], d0[FZ_MAX_N], d1[FZ_MAX_N];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  const ss_kernel_info *k = fz_pick(&f, SS_FAMILY_MEASURE);
  const size_t n = fz_len(&f, FZ_MAX_N);
  double prm[17];
  fz_params(&f, k, n, prm);
  fz_floats(&f, p, n);
  fz_case(k, prm, p, n);
  fz_floats(&f, q, n);
  if (fz_u8(&f) & 1) /* probabilities: |.| */
    for (size_t i = 0; i < n; i++) p[i] = fabsf(p[i]), q[i] = fabsf(q[i]);
  const bool simd = ss_impl_available(SS_IMPL_SIMD);
  double a = 0, b = 0;
  const ss_status s0 = ss_measure(k, SS_IMPL_SCALAR, p, q, n, prm, k->nparams, &a);
  const ss_status s1 = simd ? ss_measure(k, SS_IMPL_SIMD, p, q, n, prm, k->nparams, &b) : s0;
  FZ_CHECK(s0 == s1, "%s n=%zu: scalar %s, SIMD %s", k->name, n, ss_status_name(s0), ss_status_name(s1));
  if (s0 == SS_OK) {
    bool inf_ok = false;
    if (k->input == SS_INPUT_PROBS_PAIR)
      for (size_t i = 0; i < n; i++) inf_ok |= q[i] == 0.0f && p[i] > 0.0f;
    FZ_CHECK(!isnan(a) && (isfinite(a) || (inf_ok && a == INFINITY)), "%s: value %g", k->name, a);
    if (simd) FZ_CHECK(!isnan(b) && (isfinite(b) || (inf_ok && b == INFINITY)), "%s: SIMD value %g", k->name, b);
  }
  if (!k->has_backward) return 0;
  const double g = fz_u8(&f) % 4 ? fz_unit(&f) * 4 - 2 : fz_f64_bits(&f);
  const ss_status v0 = ss_measure_vjp(k, SS_IMPL_SCALAR, p, n, prm, k->nparams, g, d0);
  const ss_status v1 = simd ? ss_measure_vjp(k, SS_IMPL_SIMD, p, n, prm, k->nparams, g, d1) : v0;
  FZ_CHECK(v0 == v1, "%s vjp: scalar %s, SIMD %s", k->name, ss_status_name(v0), ss_status_name(v1));
  if (v0 == SS_OK) FZ_CHECK(fz_no_nan(d0, n) && (!simd || fz_no_nan(d1, n)), "%s: NaN VJP", k->name);
  return 0;
}
