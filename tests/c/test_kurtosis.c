/*
 * The outlier measures (core/src/measure/kurtosis.c, max_median_ratio.c)
 * and the attention head measures built on them:
 *   - kurtosis equals a long-double two-pass reference within 1e-12
 *     relative (normal, uniform and heavy-tailed data, shifted by 1e4);
 *     closed forms: +-1 gives exactly 1, one outlier among n gives
 *     (n^2 - 3n + 3) / (n - 1); N(0,1) Philox draws give 3 within 5
 *     standard errors (sqrt(24 / N)); invariant under x -> a x + b; SIMD vs
 *     scalar within 1e-13; extreme finite values (3e38, 1e-42) stay finite
 *     and correct;
 *   - its VJP matches central differences of the float64 reference (1e-5
 *     relative to the largest entry), sums to 0 and is orthogonal to x;
 *   - max_median_ratio equals a sort-based reference exactly (odd and even
 *     n, ties, signs), SIMD and scalar bit for bit; a planted massive
 *     activation gives its ratio;
 *   - bad inputs get their status (constant vector, n = 1, zero median,
 *     NaN, Inf, an overflowing gradient);
 *   - ss_attention_head_measures equals the registry measures on each
 *     head's values, with the sink share and flag; and on a seeded
 *     "dormant head" (every score of the real keys below that of a neutral
 *     first key, the situation in which a head has nothing to attend to)
 *     softmax must put its mass on key 0 -- a sink -- while softpick puts
 *     exactly zero weight everywhere (sink rate 1/2 vs 0 over the two heads).
 *     That is the mechanism the softpick paper gives for its 0 % sink rate;
 *     its kurtosis claim (340 vs 33,510) is about the hidden states of
 *     trained models and cannot be reproduced by one untrained layer, so
 *     the kurtosis here is tested for correctness only.
 */
#include <stdlib.h>
#include <string.h>

#include "fd.h"
#include "harness.h"

static const ss_kernel_info *M(const char *name) { return ss_kernel_find(name, SS_FAMILY_MEASURE); }

static long double ref_kurtosis(const float *x, size_t n) {
  long double s = 0;
  for (size_t i = 0; i < n; i++) s += x[i];
  const long double mu = s / n;
  long double a2 = 0, a4 = 0;
  for (size_t i = 0; i < n; i++) {
    const long double d = x[i] - mu;
    a2 += d * d, a4 += d * d * d * d;
  }
  return (a4 / n) / ((a2 / n) * (a2 / n));
}

static double kurt_d(const double *x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += x[i];
  const double mu = s / n;
  double a2 = 0, a4 = 0;
  for (size_t i = 0; i < n; i++) {
    const double d = x[i] - mu;
    a2 += d * d, a4 += d * d * d * d;
  }
  return (a4 / n) / ((a2 / n) * (a2 / n));
}
static double kurt_of(const double *x, size_t n, const void *ctx) {
  (void)ctx;
  return kurt_d(x, n);
}

static double measure(const char *name, ss_impl impl, const float *x, size_t n, ss_status *st) {
  double v = NAN;
  *st = ss_measure(M(name), impl, x, NULL, n, NULL, 0, &v);
  return v;
}

/* kind 0 normal, 1 uniform, 2 heavy-tailed (normal / uniform) */
static void fill(float *x, size_t n, ss_rng *r, int kind, float shift) {
  for (size_t i = 0; i < n; i++) {
    double v = kind == 0 ? ss_rng_normal(r) : kind == 1 ? ss_rng_unif(r) : ss_rng_normal(r) / (0.05 + ss_rng_unif(r));
    x[i] = (float)(v + shift);
  }
}

/* Whether long double carries more than double's 53 bits at run time:
   valgrind runs x87 arithmetic in 64-bit doubles, where the reference would
   be no better than the kernel it checks (1e-12 apart at n = 3). */
static bool long_double_is_wider(void) {
  volatile long double one = 1.0L, tiny = 0x1p-60L;
  return one + tiny != one;
}

