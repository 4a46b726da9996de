/*
 * noisy_softmax: y = softmax(x~), x~_i = x_i + sigma_t a_i xi_i,
 * sigma_t = sigma / (1 + decay step), a_i = |x_i| (relative) or 1,
 * xi_i = ss_philox_normal(seed, step, i).
 *
 * The noisy logits are rebuilt here from that definition, so the kernel is
 * checked bit for bit against softmax of them (same impl), and against
 * float64 softmax of the unrounded x~ within (NS_A + NS_B |x~_i - max|)
 * relative (softmax's 2e-6 plus the float rounding of x~). SIMD vs scalar:
 * the same noisy logits, softmax's <= 8 ulp.
 */
#include <float.h>
#include <string.h>

#include "common/rng.h"
#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"

#define NS_A 2e-6
#define NS_B 0x1p-23

static const ss_kernel_info *K(void) { return ss_kernel_find("noisy_softmax", SS_FAMILY_NORMALIZER); }
static const ss_kernel_info *KS(void) { return ss_kernel_find("softmax", SS_FAMILY_NORMALIZER); }

/* x~ in double, per the definition (masked entries stay -Inf). */
static void noisy_logits64(const float *x, size_t n, const double p[5], double *xt) {
  const double st = p[0] / (1.0 + p[1] * p[2]);
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) {
      xt[i] = -INFINITY;
      continue;
    }
    const double xi = ss_philox_normal((uint64_t)p[3], (uint64_t)p[2], i);
    xt[i] = (double)x[i] + st * (p[4] != 0.0 ? fabs((double)x[i]) : 1.0) * xi;
  }
}
static void noisy_logits32(const float *x, size_t n, const double p[5], float *xt) {
  double *d = ss_test_alloc(n * sizeof *d);
  noisy_logits64(x, n, p, d);
  for (size_t i = 0; i < n; i++) xt[i] = (float)fmin(fmax(d[i], -FLT_MAX), FLT_MAX);
  for (size_t i = 0; i < n; i++)
    if (x[i] == -INFINITY) xt[i] = -INFINITY;
  ss_test_free(d);
}

TEST(noisy_softmax_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 5 && k->has_backward && k->output == SS_OUTPUT_PROBS &&
            strstr(k->paper, "Chen"),
        "descriptor");
  static const char *names[] = {"sigma", "decay", "step", "seed", "relative"};
  static const ss_param_type types[] = {SS_PARAM_FLOAT, SS_PARAM_FLOAT, SS_PARAM_INT,
                                        SS_PARAM_INT, SS_PARAM_BOOL};
  for (int i = 0; i < 5; i++)
    CHECK(strcmp(k->params[i].name, names[i]) == 0 && k->params[i].type == types[i], "param %d", i);
  CHECK(k->params[0].def == 0.5 && k->params[4].def == 1.0 && k->params[2].max == 0x1p53 &&
            k->params[3].max == 0x1p53,
        "defaults / ranges");
}

/* sigma = 0 is softmax, bit for bit, whatever the other parameters. */
TEST(noisy_softmax_zero_noise_is_softmax) {
  float x[67], a[67], b[67];
  for (size_t n = 1; n <= 67; n++) {
    st_fill(x, n, 90 + n, -20, 20);
    if (n > 3) x[2] = -INFINITY;
    const double p[5] = {0.0, (double)(n % 3), (double)n, 12345.0, (double)(n & 1)};
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, p, 5, a), SS_OK);
      CHECK_STATUS(ss_normalize(KS(), impl, x, n, NULL, 0, b), SS_OK);
      CHECK(memcmp(a, b, n * 4) == 0, "%s n=%zu: differs from softmax", ss_impl_name(impl), n);
    }
  }
}

/* The output is softmax of the noisy logits of the definition, bit for bit
   (per impl): this pins the noise -- its index (seed, step, i), the
   schedule, the relative scaling, the rounding -- and makes it the same
   for both impls. Also checked against float64 softmax of unrounded x~. */
