/* The measure family: every measure against an independent float64
   computation, known closed forms, limits, inequalities, SIMD vs scalar,
   the entropy VJP vs finite differences, and one status per bad input. */
#include <float.h>
#include <string.h>

#include "fd.h"
#include "harness.h"

static const ss_kernel_info *M(const char *name) {
  return ss_kernel_find(name, SS_FAMILY_MEASURE);
}

static const char *const ALL[] = {
    "sum",     "entropy",  "renyi_entropy",   "tsallis_entropy",
    "zero_fraction", "support", "max_prob", "effective_count",
    "kl_divergence", "hellinger", "collapse"};
#define NALL (sizeof ALL / sizeof ALL[0])

/* Run a measure through the generic entry point; alpha is used only by the
   kernels that have it. */
static ss_status run(const char *name, ss_impl impl, const float *p,
                     const float *q, size_t n, double alpha, double *out) {
  const ss_kernel_info *k = M(name);
  return ss_measure(k, impl, p, q, n, k && k->nparams ? &alpha : NULL,
                    k ? k->nparams : 0, out);
}

/* ---- independent float64 references -------------------------------- */

static double ref_entropy(const float *p, size_t n) {
  double h = 0.0;
  for (size_t i = 0; i < n; i++)
    if (p[i] != 0.0f) h += (double)p[i] * -log((double)p[i]);
  return h;
}

/* log sum p^a by log-sum-exp over a log p_i (no scaling by max p needed
   beyond the shift; a different route from the kernels' power sums). */
static double ref_log_power_sum(const float *p, size_t n, double a) {
  double m = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (p[i] > 0.0f && a * log((double)p[i]) > m) m = a * log((double)p[i]);
  double s = 0.0;
  for (size_t i = 0; i < n; i++)
    if (p[i] > 0.0f) s += exp(a * log((double)p[i]) - m);
  return m + log(s);
}

static double ref_measure(const char *name, const float *p, const float *q,
                          size_t n, double a) {
  if (!strcmp(name, "sum")) { /* Neumaier-compensated */
    double s = 0.0, c = 0.0;
    for (size_t i = 0; i < n; i++) {
      const double x = p[i], t = s + x;
      c += fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
      s = t;
    }
    return s + c;
  }
  if (!strcmp(name, "entropy")) return ref_entropy(p, n);
  if (!strcmp(name, "effective_count")) return exp(ref_entropy(p, n));
  if (!strcmp(name, "renyi_entropy"))
    return fabs(a - 1) <= 1e-9 ? ref_entropy(p, n) : ref_log_power_sum(p, n, a) / (1 - a);
  if (!strcmp(name, "tsallis_entropy"))
    return fabs(a - 1) <= 1e-9 ? ref_entropy(p, n)
                               : (1 - exp(ref_log_power_sum(p, n, a))) / (a - 1);
  if (!strcmp(name, "zero_fraction") || !strcmp(name, "support") ||
      !strcmp(name, "collapse")) {
    size_t z = 0, one = 0;
    for (size_t i = 0; i < n; i++) {
      z += p[i] == 0.0f;
      one += p[i] == 1.0f;
    }
    if (!strcmp(name, "zero_fraction")) return (double)z / (double)n;
    if (!strcmp(name, "support")) return (double)(n - z);
    return (double)(z + one) / (double)n;
  }
  if (!strcmp(name, "max_prob")) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++) m = p[i] > m ? p[i] : m;
    return m;
  }
  if (!strcmp(name, "kl_divergence")) { /* sum p log p - sum p log q */
    double a1 = 0.0, a2 = 0.0;
    for (size_t i = 0; i < n; i++) {
      if (p[i] == 0.0f) continue;
      if (q[i] == 0.0f) return INFINITY;
      a1 += (double)p[i] * log((double)p[i]);
      a2 += (double)p[i] * log((double)q[i]);
    }
    return a1 - a2;
  }
  if (!strcmp(name, "hellinger")) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
      const double d = sqrt((double)p[i]) - sqrt((double)q[i]);
      s += d * d;
    }
    return sqrt(s / 2);
  }
  return NAN;
}

/* ---- test data --------------------------------------------------------- */

/* Shapes: 0 flat softmax (logit range 8), 1 peaked (range 40), 2 very
   peaked (range 200: many exact zeros and denormals in float32), 3 flat with
   every 5th entry zeroed (sum < 1), 4 unnormalized weights in [0, 10). */
#define NSHAPES 5
static void make_probs(float *p, size_t n, int shape, uint64_t seed) {
  ss_rng r = {seed * 7919 + (uint64_t)shape};
  if (shape == 4) {
    for (size_t i = 0; i < n; i++) p[i] = ss_rng_range(&r, 0.0f, 10.0f);
    return;
  }
  const double range = shape == 1 ? 40 : shape == 2 ? 200 : 8;
  double *x = ss_test_alloc(n * sizeof(double)), m = -INFINITY, s = 0.0;
  for (size_t i = 0; i < n; i++) {
    x[i] = range * (ss_rng_unif(&r) - 0.5);
    m = x[i] > m ? x[i] : m;
  }
  for (size_t i = 0; i < n; i++) s += (x[i] = exp(x[i] - m));
  for (size_t i = 0; i < n; i++) p[i] = (float)(x[i] / s);
  if (shape == 3)
    for (size_t i = 2; i < n; i += 5) p[i] = 0.0f;
  ss_test_free(x);
}

