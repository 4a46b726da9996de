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

/* ---- the row-reduced exps of the softmax kernels (ss_expm, ss_expz) ---- */

#if SS_HAVE_SIMD
/* The lowest value SS_EXPM_ONE may return as a denormal: 2^(-2^-10) FLT_MIN. */
#define ONE_BAND 0.99932
/* A value of exp(x - m) against its float64 reference: within EXP_MAX_ULP
   when ref >= FLT_MIN (1 + 1e-5), exactly +0 when ref < FLT_MIN (1 - 1e-5)
   (below band FLT_MIN when denormals are allowed in [band FLT_MIN, FLT_MIN)),
   either of the two in between (the rounding of (x - m) log2e decides), and
   never another denormal. Returns the ulp distance (0 for zeros). */
static bool tiny_ok(float y, double ref, double band, uint32_t *ulp) {
  *ulp = 0;
  if (y != 0.0f && fabsf(y) < FLT_MIN) /* a denormal: only where allowed */
    return band < 1.0 && ref >= band * FLT_MIN * (1.0 - 1e-5) && ref < FLT_MIN * (1.0 + 1e-5) &&
           fabs(y - ref) <= 0x1p-149 * 4.0;
  if (ref < fmin(band, 1.0 - 1e-5) * FLT_MIN) return y == 0.0f && !signbit(y);
  if (ref < FLT_MIN * (1.0 + 1e-5) && y == 0.0f) return true;
  *ulp = ss_ulp_diff(y, (float)ref);
  return *ulp <= EXP_MAX_ULP;
}
#endif

/* ss_expm_f32x4 (softmax's exp of x - max for a whole row, and two-pass
   softmax's exp(x - logsumexp)): <= 3 ulp over the whole range of outputs
   for row maxima across its range [-266, 354], the subnormal rule (+0
   exactly below FLT_MIN; SS_EXPM_FLOOR never returns a denormal,
   SS_EXPM_ONE only within 0.07% below FLT_MIN), -Inf -> +0, and
   SS_EXPM_ONE's exp(0) = 1 exactly. Runs unfused in the SIMD builds and
   fused (relaxed_madd on an FMA CPU) in the relaxed build: the bound holds
   both ways. */
TEST(expm_row_ulp_sweep) {
#if !SS_HAVE_SIMD
  SKIP("no SIMD in this build");
#else
  static const float ms[] = {0.0f, 1.0f, -1.0f, 3.7f, -20.5f, 0.001f, 87.5f,
                             100.25f, 200.0f, 353.5f, -266.0f, -150.125f};
  uint32_t worst = 0;
  float wx = 0, wm = 0;
  for (int mode = 0; mode < 2; mode++)
    for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++) {
      const float m = ms[j];
      const double band = mode == SS_EXPM_ONE ? ONE_BAND : 1.0;
      ss_expm c;
      CHECK(ss_expm_init(m, (ss_expm_mode)mode, &c), "m = %g should be in range", m);
      float x[4], y[4];
      const uint32_t N = 1u << 18;
      for (uint32_t i = 0; i <= N + 64; i += 4) {
        for (int k = 0; k < 4; k++) {
          const uint32_t ii = i + (uint32_t)k;
          /* a dense sweep of [m - 88.5, m], then a window around FLT_MIN */
          const double d = ii <= N ? 88.5 * ii / N : 87.3365 + (double)(ii - N) * 1e-5 - 32e-5;
          x[k] = (float)((double)m - d);
        }
        wasm_v128_store(y, ss_expm_f32x4(wasm_v128_load(x), &c));
        for (int k = 0; k < 4; k++) {
          const double ref = exp((double)x[k] - (double)m);
          uint32_t u;
          CHECK(tiny_ok(y[k], ref, band, &u), "mode %d m=%g: exp(%a - m) = %a, want %a", mode, m,
                x[k], y[k], ref);
          if (u > worst) worst = u, wx = x[k], wm = m;
        }
      }
      for (int k = 0; k < 4; k++) x[k] = k ? -INFINITY : m;
      wasm_v128_store(y, ss_expm_f32x4(wasm_v128_load(x), &c));
      if (mode == SS_EXPM_ONE)
        CHECK(y[0] == 1.0f, "m=%g: exp(0) = %a, want exactly 1", m, y[0]);
      else
        CHECK(ss_ulp_diff(y[0], 1.0f) <= EXP_MAX_ULP, "m=%g: exp(0) = %a", m, y[0]);
      for (int k = 1; k < 4; k++) CHECK(y[k] == 0.0f && !signbit(y[k]), "exp(-Inf) = %a", y[k]);
    }
  CHECK(worst <= EXP_MAX_ULP, "max %u ulp at x=%a m=%g", worst, wx, wm);
