/*
 * asentmax: y = entmax_alpha(c x), c = delta + beta (log n)^gamma, n = the
 * number of entries that are not -Inf.
 *
 * Stated bounds: against the float64 entmax of c x, as entmax
 * (|y - ref| <= 1e-6 for alpha <= 2, plus 2 s 2^-23 above; the float A =
 * (alpha-1) c adds one rounding of d); VJP and parameter VJP from
 * y = float(ref) against central differences of the float64 model, the
 * entmax bounds times the chain factors (c for dx; 1, L^gamma,
 * beta L^gamma log L for delta, beta, gamma).
 *
 * The length property: tau >= (alpha-1) c max x - 1, so entry i can only be
 * in the support when x_max - x_i < 1 / ((alpha-1) c). A key at 1 over
 * distractors uniform in [-1, 1 - gap] is therefore alone as soon as
 * (alpha-1) c(n) gap >= 1 -- at the defaults (c = 1 + ln n, alpha = 1.5)
 * n >= 21 for gap 0.5, n >= 8103 for gap 0.2 -- and before that the support
 * is at most 1 + #{x_i > 1 - 1/((alpha-1) c(n))}. Plain entmax (c = 1)
 * keeps a window of width 2 that holds every distractor; its support grows
 * with n. Measured bound ratios: forward 0.3, VJP 0.3, parameter VJP 0.3.
 */
#include <string.h>

#include "entmax_reference.h"
#include "forward_sweep.h"
#include "harness.h"
#include "softmax_testing.h"

static const ss_kernel_info *KA(void) { return ss_kernel_find("asentmax", SS_FAMILY_NORMALIZER); }
static const ss_kernel_info *KH(void) {
  return ss_kernel_find("entmax_halley", SS_FAMILY_NORMALIZER);
}

static double scale_of(const double *pr, size_t n_eff) {
  return n_eff < 2 ? 1.0 : pr[1] + pr[2] * pow(log((double)n_eff), pr[3]);
}

/* float64 model: out = entmax_alpha(c x) for the params in MODEL. */
static double MODEL[4];
static void model_as(const double *x, size_t n, double unused, double *out) {
  (void)unused;
  size_t ne = 0;
  for (size_t i = 0; i < n; i++) ne += x[i] != -INFINITY;
  const double c = scale_of(MODEL, ne);
  double *z = ss_test_alloc(n * sizeof *z);
  for (size_t i = 0; i < n; i++) z[i] = x[i] == -INFINITY ? -INFINITY : c * x[i];
  er_entmax64(z, n, MODEL[0], out);
  ss_test_free(z);
}
static double model_as_f(const float *x, size_t n, const double *pr, double *out) {
  memcpy(MODEL, pr, sizeof MODEL);
  double *z = ss_test_alloc(n * sizeof *z);
  size_t ne = 0;
  for (size_t i = 0; i < n; i++) ne += x[i] != -INFINITY;
  const double c = scale_of(pr, ne);
  for (size_t i = 0; i < n; i++) z[i] = x[i] == -INFINITY ? -INFINITY : c * (double)x[i];
  const double mg = er_entmax64(z, n, pr[0], out);
  ss_test_free(z);
  return mg;
}

static double bound_at(double alpha, double ref) {
  if (alpha <= 2.0 || ref <= 0.0) return 1e-6;
  return 1e-6 + 2.0 * pow(ref, 2.0 - alpha) * 0x1p-23;
}

static const double psets[][4] = {
    {1.5, 1.0, 1.0, 1.0}, {2.0, 0.5, 2.0, 0.5}, {1.25, 1.0, 0.3, -1.0},
    {3.0, 2.0, 0.0, 1.0}, {1.5, 0.0, 1.0, 2.0}, {1.1, 0.2, 0.1, -2.0},
};
#define NPS (sizeof psets / sizeof psets[0])

TEST(asentmax_descriptor) {
  const ss_kernel_info *k = KA();
  CHECK(k && k->nparams == 4 && k->has_backward && k->has_param_backward &&
            k->output == SS_OUTPUT_PROBS,
        "descriptor");
  static const char *names[4] = {"alpha", "delta", "beta", "gamma"};
  static const double mins[4] = {1.0, 0.0, 0.0, -2.0}, maxs[4] = {10.0, 100.0, 100.0, 2.0};
  static const double defs[4] = {1.5, 1.0, 1.0, 1.0};
  for (int i = 0; i < 4; i++) {
    const ss_param_info *p = &k->params[i];
    CHECK(strcmp(p->name, names[i]) == 0 && p->type == SS_PARAM_FLOAT && p->min == mins[i] &&
              p->max == maxs[i] && p->min_open == (i == 0) && !p->max_open && p->def == defs[i],
          "param %d", i);
  }
}

