/*
 * The vector samplers dare and dirichlet (core/src/sample):
 *   - dare is unbiased: the mean of 20000 draws is within 4.75 standard
 *     errors of x in every entry (sd = |x| sqrt(p / (1 - p)) / sqrt(D));
 *     the kept fraction passes a binomial z-test at 4.75 sd; every output
 *     is exactly 0 or x / (1 - p) (x with rescale = 0); p = 0 keeps all;
 *   - dirichlet draws lie on the simplex (>= 0, sum 1 within 1e-6) and their
 *     mean and variance match alpha / alpha_0 and
 *     alpha_i (alpha_0 - alpha_i) / (alpha_0^2 (alpha_0 + 1)) (mean within
 *     4.75 standard errors, variance within 8 %) for small, unit and large
 *     concentrations; alpha = 1e-3 still gives finite points on the simplex;
 *   - scalar and SIMD agree bit for bit;
 *   - p = 1, alpha <= 0 and non-finite inputs get their status.
 */
#include <string.h>

#include "harness.h"
#include "sample_testing.h"

static const ss_kernel_info *K(const char *name) { return ss_kernel_find(name, SS_FAMILY_SAMPLER); }

TEST(dare_is_unbiased_and_keeps_one_minus_p) {
  enum { N = 16, D = 20000 };
  const ss_kernel_info *k = K("dare");
  CHECK(k, "dare not registered");
  float x[N], probs[N];
  ss_rng r = {3};
  for (size_t i = 0; i < N; i++) x[i] = (float)(4.0 * ss_rng_unif(&r) - 2.0);
  float *s = ss_test_alloc(D * N * sizeof *s);
  const double ps[] = {0.9, 0.3};
  for (size_t t = 0; t < 2; t++) {
    const double p = ps[t];
    const char *pn[] = {"p", "rescale", "seed", "draws"};
    const double pv[] = {p, 1, 8, D};
    double params[4];
    st_params(k, params, 4, pn, pv);
    CHECK_STATUS(ss_sample(k, SS_IMPL_SCALAR, x, N, params, 4, probs, NULL, s), SS_OK);
    const float sc = (float)(1.0 / (1.0 - p));
    double kept = 0.0;
    for (size_t i = 0; i < N; i++) {
      double mean = 0.0;
      for (size_t d = 0; d < D; d++) {
        const float v = s[d * N + i];
        CHECK(v == 0.0f || v == x[i] * sc, "p %g: entry %g is neither 0 nor x/(1-p)", p, v);
        mean += v;
        kept += v != 0.0f;
      }
      mean /= D;
      const double se = fabs(x[i]) * sqrt(p / (1.0 - p) / D);
      CHECK(fabs(mean - x[i]) <= 4.75 * se, "p %g entry %zu: mean %g vs x %g (se %g)", p, i, mean,
            x[i], se);
      CHECK(probs[i] == x[i], "probs (the mean) %g vs x %g", probs[i], x[i]);
    }
    const double tot = (double)N * D, sd = sqrt(tot * p * (1.0 - p));
    CHECK(fabs(kept - tot * (1.0 - p)) <= 4.75 * sd, "p %g: kept %g of %g", p, kept, tot);
  }
  /* rescale = 0 keeps survivors as they are; p = 0 keeps everything. */
  const char *pn[] = {"p", "rescale", "draws"};
  double params[4];
  const double a[] = {0.5, 0, 50};
  st_params(k, params, 3, pn, a);
  CHECK_STATUS(ss_sample(k, SS_IMPL_SCALAR, x, N, params, 4, probs, NULL, s), SS_OK);
  for (size_t i = 0; i < 50 * N; i++) CHECK(s[i] == 0.0f || s[i] == x[i % N], "rescale 0: %g", s[i]);
  for (size_t i = 0; i < N; i++) CHECK(probs[i] == x[i] * 0.5f, "rescale 0: mean %g", probs[i]);
  const double b[] = {0.0, 1, 50};
  st_params(k, params, 3, pn, b);
  CHECK_STATUS(ss_sample(k, SS_IMPL_SCALAR, x, N, params, 4, probs, NULL, s), SS_OK);
  for (size_t i = 0; i < 50 * N; i++) CHECK(s[i] == x[i % N], "p 0 dropped entry %zu", i);
}

static void dirichlet_moments(const float *alpha, size_t n, size_t draws) {
  const ss_kernel_info *k = K("dirichlet");
  if (!k) { ss_test_fail(__FILE__, __LINE__, "dirichlet not registered"); return; }
  double params[2] = {21, (double)draws};
  float *s = ss_test_alloc(draws * n * sizeof *s), probs[16];
  const ss_status st = ss_sample(k, SS_IMPL_SCALAR, alpha, n, params, 2, probs, NULL, s);
  if (st != SS_OK) { ss_test_fail(__FILE__, __LINE__, "%s", ss_status_str(st)); return; }
  double a0 = 0.0;
  for (size_t i = 0; i < n; i++) a0 += alpha[i];
  for (size_t d = 0; d < draws; d++) {
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
      const float v = s[d * n + i];
      if (!(v >= 0.0f && v <= 1.0f)) { ss_test_fail(__FILE__, __LINE__, "entry %g", v); return; }
      sum += v;
    }
    if (fabs(sum - 1.0) > 1e-6) { ss_test_fail(__FILE__, __LINE__, "row sum %.9g", sum); return; }
  }
  for (size_t i = 0; i < n; i++) {
    const double mu = alpha[i] / a0, var = alpha[i] * (a0 - alpha[i]) / (a0 * a0 * (a0 + 1.0));
    double m = 0.0, v = 0.0;
    for (size_t d = 0; d < draws; d++) m += s[d * n + i];
    m /= (double)draws;
    for (size_t d = 0; d < draws; d++) v += (s[d * n + i] - m) * (s[d * n + i] - m);
    v /= (double)(draws - 1);
    if (fabs(probs[i] - mu) > 1e-6 ||
        fabs(m - mu) > 4.75 * sqrt(var / (double)draws) || fabs(v - var) > 0.08 * var) {
      ss_test_fail(__FILE__, __LINE__, "alpha_%zu = %g: mean %g (want %g), var %g (want %g)", i,
                   alpha[i], m, mu, v, var);
      return;
    }
  }
}