/* Probabilities k_i / 2^20 that sum to exactly 1 in float and in double. */
static void make_dyadic(float *p, size_t n, uint64_t seed) {
  ss_rng r = {seed};
  uint32_t left = 1u << 20;
  for (size_t i = 0; i + 1 < n; i++) {
    uint32_t k = (uint32_t)(ss_rng_unif(&r) * 2.0 * (double)left / (double)(n - i));
    if (k > left) k = left;
    p[i] = ldexpf((float)k, -20);
    left -= k;
  }
  p[n - 1] = ldexpf((float)left, -20);
}

/* Tolerance |got - ref| <= rtol |ref| + atol, per measure and impl.
   SIMD: the float32 terms (<= 1 ulp log, a few ulp exp / sqrt / divide)
   summed in double give the per-measure bounds of TOLS. Tsallis also carries
   the float32 error of q_i^a = exp(a log q_i), which grows with a:
   + 1.2e-7 a (1 + |log max p|) relative (Renyi divides it by |1 - a|);
   and for weights beyond 2^40 (log q = log p - log M, see power_sum.c)
   both get + 2.4e-7 (|log max p| + max |log p|) relative.
   Scalar: double arithmetic, 1e-11; for Renyi / Tsallis the float64
   reference itself has error ~ 2^-52 a max|log p| / |1 - a| (it forms
   log sum p^a ~ (1 - a) H directly), which is added. */
typedef struct { const char *name; double rtol_simd, atol_simd; } tol_entry;
static const tol_entry TOLS[] = {
    {"sum", 1e-15, 0},               /* both accumulate in double */
    {"entropy", 2e-7, 1e-9},          /* measured 4.7e-8 */
    {"effective_count", 2e-7, 1e-9},  /* measured 5.5e-8 */
    {"renyi_entropy", 1e-6, 1e-7},    /* measured 0.24 of the bound */
    {"tsallis_entropy", 1e-6, 1e-7},  /* measured 0.23 of the bound */
    {"zero_fraction", 0, 0},          /* exact */
    {"support", 0, 0},
    {"collapse", 0, 0},
    {"max_prob", 0, 0},
    {"kl_divergence", 4e-7, 1e-8},    /* measured 1.1e-7 */
    {"hellinger", 3e-7, 1e-9},        /* measured 8.2e-8 */
};
#define RTOL_SCALAR 1e-11
#define ATOL_SCALAR 1e-12

typedef struct { double rtol, atol; } tol_t;
static tol_t tol_for(const char *name, ss_impl impl, const float *p, size_t n,
                     double a) {
  tol_t t = {RTOL_SCALAR, ATOL_SCALAR};
  for (size_t i = 0; i < sizeof TOLS / sizeof TOLS[0]; i++)
    if (!strcmp(TOLS[i].name, name) && impl == SS_IMPL_SIMD) {
      t.rtol += TOLS[i].rtol_simd;
      t.atol += TOLS[i].atol_simd;
    }
  const bool ren = !strcmp(name, "renyi_entropy"), ts = !strcmp(name, "tsallis_entropy");
  if ((ren || ts) && fabs(a - 1) > 1e-9) {
    double lmax = 0, mx = 0;
    for (size_t i = 0; i < n; i++)
      if (p[i] > 0) {
        lmax = fmax(lmax, fabs(log((double)p[i])));
        mx = fmax(mx, p[i]);
      }
    const double ref_err = 0x1p-52 * (a * lmax + 1) / fabs(1 - a);
    t.rtol += ref_err;
    t.atol += ref_err;
    if (ts && impl == SS_IMPL_SIMD) t.rtol += 1.2e-7 * a * (1 + fabs(log(mx)));
    /* weights beyond 2^40: log q = log p - log M in float32 */
    if (impl == SS_IMPL_SIMD && mx > 0x1p40) t.rtol += 2.4e-7 * (fabs(log(mx)) + lmax);
  }
  return t;
}

static bool close_to(double got, double ref, tol_t t) {
  if (isinf(ref) || isinf(got)) return got == ref;
  return fabs(got - ref) <= t.rtol * fabs(ref) + t.atol;
}

static const double ALPHAS[] = {0.01, 0.5, 0.9, 0.97, 0.999, 0.99999, 1.0,
                                1.00001, 1.001, 1.03, 1.5, 2.0, 3.0, 10.0,
                                100.0, 1000.0};
#define NALPHAS (sizeof ALPHAS / sizeof ALPHAS[0])

/* One input (and q for pair measures) through every measure and impl. */
static bool check_all_measures(const float *p, const float *q, size_t n,
                               const char *what) {
  for (size_t m = 0; m < NALL; m++) {
    const ss_kernel_info *k = M(ALL[m]);
    const size_t na = k->nparams ? NALPHAS : 1;
    for (size_t ai = 0; ai < na; ai++) {
      const double a = k->nparams ? ALPHAS[ai] : 0.0;
      const double ref = ref_measure(ALL[m], p, q, n, a);
      FOR_EACH_IMPL(impl) {
        double got = NAN;
        ss_status s = run(ALL[m], impl, p, q, n, a, &got);
        /* a value beyond double's range (Tsallis of weights > 1 at a = 1000)
           is SS_ERR_DOMAIN; a divergence may be +Inf exactly */
        if (isinf(ref) && k->input != SS_INPUT_PROBS_PAIR) {
          if (s != SS_ERR_DOMAIN) {
            ss_test_fail(__FILE__, __LINE__, "%s %s %s n=%zu a=%g: status %s for a value beyond "
                         "double", ALL[m], ss_impl_name(impl), what, n, a, ss_status_str(s));
            return false;
          }
          continue;
        }
        if (s != SS_OK) {
          ss_test_fail(__FILE__, __LINE__, "%s %s %s n=%zu a=%g: status %s",
                       ALL[m], ss_impl_name(impl), what, n, a, ss_status_str(s));
          return false;
        }
        if (!close_to(got, ref, tol_for(ALL[m], impl, p, n, a))) {
          ss_test_fail(__FILE__, __LINE__,
                       "%s %s %s n=%zu a=%g: got %.17g ref %.17g (err %.3g)",
                       ALL[m], ss_impl_name(impl), what, n, a, got, ref,
                       fabs(got - ref));
          return false;
        }
      }
    }
  }
  return true;
}