TEST(asentmax_is_entmax_of_scaled_logits) {
  static const size_t ns[] = {1, 2, 5, 37, 300, 4097};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8);
    st_fill(x, n, 60 + n, -1.5f, 1.5f);
    for (size_t j = 0; j < NPS; j++) {
      model_as_f(x, n, psets[j], ref);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(KA(), impl, x, n, psets[j], 4, y), SS_OK);
        double s = 0.0;
        for (size_t i = 0; i < n; i++) {
          s += y[i];
          CHECK(fabs(y[i] - ref[i]) <= bound_at(psets[j][0], ref[i]),
                "%s set %zu n=%zu i=%zu: %.9g vs %.9g", ss_impl_name(impl), j, n, i, y[i],
                ref[i]);
        }
        CHECK(fabs(s - 1.0) <= 2e-7, "%s set %zu n=%zu: sum %.9g", ss_impl_name(impl), j, n, s);
      }
    }
  }
}

/* The planted key (see the header) for key gaps 0.5 and 0.2: ASEntmax's
   support is within the window bound at every n and is the key alone once
   (alpha-1) c(n) gap >= 1 (n >= 21 and n >= 8103); its largest support over
   n = 2^4..2^16 is small (measured 1 and 25; asserted <= 2 and <= 32),
   while plain entmax's support grows with n (measured 8 -> 2488 for gap 0.2,
   asserted >= 1000 at 2^16 and >= 16 times its 2^4 value) and its key
   mass shrinks (< 0.1 at 2^16). */
static void planted(double gap, size_t as_cap, const char *what) {
  const double pr[4] = {1.5, 1.0, 1.0, 1.0}, al = 1.5;
  const size_t nmax = (size_t)1 << 16;
  float *x = ss_test_alloc(nmax * 4), *y = ss_test_alloc(nmax * 4);
  FOR_EACH_IMPL(impl) {
    size_t plain_first = 0, plain_last = 0, as_max = 0;
    for (int e = 4; e <= 16; e++) {
      const size_t n = (size_t)1 << e;
      st_fill(x, n, 4242 + e, -1.0f, (float)(1.0 - gap));
      ss_rng r = {99 + (uint64_t)e};
      const size_t key = (size_t)(ss_rng_unif(&r) * n);
      x[key] = 1.0f;
      const double c = 1.0 + log((double)n);
      size_t window = 1;
      for (size_t i = 0; i < n; i++)
        if (i != key && x[i] > 1.0 - 1.0 / ((al - 1.0) * c)) window++;
      CHECK_STATUS(ss_normalize(KA(), impl, x, n, pr, 4, y), SS_OK);
      size_t sa = 0;
      for (size_t i = 0; i < n; i++) sa += y[i] > 0.0f;
      CHECK(sa <= window, "%s %s n=%zu: support %zu > bound %zu", what, ss_impl_name(impl), n,
            sa, window);
      if ((al - 1.0) * c * gap >= 1.0)
        CHECK(sa == 1 && y[key] == 1.0f, "%s %s n=%zu: support %zu, key %g", what,
              ss_impl_name(impl), n, sa, y[key]);
      if (sa > as_max) as_max = sa;
      CHECK_STATUS(ss_normalize(KH(), impl, x, n, &al, 1, y), SS_OK);
      size_t sp = 0;
      for (size_t i = 0; i < n; i++) sp += y[i] > 0.0f;
      if (e == 4) plain_first = sp;
      if (e == 16) {
        plain_last = sp;
        CHECK(y[key] < 0.1f, "%s %s: entmax keeps %g on the key at n=2^16", what,
              ss_impl_name(impl), y[key]);
      }
    }
    CHECK(as_max <= as_cap, "%s %s: ASEntmax support reached %zu", what, ss_impl_name(impl),
          as_max);
    CHECK(plain_last >= 1000 && plain_last >= 16 * plain_first,
          "%s %s: entmax support %zu at 2^4, %zu at 2^16", what, ss_impl_name(impl), plain_first,
          plain_last);
  }
}

TEST(asentmax_support_bounded_as_n_grows) {
  planted(0.5, 2, "gap 0.5");
  planted(0.2, 32, "gap 0.2");
}

