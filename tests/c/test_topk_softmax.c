/*
 * topk_softmax: softmax over the k largest logits and every logit tied with
 * the k-th; exactly 0 elsewhere.
 *
 * Bounds (measured in brackets):
 *   vs a float64 reference (qsort for the k-th value, softmax in double
 *   over {x >= v}): max rel err <= TOPK_REL = 2e-6 on outputs >= 1e-30, as
 *   softmax                                                          [4.7e-7]
 *   support == #{x >= v} exactly, off-support outputs exactly +0
 *   k >= n: bitwise equal to the softmax kernel of the same impl
 *   -Inf padding: padded outputs exactly 0, the others within TOPK_REL
 *   VJP vs central differences of the float64 model (support fixed: the
 *   k-th and (k+1)-th values >= 1e-3 apart): as softmax's VJP test
 */
#include <string.h>

#include "common/select.h"
#include "harness.h"
#include "reference.h"
#include "sparse_testing.h"

#define TOPK_REL 2e-6

static const ss_kernel_info *K(void) {
  return ss_kernel_find("topk_softmax", SS_FAMILY_NORMALIZER);
}

/* The k-th largest value of x (qsort of a copy; independent of select.c). */
static float kth_largest(const float *x, size_t n, size_t k) {
  float *s = ss_test_alloc(n * 4);
  memcpy(s, x, n * 4);
  qsort(s, n, 4, sp_desc_float);
  const float v = s[k - 1];
  ss_test_free(s);
  return v;
}

/* out = softmax in double over {x_i >= v}, 0 elsewhere; returns |S|. */
static size_t ref_topk(const float *x, size_t n, size_t k, double *out) {
  const float v = kth_largest(x, n, k);
  float *m = ss_test_alloc(n * 4);
  size_t c = 0;
  for (size_t i = 0; i < n; i++) {
    m[i] = x[i] >= v ? x[i] : -INFINITY;
    c += x[i] >= v && x[i] != -INFINITY;
  }
  ref_softmax(m, n, 1.0, out);
  ss_test_free(m);
  return c;
}

TEST(topk_softmax_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 1 && k->has_backward && k->output == SS_OUTPUT_PROBS, "descriptor");
  const ss_param_info *p = &k->params[0];
  CHECK(strcmp(p->name, "k") == 0 && p->type == SS_PARAM_INT && p->min == 1.0 && !p->min_open &&
            p->max == (double)SS_MAX_N && p->def == 5.0 && p->ui_min == 1.0 && p->ui_max == 64.0,
        "param info");
}

/* One row: reference, exact zeros, support, sum. Returns max rel err. */
static double check_row(const float *x, size_t n, size_t k, const char *what) {
  float *y = ss_test_alloc(n * 4);
  double *ref = ss_test_alloc(n * 8), worst = 0.0;
  const size_t c = ref_topk(x, n, k, ref);
  const double kk = (double)k;
  FOR_EACH_IMPL(impl) {
    if (ss_normalize(K(), impl, x, n, &kk, 1, y) != SS_OK) {
      ss_test_fail(__FILE__, __LINE__, "%s: status", what);
      return 1.0;
    }
    size_t pos = 0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
      if (ref[i] == 0.0) {
        if (y[i] != 0.0f || signbit(y[i])) {
          ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu k=%zu: y[%zu] = %g off the support",
                       ss_impl_name(impl), what, n, k, i, y[i]);
          return 1.0;
        }
        continue;
      }
      pos++;
      sum += y[i];
      const double r =
          ref[i] < 1e-30 ? fabs(y[i] - ref[i]) / 1e-30 * TOPK_REL : fabs(y[i] - ref[i]) / ref[i];
      if (r > worst) worst = r;
    }
    if (pos != c || fabs(sum - 1.0) > 4e-6) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu k=%zu: support %zu want %zu, sum %.9g",
                   ss_impl_name(impl), what, n, k, pos, c, sum);
      return 1.0;
    }
  }
  ss_test_free(y);
  ss_test_free(ref);
  return worst;
}