/* Every n in 1..67 (all SIMD tail lengths, one to several vectors) and
   2^16 + 3, every shape, p against an independent q of another shape. */
TEST(measures_match_float64_reference) {
  for (size_t t = 0; t < 68; t++) {
    const size_t n = t < 67 ? t + 1 : 65536 + 3;
    float *p = ss_test_alloc(n * 4), *q = ss_test_alloc(n * 4);
    for (int shape = 0; shape < NSHAPES; shape++) {
      make_probs(p, n, shape, 100 + n);
      make_probs(q, n, (shape + 1) % NSHAPES, 900 + n); /* shape 2 has zeros: KL = Inf cases */
      char what[32];
      snprintf(what, sizeof what, "shape %d", shape);
      if (!check_all_measures(p, q, n, what)) return;
    }
    ss_test_free(p);
    ss_test_free(q);
  }
}

/* Values from other corners of float32: huge weights (no overflow in the
   sums), denormal probabilities, exact 0 and 1 mixed in. */
TEST(measures_match_reference_on_extreme_values) {
  const size_t n = 37;
  float *p = ss_test_alloc(n * 4), *q = ss_test_alloc(n * 4);
  ss_rng r = {5};
  for (size_t i = 0; i < n; i++) {
    p[i] = ss_rng_range(&r, 0.5f, 1.0f) * 3e38f;
    q[i] = ss_rng_range(&r, 0.5f, 1.0f) * 1e38f;
  }
  CHECK(check_all_measures(p, q, n, "huge"), "huge");
  for (size_t i = 0; i < n; i++) {
    p[i] = (float)(i % 4) * FLT_TRUE_MIN * (float)(i + 1);
    q[i] = (float)(i + 1) * FLT_TRUE_MIN;
  }
  CHECK(check_all_measures(p, q, n, "denormal"), "denormal");
  for (size_t i = 0; i < n; i++) {
    p[i] = i % 3 == 0 ? 1.0f : i % 3 == 1 ? 0.0f : 0.25f;
    q[i] = 0.5f;
  }
  CHECK(check_all_measures(p, q, n, "0/1 mix"), "0/1 mix");
}

/* ---- known values ------------------------------------------------------ */

/* Uniform p_i = c = fl(1/n): H = -n c log c, H_a = log(n c^a) / (1 - a),
   S_a = (1 - n c^a) / (a - 1), evaluated here in forms exact near a = 1
   (n c - 1 is exact in double). These are log n and (n^(1-a) - 1)/(1 - a)
   up to the rounding of 1/n, which the a -> 1 forms amplify by 1/|1 - a|
   (so the exact-input forms are the ones asserted); for n a power of two
   c = 1/n exactly and they are asserted against log n directly.
   SIMD: every q_i = p_i / max p = 1 exactly, so the power sums are exact and
   only log max p carries float32 error (Tsallis: a 1.2e-7 |log c|). */
TEST(uniform_closed_forms) {
  static const size_t ns[] = {1, 2, 3, 4, 5, 7, 8, 16, 17, 64, 67, 1000, 65536, 65536 + 3};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *p = ss_test_alloc(n * 4);
    for (size_t i = 0; i < n; i++) p[i] = 1.0f / (float)n;
    const double c = p[0], lc = log(c), nc1 = (double)n * c - 1, ln = log((double)n);
    const bool pow2 = nc1 == 0.0;
    const double h = -(double)n * c * lc;
    FOR_EACH_IMPL(impl) {
      double v;
      CHECK_STATUS(run("entropy", impl, p, NULL, n, 0, &v), SS_OK);
      CHECK(fabs(v - h) <= 2e-7 * h + 1e-15, "%s n=%zu: H=%.10g, want %.10g", ss_impl_name(impl), n, v, h);
      CHECK(!pow2 || fabs(v - ln) <= 2e-7 * ln, "%s n=%zu: H=%.10g, log n=%.10g", ss_impl_name(impl), n, v, ln);
      CHECK_STATUS(run("effective_count", impl, p, NULL, n, 0, &v), SS_OK);
      CHECK(fabs(v - exp(h)) <= 2e-7 * (h + 1) * exp(h), "%s n=%zu: exp(H)=%.10g", ss_impl_name(impl), n, v);
      CHECK(!pow2 || fabs(v - (double)n) <= 2e-7 * (ln + 1) * (double)n, "%s n=%zu: exp(H)=%.10g", ss_impl_name(impl), n, v);
      for (size_t ai = 0; ai < NALPHAS; ai++) {
        const double a = ALPHAS[ai], b = a - 1;
        const double ren = a == 1 ? h : -log1p(nc1) / b - lc;
        const double ts = a == 1 ? h : -nc1 / b - (double)n * c * expm1(b * lc) / b;
        CHECK_STATUS(run("renyi_entropy", impl, p, NULL, n, a, &v), SS_OK);
        CHECK(fabs(v - ren) <= 2e-7 * (fabs(ren) + 1), "%s n=%zu a=%g: renyi %.10g, want %.10g",
              ss_impl_name(impl), n, a, v, ren);
        CHECK(!pow2 || fabs(v - ln) <= 2e-7 * (ln + 1), "%s n=%zu a=%g: renyi %.10g, log n %.10g",
              ss_impl_name(impl), n, a, v, ln);
        CHECK_STATUS(run("tsallis_entropy", impl, p, NULL, n, a, &v), SS_OK);
        const double tt = 2e-7 * (fabs(ts) + 1) * (1 + a * (1 + fabs(lc)));
        CHECK(fabs(v - ts) <= tt, "%s n=%zu a=%g: tsallis %.10g, want %.10g", ss_impl_name(impl), n, a, v, ts);
        const double tsn = a == 1 ? ln : expm1((1 - a) * ln) / (1 - a);
        CHECK(!pow2 || fabs(v - tsn) <= tt, "%s n=%zu a=%g: tsallis %.10g, want %.10g", ss_impl_name(impl), n, a, v, tsn);
      }
    }
    ss_test_free(p);
  }
}