TEST(kurtosis_matches_long_double_reference) {
  if (!long_double_is_wider()) SKIP("long double has double's precision here (valgrind)");
  static const size_t ns[] = {2, 3, 5, 17, 64, 1000, 4099};
  ss_rng r = {41};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
    for (int kind = 0; kind < 3; kind++)
      for (int sh = 0; sh < 2; sh++) {
        const size_t n = ns[a];
        float *x = ss_test_alloc(n * 4);
        fill(x, n, &r, kind, sh ? 1e4f : 0.0f);
        const double want = (double)ref_kurtosis(x, n);
        double got[SS_IMPL_COUNT] = {0};
        FOR_EACH_IMPL(impl) {
          ss_status st;
          got[impl] = measure("kurtosis", impl, x, n, &st);
          CHECK_STATUS(st, SS_OK);
          CHECK(fabs(got[impl] - want) <= 1e-12 * want, "n=%zu kind %d shift %d %s: %.17g vs %.17g", n, kind, sh,
                ss_impl_name(impl), got[impl], want);
        }
        if (ss_impl_available(SS_IMPL_SIMD))
          CHECK(fabs(got[0] - got[1]) <= 1e-13 * want, "SIMD vs scalar %.17g %.17g", got[0], got[1]);
      }
}

TEST(kurtosis_closed_forms_and_invariance) {
  FOR_EACH_IMPL(impl) {
    ss_status st;
    const float pm[6] = {-1, 1, 1, -1, -1, 1};
    CHECK(measure("kurtosis", impl, pm, 6, &st) == 1.0 && st == SS_OK, "+-1 has kurtosis exactly 1");
    for (size_t n = 2; n <= 1024; n *= 4) {
      float *x = ss_test_alloc(n * 4);
      memset(x, 0, n * 4);
      x[n / 3] = 5.0f;
      const double want = ((double)n * n - 3.0 * n + 3.0) / (n - 1.0);
      const double k = measure("kurtosis", impl, x, n, &st);
      CHECK(st == SS_OK && fabs(k - want) <= 1e-13 * want, "one outlier in %zu: %.17g vs %.17g", n, k, want);
    }
    /* a x + b: the same kurtosis (to the rounding of the transformed floats) */
    ss_rng r = {7};
    float x[257], y[257];
    fill(x, 257, &r, 2, 0.0f);
    const double k0 = measure("kurtosis", impl, x, 257, &st);
    static const float ab[][2] = {{-3.0f, 0.5f}, {1e-20f, 0.0f}, {1e20f, 1e18f}};
    for (int t = 0; t < 3; t++) {
      for (int i = 0; i < 257; i++) y[i] = ab[t][0] * x[i] + ab[t][1];
      const double k1 = measure("kurtosis", impl, y, 257, &st);
      CHECK(st == SS_OK && fabs(k1 - k0) <= 1e-5 * k0, "a=%g b=%g: %.9g vs %.9g", ab[t][0], ab[t][1], k1, k0);
    }
  }
}

TEST(kurtosis_of_normal_draws_is_three) {
  const size_t N = (size_t)1 << 16;
  float *x = ss_test_alloc(N * 4);
  CHECK_STATUS(ss_normal(2024, 3, 0, N, x), SS_OK);
  const double se = sqrt(24.0 / N);
  FOR_EACH_IMPL(impl) {
    ss_status st;
    const double k = measure("kurtosis", impl, x, N, &st);
    CHECK(st == SS_OK && fabs(k - 3.0) < 5 * se, "normal: %.4f (5 se = %.4f)", k, 5 * se);
  }
  CHECK_STATUS(ss_uniform(2024, 4, 0, N, x), SS_OK);
  ss_status st;
  const double k = measure("kurtosis", ss_impl_default(), x, N, &st);
  CHECK(st == SS_OK && fabs(k - 1.8) < 0.03, "uniform: %.4f, want 1.8", k);
}