TEST(dirichlet_draws_have_the_dirichlet_moments) {
  const float small[] = {0.3f, 0.5f, 0.2f, 0.7f};
  const float unit[] = {1.0f, 1.0f, 1.0f};
  const float large[] = {5.0f, 50.0f, 12.0f};
  dirichlet_moments(small, 4, 40000);
  dirichlet_moments(unit, 3, 40000);
  dirichlet_moments(large, 3, 40000);
}

TEST(dirichlet_tiny_concentrations_stay_on_the_simplex) {
  enum { N = 5, D = 200 };
  const ss_kernel_info *k = K("dirichlet");
  CHECK(k, "dirichlet not registered");
  const float a[N] = {1e-3f, 1e-3f, 1e-3f, 1e-3f, 1e-3f};
  float probs[N], s[D * N];
  double params[2] = {4, D};
  CHECK_STATUS(ss_sample(k, SS_IMPL_SCALAR, a, N, params, 2, probs, NULL, s), SS_OK);
  size_t vertex = 0;
  for (size_t d = 0; d < D; d++) {
    double sum = 0.0, mx = 0.0;
    for (size_t i = 0; i < N; i++) {
      CHECK(isfinite(s[d * N + i]) && s[d * N + i] >= 0.0f, "entry %g", s[d * N + i]);
      sum += s[d * N + i];
      if (s[d * N + i] > mx) mx = s[d * N + i];
    }
    CHECK(fabs(sum - 1.0) < 1e-6, "row sum %.9g", sum);
    vertex += mx > 0.999;
  }
  /* Dirichlet(1e-3 * 1): almost every draw sits on a vertex. */
  CHECK(vertex >= D * 95 / 100, "%zu of %d draws near a vertex", vertex, D);
}

TEST(vector_samplers_bitwise_identical_across_impls) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  enum { N = 1031, D = 3 };
  float *x = ss_test_alloc(N * 4), *p0 = ss_test_alloc(N * 4), *p1 = ss_test_alloc(N * 4);
  float *s0 = ss_test_alloc(D * N * 4), *s1 = ss_test_alloc(D * N * 4);
  ss_rng r = {9};
  for (size_t i = 0; i < N; i++) x[i] = (float)(0.05 + 3.0 * ss_rng_unif(&r));
  const char *names[] = {"dare", "dirichlet"};
  for (size_t j = 0; j < 2; j++) {
    const ss_kernel_info *k = K(names[j]);
    CHECK(k, "%s not registered", names[j]);
    double params[4];
    const char *pn[] = {"seed", "draws"};
    const double pv[] = {5, D};
    st_params(k, params, 2, pn, pv);
    CHECK_STATUS(ss_sample(k, SS_IMPL_SCALAR, x, N, params, k->nparams, p0, NULL, s0), SS_OK);
    CHECK_STATUS(ss_sample(k, SS_IMPL_SIMD, x, N, params, k->nparams, p1, NULL, s1), SS_OK);
    CHECK(memcmp(p0, p1, N * 4) == 0 && memcmp(s0, s1, D * N * 4) == 0, "%s: impls differ", names[j]);
  }
}

TEST(vector_sampler_errors) {
  float x[3] = {0.5f, 1.0f, 2.0f}, probs[3], s[3];
  const ss_kernel_info *dare = K("dare"), *dir = K("dirichlet");
  CHECK(dare && dir, "not registered");
  double params[4] = {1.0, 1, 0, 1};
  CHECK_STATUS(ss_sample(dare, SS_IMPL_SCALAR, x, 3, params, 4, probs, NULL, s), SS_ERR_PARAM_RANGE);
  params[0] = -0.1;
  CHECK_STATUS(ss_sample(dare, SS_IMPL_SCALAR, x, 3, params, 4, probs, NULL, s), SS_ERR_PARAM_RANGE);
  params[0] = 0.5;
  x[1] = NAN;
  CHECK_STATUS(ss_sample(dare, SS_IMPL_SCALAR, x, 3, params, 4, probs, NULL, s), SS_ERR_NAN);
  double dp[2] = {0, 1};
  CHECK_STATUS(ss_sample(dir, SS_IMPL_SCALAR, x, 3, dp, 2, probs, NULL, s), SS_ERR_NAN);
  x[1] = INFINITY;
  CHECK_STATUS(ss_sample(dir, SS_IMPL_SCALAR, x, 3, dp, 2, probs, NULL, s), SS_ERR_NONFINITE);
  x[1] = 0.0f;
  CHECK_STATUS(ss_sample(dir, SS_IMPL_SCALAR, x, 3, dp, 2, probs, NULL, s), SS_ERR_DOMAIN);
  x[1] = -1.0f;
  CHECK_STATUS(ss_sample(dir, SS_IMPL_SCALAR, x, 3, dp, 2, probs, NULL, s), SS_ERR_DOMAIN);
  CHECK_STATUS(ss_sample(dir, SS_IMPL_SCALAR, x, 0, dp, 2, probs, NULL, s), SS_ERR_EMPTY);
}