/* -Inf padding changes neither the scale (n counts unmasked entries) nor
   the other outputs. */
TEST(asentmax_masking) {
  static const size_t ns[] = {2, 9, 64, 1000};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *sub = ss_test_alloc(n * 4),
          *ysub = ss_test_alloc(n * 4);
    st_fill(x, n, 70 + n, -2.0f, 2.0f);
    ss_rng r = {n + 5};
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
      if (i + 1 < n && ss_rng_unif(&r) < 0.5) x[i] = -INFINITY;
      else sub[m++] = x[i];
    }
    for (size_t j = 0; j < NPS; j++) {
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(KA(), impl, x, n, psets[j], 4, y), SS_OK);
        CHECK_STATUS(ss_normalize(KA(), impl, sub, m, psets[j], 4, ysub), SS_OK);
        for (size_t i = 0, c = 0; i < n; i++) {
          if (x[i] == -INFINITY) {
            CHECK(y[i] == 0.0f && !signbit(y[i]), "masked y[%zu]=%g", i, y[i]);
            continue;
          }
          CHECK(fabs(y[i] - ysub[c]) <= 2.0 * bound_at(psets[j][0], ysub[c]),
                "%s set %zu n=%zu i=%zu: %.9g vs compacted %.9g", ss_impl_name(impl), j, n, i,
                y[i], ysub[c]);
          c++;
        }
      }
    }
  }
}

/* n = 1 (log n = 0, (log n)^gamma infinite for gamma < 0) gives exactly 1
   and zero gradients; delta = beta = 0 (scale 0) gives the uniform
   distribution over the unmasked entries. */
TEST(asentmax_degenerate_scales) {
  enum { N = 23 };
  float x[N], y[N], g[N], dx[N];
  st_fill(x, N, 5, -2.0f, 2.0f);
  st_fill(g, N, 6, -1.0f, 1.0f);
  const double neg[4] = {1.5, 1.0, 2.0, -2.0}, zero[4] = {2.5, 0.0, 0.0, 1.0};
  FOR_EACH_IMPL(impl) {
    float one[N];
    for (size_t i = 0; i < N; i++) one[i] = -INFINITY;
    one[7] = 3.0f;
    CHECK_STATUS(ss_normalize(KA(), impl, one, N, neg, 4, y), SS_OK);
    for (size_t i = 0; i < N; i++)
      CHECK(y[i] == (i == 7 ? 1.0f : 0.0f), "%s n_eff=1: y[%zu]=%g", ss_impl_name(impl), i, y[i]);
    CHECK_STATUS(ss_normalize_vjp(KA(), impl, one, y, g, N, neg, 4, dx), SS_OK);
    for (size_t i = 0; i < N; i++) CHECK(dx[i] == 0.0f, "%s n_eff=1: dx[%zu]=%g", ss_impl_name(impl), i, dx[i]);
    double dp[4];
    CHECK_STATUS(ss_normalize_param_vjp(KA(), impl, one, y, g, N, neg, 4, dp), SS_OK);
    CHECK(dp[0] == 0.0 && dp[1] == 0.0 && dp[2] == 0.0 && dp[3] == 0.0,
          "%s n_eff=1: dparams %g %g %g %g", ss_impl_name(impl), dp[0], dp[1], dp[2], dp[3]);
    float xm[N];
    memcpy(xm, x, sizeof xm);
    xm[3] = xm[11] = -INFINITY;
    CHECK_STATUS(ss_normalize(KA(), impl, xm, N, zero, 4, y), SS_OK);
    for (size_t i = 0; i < N; i++) {
      if (i == 3 || i == 11) CHECK(y[i] == 0.0f, "masked %g", y[i]);
      else CHECK(ss_ulp_diff(y[i], 1.0f / (N - 2)) <= 2, "%s scale 0: y[%zu]=%.9g",
                 ss_impl_name(impl), i, y[i]);
    }
  }
}

static bool pick_input(float *x, double *p, size_t n, const double *pr, uint64_t seed) {
  const double margin = pr[0] > 2.0 ? 0.02 : 1e-3;
  for (uint64_t t = 0; t < 64; t++) {
    st_fill(x, n, seed * 17 + t, -1.0f, 1.0f);
    if (model_as_f(x, n, pr, p) >= margin) return true;
  }
  return false;
}