TEST(one_hot_exact_values) {
  for (size_t n = 1; n <= 67; n++) {
    float *p = ss_test_alloc(n * 4);
    memset(p, 0, n * 4);
    p[(n * 7) % n] = 1.0f;
    FOR_EACH_IMPL(impl) {
      double v;
      CHECK_STATUS(run("entropy", impl, p, NULL, n, 0, &v), SS_OK);
      CHECK(v == 0.0, "%s n=%zu: H=%g", ss_impl_name(impl), n, v);
      CHECK_STATUS(run("effective_count", impl, p, NULL, n, 0, &v), SS_OK);
      CHECK(v == 1.0, "%s n=%zu: exp(H)=%g", ss_impl_name(impl), n, v);
      CHECK_STATUS(run("collapse", impl, p, NULL, n, 0, &v), SS_OK);
      CHECK(v == 1.0, "%s n=%zu: collapse=%g", ss_impl_name(impl), n, v);
      CHECK_STATUS(run("support", impl, p, NULL, n, 0, &v), SS_OK);
      CHECK(v == 1.0, "%s n=%zu: support=%g", ss_impl_name(impl), n, v);
      CHECK_STATUS(run("max_prob", impl, p, NULL, n, 0, &v), SS_OK);
      CHECK(v == 1.0, "%s n=%zu: max_prob=%g", ss_impl_name(impl), n, v);
      CHECK_STATUS(run("zero_fraction", impl, p, NULL, n, 0, &v), SS_OK);
      CHECK(v == (double)(n - 1) / (double)n, "%s n=%zu: zero_fraction=%g", ss_impl_name(impl), n, v);
      for (size_t ai = 0; ai < NALPHAS; ai++) {
        CHECK_STATUS(run("renyi_entropy", impl, p, NULL, n, ALPHAS[ai], &v), SS_OK);
        CHECK(fabs(v) <= 1e-15, "%s n=%zu a=%g: renyi=%g", ss_impl_name(impl), n, ALPHAS[ai], v);
        CHECK_STATUS(run("tsallis_entropy", impl, p, NULL, n, ALPHAS[ai], &v), SS_OK);
        CHECK(fabs(v) <= 1e-15, "%s n=%zu a=%g: tsallis=%g", ss_impl_name(impl), n, ALPHAS[ai], v);
      }
    }
    ss_test_free(p);
  }
}

TEST(divergences_of_p_with_itself_are_exactly_zero) {
  for (size_t t = 0; t < 68; t++) {
    const size_t n = t < 67 ? t + 1 : 65536 + 3;
    float *p = ss_test_alloc(n * 4);
    for (int shape = 0; shape < NSHAPES; shape++) {
      make_probs(p, n, shape, 31 + n);
      FOR_EACH_IMPL(impl) {
        double kl = 1, h = 1;
        CHECK_STATUS(run("kl_divergence", impl, p, p, n, 0, &kl), SS_OK);
        CHECK(kl == 0.0, "%s n=%zu shape %d: KL(p||p)=%g", ss_impl_name(impl), n, shape, kl);
        CHECK_STATUS(run("hellinger", impl, p, p, n, 0, &h), SS_OK);
        CHECK(h == 0.0, "%s n=%zu shape %d: hellinger(p,p)=%g", ss_impl_name(impl), n, shape, h);
      }
    }
    ss_test_free(p);
  }
}

/* Disjoint supports: hellinger = 1 (dyadic p, q: sums exactly 1), and
   KL = +Inf with status OK. */
TEST(disjoint_supports) {
  for (size_t n = 2; n <= 67; n++) {
    float *p = ss_test_alloc(n * 4), *q = ss_test_alloc(n * 4);
    float *a = ss_test_alloc(n * 4), *b = ss_test_alloc(n * 4);
    const size_t np = n / 2, nq = n - np;
    make_dyadic(a, np, n);
    make_dyadic(b, nq, n + 1000);
    /* interleave: p on even slots, q on odd ones */
    memset(p, 0, n * 4);
    memset(q, 0, n * 4);
    for (size_t i = 0, ia = 0, ib = 0; i < n; i++) {
      if (i % 2 == 0 && ia < np) p[i] = a[ia++];
      else if (ib < nq) q[i] = b[ib++];
      else p[i] = a[ia++];
    }
    FOR_EACH_IMPL(impl) {
      double h, kl;
      CHECK_STATUS(run("hellinger", impl, p, q, n, 0, &h), SS_OK);
      CHECK(fabs(h - 1.0) <= 1e-7, "%s n=%zu: hellinger %.17g", ss_impl_name(impl), n, h);
      CHECK_STATUS(run("kl_divergence", impl, p, q, n, 0, &kl), SS_OK);
      CHECK(kl == INFINITY, "%s n=%zu: KL %g, want +Inf", ss_impl_name(impl), n, kl);
    }
  }
}

