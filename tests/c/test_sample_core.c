/*
 * The sampler core (core/src/sample/det_*.c, draw.c, noise.c, temperature.c,
 * categorical.c):
 *   - the scalar twins of the SIMD exp / log give the same bits as the SIMD
 *     lanes, over dense sweeps (the determinism contract rests on this);
 *   - 4-lane sums agree bit for bit; det exp is within 4 ulp of float64 exp;
 *   - uniforms lie in the open interval, Gumbel noise is finite and has the
 *     Gumbel mean (Euler's gamma) and variance (pi^2 / 6);
 *   - temperature / categorical draws fit their distribution (chi-square at
 *     alpha = 1e-3, fixed seeds), probs match float64 softmax(x / T) within
 *     2e-6 relative, and draws and probs are bit-identical across impls;
 *   - errors: NaN, +Inf, all -Inf, negative and infinite weights, draws * n;
 *     x / T overflowing float is the exact (argmax) distribution, not an error.
 */
#include <float.h>
#include <string.h>

#include "common/rng.h"
#include "harness.h"
#include "common/det_math.h"
#include "sample/noise.h"
#include "sample/sample_internal.h"
#include "sample_testing.h"
#include "softmax_testing.h"

#if SS_HAVE_SIMD
#include "common/exp_simd.h"
#include "common/log_simd.h"
#endif

TEST(det_exp_twin_is_bitwise_the_simd_lane) {
#if !SS_HAVE_SIMD
  SKIP("no SIMD in this build");
#else
  const ss_exp_consts c = ss_exp_consts_load();
  ss_rng r = {11};
  for (int it = 0; it < 200000; it++) {
    float a[4], b[4], out[4];
    for (int l = 0; l < 4; l++) {
      b[l] = ss_rng_range(&r, -50.0f, 50.0f);
      a[l] = b[l] - (float)(ss_rng_unif(&r) * (it % 3 == 0 ? 120.0 : 20.0));
    }
    if (it == 0) a[0] = -INFINITY;
    wasm_v128_store(out, ss_exp_diff_f32x4(wasm_v128_load(a), wasm_v128_load(b), &c));
    for (int l = 0; l < 4; l++) {
      const float s = ss_det_exp_diff(a[l], b[l]);
      CHECK(ss_f2u(s) == ss_f2u(out[l]), "exp(%a - %a): scalar %a, simd %a", a[l], b[l], s, out[l]);
    }
  }
#endif
}

TEST(det_log_twin_is_bitwise_the_simd_lane) {
#if !SS_HAVE_SIMD
  SKIP("no SIMD in this build");
#else
  /* every 97th float bit pattern over (0, FLT_MAX], denormals included */
  for (uint32_t u = 1; u < 0x7F800000u; u += 4 * 97) {
    float v[4], out[4];
    for (int l = 0; l < 4; l++) v[l] = ss_u2f(u + (uint32_t)l * 97);
    wasm_v128_store(out, ss_log_pos_f32x4(wasm_v128_load(v)));
    for (int l = 0; l < 4; l++) {
      const float s = ss_det_log_pos(v[l]);
      CHECK(ss_f2u(s) == ss_f2u(out[l]), "log(%a): scalar %a, simd %a", v[l], s, out[l]);
    }
  }
#endif
}

