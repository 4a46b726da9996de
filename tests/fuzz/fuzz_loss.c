/*
 * libFuzzer target: every registered loss through ss_loss, kernel by
 * registry index, raw or steered parameters (the target clamped below n
 * half of the time), raw float bits. Properties: no sanitizer report;
 * scalar and SIMD give the same status; on SS_OK the loss is finite and
 * >= 0, the gradient finite, 0 at masked logits, summing to ~0.
 */
#include "fuzz_common.h"

static float x[FZ_MAX_N], g0[FZ_MAX_N], g1[FZ_MAX_N];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  const ss_kernel_info *k = fz_pick(&f, SS_FAMILY_LOSS);
  const size_t n = fz_len(&f, FZ_MAX_N);
  double p[17];
  fz_params(&f, k, n, p);
  fz_floats(&f, x, n);
  fz_case(k, p, x, n);
  const bool simd = ss_impl_available(SS_IMPL_SIMD);
  double l0 = 0, l1 = 0;
  const ss_status s0 = ss_loss(k, SS_IMPL_SCALAR, x, n, p, k->nparams, &l0, g0);
  const ss_status s1 = simd ? ss_loss(k, SS_IMPL_SIMD, x, n, p, k->nparams, &l1, g1) : s0;
  FZ_CHECK(s0 == s1, "%s n=%zu: scalar %s, SIMD %s", k->name, n, ss_status_name(s0), ss_status_name(s1));
  if (s0 != SS_OK) return 0;
  for (int impl = 0; impl < (simd ? 2 : 1); impl++) {
    const float *g = impl ? g1 : g0;
    const double l = impl ? l1 : l0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
      FZ_CHECK(isfinite(g[i]) && (x[i] != -INFINITY || g[i] == 0.0f), "%s: grad[%zu] = %g", k->name, i, g[i]);
      sum += g[i];
    }
    FZ_CHECK(isfinite(l) && l >= 0.0 && fabs(sum) <= 0x1p-14, "%s: loss %g, sum grad %g", k->name, l, sum);
  }
  return 0;
}
