/*
 * libFuzzer target: every registered optimizer through ss_optimize, kernel
 * by registry index, raw or steered parameters, raw weights, gradients and
 * (sometimes) a raw step counter, up to 3 steps. Properties: no sanitizer
 * report; scalar and SIMD give the same status at the same step; on SS_OK
 * the weights and the state are finite and within the conformance bound of
 * each other (bit-identical for element-wise updates); ss_sam_perturb
 * agrees too.
 */
#include "fuzz_common.h"

#define FZ_OPT_N 1024
static float w0[FZ_OPT_N], g0[FZ_OPT_N], w[2][FZ_OPT_N], sl[2][4 * FZ_OPT_N], adv[2][FZ_OPT_N];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  const ss_kernel_info *k = fz_pick(&f, SS_FAMILY_OPTIMIZER);
  const size_t n = fz_len(&f, FZ_OPT_N);
  double p[17];
  fz_params(&f, k, n, p);
  fz_floats(&f, w0, n);
  fz_floats(&f, g0, n);
  fz_case(k, p, w0, n);
  const int steps = 1 + fz_u8(&f) % 3;
  const double t0 = (fz_u8(&f) == 0) ? fz_f64_bits(&f) : 0.0;
  const bool simd = ss_impl_available(SS_IMPL_SIMD);
  const size_t ns = ss_opt_state_size(k, n);
  FZ_CHECK(ns <= 4 * FZ_OPT_N, "%s: state size %zu", k->name, ns);
  ss_status st[2] = {SS_OK, SS_OK};
  int at[2] = {0, 0};
  for (int impl = 0; impl < (simd ? 2 : 1); impl++) {
    memcpy(w[impl], w0, n * 4);
    memset(sl[impl], 0, ns * 4);
    double sc[SS_OPT_SCALARS] = {t0, 0, 0, 0};
    for (int s = 0; s < steps; s++) {
      at[impl] = s;
      const double before = sc[0];
      st[impl] = ss_optimize(k, (ss_impl)impl, w[impl], g0, n, p, k->nparams, sl[impl], sc);
      if (st[impl] != SS_OK) {
        FZ_CHECK(!memcmp(&sc[0], &before, sizeof before), "%s: the step counter moved on %s",
                 k->name, ss_status_name(st[impl]));
        break;
      }
      FZ_CHECK(sc[0] == before + 1, "%s: the step counter did not move", k->name);
      FZ_CHECK(fz_finite(w[impl], n) && fz_finite(sl[impl], ns), "%s: non-finite step on SS_OK",
               k->name);
    }
  }
  if (!simd) return 0;
  FZ_CHECK(st[0] == st[1] && at[0] == at[1], "%s n=%zu: scalar %s at %d, SIMD %s at %d", k->name, n,
           ss_status_name(st[0]), at[0], ss_status_name(st[1]), at[1]);
  if (st[0] == SS_OK)
    for (size_t i = 0; i < n; i++) {
      const double a = w[1][i], b = w[0][i], o = w0[i];
      FZ_CHECK(a == b || fabs(a - b) <= 0x1p-16 * (fabs(b) + fabs(o) + fabs(b - o)),
               "%s: SIMD w[%zu] = %.9g, scalar %.9g", k->name, i, a, b);
    }
  for (size_t i = 0; k->lookahead && i < k->nparams; i++) {
    if (strcmp(k->params[i].name, "rho")) continue;
    const double rho = fz_param(&f, &k->params[i], n);
    const ss_status a = ss_sam_perturb(SS_IMPL_SCALAR, w0, g0, n, rho, adv[0]);
    const ss_status b = ss_sam_perturb(SS_IMPL_SIMD, w0, g0, n, rho, adv[1]);
    FZ_CHECK(a == b, "sam_perturb: scalar %s, SIMD %s", ss_status_name(a), ss_status_name(b));
    if (a == SS_OK) FZ_CHECK(fz_no_nan(adv[0], n) && fz_no_nan(adv[1], n), "sam_perturb: NaN");
  }
  return 0;
}