/* ---- limits and inequalities ------------------------------------------- */

/* Renyi and Tsallis approach Shannon from both sides of alpha = 1 (dyadic p:
   sum p = 1 exactly, else the limit diverges):
     H_a = H - (a-1)/2 Var_p(log p) + O((a-1)^2),
     S_a = H - (a-1)/2 E_p[(log p)^2] + O((a-1)^2),
   so |H_a - H| <= 0.75 |a-1| Var + 1e-6 H (numeric), likewise for S_a; and
   H_a is non-increasing in a (checked where the gap exceeds the numerics).
   |a - 1| <= 1e-9 returns exactly the Shannon value. */
TEST(renyi_tsallis_tend_to_shannon_at_alpha_1) {
  static const size_t ns[] = {2, 3, 5, 16, 67, 1000, 65536 + 3};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *p = ss_test_alloc(n * 4);
    make_dyadic(p, n, 77 + n);
    double m1 = 0, m2 = 0;
    for (size_t i = 0; i < n; i++)
      if (p[i] > 0) {
        const double l = log((double)p[i]);
        m1 += p[i] * l;
        m2 += p[i] * l * l;
      }
    const double var = m2 - m1 * m1;
    FOR_EACH_IMPL(impl) {
      double h;
      CHECK_STATUS(run("entropy", impl, p, NULL, n, 0, &h), SS_OK);
      for (int side = -1; side <= 1; side += 2) {
        double prev_r = side < 0 ? INFINITY : -INFINITY;
        for (double d = 1e-2; d >= 1e-8; d /= 10) {
          const double a = 1 + side * d;
          double r, s;
          CHECK_STATUS(run("renyi_entropy", impl, p, NULL, n, a, &r), SS_OK);
          CHECK_STATUS(run("tsallis_entropy", impl, p, NULL, n, a, &s), SS_OK);
          CHECK(fabs(r - h) <= 0.75 * d * var + 1e-6 * h + 1e-12,
                "%s n=%zu a=1%+g: renyi %.12g vs H %.12g", ss_impl_name(impl), n, side * d, r, h);
          CHECK(fabs(s - h) <= 0.75 * d * m2 + 1e-6 * h + 1e-12,
                "%s n=%zu a=1%+g: tsallis %.12g vs H %.12g", ss_impl_name(impl), n, side * d, s, h);
          if (0.5 * d * var > 4e-6 * h) { /* the gap is resolved */
            CHECK(side < 0 ? r >= h : r <= h, "%s n=%zu a=1%+g: renyi %.12g on the wrong side of H %.12g",
                  ss_impl_name(impl), n, side * d, r, h);
            CHECK(side < 0 ? r <= prev_r : r >= prev_r, "%s n=%zu: renyi not monotone at a=1%+g",
                  ss_impl_name(impl), n, side * d);
            prev_r = r;
          }
        }
      }
      double r, s;
      CHECK_STATUS(run("renyi_entropy", impl, p, NULL, n, 1 + 5e-10, &r), SS_OK);
      CHECK_STATUS(run("tsallis_entropy", impl, p, NULL, n, 1 - 5e-10, &s), SS_OK);
      CHECK(r == h && s == h, "%s n=%zu: a within 1e-9 of 1 must give Shannon", ss_impl_name(impl), n);
    }
    ss_test_free(p);
  }
}

/* For a > 1: H_inf <= H_a <= a/(a-1) H_inf with H_inf = -log max p; and for
   all a: 0 <= H_a <= log(support) on probability vectors. */
TEST(renyi_bounds) {
  for (size_t t = 0; t < 40; t++) {
    const size_t n = 1 + t * 7;
    float *p = ss_test_alloc(n * 4);
    make_dyadic(p, n, 500 + t);
    double mx = 0;
    size_t sup = 0;
    for (size_t i = 0; i < n; i++) {
      mx = p[i] > mx ? p[i] : mx;
      sup += p[i] != 0;
    }
    const double hinf = -log(mx), ls = log((double)sup);
    FOR_EACH_IMPL(impl) {
      for (size_t ai = 0; ai < NALPHAS; ai++) {
        const double a = ALPHAS[ai];
        double r;
        CHECK_STATUS(run("renyi_entropy", impl, p, NULL, n, a, &r), SS_OK);
        const double slack = 1e-6 * (ls + 1);
        CHECK(r >= -slack && r <= ls + slack, "%s n=%zu a=%g: renyi %g outside [0, %g]",
              ss_impl_name(impl), n, a, r, ls);
        if (a > 1)
          CHECK(r >= hinf - slack && r <= a / (a - 1) * hinf + slack,
                "%s n=%zu a=%g: renyi %g outside [%g, %g]", ss_impl_name(impl), n, a, r, hinf,
                a / (a - 1) * hinf);
      }
    }
    ss_test_free(p);
  }
}

/* Log-sum inequality: sum p log(p/q) >= (sum p) log(sum p / sum q), which is
   KL >= 0 when the sums agree; on random pairs (close and far apart). */
