/*
 * Losses: cross_entropy, sparsemax_loss, entmax15_loss, entmax_bisect_loss.
 *
 * Held to (Blondel, Martins & Niculae 2020):
 *   - L >= 0, and L == 0 exactly with grad == 0 exactly when the prediction
 *     is already one-hot on the target (the Fenchel-Young losses; for
 *     cross-entropy L only tends to 0);
 *   - L against a float64 reference written here (alpha-entmax by bisection
 *     in double to 1e-15, Tsallis entropy, LSE): |L - L64| <= LOSS_TOL
 *     (1e-5 + 1e-5 L64; the projection's float32 output enters L through
 *     sum p (x - x_t), with |x| <= 4 here);
 *   - grad = p64 - e_t within GRAD_TOL = 2e-5 (the projection's accuracy);
 *   - grad against central differences of the kernel's own loss (float
 *     steps h ~ 1e-2 exactly representable, FD error ~ 1e-3 from the float
 *     projection): |grad - fd| <= 3e-3 away from support changes;
 *   - SIMD vs scalar within 2e-6 on L and on grad;
 *   - the alpha = 2 / 1.5 bisect loss equals the exact sparsemax / entmax15
 *     loss within 1e-5;
 *   - bad input: target >= n (SS_ERR_LENGTH), masked target, NaN logits, alpha <= 1, NULL
 *     grad, a normalizer passed to ss_loss.
 */
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"

#define LOSS_TOL(l64) (1e-5 + 1e-5 * fabs(l64))
#define GRAD_TOL 2e-5

typedef struct loss_case {
  const char *name;
  double alpha; /* 1 = cross-entropy (Shannon) */
  size_t nparams;
} loss_case;

static const loss_case CASES[] = {
    {"cross_entropy", 1.0, 1},
    {"sparsemax_loss", 2.0, 1},
    {"entmax15_loss", 1.5, 1},
    {"entmax_bisect_loss", 1.5, 2},
    {"entmax_bisect_loss", 1.25, 2},
    {"entmax_bisect_loss", 3.0, 2},
};
#define NCASES (sizeof CASES / sizeof CASES[0])

static const ss_kernel_info *KL(const char *name) {
  return ss_kernel_find(name, SS_FAMILY_LOSS);
}

/* alpha-entmax in double: p_i = [(a-1) x_i - tau]_+^(1/(a-1)), sum p = 1,
   tau by 200 bisection steps on [max - 1, max - n^(1-a)] (scaled logits). */
static void entmax64(const double *x, size_t n, double alpha, double *p) {
  if (alpha == 1.0) {
    st_softmax64(x, n, 1.0, p);
    return;
  }
  const double am1 = alpha - 1.0;
  double m = -INFINITY;
  for (size_t i = 0; i < n; i++) m = fmax(m, am1 * x[i]);
  double lo = m - 1.0, hi = m - pow((double)n, -am1);
  for (int it = 0; it < 200; it++) {
    const double tau = 0.5 * (lo + hi);
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
      const double u = am1 * x[i] - tau;
      s += u > 0 ? pow(u, 1.0 / am1) : 0.0;
    }
    if (s >= 1.0) lo = tau; else hi = tau;
  }
  double s = 0.0;
  for (size_t i = 0; i < n; i++) {
    const double u = am1 * x[i] - lo;
    p[i] = u > 0 ? pow(u, 1.0 / am1) : 0.0;
    s += p[i];
  }
  for (size_t i = 0; i < n; i++) p[i] /= s;
}

/* L64 and p64 of the Fenchel-Young loss (alpha = 1: cross-entropy). */
static double loss64(const double *x, size_t n, size_t t, double alpha, double *p) {
  entmax64(x, n, alpha, p);
  if (alpha == 1.0) return st_logsumexp64(x, n) - x[t];
  double dot = 0.0, pw = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] == 0.0) continue;
    dot += p[i] * (x[i] - x[t]);
    pw += pow(p[i], alpha);
  }
  return dot + (1.0 - pw) / (alpha * (alpha - 1.0));
}

static void case_params(const loss_case *c, double target, double *params) {
  params[0] = target;
  params[1] = c->alpha;
}