TEST(topk_softmax_matches_float64_reference) {
  static const size_t ns[] = {1, 2, 3, 5, 8, 16, 17, 37, 64, 100, 1000, 4099};
  double worst = 0.0;
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4);
    const size_t ks[] = {1, 2, 5, n / 2 + 1, n - 1 ? n - 1 : 1, n};
    for (int kind = 0; kind < SP_KINDS; kind++) {
      sp_fill(x, n, kind, 500 + 13 * n + kind);
      if (kind == SP_MASKED && n == 1) x[0] = 0.5f;
      for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
        if (ks[j] > n) continue;
        const double r = check_row(x, n, ks[j], sp_kind_name[kind]);
        CHECK(r <= TOPK_REL, "%s n=%zu k=%zu: rel err %.3g", sp_kind_name[kind], n, ks[j], r);
        if (r > worst) worst = r;
      }
    }
  }
  CHECK(worst <= TOPK_REL, "worst %.3g", worst);
}

/* Ties at the k-th value are all kept, and equal logits get bitwise equal
   probabilities: k = 2 of [3, 1, 1, 0] keeps three entries. */
TEST(topk_softmax_ties_kept) {
  const float x[4] = {3, 1, 1, 0};
  float y[4];
  const double k2 = 2;
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, 4, &k2, 1, y), SS_OK);
    const double e = exp(-2.0), want1 = 1.0 / (1.0 + 2.0 * e);
    CHECK(y[1] == y[2] && y[3] == 0.0f && fabs(y[0] - want1) <= 1e-6 * want1 &&
              fabs(y[1] - e * want1) <= 1e-6 * e * want1,
          "%s: [%g %g %g %g]", ss_impl_name(impl), y[0], y[1], y[2], y[3]);
  }
  /* many ties: integer logits, every k */
  enum { N = 203 };
  float xi[N], yi[N];
  ss_rng r = {21};
  for (size_t i = 0; i < N; i++) xi[i] = (float)(ss_rng_u64(&r) % 6);
  for (size_t k = 1; k <= N; k += 7) {
    const float v = kth_largest(xi, N, k);
    size_t want = 0;
    for (size_t i = 0; i < N; i++) want += xi[i] >= v;
    const double kk = (double)k;
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, xi, N, &kk, 1, yi), SS_OK);
      size_t got = 0;
      float by_value[6] = {-1, -1, -1, -1, -1, -1};
      for (size_t i = 0; i < N; i++) {
        got += yi[i] > 0.0f;
        const int c = (int)xi[i];
        if (by_value[c] < 0) by_value[c] = yi[i];
        CHECK(yi[i] == by_value[c], "%s k=%zu: logit %d gets %g and %g", ss_impl_name(impl), k, c,
              yi[i], by_value[c]);
      }
      CHECK(got == want && got >= k, "%s k=%zu: support %zu want %zu", ss_impl_name(impl), k, got,
            want);
    }
  }
}

/* k = 1: the argmax gets exactly 1; tied maxima share equally. */
TEST(topk_softmax_k1) {
  enum { N = 37 };
  float x[N], y[N];
  st_fill(x, N, 3, -5, 5);
  x[11] = 9.0f;
  const double k1 = 1;
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, N, &k1, 1, y), SS_OK);
    for (size_t i = 0; i < N; i++)
      CHECK(y[i] == (i == 11 ? 1.0f : 0.0f), "%s y[%zu]=%g", ss_impl_name(impl), i, y[i]);
    x[30] = 9.0f;
    CHECK_STATUS(ss_normalize(K(), impl, x, N, &k1, 1, y), SS_OK);
    CHECK(y[11] == 0.5f && y[30] == 0.5f, "%s tied maxima %g %g", ss_impl_name(impl), y[11], y[30]);
    x[30] = 0.0f;
  }
}