TEST(kurtosis_extremes_and_statuses) {
  FOR_EACH_IMPL(impl) {
    ss_status st;
    const float big[4] = {3e38f, -3e38f, 3e38f, 1e38f}, tiny[4] = {1e-42f, 0.0f, 0.0f, -1e-42f};
    for (int t = 0; t < 2; t++) {
      const float *x = t ? tiny : big;
      const double k = measure("kurtosis", impl, x, 4, &st);
      CHECK(st == SS_OK && isfinite(k) && fabs(k - (double)ref_kurtosis(x, 4)) <= 1e-12 * k, "extreme %d: %g", t, k);
    }
    const float c[3] = {2.5f, 2.5f, 2.5f};
    measure("kurtosis", impl, c, 3, &st);
    CHECK_STATUS(st, SS_ERR_DOMAIN);
    measure("kurtosis", impl, c, 1, &st);
    CHECK_STATUS(st, SS_ERR_DOMAIN);
    float bad[5] = {1, 2, NAN, 4, INFINITY};
    measure("kurtosis", impl, bad, 5, &st);
    CHECK_STATUS(st, SS_ERR_NAN);
    bad[2] = 0;
    measure("kurtosis", impl, bad, 5, &st);
    CHECK_STATUS(st, SS_ERR_NONFINITE);
    float dp[5];
    CHECK_STATUS(ss_measure_vjp(M("kurtosis"), impl, c, 3, NULL, 0, 1.0, dp), SS_ERR_DOMAIN);
    const float near[4] = {1.0f, 1.0f + 0x1p-23f, 1.0f, 1.0f}; /* sigma ~ 1e-7: dK/dx ~ 1e7 */
    CHECK_STATUS(ss_measure_vjp(M("kurtosis"), impl, near, 4, NULL, 0, 1e35, dp), SS_ERR_NONFINITE);
    CHECK_STATUS(ss_measure_vjp(M("kurtosis"), impl, near, 4, NULL, 0, 1.0, dp), SS_OK);
  }
}

TEST(kurtosis_vjp_matches_finite_differences) {
  ss_rng r = {99};
  static const size_t ns[] = {2, 3, 7, 16, 41};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
    const size_t n = ns[a];
    float *x = ss_test_alloc(n * 4), *dp = ss_test_alloc(n * 4);
    double *xd = ss_test_alloc(n * 8);
    fill(x, n, &r, 2, 0.3f);
    if (n == 2) x[1] = x[0] + 1.0f; /* two values: K = 1 for every x, gradient 0 */
    FOR_EACH_IMPL(impl) {
      for (double g = 1.0; g > -3.0; g -= 3.5) {
        CHECK_STATUS(ss_measure_vjp(M("kurtosis"), impl, x, n, NULL, 0, g, dp), SS_OK);
        double scale = 0, sum = 0, dot = 0, err = 0, mx = 0;
        for (size_t i = 0; i < n; i++) {
          xd[i] = x[i];
          scale = fmax(scale, fabs(xd[i]));
        }
        for (size_t i = 0; i < n; i++) {
          const double fd = g * fd_central64(kurt_of, NULL, xd, n, i, 1e-5 * scale);
          err = fmax(err, fabs(dp[i] - fd));
          mx = fmax(mx, fabs(fd));
          sum += dp[i], dot += dp[i] * xd[i];
        }
        double amax = 0;
        for (size_t i = 0; i < n; i++) amax = fmax(amax, fabs(dp[i]));
        CHECK(err <= 1e-5 * fmax(mx, 1e-3 * fabs(g)), "n=%zu %s g=%g: |dp - fd| %.3g (max %.3g)", n, ss_impl_name(impl), g, err, mx);
        /* n = 2, 3: K is constant (1 and 1.5), the gradient is rounding noise */
        const double unit = fmax(amax, 1e-9 * fabs(g) / scale);
        CHECK(fabs(sum) <= 1e-5 * unit * n && fabs(dot) <= 1e-5 * unit * scale * n, "n=%zu: sum %.3g, x.dp %.3g", n, sum, dot);
      }
    }
  }
}