TEST(loss_descriptors) {
  for (size_t c = 0; c < NCASES; c++) {
    const ss_kernel_info *k = KL(CASES[c].name);
    CHECK(k != NULL, "%s not registered", CASES[c].name);
    CHECK(k->family == SS_FAMILY_LOSS && k->has_backward && k->nparams == CASES[c].nparams,
          "%s descriptor", k->name);
    CHECK(strcmp(k->params[0].name, "target") == 0 && k->params[0].type == SS_PARAM_INT,
          "%s: first param is the target index", k->name);
    CHECK(k->loss[SS_IMPL_SCALAR] != NULL, "%s scalar", k->name);
  }
}

/* L and grad against the float64 reference, L >= 0, both impls. */
TEST(loss_matches_float64_reference) {
  enum { N = 67 };
  float x[N], grad[N];
  double xd[N], p[N], params[2];
  for (size_t c = 0; c < NCASES; c++) {
    const ss_kernel_info *k = KL(CASES[c].name);
    CHECK(k != NULL, "%s not registered", CASES[c].name);
    for (uint64_t seed = 1; seed <= 6; seed++) {
      const size_t n = (size_t)(seed * 11) % N + 1;
      st_fill(x, n, seed, -4, 4);
      for (size_t i = 0; i < n; i++) xd[i] = x[i];
      const size_t t = (size_t)(seed * 7) % n;
      const double l64 = loss64(xd, n, t, CASES[c].alpha, p);
      case_params(&CASES[c], (double)t, params);
      FOR_EACH_IMPL(impl) {
        double l = -1;
        CHECK_STATUS(ss_loss(k, impl, x, n, params, k->nparams, &l, grad), SS_OK);
        CHECK(l >= 0.0, "%s n=%zu: loss %g < 0", k->name, n, l);
        CHECK(fabs(l - l64) <= LOSS_TOL(l64), "%s %s n=%zu: loss %.9g vs %.9g",
              k->name, ss_impl_name(impl), n, l, l64);
        for (size_t i = 0; i < n; i++) {
          const double want = p[i] - (i == t ? 1.0 : 0.0);
          CHECK(fabs(grad[i] - want) <= GRAD_TOL, "%s %s n=%zu: grad[%zu] %.8g vs %.8g",
                k->name, ss_impl_name(impl), n, i, grad[i], want);
        }
      }
    }
  }
}

/* The kernel's own loss at x (one check counted per call, as a status
   check); NAN when the call fails. */
typedef struct {
  const ss_kernel_info *k;
  ss_impl impl;
  const double *params;
  float *scratch;
} loss_ctx;
static double loss_of(const float *x, size_t n, const void *ctx) {
  const loss_ctx *c = ctx;
  double l;
  ss_test_count(1);
  return ss_loss(c->k, c->impl, x, n, c->params, c->k->nparams, &l, c->scratch) == SS_OK ? l : NAN;
}

/* dL/dx from central differences of the kernel's own (double) loss. Steps
   are powers of two so x +- h is exact in float for |x| < 4. */
TEST(loss_gradient_matches_finite_differences) {
  enum { N = 9 };
  const float x0[N] = {1.3f, -0.7f, 0.2f, 2.1f, -1.9f, 0.9f, 1.7f, -0.1f, 0.45f};
  float x[N], grad[N], scratch[N];
  double params[2];
  const float h = 0x1p-7f;
  for (size_t c = 0; c < NCASES; c++) {
    const ss_kernel_info *k = KL(CASES[c].name);
    CHECK(k != NULL, "%s not registered", CASES[c].name);
    for (size_t t = 0; t < N; t += 4) {
      case_params(&CASES[c], (double)t, params);
      FOR_EACH_IMPL(impl) {
        double l;
        CHECK_STATUS(ss_loss(k, impl, x0, N, params, k->nparams, &l, grad), SS_OK);
        memcpy(x, x0, sizeof x);
        const loss_ctx lc = {k, impl, params, scratch};
        for (size_t j = 0; j < N; j++) {
          const double fd = fd_central32(loss_of, &lc, x, N, j, h);
          CHECK(fabs(fd - grad[j]) <= 3e-3, "%s %s t=%zu: dL/dx_%zu %.6g vs fd %.6g",
                k->name, ss_impl_name(impl), t, j, grad[j], fd);
        }
      }
    }
  }
}

/* One-hot predictions: the Fenchel-Young losses are exactly 0 with an
   exactly zero gradient; cross-entropy is > 0 and tiny. The margin is
   what makes alpha-entmax one-hot: (alpha - 1)(x_t - x_j) >= 1. */