TEST(det_exp_accuracy_and_sum4) {
  enum { N = 1003 };
  float x[N], y[N], y2[N];
  st_fill(x, N, 5, -30.0f, 30.0f);
  x[17] = -INFINITY;
  ss_status s;
  FOR_EACH_IMPL(impl) {
    const double sum = ss_det_exp(impl, x, N, 0.7f, y, &s);
    CHECK_STATUS(s, SS_OK);
    float m = -INFINITY;
    for (size_t i = 0; i < N; i++) if (x[i] / 0.7f > m) m = x[i] / 0.7f;
    for (size_t i = 0; i < N; i++) {
      const float z = x[i] / 0.7f;
      const double want = exp((double)z - (double)m);
      if (want < 0x1p-126) continue; /* flushed to 0 by design below 2^-126 */
      CHECK(ss_ulp_diff(y[i], (float)want) <= 4, "%s: exp(%a) = %a, want %a", ss_impl_name(impl),
            (double)z - m, y[i], want);
    }
    CHECK(y[17] == 0.0f, "masked entry");
    CHECK(sum == ss_sum4_scalar(y, N), "sum is the 4-lane sum");
  }
  (void)y2;
#if SS_HAVE_SIMD
  ss_det_exp_scalar(x, N, 0.7f, y, &s);
  const double a = ss_det_exp_simd(x, N, 0.7f, y2, &s);
  CHECK(memcmp(y, y2, sizeof y) == 0, "det exp: scalar and SIMD bitwise equal");
  CHECK(a == ss_sum4_scalar(y, N) && ss_sum4_simd(y, N) == ss_sum4_scalar(y, N), "sum4 equal");
#endif
}

TEST(uniforms_open_interval_and_gumbel_moments) {
  enum { N = 1 << 16 };
  float *u = ss_test_alloc(N * sizeof *u), *g = ss_test_alloc(N * sizeof *g);
  CHECK_STATUS(ss_uniform(3, 7, 0, N, u), SS_OK);
  double mean = 0.0;
  for (size_t i = 0; i < N; i++) {
    CHECK(u[i] > 0.0f && u[i] < 1.0f, "u[%zu] = %a", i, u[i]);
    mean += u[i];
  }
  mean /= N;
  CHECK(fabs(mean - 0.5) < 5.0 * sqrt(1.0 / 12.0 / N), "uniform mean %g", mean);
  /* an unaligned start is the same stream shifted */
  float u2[9];
  CHECK_STATUS(ss_uniform(3, 7, 5, 9, u2), SS_OK);
  CHECK(memcmp(u2, u + 5, sizeof u2) == 0, "first = 5 is number 5 on");
  /* extremes of the uniform map to finite Gumbel values */
  CHECK(isfinite(-ss_det_log_pos(-ss_det_log_pos(0x1p-24f))) &&
            isfinite(-ss_det_log_pos(-ss_det_log_pos(1.0f - 0x1p-24f))),
        "gumbel at the ends of (0, 1)");
  CHECK_STATUS(ss_gumbel(3, 7, 0, N, g), SS_OK);
  double m1 = 0.0, m2 = 0.0;
  for (size_t i = 0; i < N; i++) {
    CHECK(isfinite(g[i]), "g[%zu]", i);
    m1 += g[i];
  }
  m1 /= N;
  for (size_t i = 0; i < N; i++) m2 += (g[i] - m1) * (g[i] - m1);
  m2 /= N - 1;
  const double var = 3.141592653589793 * 3.141592653589793 / 6.0;
  CHECK(fabs(m1 - 0.5772156649015329) < 5.0 * sqrt(var / N), "gumbel mean %g", m1);
  CHECK(fabs(m2 - var) < 5.0 * sqrt(2.4 * var * var / N), "gumbel variance %g", m2); /* kurtosis 5.4 */
  float a[N];
#if SS_HAVE_SIMD
  ss_gumbel_noise_scalar(9, 2, 4, 1001, a);
  ss_gumbel_noise_simd(9, 2, 4, 1001, g);
  CHECK(memcmp(a, g, 1001 * sizeof *a) == 0, "gumbel scalar == simd");
#endif
  ss_gumbel_noise(SS_IMPL_SCALAR, 3, 7, 0, 64, a);
  CHECK(memcmp(a, g, 0) == 0 && a[0] == -ss_det_log_pos(-ss_det_log_pos(u[0])), "gumbel of u");
}

static const ss_kernel_info *KT(void) { return ss_kernel_find("temperature", SS_FAMILY_SAMPLER); }
static const ss_kernel_info *KC(void) { return ss_kernel_find("categorical", SS_FAMILY_SAMPLER); }

