/*
 * ssmax: y = softmax(s log(n) x), n = number of unmasked entries.
 *
 * Stated bound vs float64 softmax(s log(n) x) for outputs >= 1e-30:
 *   |y_i - y64_i| <= (SS_A + SS_B |z_i|) y64_i,  z_i = s log(n) (x_i - max)
 * (softmax's 2e-6 plus 2^-24 relative on the exponent for each of the float
 * beta and the float product beta d_i). SIMD vs scalar <= 8 ulp.
 * Measured: max err / bound 0.71 (s in 0.05..20, n in 1..67, 255, 4097,
 * 65539), SIMD vs scalar 5 ulp.
 */
#include <string.h>

#include "forward_sweep.h"
#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"

#define SS_A 2e-6
#define SS_B 0x1p-23

static const ss_kernel_info *K(void) { return ss_kernel_find("ssmax", SS_FAMILY_NORMALIZER); }

/* float64 model for finite differences: softmax(s log(n) x), n unmasked. */
static void model_ssmax(const double *x, size_t n, double s, double *out) {
  size_t nu = 0;
  for (size_t i = 0; i < n; i++) nu += x[i] != -INFINITY;
  st_softmax64(x, n, s * log((double)nu), out);
}

TEST(ssmax_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 1 && k->has_backward && k->has_param_backward &&
            k->output == SS_OUTPUT_PROBS && k->paper && strstr(k->paper, "Nakanishi"),
        "descriptor");
  const ss_param_info *p = &k->params[0];
  CHECK(strcmp(p->name, "s") == 0 && p->type == SS_PARAM_FLOAT && p->min == 0.0 && p->min_open &&
            p->max == 100.0 && !p->max_open && p->def == 0.43 && p->ui_min == 0.05 &&
            p->ui_max == 3.0,
        "param info");
}

/* The paper's Figure 1: x = (-2, ..., -2, +3), s = 0.43. The largest output
   has the closed form 1 / (1 + (n - 1) n^(-5 s)) (every other entry is
   n^(-5s) times the largest): it stays in [0.962, 1] for n = 2^4 .. 2^20,
   while softmax's 1 / (1 + (n - 1) e^-5) falls from 0.908 to 1.4e-4. */
TEST(ssmax_paper_figure1_peak_does_not_fade) {
  const size_t nmax = (size_t)1 << 20;
  float *x = ss_test_alloc(nmax * 4), *y = ss_test_alloc(nmax * 4);
  const double s = 0.43;
  FOR_EACH_IMPL(impl) {
    double lo = 1.0, hi = 0.0;
    for (int e = 4; e <= 20; e++) {
      const size_t n = (size_t)1 << e;
      for (size_t i = 0; i < n; i++) x[i] = -2.0f;
      x[n - 1] = 3.0f;
      CHECK_STATUS(ss_normalize(K(), impl, x, n, &s, 1, y), SS_OK);
      const double want = 1.0 / (1.0 + (double)(n - 1) * pow((double)n, -5.0 * s));
      CHECK(fabs(y[n - 1] - want) <= 1e-5 * want, "%s n=2^%d: max %.9g, closed form %.9g",
            ss_impl_name(impl), e, y[n - 1], want);
      lo = fmin(lo, y[n - 1]);
      hi = fmax(hi, y[n - 1]);
      const double soft = 1.0 / (1.0 + (double)(n - 1) * exp(-5.0));
      if (e == 20) CHECK(soft < 2e-4, "softmax's peak %.3g did not fade", soft);
    }
    CHECK(lo >= 0.962 && hi <= 1.0, "%s: peak band [%.4f, %.6f]", ss_impl_name(impl), lo, hi);
  }
}

static const double ss[] = {0.05, 0.43, 1.0, 3.0, 20.0};
#define NS (sizeof ss / sizeof ss[0])

/* x uniform in +-5 (the same x for every s), s = ss[c]. */
static void ssmax_input(float *x, size_t n, size_t c, fw_case *o) {
  st_fill(x, n, 300 + n, -5, 5);
  o->params[0] = ss[c];
  o->nparams = 1;
  snprintf(o->what, sizeof o->what, "s=%g", ss[c]);
}