TEST(noisy_softmax_is_softmax_of_the_noisy_logits) {
  static const size_t ns[] = {1, 2, 3, 7, 16, 17, 64, 67, 1001};
  static const double ps[][5] = {{0.5, 0.01, 0, 0, 1},   {0.5, 0.01, 250, 0, 1},
                                 {2.0, 0.0, 3, 77, 1},    {0.3, 1.0, 9, 1u << 31, 0},
                                 {10.0, 0.1, 1, 5, 0},    {1.0, 0.0, 0x1p52, 0x1p53, 1}};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *xt = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4),
          *b = ss_test_alloc(n * 4);
    double *xd = ss_test_alloc(n * 8), *ref = ss_test_alloc(n * 8);
    st_fill(x, n, 100 + n, -6, 6);
    if (n > 5) x[5] = -INFINITY;
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
      noisy_logits32(x, n, ps[k], xt);
      noisy_logits64(x, n, ps[k], xd);
      st_softmax64(xd, n, 1.0, ref);
      double m = -INFINITY;
      for (size_t i = 0; i < n; i++) m = fmax(m, xd[i]);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(K(), impl, x, n, ps[k], 5, a), SS_OK);
        CHECK_STATUS(ss_normalize(KS(), impl, xt, n, NULL, 0, b), SS_OK);
        CHECK(memcmp(a, b, n * 4) == 0, "%s n=%zu params %zu: not softmax(x~)", ss_impl_name(impl), n, k);
        for (size_t i = 0; i < n; i++) {
          if (ref[i] < 1e-30) {
            CHECK(fabs(a[i] - ref[i]) < 1e-30, "%s: tiny %g vs %g", ss_impl_name(impl), a[i], ref[i]);
            continue;
          }
          const double tol = (NS_A + NS_B * fabs(xd[i] - m)) * ref[i];
          CHECK(fabs(a[i] - ref[i]) <= tol, "%s n=%zu params %zu i=%zu: y=%.9g ref=%.9g",
                ss_impl_name(impl), n, k, i, a[i], ref[i]);
        }
      }
    }
  }
}

TEST(noisy_softmax_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  float x[67], a[67], b[67];
  uint32_t worst = 0;
  const double p[5] = {0.8, 0.01, 40, 9, 1};
  for (size_t n = 1; n <= 67; n++) {
    st_fill(x, n, 110 + n, -8, 8);
    CHECK_STATUS(ss_normalize(K(), SS_IMPL_SCALAR, x, n, p, 5, a), SS_OK);
    CHECK_STATUS(ss_normalize(K(), SS_IMPL_SIMD, x, n, p, 5, b), SS_OK);
    for (size_t i = 0; i < n; i++)
      if (a[i] >= 1e-30f) worst = fmaxf(worst, ss_ulp_diff(a[i], b[i]));
  }
  CHECK(worst <= 8, "worst %u ulp", worst);
}

/* Same (seed, step): same bits on every call; another seed or another step
   draws other noise. */
TEST(noisy_softmax_seeded) {
  enum { N = 50 };
  float x[N], a[N], b[N];
  st_fill(x, N, 120, -3, 3);
  double p[5] = {0.5, 0.01, 7, 3, 1};
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, N, p, 5, a), SS_OK);
    CHECK_STATUS(ss_normalize(K(), impl, x, N, p, 5, b), SS_OK);
    CHECK(memcmp(a, b, sizeof a) == 0, "%s: not repeatable", ss_impl_name(impl));
    p[3] = 4;
    CHECK_STATUS(ss_normalize(K(), impl, x, N, p, 5, b), SS_OK);
    CHECK(memcmp(a, b, sizeof a) != 0, "%s: seed ignored", ss_impl_name(impl));
    p[3] = 3;
    p[2] = 8;
    CHECK_STATUS(ss_normalize(K(), impl, x, N, p, 5, b), SS_OK);
    CHECK(memcmp(a, b, sizeof a) != 0, "%s: step ignored", ss_impl_name(impl));
    p[2] = 7;
  }
}

/* Annealing, seen through the output: with additive noise, log y_i - x_i =
   sigma_t xi_i + const, so its standard deviation over n = 4096 entries is
   sigma_t within 5% (the sampling error of a standard deviation is
   1/sqrt(2n) = 1.1%; 5% is 4.5 of those), for sigma_t = sigma / (1 + decay
   step) at steps 0, 100, 1000 with decay 0.01. */
TEST(noisy_softmax_annealing) {
  enum { N = 4096 };
  float *x = ss_test_alloc(N * 4), *y = ss_test_alloc(N * 4);
  st_fill(x, N, 130, -1, 1);
  static const double steps[] = {0, 100, 1000};
  FOR_EACH_IMPL(impl) {
    for (int k = 0; k < 3; k++) {
      const double p[5] = {0.6, 0.01, steps[k], 11, 0};
      const double st = 0.6 / (1.0 + 0.01 * steps[k]);
      CHECK_STATUS(ss_normalize(K(), impl, x, N, p, 5, y), SS_OK);
      double s1 = 0.0, s2 = 0.0;
      for (size_t i = 0; i < N; i++) {
        const double d = log((double)y[i]) - x[i];
        s1 += d;
        s2 += d * d;
      }
      const double sd = sqrt(s2 / N - (s1 / N) * (s1 / N));
      CHECK(fabs(sd / st - 1.0) <= 0.05, "%s step %g: sd %.5f, sigma_t %.5f", ss_impl_name(impl),
            steps[k], sd, st);
    }
  }
}