/* k >= #finite: every finite logit is kept; k = n is softmax bitwise. */
TEST(topk_softmax_k_n_is_softmax) {
  static const size_t ns[] = {1, 3, 16, 17, 67, 1000};
  const ss_kernel_info *S = ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4), *b = ss_test_alloc(n * 4);
    st_fill(x, n, 70 + n, -20, 20);
    if (n > 2) x[1] = -INFINITY;
    const double kn = (double)n;
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, n, &kn, 1, a), SS_OK);
      CHECK_STATUS(ss_normalize(S, impl, x, n, NULL, 0, b), SS_OK);
      CHECK(memcmp(a, b, n * 4) == 0, "%s n=%zu: k = n differs from softmax", ss_impl_name(impl),
            n);
      if (n > 2) { /* n - 1 finite logits: k = n - 1 keeps them all too */
        const double k1 = (double)(n - 1);
        CHECK_STATUS(ss_normalize(K(), impl, x, n, &k1, 1, a), SS_OK);
        for (size_t i = 0; i < n; i++)
          CHECK(fabs(a[i] - b[i]) <= 1e-6 * b[i] + 1e-37, "%s n=%zu k=n-1: y[%zu]",
                ss_impl_name(impl), n, i);
      }
    }
  }
}

/* Fewer than k finite logits: all finite kept, -Inf exactly 0. */
TEST(topk_softmax_fewer_finite_than_k) {
  enum { N = 40 };
  float x[N], y[N];
  for (size_t i = 0; i < N; i++) x[i] = -INFINITY;
  x[3] = 1.0f;
  x[17] = -2.0f;
  x[38] = 0.5f;
  const double k = 10;
  double ref[N];
  ref_softmax(x, N, 1.0, ref);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, N, &k, 1, y), SS_OK);
    for (size_t i = 0; i < N; i++)
      CHECK(fabs(y[i] - ref[i]) <= TOPK_REL * ref[i] &&
                (ref[i] > 0 || (y[i] == 0.0f && !signbit(y[i]))),
            "%s y[%zu] = %g ref %g", ss_impl_name(impl), i, y[i], ref[i]);
  }
}

/* -Inf padding: the padded entries are 0, the others unchanged (up to the
   sum's rounding order). */
TEST(topk_softmax_inf_padding) {
  enum { N = 61, NP = 2 * N + 5 };
  float x[N], xp[NP], y[N], yp[NP];
  size_t at[N];
  for (int kind = 0; kind < SP_MASKED; kind++) {
    sp_fill(x, N, kind, 90 + kind);
    ss_rng r = {7};
    size_t j = 0;
    for (size_t i = 0; i < NP; i++) {
      if (j == N || (NP - i > N - j && ss_rng_u64(&r) % 2))
        xp[i] = -INFINITY;
      else {
        at[j] = i;
        xp[i] = x[j++];
      }
    }
    static const double ks[] = {1, 4, 20, 61};
    for (size_t t = 0; t < 4; t++) {
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(K(), impl, x, N, &ks[t], 1, y), SS_OK);
        CHECK_STATUS(ss_normalize(K(), impl, xp, NP, &ks[t], 1, yp), SS_OK);
        for (size_t i = 0, q = 0; i < NP; i++) {
          if (q < N && at[q] == i) {
            CHECK(fabs(yp[i] - y[q]) <= TOPK_REL * y[q], "%s %s k=%g: y[%zu] %g vs %g",
                  ss_impl_name(impl), sp_kind_name[kind], ks[t], q, yp[i], y[q]);
            q++;
          } else {
            CHECK(yp[i] == 0.0f && !signbit(yp[i]), "pad %zu: %g", i, yp[i]);
          }
        }
      }
    }
  }
}

/* k = 0 and non-integers are SS_ERR_PARAM_RANGE (registry); k > n is
   SS_ERR_LENGTH (kernel), through ss_normalize and the VJP; y untouched. */