TEST(loss_zero_exactly_at_one_hot) {
  enum { N = 33 };
  float x[N], grad[N];
  double params[2];
  for (size_t c = 0; c < NCASES; c++) {
    const ss_kernel_info *k = KL(CASES[c].name);
    CHECK(k != NULL, "%s not registered", CASES[c].name);
    const double alpha = CASES[c].alpha;
    const float margin = alpha == 1.0 ? 30.0f : (float)(1.5 / (alpha - 1.0));
    for (size_t t = 0; t < N; t += 8) {
      st_fill(x, N, 40 + t, -1, 0);
      x[t] = margin;
      case_params(&CASES[c], (double)t, params);
      FOR_EACH_IMPL(impl) {
        double l = -1;
        CHECK_STATUS(ss_loss(k, impl, x, N, params, k->nparams, &l, grad), SS_OK);
        if (alpha == 1.0) {
          CHECK(l >= 0.0 && l < 1e-11, "%s: one-hot loss %g", k->name, l);
          continue;
        }
        CHECK(l == 0.0, "%s %s t=%zu: loss %g, want exactly 0", k->name,
              ss_impl_name(impl), t, l);
        for (size_t i = 0; i < N; i++)
          CHECK(grad[i] == 0.0f, "%s: grad[%zu] = %g, want exactly 0", k->name, i, grad[i]);
      }
    }
  }
}

/* entmax_bisect_loss at alpha = 2 and 1.5 is the exact sparsemax / entmax15 loss. */
TEST(loss_bisect_matches_exact_losses) {
  enum { N = 40 };
  float x[N], g0[N], g1[N];
  const ss_kernel_info *kb = KL("entmax_bisect_loss");
  CHECK(kb != NULL, "entmax_bisect_loss not registered");
  const char *exact[2] = {"sparsemax_loss", "entmax15_loss"};
  const double alphas[2] = {2.0, 1.5};
  for (int e = 0; e < 2; e++) {
    const ss_kernel_info *ke = KL(exact[e]);
    CHECK(ke != NULL, "%s not registered", exact[e]);
    st_fill(x, N, 91 + e, -2, 2);
    const double pe[1] = {3}, pb[2] = {3, alphas[e]};
    FOR_EACH_IMPL(impl) {
      double l0, l1;
      CHECK_STATUS(ss_loss(ke, impl, x, N, pe, 1, &l0, g0), SS_OK);
      CHECK_STATUS(ss_loss(kb, impl, x, N, pb, 2, &l1, g1), SS_OK);
      CHECK(fabs(l0 - l1) <= 1e-5, "%s vs bisect: %.9g vs %.9g", exact[e], l0, l1);
      for (size_t i = 0; i < N; i++)
        CHECK(fabs(g0[i] - g1[i]) <= 1e-5, "%s vs bisect grad[%zu]", exact[e], i);
    }
  }
}

/* -Inf logits away from the target change nothing; a masked target is an
   error (its loss is infinite). */
TEST(loss_masked_entries) {
  enum { N = 12 };
  float x[N + 3], g0[N + 3], g1[N + 3];
  double params[2];
  for (size_t c = 0; c < NCASES; c++) {
    const ss_kernel_info *k = KL(CASES[c].name);
    CHECK(k != NULL, "%s not registered", CASES[c].name);
    st_fill(x, N, 5, -2, 2);
    case_params(&CASES[c], 2, params);
    FOR_EACH_IMPL(impl) {
      double l0, l1;
      CHECK_STATUS(ss_loss(k, impl, x, N, params, k->nparams, &l0, g0), SS_OK);
      x[N] = x[N + 1] = x[N + 2] = -INFINITY;
      CHECK_STATUS(ss_loss(k, impl, x, N + 3, params, k->nparams, &l1, g1), SS_OK);
      CHECK(fabs(l0 - l1) <= 1e-6 * (1 + l0), "%s: padded loss %g vs %g", k->name, l1, l0);
      for (size_t i = 0; i < N; i++)
        CHECK(fabs(g0[i] - g1[i]) <= 1e-6, "%s: padded grad[%zu]", k->name, i);
      for (size_t i = N; i < N + 3; i++)
        CHECK(g1[i] == 0.0f, "%s: masked grad[%zu] = %g", k->name, i, g1[i]);
      x[2] = -INFINITY;
      CHECK_STATUS(ss_loss(k, impl, x, N + 3, params, k->nparams, &l1, g1), SS_ERR_DOMAIN);
      st_fill(x, N, 5, -2, 2);
    }
  }
}