TEST(temperature_probs_and_draws_fit_softmax) {
  enum { N = 40, D = 40000 };
  float x[N], probs[N];
  double p64[N], params[3];
  uint32_t *draws = ss_test_alloc(D * sizeof *draws);
  st_fill(x, N, 21, -3.0f, 3.0f);
  x[3] = -INFINITY;
  const ss_kernel_info *k = KT();
  CHECK(k && k->family == SS_FAMILY_SAMPLER && k->draws == SS_DRAW_INDEX, "descriptor");
  static const double temps[] = {0.5, 1.0, 2.5};
  for (int ti = 0; ti < 3; ti++) {
    const char *names[] = {"temperature", "seed", "draws"};
    const double vals[] = {temps[ti], 42.0 + ti, D};
    st_params(k, params, 3, names, vals);
    st_softmax_t64(x, N, temps[ti], p64);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_sample(k, impl, x, N, params, 3, probs, draws, NULL), SS_OK);
      for (size_t i = 0; i < N; i++)
        CHECK(fabs(probs[i] - p64[i]) <= 2e-6 * p64[i] + 1e-30, "T=%g p[%zu] %g vs %g", temps[ti], i,
              probs[i], p64[i]);
      double stat, crit;
      CHECK(st_chi2_test(draws, D, p64, N, ST_ALPHA_1E3, &stat, &crit),
            "%s T=%g: chi2 %g > %g", ss_impl_name(impl), temps[ti], stat, crit);
    }
  }
}

TEST(categorical_fits_weights_and_skips_zeros) {
  enum { N = 300, D = 60000 };
  float w[N], probs[N];
  double p64[N], s = 0.0, params[2];
  uint32_t *draws = ss_test_alloc(D * sizeof *draws);
  ss_rng r = {5};
  for (size_t i = 0; i < N; i++) {
    w[i] = (i % 3 == 0) ? 0.0f : (float)(ss_rng_unif(&r) * (i % 7 + 1));
    s += w[i];
  }
  for (size_t i = 0; i < N; i++) p64[i] = w[i] / s;
  const char *names[] = {"seed", "draws"};
  const double vals[] = {9.0, D};
  st_params(KC(), params, 2, names, vals);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_sample(KC(), impl, w, N, params, 2, probs, draws, NULL), SS_OK);
    double stat, crit;
    /* st_chi2_stat returns +Inf when a zero-weight entry is drawn */
    CHECK(st_chi2_test(draws, D, p64, N, ST_ALPHA_1E3, &stat, &crit), "chi2 %g > %g", stat, crit);
    for (size_t i = 0; i < N; i++)
      CHECK(fabs(probs[i] - p64[i]) <= 1e-6 * p64[i], "p[%zu]", i);
  }
  /* a single positive weight at the end of a long zero row */
  static float one[5000];
  one[4999] = 2.0f;
  uint32_t dd[50];
  CHECK_STATUS(ss_categorical(one, 5000, 1, 1, 0, 50, dd), SS_OK);
  for (int d = 0; d < 50; d++) CHECK(dd[d] == 4999, "draw %d = %u", d, dd[d]);
}

TEST(sampler_exact_limits_and_direct_calls) {
  float x[4] = {0.0f, 1.0f, 2.0f, 3.0f}, probs[4];
  uint32_t d[2];
  const ss_kernel_info *k = KT();
  FOR_EACH_IMPL(impl) {
    /* x / T overflowing float is not an error: the exact distribution, a
       one-hot at the argmax here */
    float big[4] = {3e38f, 0.0f, 1.0f, -3e38f};
    double tiny[3] = {1e-3, 0.0, 2.0};
    CHECK_STATUS(ss_sample(k, impl, big, 4, tiny, 3, probs, d, NULL), SS_OK);
    CHECK(probs[0] == 1.0f && probs[1] == 0.0f && probs[3] == 0.0f && d[0] == 0 && d[1] == 0,
          "%s: T = 1e-3 on 3e38 is not the argmax", ss_impl_name(impl));
  }
  CHECK_STATUS(ss_categorical(x, 4, 0, 0, 0, 2, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_uniform(0, 0, 0, 0, probs), SS_ERR_EMPTY);
}
