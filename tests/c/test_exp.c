/*
 * The SIMD exp of common/exp_simd.h against libm's double exp rounded to
 * float (the correctly rounded float result, up to double's own 1/2 ulp of
 * 2^-53). Bound: <= 3 ulp over [ln FLT_MIN, 0] (measured max 2 ulp, for
 * ss_exp_nonpos_f32x4 and for ss_exp_diff_f32x4 on pairs whose float
 * difference is inexact); exactly 0 below the cutoff and for -Inf; exactly 1
 * at 0.
 */
#include <float.h>
#include <string.h>

#include "common/exp_simd.h"
#include "harness.h"

#define EXP_MAX_ULP 3u

#if SS_HAVE_SIMD

/* Four lanes at a time, so every lane position is exercised. */
static void exp4(const float *x, float *out) {
  const ss_exp_consts c = ss_exp_consts_load();
  wasm_v128_store(out, ss_exp_nonpos_f32x4(wasm_v128_load(x), &c));
}
static void expdiff4(const float *a, const float *b, float *out) {
  const ss_exp_consts c = ss_exp_consts_load();
  wasm_v128_store(out, ss_exp_diff_f32x4(wasm_v128_load(a), wasm_v128_load(b), &c));
}

static const float cutoff = -0x1.5D589Ep6f; /* ~ln(FLT_MIN) = -87.3365 */

/* The ulp distance to the correctly rounded exp, for a reference >= FLT_MIN. */
static uint32_t ulp_vs(float got, double want) {
  return ss_ulp_diff(got, (float)want);
}

#endif

/* Dense sweep: 2^22 evenly spaced points of [cutoff, 0], plus a log-spaced
   sweep of small |x| (1e-38 .. 1, where exp(x) ~ 1 - |x|), plus every float
   in a window around each multiple of ln2/2 in [-87, 0] (the reduction's
   rounding boundaries). */
TEST(exp_nonpos_ulp_sweep) {
#if !SS_HAVE_SIMD
  SKIP("no SIMD in this build");
#else
  uint32_t worst = 0;
  float worst_x = 0.0f;
  float x[4], y[4];
  const uint32_t N = 1u << 22;
#define EXP_ACCOUNT(k)                                           \
  do {                                                           \
    const double ref = exp((double)x[k]);                        \
    if (ref >= FLT_MIN) {                                        \
      const uint32_t u = ulp_vs(y[k], ref);                      \
      if (u > worst) worst = u, worst_x = x[k];                  \
    }                                                            \
  } while (0)
  for (uint32_t i = 0; i <= N; i += 4) {
    for (int k = 0; k < 4; k++) x[k] = (float)((double)cutoff * (double)(i + (uint32_t)k) / N);
    exp4(x, y);
    for (int k = 0; k < 4; k++) EXP_ACCOUNT(k);
  }
  for (int i = 0; i < 38 * 64; i += 4) {
    for (int k = 0; k < 4; k++) x[k] = -(float)pow(10.0, -(double)(i + k) / 64.0);
    exp4(x, y);
    for (int k = 0; k < 4; k++) EXP_ACCOUNT(k);
  }
  for (int m = 0; m <= 251; m++) {
    float c = (float)(-m * 0.34657359027997264);
    for (int j = 0; j < 64; j += 4) {
      for (int k = 0; k < 4; k++) {
        x[k] = c;
        c = nextafterf(c, -INFINITY);
      }
      exp4(x, y);
      for (int k = 0; k < 4; k++) EXP_ACCOUNT(k);
    }
  }
#undef EXP_ACCOUNT
  CHECK(worst <= EXP_MAX_ULP, "max %u ulp at x=%a", worst, worst_x);
#endif
}

/* exp(a - b) for pairs whose float difference is inexact (|a| and |b| of
   different sizes): the TwoSum correction must keep the few-ulp accuracy of
   exp(a - b) computed exactly, not of exp(fl(a - b)). */
TEST(exp_diff_ulp_sweep) {
#if !SS_HAVE_SIMD
  SKIP("no SIMD in this build");
#else
  ss_rng r = {42};
  uint32_t worst = 0, inexact = 0;
  float a[4], b[4], y[4];
  static const float scales[] = {1.0f, 100.0f, 1e4f, 3e5f};
  for (int i = 0; i < (1 << 20); i++) {
    const float s = scales[i & 3];
    for (int k = 0; k < 4; k++) {
      b[k] = ss_rng_range(&r, -s, s);
      a[k] = b[k] - ss_rng_range(&r, 0.0f, 87.3f);
      if (a[k] > b[k]) a[k] = b[k];
    }
    expdiff4(a, b, y);
    for (int k = 0; k < 4; k++) {
      const double d = (double)a[k] - (double)b[k]; /* exact */
      const double ref = exp(d);
      if ((double)(a[k] - b[k]) != d) inexact++;
      if (ref < FLT_MIN) continue;
      const uint32_t u = ulp_vs(y[k], ref);
      CHECK(u <= EXP_MAX_ULP, "exp(%a - %a): got %a, want %a (%u ulp)", a[k], b[k], y[k],
            (float)ref, u);
      if (u > worst) worst = u;
    }
  }
  /* The sweep is only meaningful if it has pairs where fl(a - b) is inexact. */
  CHECK(inexact > (1u << 20), "only %u inexact differences", inexact);
  CHECK(worst <= EXP_MAX_ULP, "max %u ulp", worst);
#endif
}

TEST(exp_special_values) {
#if !SS_HAVE_SIMD
  SKIP("no SIMD in this build");
#else
  const float zero = 0.0f;
  float x[4], y[4];
  /* Below the cutoff, -FLT_MAX and -Inf: exactly +0 (never a denormal or NaN). */
  const float below[] = {nextafterf(cutoff, -INFINITY), -87.5f, -88.0f, -100.0f,
                         -1e4f, -1e30f, -FLT_MAX, -INFINITY};
  for (size_t i = 0; i < sizeof below / sizeof below[0]; i++) {
    for (int k = 0; k < 4; k++) x[k] = below[i];
    exp4(x, y);
    for (int k = 0; k < 4; k++)
      CHECK(memcmp(&y[k], &zero, 4) == 0, "exp(%a) = %a, want +0", x[k], y[k]);
  }
  x[0] = 0.0f, x[1] = -0.0f, x[2] = -FLT_MIN, x[3] = -0x1p-149f;
  exp4(x, y);
  for (int k = 0; k < 4; k++) CHECK(y[k] == 1.0f, "exp(%a) = %a, want 1", x[k], y[k]);
  /* exp(b - b) == 1 exactly (the max entry of a softmax row), any b. */
  const float bs[] = {0.0f, 1.0f, -3.5f, 1e4f, -1e4f, 3e38f, -3e38f, 0x1p-149f};
  for (size_t i = 0; i < sizeof bs / sizeof bs[0]; i++) {
    float a4[4], b4[4];
    for (int k = 0; k < 4; k++) a4[k] = b4[k] = bs[i];
    expdiff4(a4, b4, y);
    CHECK(y[0] == 1.0f, "exp_diff(%a, %a) = %a", bs[i], bs[i], y[0]);
  }
  /* A masked logit (-Inf) and an overflowing difference give +0, not NaN. */
  float a4[4] = {-INFINITY, -3e38f, -INFINITY, -1e30f}, b4[4] = {0.0f, 3e38f, 1e4f, 1e30f};
  expdiff4(a4, b4, y);
  for (int k = 0; k < 4; k++)
    CHECK(memcmp(&y[k], &zero, 4) == 0, "exp_diff(%a, %a) = %a, want +0", a4[k], b4[k], y[k]);
#endif
}