/* Huge logits: x~ is clamped to +-FLT_MAX, never +Inf or NaN. */
TEST(noisy_softmax_huge_logits) {
  float x[8] = {3e38f, -3e38f, 1e38f, 0.0f, -1.0f, 2e38f, -FLT_MAX, FLT_MAX}, y[8];
  const double p[5] = {10.0, 0.0, 0, 1, 1};
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, 8, p, 5, y), SS_OK);
    double s = 0.0;
    for (int i = 0; i < 8; i++) {
      CHECK(isfinite(y[i]) && y[i] >= 0.0f, "%s: y[%d] = %g", ss_impl_name(impl), i, y[i]);
      s += y[i];
    }
    CHECK(fabs(s - 1.0) <= 1e-6, "%s: sum %.9g", ss_impl_name(impl), s);
  }
}

static double g_params[5];
static void model_noisy(const double *x, size_t n, double unused, double *out) {
  (void)unused;
  const double st = g_params[0] / (1.0 + g_params[1] * g_params[2]);
  double *xt = ss_test_alloc(n * sizeof *xt);
  for (size_t i = 0; i < n; i++) {
    const double xi = ss_philox_normal((uint64_t)g_params[3], (uint64_t)g_params[2], i);
    xt[i] = x[i] == -INFINITY ? -INFINITY : x[i] + st * (g_params[4] != 0.0 ? fabs(x[i]) : 1.0) * xi;
  }
  st_softmax64(xt, n, 1.0, out);
  ss_test_free(xt);
}

/* VJP with the noise held fixed vs central differences of the float64 model
   with the same draws (logits kept away from 0, where |x| has its kink).
   Tolerance: softmax's, scaled by the chain factor 1 + sigma_t |xi|. */
TEST(noisy_softmax_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40};
  static const double ps[][5] = {{0.5, 0.01, 3, 21, 1}, {0.5, 0.01, 3, 21, 0}, {1.5, 0.0, 0, 4, 1}};
  for (size_t t = 0; t < 6; t++) {
    const size_t n = ns[t];
    float x[40], y[40], g[40], dx[40];
    double fd[40];
    st_fill(x, n, 150 + n, 0.2f, 2.0f);
    for (size_t i = 0; i < n; i += 2) x[i] = -x[i];
    if (n > 4) x[3] = -INFINITY;
    st_fill(g, n, 160 + n, -1, 1);
    double G = 0.0;
    for (size_t i = 0; i < n; i++) G += fabs(g[i]);
    for (size_t k = 0; k < 3; k++) {
      memcpy(g_params, ps[k], sizeof g_params);
      st_fd_vjp(model_noisy, x, g, n, 0.0, 1e-6, fd);
      const double st = ps[k][0] / (1.0 + ps[k][1] * ps[k][2]);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(K(), impl, x, n, ps[k], 5, y), SS_OK);
        CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, n, ps[k], 5, dx), SS_OK);
        for (size_t j = 0; j < n; j++) {
          const double chain = 1.0 + st * fabs(ss_philox_normal((uint64_t)ps[k][3], (uint64_t)ps[k][2], j));
          const double tol = (8e-6 * y[j] * (fabs(g[j]) + G) + 1e-8 * G) * chain;
          CHECK(fabs(dx[j] - fd[j]) <= tol, "%s n=%zu params %zu j=%zu: dx=%.9g fd=%.9g",
                ss_impl_name(impl), n, k, j, dx[j], fd[j]);
        }
        if (n > 4) CHECK(dx[3] == 0.0f, "masked dx %g", dx[3]);
      }
    }
  }
}

/* The direct call's 64-bit step and seed: past 2^53 (which a double
   parameter of ss_normalize cannot carry exactly) they are refused. The
   rest of the direct call is a row of test_direct_calls.c. */
TEST(noisy_softmax_direct_u64_range) {
  enum { N = 26 };
  float x[N], a[N];
  st_fill(x, N, 180, -4, 4);
  CHECK_STATUS(ss_noisy_softmax(x, N, 0.7, 0.02, ((uint64_t)1 << 53) + 1, 99, true, a),
               SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_noisy_softmax(x, N, 0.7, 0.02, 1, UINT64_MAX, true, a), SS_ERR_PARAM_RANGE);
}