#endif
}

/* Outside [-266, 354] ss_expm_init refuses the row (N ln2_hi would no
   longer be exact); the kernels then take the TwoSum exp. */
TEST(expm_row_range) {
#if !SS_HAVE_SIMD
  SKIP("no SIMD in this build");
#else
  ss_expm c;
  static const double in[] = {-266.0, 354.0, 0.0, -FLT_MIN};
  static const double out[] = {-267.0, 355.0, 1e4, -1e4, 3e38, -3e38};
  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
    CHECK(ss_expm_init(in[i], SS_EXPM_ONE, &c), "m = %g refused", in[i]);
  for (size_t i = 0; i < sizeof out / sizeof out[0]; i++)
    CHECK(!ss_expm_init(out[i], SS_EXPM_ONE, &c), "m = %g accepted", out[i]);
#endif
}

/* ss_expz_f32x4 (softmax_temperature's exp of beta (x - max), reduced in
   double): <= 3 ulp against exp(beta (x - m)) in double over the whole
   range of outputs, the zeros and denormals of SS_EXPM_ONE, exp(0) = 1,
   -Inf -> +0, for scales from 1e-3 to 3e4 (T = 0.37 included). */
TEST(expz_scaled_ulp_sweep) {
#if !SS_HAVE_SIMD
  SKIP("no SIMD in this build");
#else
  static const double betas[] = {1.0 / 0.37, 0.5, 1e-3, 1000.0, 1.0 / 3.0, 3e4, 1.0 + 0x1p-20};
  static const float ms[] = {0.0f, 5.5f, -13.0f, 300.0f, 20.0f};
  uint32_t worst = 0;
  for (size_t b = 0; b < sizeof betas / sizeof betas[0]; b++)
    for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++) {
      const double beta = betas[b];
      const float m = ms[j];
      ss_expz c;
      ss_expz_init(m, beta, &c);
      float x[4], y[4];
      const uint32_t N = 1u << 15;
      for (uint32_t i = 0; i <= N; i += 4) {
        for (int k = 0; k < 4; k++) x[k] = (float)((double)m - 88.5 / beta * (i + (uint32_t)k) / N);
        wasm_v128_store(y, ss_expz_f32x4(wasm_v128_load(x), &c));
        for (int k = 0; k < 4; k++) {
          const double ref = exp(beta * ((double)x[k] - (double)m));
          uint32_t u;
          CHECK(tiny_ok(y[k], ref, ONE_BAND, &u), "beta=%g m=%g: exp(beta (%a - m)) = %a, want %a",
                beta, m, x[k], y[k], ref);
          if (u > worst) worst = u;
        }
      }
      x[0] = m, x[1] = x[2] = x[3] = -INFINITY;
      wasm_v128_store(y, ss_expz_f32x4(wasm_v128_load(x), &c));
      CHECK(y[0] == 1.0f, "beta=%g: exp(0) = %a, want exactly 1", beta, y[0]);
      for (int k = 1; k < 4; k++) CHECK(y[k] == 0.0f && !signbit(y[k]), "exp(-Inf) = %a", y[k]);
    }
  CHECK(worst <= EXP_MAX_ULP, "max %u ulp", worst);
#endif
}