TEST(kl_log_sum_inequality) {
  for (size_t t = 0; t < 200; t++) {
    const size_t n = 1 + (t * 13) % 300;
    float *p = ss_test_alloc(n * 4), *q = ss_test_alloc(n * 4);
    make_probs(p, n, (int)(t % 2), t);
    if (t % 3 == 0) { /* a close pair: q = p perturbed by ~1e-3 */
      ss_rng r = {t};
      for (size_t i = 0; i < n; i++) q[i] = p[i] * (1.0f + ss_rng_range(&r, -1e-3f, 1e-3f));
    } else {
      make_probs(q, n, (int)(t % 2), t + 5000);
    }
    double sp = 0, sq = 0, c = 0;
    for (size_t i = 0; i < n; i++) {
      sp += p[i];
      sq += q[i];
      if (p[i] > 0) c += p[i] * (fabs(log(p[i])) + fabs(log(q[i])));
    }
    const double lb = sp * log(sp / sq);
    FOR_EACH_IMPL(impl) {
      double kl;
      CHECK_STATUS(run("kl_divergence", impl, p, q, n, 0, &kl), SS_OK);
      CHECK(kl >= lb - 4e-7 * c - 1e-15, "%s n=%zu t=%zu: KL %.10g < bound %.10g",
            ss_impl_name(impl), n, t, kl, lb);
    }
  }
}

/* ---- SIMD vs scalar ---------------------------------------------------- */

/* The SIMD result against the scalar reference of the same build, within the
   SIMD tolerances above (relative + absolute), on large inputs and a
   spread of sizes. */
TEST(simd_matches_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  static const size_t ns[] = {1, 3, 4, 5, 15, 16, 17, 1023, 1024, 1025, 100003};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *p = ss_test_alloc(n * 4), *q = ss_test_alloc(n * 4);
    for (int shape = 0; shape < NSHAPES; shape++) {
      make_probs(p, n, shape, 3 * n + 1);
      make_probs(q, n, 1, 5 * n + 2);
      for (size_t m = 0; m < NALL; m++) {
        const ss_kernel_info *k = M(ALL[m]);
        for (size_t ai = 0; ai < (k->nparams ? NALPHAS : 1); ai++) {
          const double a = ALPHAS[ai];
          double vs, vv;
          const ss_status ss = run(ALL[m], SS_IMPL_SCALAR, p, q, n, a, &vs);
          /* beyond double (weights > 1 at a = 1000): the same status in both */
          CHECK(ss == SS_OK || ss == SS_ERR_DOMAIN, "%s: status %d", ALL[m], (int)ss);
          CHECK_STATUS(run(ALL[m], SS_IMPL_SIMD, p, q, n, a, &vv), ss);
          if (ss != SS_OK) continue;
          CHECK(close_to(vv, vs, tol_for(ALL[m], SS_IMPL_SIMD, p, n, a)),
                "%s n=%zu shape %d a=%g: simd %.17g scalar %.17g", ALL[m], n, shape, a, vv, vs);
        }
      }
    }
  }
}

/* ---- entropy backward ----------------------------------------------------- */

/* The entropy VJP (both impls) against central differences of the scalar
   kernel, perturbing one p_i at a time by h = p_i 2^-10 (float-exact steps,
   truncation error ~h^2/(6 p^2) ~ 2e-8 relative):
   |vjp_i - g dH/dp_i| <= 1e-5 (|g dH/dp_i| + |g|). */
/* Measure ctx (no parameters) of p, scalar; NAN when the call fails (one
   check counted per call, as a status check). */
static double measure_of(const float *p, size_t n, const void *ctx) {
  double v;
  ss_test_count(1);
  return ss_measure(ctx, SS_IMPL_SCALAR, p, NULL, n, NULL, 0, &v) == SS_OK ? v : NAN;
}

TEST(entropy_vjp_matches_finite_differences) {
  const ss_kernel_info *k = M("entropy");
  static const size_t ns[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 67};
  const double g = -1.7;
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *p = ss_test_alloc(n * 4), *dp = ss_test_alloc(n * 4);
    /* flat softmax or weights: p_i >= ~1e-5, so the change of H under the
       step (~2 h |log p + 1|) stays far above the rounding of H */
    make_probs(p, n, t % 2 ? 0 : 4, 40 + n);
    for (size_t i = 0; i < n; i++)
      if (p[i] == 0) p[i] = 0.5f; /* the VJP needs p > 0 */
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_measure_vjp(k, impl, p, n, NULL, 0, g, dp), SS_OK);
      for (size_t i = 0; i < n; i++) {
        const float pi = p[i];
        const double fd = g * fd_central32(measure_of, k, p, n, i, ldexp(pi, -10));
        CHECK(fabs(dp[i] - fd) <= 1e-5 * (fabs(fd) + fabs(g)),
              "%s n=%zu i=%zu p=%g: vjp %.9g, fd %.9g", ss_impl_name(impl), n, i, (double)pi, dp[i], fd);
      }
    }
  }
}

/* SIMD VJP vs scalar: the float32 log is <= 1 ulp, so
   |dp_simd - dp_scalar| <= |g| (2^-23 |log p| + 2^-23 (|log p| + 1)) . */
TEST(entropy_vjp_simd_matches_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  const ss_kernel_info *k = M("entropy");
  const size_t n = 65536 + 3;
  float *p = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4), *b = ss_test_alloc(n * 4);
  make_probs(p, n, 1, 9);
  for (size_t i = 0; i < n; i++)
    if (p[i] == 0) p[i] = FLT_TRUE_MIN * (float)(i % 7 + 1);
  const double g = 3.25;
  CHECK_STATUS(ss_measure_vjp(k, SS_IMPL_SCALAR, p, n, NULL, 0, g, a), SS_OK);
  CHECK_STATUS(ss_measure_vjp(k, SS_IMPL_SIMD, p, n, NULL, 0, g, b), SS_OK);
  for (size_t i = 0; i < n; i++) {
    const double l = fabs(log((double)p[i]));
    CHECK(fabs((double)a[i] - b[i]) <= g * 0x1p-23 * (2 * l + 1), "i=%zu p=%g: scalar %.9g simd %.9g",
          i, (double)p[i], a[i], b[i]);
  }
}