static int cmp_f(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

static double ref_ratio(const float *x, size_t n) {
  float *a = malloc(n * sizeof *a);
  for (size_t i = 0; i < n; i++) a[i] = fabsf(x[i]);
  qsort(a, n, sizeof *a, cmp_f);
  const double med = n % 2 ? a[n / 2] : 0.5 * ((double)a[n / 2 - 1] + a[n / 2]);
  const double r = a[n - 1] / med;
  free(a);
  return r;
}

TEST(max_median_ratio_matches_sort_reference) {
  ss_rng r = {5};
  for (size_t n = 1; n <= 300; n += (n < 20 ? 1 : 37)) {
    for (int kind = 0; kind < 3; kind++) {
      float *x = ss_test_alloc(n * 4);
      for (size_t i = 0; i < n; i++) {
        /* kind 1: small integers with many ties, both signs */
        x[i] = kind == 1 ? (float)((int)(ss_rng_u64(&r) % 7) - 3) : (float)ss_rng_normal(&r) * (kind ? 1e-30f : 1.0f);
        if (kind == 1 && x[i] == 0.0f) x[i] = 2.0f;
      }
      const double want = ref_ratio(x, n);
      double got[SS_IMPL_COUNT] = {0};
      FOR_EACH_IMPL(impl) {
        ss_status st;
        got[impl] = measure("max_median_ratio", impl, x, n, &st);
        CHECK_STATUS(st, SS_OK);
        CHECK(got[impl] == want, "n=%zu kind %d %s: %.17g vs %.17g", n, kind, ss_impl_name(impl), got[impl], want);
      }
    }
  }
  /* a massive activation: 1001 N(0, 1) values and one at 2000 */
  float *x = ss_test_alloc(1002 * 4);
  CHECK_STATUS(ss_normal(11, 0, 0, 1001, x), SS_OK);
  x[1001] = 2000.0f;
  ss_status st;
  const double v = measure("max_median_ratio", ss_impl_default(), x, 1002, &st);
  CHECK(st == SS_OK && v == ref_ratio(x, 1002) && v > 1000.0, "massive activation ratio %g", v);
}

TEST(max_median_ratio_statuses) {
  FOR_EACH_IMPL(impl) {
    ss_status st;
    const float z[4] = {0, 0, 3, 0}, one[1] = {-3.0f};
    measure("max_median_ratio", impl, z, 4, &st);
    CHECK_STATUS(st, SS_ERR_DOMAIN);
    CHECK(measure("max_median_ratio", impl, one, 1, &st) == 1.0 && st == SS_OK, "one value: ratio 1");
    float bad[6] = {1, -INFINITY, 2, 3, NAN, 1};
    measure("max_median_ratio", impl, bad, 6, &st);
    CHECK_STATUS(st, SS_ERR_NAN);
    bad[4] = 1;
    measure("max_median_ratio", impl, bad, 6, &st);
    CHECK_STATUS(st, SS_ERR_NONFINITE);
    float dp[4];
    CHECK_STATUS(ss_measure_vjp(M("max_median_ratio"), impl, z, 4, NULL, 0, 1.0, dp), SS_ERR_NO_BACKWARD);
  }
}

TEST(attention_head_measures_equal_the_measures) {
  const size_t heads = 3, n = 9, m = 5, dv = 12, dvh = 4;
  float *out = ss_test_alloc(n * dv * 4), *attn = ss_test_alloc(heads * n * m * 4), *col = ss_test_alloc(n * dvh * 4);
  ss_rng r = {3};
  for (size_t t = 0; t < n * dv; t++) out[t] = (float)ss_rng_normal(&r);
  for (size_t i = 0; i < n; i++)
    for (size_t c = 0; c < dvh; c++) out[i * dv + 2 * dvh + c] = 1.5f; /* head 2: constant */
  for (size_t t = 0; t < heads * n * m; t++) attn[t] = (float)ss_rng_unif(&r);
  double head[12];
  CHECK_STATUS(ss_attention_head_measures(out, attn, heads, n, m, dv, 0.3, head), SS_OK);
  for (size_t h = 0; h < heads; h++) {
    for (size_t i = 0; i < n; i++) memcpy(col + i * dvh, out + i * dv + h * dvh, dvh * 4);
    ss_status st;
    const double k = measure("kurtosis", SS_IMPL_SCALAR, col, n * dvh, &st);
    if (h == 2) CHECK(st == SS_ERR_DOMAIN && head[8] == 0.0, "constant head: kurtosis sentinel 0");
    else CHECK(st == SS_OK && fabs(head[4 * h] - k) <= 1e-12 * k, "head %zu kurtosis %g vs %g", h, head[4 * h], k);
    const double rt = measure("max_median_ratio", SS_IMPL_SCALAR, col, n * dvh, &st);
    CHECK(st == SS_OK && head[4 * h + 1] == rt, "head %zu ratio %g vs %g", h, head[4 * h + 1], rt);
    double a0 = 0;
    for (size_t i = 0; i < n; i++) a0 += attn[(h * n + i) * m];
    CHECK(fabs(head[4 * h + 2] - a0 / n) <= 1e-15, "head %zu alpha_0", h);
    CHECK(head[4 * h + 3] == (a0 / n > 0.3), "head %zu sink flag", h);
  }
  CHECK_STATUS(ss_attention_head_measures(out, NULL, heads, n, m, dv, 0.3, head), SS_OK);
  CHECK(head[2] == 0 && head[3] == 0, "no attention matrix: alpha_0 = 0");
  CHECK_STATUS(ss_attention_head_measures(out, attn, 5, n, m, dv, 0.3, head), SS_ERR_LENGTH);
  CHECK_STATUS(ss_attention_head_measures(out, attn, heads, n, m, dv, 1.5, head), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_attention_head_measures(out, attn, heads, 0, m, dv, 0.3, head), SS_ERR_EMPTY);
  CHECK_STATUS(ss_attention_head_measures(NULL, attn, heads, n, m, dv, 0.3, head), SS_ERR_NULL);
  attn[7] = NAN;
  CHECK_STATUS(ss_attention_head_measures(out, attn, heads, n, m, dv, 0.3, head), SS_ERR_NAN);
}

TEST(softpick_has_no_sink_where_softmax_must_have_one) {
  /* head 0 is dormant: every query q_i = 5 e_0 + noise, every real key
     k_j = -5 e_0 + noise (j >= 1), and key 0 -- the first token -- is the
     zero vector (score exactly 0). head 1 is an ordinary random head. */
  const size_t n = 32, m = 32, d = 16, heads = 2, dh = 8;
  float *q = ss_test_alloc(n * d * 4), *k = ss_test_alloc(m * d * 4), *v = ss_test_alloc(m * d * 4);
  float *out = ss_test_alloc(n * d * 4), *attn = ss_test_alloc(heads * n * m * 4), *scratch = ss_test_alloc(4 * m * 4);
  ss_rng r = {2025};
  for (size_t t = 0; t < n * d; t++) q[t] = (float)(0.5 * ss_rng_normal(&r));
  for (size_t t = 0; t < m * d; t++) k[t] = (float)(0.5 * ss_rng_normal(&r)), v[t] = (float)ss_rng_normal(&r);
  for (size_t i = 0; i < n; i++) q[i * d] += 5.0f;
  for (size_t j = 1; j < m; j++) k[j * d] -= 5.0f;
  for (size_t t = 0; t < dh; t++) k[t] = 0.0f;
  double rate[2];
  for (int s = 0; s < 2; s++) {
    const ss_kernel_info *norm = ss_kernel_find(s ? "softpick" : "softmax", SS_FAMILY_NORMALIZER);
    const ss_attention_io io = {q, k, v, n, m, d, d, heads, NULL, norm, NULL, 0, out, attn, scratch};
    CHECK_STATUS(ss_attend(ss_kernel_find("sdpa", SS_FAMILY_ATTENTION), ss_impl_default(), &io,
                           (double[]){heads, 0, 0}, 3), SS_OK);
    double head[8];
    CHECK_STATUS(ss_attention_head_measures(out, attn, heads, n, m, d, 0.3, head), SS_OK);
    rate[s] = (head[3] + head[7]) / heads;
    if (s == 0) CHECK(head[2] > 0.9 && head[6] < 0.3, "softmax: dormant head alpha_0 %.3f, random head %.3f", head[2], head[6]);
    if (s == 1) {
      CHECK(head[2] == 0.0 && head[6] < 0.3, "softpick: dormant head alpha_0 %.3g, random head %.3f", head[2], head[6]);
      for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < dh; c++) CHECK(out[i * d + c] == 0.0f, "softpick's dormant head outputs exactly 0");
    }
  }
  CHECK(rate[0] == 0.5 && rate[1] == 0.0, "sink rate softmax %.2f, softpick %.2f", rate[0], rate[1]);
}