/* softmax(beta x), beta = s log(n), within (SS_A + SS_B |z_i|) y64_i. */
static void ssmax_model(const float *x, size_t n, const fw_case *c, double *ref, double *bound) {
  const double beta = c->params[0] * log((double)n);
  float m = -INFINITY;
  for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  ref_softmax(x, n, beta, ref);
  for (size_t i = 0; i < n; i++) bound[i] = (SS_A + SS_B * fabs(beta * ((double)x[i] - m))) * ref[i];
}

TEST(ssmax_matches_float64_reference) {
  static const size_t big[] = {255, 4097, 65539};
  const fw_sweep row = {.kernel = "ssmax", .big = big, .nbig = 3, .ncases = NS,
                        .input = ssmax_input, .model = ssmax_model};
  double worst;
  CHECK(fw_run(&row, &worst), "see above");
  CHECK(worst <= 1.0, "worst ratio %.3g", worst);
}

TEST(ssmax_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  uint32_t worst = 0;
  float x[67], a[67], b[67];
  for (size_t n = 1; n <= 67; n++) {
    st_fill(x, n, 400 + n, -5, 5);
    for (size_t k = 0; k < NS; k++) {
      CHECK_STATUS(ss_normalize(K(), SS_IMPL_SCALAR, x, n, &ss[k], 1, a), SS_OK);
      CHECK_STATUS(ss_normalize(K(), SS_IMPL_SIMD, x, n, &ss[k], 1, b), SS_OK);
      for (size_t i = 0; i < n; i++)
        if (a[i] >= 1e-30f) worst = fmaxf(worst, ss_ulp_diff(a[i], b[i]));
    }
  }
  CHECK(worst <= 8, "worst %u ulp", worst);
}

/* VJP vs central differences of the float64 model (beta = s log n is
   constant in x): tolerance as softmax_temperature's, scaled by beta. */
static const double FD_S[] = {0.2, 0.43, 1.5};

/* x in +-3 (x[3] masked when n > 4), g in +-2, s = FD_S[c]. */
static void ssmax_fd_input(float *x, float *g, size_t n, size_t c, fd_case *o) {
  st_fill(x, n, 700 + n, -3, 3);
  st_fill(g, n, 800 + n, -2, 2);
  if (n > 4) x[3] = -INFINITY;
  o->params[0] = o->model_param = FD_S[c];
  o->nparams = 1;
  snprintf(o->what, sizeof o->what, "s=%g", FD_S[c]);
}

static void ssmax_fd_tol(const float *x, const float *g, size_t n, const fd_case *c,
                         const double *p, double G, double *tol) {
  const double beta = c->model_param * log((double)st_unmasked(x, n));
  const double rel = 4.0 * (SS_A + SS_B * 6.0 * beta);
  for (size_t j = 0; j < n; j++) tol[j] = (rel * p[j] * (fabs(g[j]) + G) + 1e-9 * G) * fmax(beta, 1.0);
}

TEST(ssmax_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40};
  const fd_sweep row = {.kernel = "ssmax", .ns = ns, .nns = 6, .ncases = 3,
                        .input = ssmax_fd_input, .model64 = model_ssmax, .tol = ssmax_fd_tol};
  CHECK(fd_run(&row), "see above");
}

/* dL/ds vs a central difference in s of L(s) = sum g_i y_i(s), float64. */
TEST(ssmax_param_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 3, 16, 37, 200};
  for (size_t t = 0; t < 5; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *g = ss_test_alloc(n * 4);
    double *xd = ss_test_alloc(n * 8);
    st_fill(x, n, 900 + n, -3, 3);
    st_fill(g, n, 950 + n, -1, 1);
    if (n > 10) x[7] = -INFINITY;
    for (size_t i = 0; i < n; i++) xd[i] = x[i];
    for (double s = 0.1; s < 3.0; s *= 2.3) {
      const double fd = st_fd_param(model_ssmax, xd, g, n, s, 1e-6);
      FOR_EACH_IMPL(impl) {
        double dp = NAN;
        CHECK_STATUS(ss_normalize(K(), impl, x, n, &s, 1, y), SS_OK);
        CHECK_STATUS(ss_normalize_param_vjp(K(), impl, x, y, g, n, &s, 1, &dp), SS_OK);
        CHECK(fabs(dp - fd) <= 1e-4 * (1.0 + fabs(fd)), "%s n=%zu s=%g: dL/ds %.9g fd %.9g",
              ss_impl_name(impl), n, s, dp, fd);
        if (n == 1) CHECK(dp == 0.0, "n=1: %g", dp);
      }
    }
  }
}