TEST(entropy_vjp_bad_inputs) {
  const ss_kernel_info *k = M("entropy");
  float p[9] = {0.1f, 0.2f, 0.3f, 0.1f, 0.1f, 0.05f, 0.05f, 0.05f, 0.05f}, dp[9];
  FOR_EACH_IMPL(impl) {
    const float keep = -12345.0f;
    for (size_t i = 0; i < 9; i++) dp[i] = keep;
    p[6] = 0.0f; /* derivative +Inf at p_i = 0 */
    CHECK_STATUS(ss_measure_vjp(k, impl, p, 9, NULL, 0, 1.0, dp), SS_ERR_DOMAIN);
    CHECK(dp[0] == keep && dp[8] == keep, "%s: output written on error", ss_impl_name(impl));
    p[6] = -0.05f;
    CHECK_STATUS(ss_measure_vjp(k, impl, p, 9, NULL, 0, 1.0, dp), SS_ERR_DOMAIN);
    p[6] = NAN;
    CHECK_STATUS(ss_measure_vjp(k, impl, p, 9, NULL, 0, 1.0, dp), SS_ERR_NAN);
    p[6] = INFINITY;
    CHECK_STATUS(ss_measure_vjp(k, impl, p, 9, NULL, 0, 1.0, dp), SS_ERR_NONFINITE);
    p[6] = 0.05f;
    CHECK_STATUS(ss_measure_vjp(k, impl, p, 9, NULL, 0, 1e300, dp), SS_ERR_NONFINITE); /* overflow */
    CHECK_STATUS(ss_measure_vjp(k, impl, p, 9, NULL, 0, INFINITY, dp), SS_ERR_NONFINITE);
    CHECK_STATUS(ss_measure_vjp(k, impl, p, 9, NULL, 0, NAN, dp), SS_ERR_NONFINITE);
    CHECK_STATUS(ss_measure_vjp(k, impl, NULL, 9, NULL, 0, 1.0, dp), SS_ERR_NULL);
    CHECK_STATUS(ss_measure_vjp(k, impl, p, 9, NULL, 0, 1.0, NULL), SS_ERR_NULL);
    CHECK_STATUS(ss_measure_vjp(k, impl, p, 0, NULL, 0, 1.0, dp), SS_ERR_EMPTY);
    /* g beyond float range with a small |log p + 1|: the product fits */
    float pe[5];
    for (int i = 0; i < 5; i++) pe[i] = 0.36787944f; /* ~1/e */
    const double ge = 1e40, want = -ge * (log((double)pe[0]) + 1);
    CHECK_STATUS(ss_measure_vjp(k, impl, pe, 5, NULL, 0, ge, dp), SS_OK);
    for (int i = 0; i < 5; i++)
      CHECK(fabs(dp[i] - want) <= ge * 0x1p-23 * 2 && isfinite(dp[i]), "%s: dp %g want %g", ss_impl_name(impl),
            (double)dp[i], want);
    CHECK_STATUS(ss_measure_vjp(M("tsallis_entropy"), impl, p, 9, (double[]){2.0}, 1, 1.0, dp),
                 SS_ERR_NO_BACKWARD);
  }
}

/* ---- bad inputs ---------------------------------------------------------- */

/* All-zero input: entropy 0, Renyi undefined (log 0), Tsallis 1/(a-1). */
TEST(all_zero_vector) {
  float p[6] = {0};
  FOR_EACH_IMPL(impl) {
    double v = -1;
    CHECK_STATUS(run("entropy", impl, p, NULL, 6, 0, &v), SS_OK);
    CHECK(v == 0.0, "entropy %g", v);
    CHECK_STATUS(run("renyi_entropy", impl, p, NULL, 6, 2.0, &v), SS_ERR_DOMAIN);
    CHECK_STATUS(run("renyi_entropy", impl, p, NULL, 6, 1.0, &v), SS_ERR_DOMAIN);
    CHECK_STATUS(run("tsallis_entropy", impl, p, NULL, 6, 3.0, &v), SS_OK);
    CHECK(v == 0.5, "tsallis %g, want 1/(a-1) = 0.5", v);
    CHECK_STATUS(run("support", impl, p, NULL, 6, 0, &v), SS_OK);
    CHECK(v == 0.0, "support %g", v);
    CHECK_STATUS(run("collapse", impl, p, NULL, 6, 0, &v), SS_OK);
    CHECK(v == 1.0, "collapse %g", v);
  }
}

/* Counting measures on planted zeros and ones (-0.0 counts as zero), with
   the counts known by construction, for every n in 1..67 and a large n. */
TEST(counting_measures_on_planted_values) {
  for (size_t t = 0; t < 68; t++) {
    const size_t n = t < 67 ? t + 1 : 65536 + 3;
    float *p = ss_test_alloc(n * 4);
    ss_rng r = {n};
    size_t zeros = 0, ones = 0;
    for (size_t i = 0; i < n; i++) {
      const double u = ss_rng_unif(&r);
      if (u < 0.3) p[i] = (zeros++, i % 2 ? -0.0f : 0.0f);
      else if (u < 0.4) p[i] = (ones++, 1.0f);
      else p[i] = u < 0.7 ? ss_rng_range(&r, FLT_TRUE_MIN, 0.999f) : ss_rng_range(&r, 1.001f, 5.0f);
    }
    FOR_EACH_IMPL(impl) {
      double z, s, c;
      CHECK_STATUS(run("zero_fraction", impl, p, NULL, n, 0, &z), SS_OK);
      CHECK_STATUS(run("support", impl, p, NULL, n, 0, &s), SS_OK);
      CHECK_STATUS(run("collapse", impl, p, NULL, n, 0, &c), SS_OK);
      CHECK(z == (double)zeros / (double)n && s == (double)(n - zeros) &&
                c == (double)(zeros + ones) / (double)n,
            "%s n=%zu: zero_fraction %g support %g collapse %g (zeros %zu ones %zu)",
            ss_impl_name(impl), n, z, s, c, zeros, ones);
    }
  }
}