/* Case c: psets[c], g in +-2, x with the threshold clear of every score. */
static void as_fd_input(float *x, float *g, size_t n, size_t c, fd_case *o) {
  double p[FD_MAX_N];
  st_fill(g, n, 30 + n, -2.0f, 2.0f);
  o->no_input = !pick_input(x, p, n, psets[c], 40 + n + c);
  memcpy(MODEL, psets[c], sizeof MODEL);
  memcpy(o->params, psets[c], sizeof MODEL);
  o->nparams = 4;
  o->h = 1e-6;
  snprintf(o->what, sizeof o->what, "set %zu", c);
}

/* entmax's bound at z = c x, times the scale c; from the kernel's own y,
   plus the first-order effect of its error in y. */
static void as_fd_tol(const float *x, const float *g, size_t n, const fd_case *fc,
                      const double *p, double G, double *tol) {
  (void)x;
  const double al = fc->params[0], c = scale_of(fc->params, n);
  for (size_t i = 0; i < n; i++) {
    const double s = p[i] > 0.0 ? pow(p[i], 2.0 - al) : 0.0;
    tol[i] = c * (1e-7 * s * (fabs(g[i]) + G) + 1e-8 * G);
    if (fc->own_y && p[i] > 0.0)
      tol[i] += c * 2e-7 * fabs(2.0 - al) * pow(p[i], 1.0 - al) * (fabs(g[i]) + G);
  }
}

TEST(asentmax_vjp_matches_finite_differences) {
  static const size_t ns[] = {2, 5, 16, 40};
  const fd_sweep row = {.kernel = "asentmax", .ns = ns, .nns = 4, .ncases = NPS,
                        .input = as_fd_input, .model64 = model_as, .tol = as_fd_tol,
                        .ys = FD_OWN_Y | FD_REF_Y};
  CHECK(fd_run(&row), "see above");
}

/* sum g_i y_i(x; params) of the float64 model as a function of the params. */
typedef struct {
  const float *x;
  size_t n;
  const float *g;
  double *q; /* n doubles of scratch */
} as_dot;
static double as_dot_of_params(const double *pr, size_t np, const void *ctx) {
  (void)np;
  const as_dot *c = ctx;
  model_as_f(c->x, c->n, pr, c->q);
  double l = 0.0;
  for (size_t i = 0; i < c->n; i++) l += c->g[i] * c->q[i];
  return l;
}

/* d/d(alpha, delta, beta, gamma) of sum g_i y_i, central differences. */
TEST(asentmax_param_gradients_match_finite_differences) {
  static const size_t ns[] = {3, 8, 30};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *yr = ss_test_alloc(n * 4), *g = ss_test_alloc(n * 4);
    double *p = ss_test_alloc(n * 8), *q = ss_test_alloc(n * 8);
    st_fill(g, n, 50 + n, -2.0f, 2.0f);
    double G = 0.0;
    for (size_t i = 0; i < n; i++) G += fabs(g[i]);
    for (size_t j = 0; j < NPS; j++) {
      const double *pr = psets[j];
      CHECK(pick_input(x, p, n, pr, 60 + n + j), "no input set %zu n=%zu", j, n);
      double m = -INFINITY, sx = 0.0;
      for (size_t i = 0; i < n; i++) {
        yr[i] = (float)p[i];
        m = fmax(m, x[i]);
      }
      for (size_t i = 0; i < n; i++)
        if (p[i] > 0.0) sx += pow(p[i], 2.0 - pr[0]) * (fabs(g[i]) + G) * (m - x[i]);
      const double L = log((double)n), a = pr[0] - 1.0;
      const double chain[4] = {0.0, 1.0, pow(L, pr[3]), pr[2] * pow(L, pr[3]) * log(L)};
      FOR_EACH_IMPL(impl) {
        double dp[4];
        CHECK_STATUS(ss_normalize_param_vjp(KA(), impl, x, yr, g, n, pr, 4, dp), SS_OK);
        for (int k = 0; k < 4; k++) {
          double pp[4];
          memcpy(pp, pr, sizeof pp);
          const as_dot c = {x, n, g, q};
          const double fd = fd_central64(as_dot_of_params, &c, pp, 4, (size_t)k, 1e-6);
          const double tol = k == 0 ? 1e-7 * G / (a * a) + 1e-7 * fabs(fd)
                                    : fabs(chain[k]) * (1e-7 * sx + 1e-9) + 1e-7 * fabs(fd);
          CHECK(fabs(dp[k] - fd) <= tol, "%s set %zu n=%zu param %d: %.9g vs fd %.9g",
                ss_impl_name(impl), j, n, k, dp[k], fd);
        }
      }
    }
  }
}