TEST(topk_softmax_length_error_first) {
  /* (invalid k, k > n: the conformance tester) k > n with bad data: the
     length error comes first; the direct call checks k alike */
  enum { N = 9 };
  float x[N], y[N];
  st_fill(x, N, 5, -1, 1);
  const double big = N + 1;
  x[2] = NAN;
  FOR_EACH_IMPL(impl) CHECK_STATUS(ss_normalize(K(), impl, x, N, &big, 1, y), SS_ERR_LENGTH);
  x[2] = 0.0f;
  CHECK_STATUS(ss_topk_softmax(x, N, 0, y), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_topk_softmax(x, N, N + 1, y), SS_ERR_LENGTH);
}

/* float64 model with k fixed (param): softmax over the k largest. */
static void model_topk(const double *x, size_t n, double k, double *out) {
  double *s = ss_test_alloc(n * 8);
  memcpy(s, x, n * 8);
  qsort(s, n, 8, sp_desc_double);
  const double v = s[(size_t)k - 1];
  double m = -INFINITY, sum = 0.0;
  for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  for (size_t i = 0; i < n; i++) {
    out[i] = x[i] >= v && x[i] != -INFINITY ? exp(x[i] - m) : 0.0;
    sum += out[i];
  }
  for (size_t i = 0; i < n; i++) out[i] /= sum;
  ss_test_free(s);
}

TEST(topk_softmax_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *g = ss_test_alloc(n * 4),
          *dx = ss_test_alloc(n * 4);
    double *fd = ss_test_alloc(n * 8);
    /* distinct logits on a 0.01 grid: the k-th and (k+1)-th differ by >= 0.01 */
    for (size_t i = 0; i < n; i++) x[i] = 0.01f * (float)((i * 37) % 101) - 0.5f;
    st_fill(g, n, 80 + n, -2.0f, 2.0f);
    double G = 0.0;
    for (size_t i = 0; i < n; i++) G += fabs(g[i]);
    for (size_t k = 1; k <= n; k += n / 4 + 1) {
      const double kk = (double)k;
      st_fd_vjp(model_topk, x, g, n, kk, 1e-5, fd);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(K(), impl, x, n, &kk, 1, y), SS_OK);
        CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, n, &kk, 1, dx), SS_OK);
        for (size_t j = 0; j < n; j++) {
          const double tol = 8e-6 * y[j] * (fabs(g[j]) + G) + 1e-9 * G;
          CHECK(fabs(dx[j] - fd[j]) <= tol, "%s n=%zu k=%zu j=%zu: dx=%.9g fd=%.9g",
                ss_impl_name(impl), n, k, j, dx[j], fd[j]);
          if (y[j] == 0.0f) CHECK(dx[j] == 0.0f, "off-support dx[%zu] = %g", j, dx[j]);
        }
      }
    }
  }
}

/* n = 2^20 once, both impls, k = 64: reference, support, sum. */
TEST(topk_softmax_large_n) {
  const size_t n = (size_t)1 << 20;
  float *x = ss_test_alloc(n * 4);
  sp_fill(x, n, SP_UNIFORM50, 4040);
  CHECK(check_row(x, n, 64, "2^20") <= TOPK_REL, "2^20 k=64");
  sp_fill(x, n, SP_INT_TIES, 4041);
  CHECK(check_row(x, n, 1000, "2^20 ties") <= TOPK_REL, "2^20 ties k=1000");
}

/* The direct call takes k as a size_t (ss_normalize as a double). */
TEST(topk_softmax_direct_call_support) {
  enum { N = 19 };
  float x[N], a[N];
  st_fill(x, N, 15, -4, 4);
  CHECK_STATUS(ss_topk_softmax(x, N, 4, a), SS_OK);
  size_t pos = 0;
  for (size_t i = 0; i < N; i++) pos += a[i] > 0;
  CHECK(pos == 4, "support %zu", pos);
}
