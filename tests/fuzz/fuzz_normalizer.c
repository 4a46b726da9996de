/*
 * libFuzzer target: every registered normalizer through ss_normalize,
 * ss_normalize_vjp and ss_normalize_param_vjp, kernel by registry index,
 * raw or steered parameters (sometimes a wrong count), raw float bits.
 * Properties: no sanitizer report; scalar and SIMD give the same status;
 * on SS_OK no NaN and (but log-probabilities) no Inf, masked entries +0,
 * probabilities >= 0 summing to 1, no subnormal output (the exact-zero
 * rule), SIMD within the conformance bound of scalar; VJPs: same status,
 * no NaN on SS_OK.
 *
 * Work budget: n <= FZ_NORM_N (past the second SS_SUM_BLOCK) but in the
 * rare large inputs (fz_large), which reach FZ_MAX_N: the iterative solvers
 * (entmax Halley, bisection) cost ~5-10 us an entry under ASan, and rows of
 * thousands took most of a run.
 */
#include "fuzz_common.h"

#define FZ_NORM_N 1200
static float x[FZ_MAX_N], y0[FZ_MAX_N], y1[FZ_MAX_N], g[FZ_MAX_N], d0[FZ_MAX_N], d1[FZ_MAX_N];

static void check_output(const ss_kernel_info *k, size_t n, const float *y) {
  float xmax = -INFINITY;
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) xmax = fmaxf(xmax, x[i]);
  for (size_t i = 0; i < n; i++) {
    if (k->output == SS_OUTPUT_LOG_PROBS) {
      const bool may_inf = x[i] == -INFINITY || (double)x[i] - (double)xmax < -FLT_MAX;
      FZ_CHECK(!isnan(y[i]) && y[i] != INFINITY && (may_inf || isfinite(y[i])), "%s: log y[%zu] = %g",
               k->name, i, y[i]);
      continue;
    }
    FZ_CHECK(isfinite(y[i]), "%s: y[%zu] = %g on SS_OK", k->name, i, y[i]);
    FZ_CHECK(x[i] != -INFINITY || (y[i] == 0.0f && !signbit(y[i])), "%s: masked y[%zu] = %g", k->name, i,
             y[i]);
    if (k->output == SS_OUTPUT_PROBS) FZ_CHECK(y[i] >= 0.0f, "%s: y[%zu] = %g < 0", k->name, i, y[i]);
    sum += y[i];
  }
  if (k->output == SS_OUTPUT_PROBS) FZ_CHECK(fabs(sum - 1.0) <= 0x1p-16, "%s: sum %.9g", k->name, sum);
  if (k->output != SS_OUTPUT_LOG_PROBS)
    FZ_CHECK(fz_no_subnormal(y, n), "%s: subnormal output (exact-zero rule)", k->name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  const ss_kernel_info *k = fz_pick(&f, SS_FAMILY_NORMALIZER);
  const size_t n = fz_len(&f, fz_large(data, size) ? FZ_MAX_N : FZ_NORM_N);
  double p[17];
  fz_params(&f, k, n, p);
  p[k->nparams] = 0.0;
  const uint8_t cnt = fz_u8(&f);
  const size_t np = cnt == 255 ? k->nparams + 1 : cnt == 254 && k->nparams ? k->nparams - 1 : k->nparams;
  fz_floats(&f, x, n);
  fz_case(k, p, x, n);
  const bool simd = ss_impl_available(SS_IMPL_SIMD);

  const ss_status s0 = ss_normalize(k, SS_IMPL_SCALAR, x, n, p, np, y0);
  const ss_status s1 = simd ? ss_normalize(k, SS_IMPL_SIMD, x, n, p, np, y1) : s0;
  FZ_CHECK(s0 == s1, "%s n=%zu: scalar %s, SIMD %s", k->name, n, ss_status_name(s0), ss_status_name(s1));
  if (s0 != SS_OK) return 0;
  check_output(k, n, y0);
  if (simd) {
    check_output(k, n, y1);
    double m = 0.0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(y0[i]));
    for (size_t i = 0; i < n; i++) {
      const double b = y0[i], a = y1[i];
      const double bound = k->output == SS_OUTPUT_LOG_PROBS ? 0x1p-16 * (fabs(b) + 1.0)
                                                            : 0x1p-16 * fabs(b) + 0x1p-18 * m;
      FZ_CHECK(a == b || fabs(a - b) <= bound, "%s n=%zu: SIMD y[%zu] = %.9g, scalar %.9g", k->name, n,
               i, a, b);
    }
  }
  /* The two alpha-entmax solvers solve one problem: a solver that stops
     unconverged gives itself away here (entmax_halley was one-hot, 0.94 off
     bisection, at alpha = 10 on {1e-12, 0, ..., 0}, n = 2000). */
  const ss_kernel_info *other = !strcmp(k->name, "entmax_halley")   ? ss_kernel_find("entmax_bisect", SS_FAMILY_NORMALIZER)
                                : !strcmp(k->name, "entmax_bisect") ? ss_kernel_find("entmax_halley", SS_FAMILY_NORMALIZER)
                                                                    : NULL;
  if (other && ss_normalize(other, SS_IMPL_SCALAR, x, n, p, np, d0) == SS_OK)
    for (size_t i = 0; i < n; i++)
      FZ_CHECK(fabsf(d0[i] - y0[i]) <= 0x1p-10f, "%s n=%zu: y[%zu] = %.9g, %s gives %.9g", k->name, n, i, y0[i],
               other->name, d0[i]);
  if (!k->has_backward) return 0;
  fz_floats(&f, g, n);
  fz_show("g", g, n);
  const ss_status v0 = ss_normalize_vjp(k, SS_IMPL_SCALAR, x, y0, g, n, p, np, d0);
  const ss_status v1 = simd ? ss_normalize_vjp(k, SS_IMPL_SIMD, x, y0, g, n, p, np, d1) : v0;
  FZ_CHECK(v0 == v1, "%s vjp: scalar %s, SIMD %s", k->name, ss_status_name(v0), ss_status_name(v1));
  if (v0 == SS_OK) {
    FZ_CHECK(fz_no_nan(d0, n), "%s: NaN in the scalar VJP", k->name);
    if (simd) FZ_CHECK(fz_no_nan(d1, n), "%s: NaN in the SIMD VJP", k->name);
  }
  if (!k->has_param_backward) return 0;
  double dp0[17], dp1[17];
  const ss_status w0 = ss_normalize_param_vjp(k, SS_IMPL_SCALAR, x, y0, g, n, p, np, dp0);
  const ss_status w1 = simd ? ss_normalize_param_vjp(k, SS_IMPL_SIMD, x, y0, g, n, p, np, dp1) : w0;
  FZ_CHECK(w0 == w1, "%s param vjp: scalar %s, SIMD %s", k->name, ss_status_name(w0),
           ss_status_name(w1));
  if (w0 == SS_OK)
    for (size_t i = 0; i < np; i++)
      FZ_CHECK(!isnan(dp0[i]) && (!simd || !isnan(dp1[i])), "%s: NaN parameter gradient %zu", k->name, i);
  return 0;
}