/* The float32 collapse this measure exists for: softmax(x) of a row with a
   dominant logit rounds to exactly one-hot. */
TEST(collapse_detects_saturated_softmax) {
  const ss_kernel_info *sm = ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
  float x[16], y[16];
  for (int i = 0; i < 16; i++) x[i] = (float)i * 0.01f;
  FOR_EACH_IMPL(impl) {
    double c;
    CHECK_STATUS(ss_normalize(sm, impl, x, 16, NULL, 0, y), SS_OK);
    CHECK_STATUS(run("collapse", impl, y, NULL, 16, 0, &c), SS_OK);
    CHECK(c == 0.0, "%s: mild logits collapse %g", ss_impl_name(impl), c);
    x[3] = 200.0f; /* exp(-200) underflows float32: y is exactly one-hot */
    CHECK_STATUS(ss_normalize(sm, impl, x, 16, NULL, 0, y), SS_OK);
    CHECK_STATUS(run("collapse", impl, y, NULL, 16, 0, &c), SS_OK);
    CHECK(c == 1.0, "%s: dominated logits collapse %g", ss_impl_name(impl), c);
    x[3] = 0.03f;
  }
}

/* sum: mixed signs and magnitudes against a compensated reference, no
   overflow with values near FLT_MAX (the total exceeds float range). */
TEST(sum_accuracy_and_range) {
  const size_t n = 100003;
  float *x = ss_test_alloc(n * 4);
  ss_rng r = {42};
  double sabs = 0;
  for (size_t i = 0; i < n; i++) {
    x[i] = (float)(ss_rng_normal(&r) * pow(10.0, ss_rng_range(&r, -20, 20)));
    sabs += fabs(x[i]);
  }
  const double ref = ref_measure("sum", x, NULL, n, 0);
  FOR_EACH_IMPL(impl) {
    double s;
    CHECK_STATUS(run("sum", impl, x, NULL, n, 0, &s), SS_OK);
    CHECK(fabs(s - ref) <= (double)n * 0x1p-53 * sabs, "%s: sum %.17g ref %.17g", ss_impl_name(impl), s, ref);
  }
  for (size_t i = 0; i < 64; i++) x[i] = FLT_MAX;
  FOR_EACH_IMPL(impl) {
    double s;
    CHECK_STATUS(run("sum", impl, x, NULL, 64, 0, &s), SS_OK);
    CHECK(s == 64.0 * (double)FLT_MAX, "%s: 64 FLT_MAX sums to %g", ss_impl_name(impl), s);
  }
}

/* ---- registry ------------------------------------------------------------ */

TEST(measure_descriptors) {
  for (size_t m = 0; m < NALL; m++) {
    const ss_kernel_info *k = M(ALL[m]);
    CHECK(k, "%s not registered", ALL[m]);
    CHECK(k->family == SS_FAMILY_MEASURE, "%s family", ALL[m]);
    CHECK(k->summary && *k->summary && k->formula && *k->formula && k->paper && *k->paper,
          "%s: summary/formula/paper", ALL[m]);
    const bool pair = !strcmp(ALL[m], "kl_divergence") || !strcmp(ALL[m], "hellinger");
    CHECK(k->input == (pair ? SS_INPUT_PROBS_PAIR : SS_INPUT_PROBS), "%s input kind", ALL[m]);
    CHECK(k->has_backward == !strcmp(ALL[m], "entropy"), "%s has_backward", ALL[m]);
    const bool alpha = strstr(ALL[m], "renyi") || strstr(ALL[m], "tsallis");
    CHECK(k->nparams == (alpha ? 1u : 0u), "%s nparams", ALL[m]);
    if (alpha) {
      const ss_param_info *a = &k->params[0];
      CHECK(!strcmp(a->name, "alpha") && a->type == SS_PARAM_FLOAT && a->min == 0 && a->min_open &&
                a->max == 1e3 && !a->max_open && a->def == 2 && a->ui_min == 0.1 &&
                a->ui_max == 10 && a->log_scale && a->help && *a->help,
            "%s alpha spec", ALL[m]);
    }
    CHECK(k->measure[SS_IMPL_SCALAR], "%s scalar impl", ALL[m]);
    CHECK(!ss_impl_available(SS_IMPL_SIMD) || k->measure[SS_IMPL_SIMD], "%s simd impl", ALL[m]);
  }
}

/* A one-hot vector has entropy exactly +0 (not -0, which JSON and UIs show
   oddly) in every implementation. */
TEST(entropy_of_one_hot_is_positive_zero) {
  const ss_kernel_info *k = ss_kernel_find("entropy", SS_FAMILY_MEASURE);
  for (size_t n = 1; n <= 19; n++) {
    float p[19] = {0};
    p[n / 2] = 1.0f;
    FOR_EACH_IMPL(impl) {
      double h = 1.0;
      CHECK_STATUS(ss_measure(k, impl, p, NULL, n, NULL, 0, &h), SS_OK);
      CHECK(h == 0.0 && !signbit(h), "%s n=%zu: H = %g (signbit %d)",
            ss_impl_name(impl), n, h, signbit(h) != 0);
    }
  }
}
