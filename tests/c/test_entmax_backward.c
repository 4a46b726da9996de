/*
 * alpha-entmax backward (entmax_bisect / entmax_halley share it): the VJP
 * dx = s (g - gbar), s = y^{2-alpha}, and the alpha gradient
 * dalpha = sum (g - gbar) y (1 - a log y) / a^2, against central finite
 * differences of the float64 reference (entmax_reference.h) at inputs whose
 * threshold is at least MARGIN away from every score (no support change
 * within the step).
 *
 * Stated bounds, with s64 = p64^{2-alpha} and G = sum |g|:
 *   VJP from y = float(p64):   |dx - fd| <= 1e-7 s64_j (|g_j| + G) + 1e-8 G
 *     (measured max 0.42 of it);
 *   VJP from the kernel's y:   adds the first-order effect of its error in y,
 *     2e-7 |2-alpha| p64_j^{1-alpha} (|g_j| + G) (measured 0.72 of the sum,
 *     with entmax_bisect's y);
 *   dalpha from y = float(p64): |da - fd| <= 1e-7 G / a^2 + 1e-7 |fd|
 *     (measured 0.44); from the kernel's y: the first-order effect of its
 *     error, 2e-7 G (1 + a + a max|log p|) / a^2 (measured 0.37; dalpha
 *     amplifies errors in y by 1/a^2: its terms are O(1/a) and cancel).
 * Finite differences: h = 1e-6, error ~h^2 |f'''| + 1e-16/h << the bounds
 * at these margins.
 */
#include <string.h>

#include "entmax_reference.h"
#include "forward_sweep.h"
#include "harness.h"
#include "softmax_testing.h"

static const ss_kernel_info *KB(void) {
  return ss_kernel_find("entmax_bisect", SS_FAMILY_NORMALIZER);
}
static const ss_kernel_info *KH(void) {
  return ss_kernel_find("entmax_halley", SS_FAMILY_NORMALIZER);
}

/* x (n floats) with a reference whose threshold is >= margin from every
   score; false when no seed in 64 tries gives one. */
static bool pick_input(float *x, double *p, size_t n, double alpha, uint64_t seed,
                       double margin) {
  for (uint64_t t = 0; t < 64; t++) {
    st_fill(x, n, seed * 131 + t, -2.0f, 2.0f);
    if (er_entmax64_f(x, n, alpha, p) >= margin) return true;
  }
  return false;
}

static const double vjp_alphas[] = {1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0};
#define NVA (sizeof vjp_alphas / sizeof vjp_alphas[0])
#define MARGIN(al) ((al) > 2.0 ? 0.02 : 1e-3)

/* Case c: alpha = vjp_alphas[c], g in +-2, x with the threshold >= MARGIN
   from every score. */
static void entmax_fd_input(float *x, float *g, size_t n, size_t c, fd_case *o) {
  const double al = vjp_alphas[c];
  double p[FD_MAX_N];
  st_fill(g, n, 800 + n, -2.0f, 2.0f);
  o->no_input = !pick_input(x, p, n, al, 700 + n + c, MARGIN(al));
  o->params[0] = o->model_param = al;
  o->nparams = 1;
  o->h = 1e-6;
  snprintf(o->what, sizeof o->what, "a=%g", al);
}

/* The header's bounds: from y = float(p64), and from the kernel's own y. */
static void entmax_fd_tol(const float *x, const float *g, size_t n, const fd_case *c,
                          const double *p, double G, double *tol) {
  (void)x;
  const double al = c->model_param;
  for (size_t j = 0; j < n; j++) {
    const double s = p[j] > 0.0 ? pow(p[j], 2.0 - al) : 0.0;
    tol[j] = 1e-7 * s * (fabs(g[j]) + G) + 1e-8 * G;
    if (c->own_y && p[j] > 0.0)
      tol[j] += 2e-7 * fabs(2.0 - al) * pow(p[j], 1.0 - al) * (fabs(g[j]) + G);
  }
}

TEST(entmax_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40};
  static const char *const kernels[] = {"entmax_bisect", "entmax_halley"};
  for (int kk = 0; kk < 2; kk++) {
    const fd_sweep row = {.kernel = kernels[kk], .ns = ns, .nns = 6, .ncases = NVA,
                          .input = entmax_fd_input, .model64 = er_model_entmax,
                          .tol = entmax_fd_tol, .ys = FD_OWN_Y | FD_REF_Y};
    CHECK(fd_run(&row), "see above");
  }
}

/* sum dx = 0 (dx is J^T g and J has zero column sums), dx = 0 exactly off
   the support and at masked entries, a constant g gives dx ~ 0; SIMD vs
   scalar within the VJP bound. */
TEST(entmax_vjp_properties) {
  enum { N = 67 };
  float x[N], y[N], g[N], dx[N], dx2[N];
  st_fill(x, N, 31, -3.0f, 3.0f);
  st_fill(g, N, 32, -1.0f, 1.0f);
  x[5] = x[40] = -INFINITY;
  static const double as[] = {1.01, 1.3, 1.5, 2.0, 2.7, 6.0};
  for (size_t a = 0; a < sizeof as / sizeof as[0]; a++) {
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(KH(), impl, x, N, &as[a], 1, y), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(KH(), impl, x, y, g, N, &as[a], 1, dx), SS_OK);
      double s = 0.0, sa = 0.0;
      for (size_t i = 0; i < N; i++) {
        s += dx[i];
        sa += fabs(dx[i]);
        if (y[i] == 0.0f)
          CHECK(dx[i] == 0.0f, "%s a=%g: dx[%zu]=%g off the support", ss_impl_name(impl),
                as[a], i, dx[i]);
      }
      CHECK(fabs(s) <= 1e-6 * sa + 1e-12, "%s a=%g: sum dx = %g (sum |dx| %g)",
            ss_impl_name(impl), as[a], s, sa);
      float gc[N];
      for (size_t i = 0; i < N; i++) gc[i] = 0.375f;
      CHECK_STATUS(ss_normalize_vjp(KH(), impl, x, y, gc, N, &as[a], 1, dx2), SS_OK);
      for (size_t i = 0; i < N; i++)
        CHECK(fabs(dx2[i]) <= 1e-7, "%s a=%g: constant g gives dx[%zu]=%g", ss_impl_name(impl),
              as[a], i, dx2[i]);
    }
    if (ss_impl_available(SS_IMPL_SIMD)) {
      CHECK_STATUS(ss_normalize(KH(), SS_IMPL_SCALAR, x, N, &as[a], 1, y), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(KH(), SS_IMPL_SCALAR, x, y, g, N, &as[a], 1, dx), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(KH(), SS_IMPL_SIMD, x, y, g, N, &as[a], 1, dx2), SS_OK);
      double G = 0.0;
      for (size_t i = 0; i < N; i++) G += fabs(g[i]);
      for (size_t i = 0; i < N; i++) {
        const double s = y[i] > 0.0f ? pow(y[i], 2.0 - as[a]) : 0.0;
        CHECK(fabs(dx[i] - dx2[i]) <= 1e-6 * s * (fabs(g[i]) + G) + 1e-9,
              "a=%g: SIMD dx[%zu]=%.9g vs scalar %.9g", as[a], i, dx2[i], dx[i]);
      }
    }
  }
}

/* dalpha vs central differences in alpha of sum g_i p_i(alpha), float64. */
TEST(entmax_alpha_gradient_matches_finite_differences) {
  static const size_t ns[] = {2, 3, 8, 17, 40, 100};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *yr = ss_test_alloc(n * 4),
          *g = ss_test_alloc(n * 4);
    double *p = ss_test_alloc(n * 8), *xd = ss_test_alloc(n * 8);
    st_fill(g, n, 900 + n, -2.0f, 2.0f);
    double G = 0.0;
    for (size_t i = 0; i < n; i++) G += fabs(g[i]);
    for (size_t a = 0; a < NVA; a++) {
      const double al = vjp_alphas[a], h = 1e-6, aa = al - 1.0;
      CHECK(pick_input(x, p, n, al, 950 + n + a, MARGIN(al)), "no input a=%g n=%zu", al, n);
      for (size_t i = 0; i < n; i++) xd[i] = x[i];
      const double fd = st_fd_param(er_model_entmax, xd, g, n, al, h);
      double lmax = 0.0; /* largest |log p| on the support */
      for (size_t i = 0; i < n; i++) {
        yr[i] = (float)p[i];
        if (p[i] > 0.0) lmax = fmax(lmax, -log(p[i]));
      }
      for (int kk = 0; kk < 2; kk++) {
        const ss_kernel_info *k = kk ? KH() : KB();
        FOR_EACH_IMPL(impl) {
          CHECK_STATUS(ss_normalize(k, impl, x, n, &al, 1, y), SS_OK);
          for (int own = 0; own < 2; own++) {
            double da = NAN;
            CHECK_STATUS(ss_normalize_param_vjp(k, impl, x, own ? y : yr, g, n, &al, 1, &da),
                         SS_OK);
            const double tol = own ? 2e-7 * G * (1.0 + aa + aa * lmax) / (aa * aa)
                                   : 1e-7 * G / (aa * aa) + 1e-7 * fabs(fd);
            CHECK(fabs(da - fd) <= tol, "%s %s %s a=%g n=%zu: dalpha=%.9g fd=%.9g", k->name,
                  ss_impl_name(impl), own ? "own y" : "ref y", al, n, da, fd);
          }
        }
      }
    }
  }
}

/* The backward entry points' own checks: NULL pointers, non-finite g;
   outputs untouched. */
TEST(entmax_backward_bad_inputs) {
  enum { N = 21 };
  float x[N], y[N], g[N], dx[N];
  st_fill(x, N, 9, -3, 3);
  st_fill(g, N, 10, -1, 1);
  const double al = 1.5;
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(KB(), impl, x, N, &al, 1, y), SS_OK);
    st_poison(dx, N);
    double dp = -3.0;
    CHECK_STATUS(ss_normalize_vjp(KB(), impl, x, NULL, g, N, &al, 1, dx), SS_ERR_NULL);
    CHECK_STATUS(ss_normalize_param_vjp(KB(), impl, x, y, g, N, &al, 1, NULL), SS_ERR_NULL);
    CHECK_STATUS(ss_normalize_param_vjp(KB(), impl, NULL, y, g, N, &al, 1, &dp), SS_ERR_NULL);
    CHECK_STATUS(ss_normalize_param_vjp(KB(), impl, x, y, g, N, &al, 0, &dp), SS_ERR_PARAM_COUNT);
    g[3] = NAN;
    CHECK_STATUS(ss_normalize_vjp(KB(), impl, x, y, g, N, &al, 1, dx), SS_ERR_NAN);
    CHECK_STATUS(ss_normalize_param_vjp(KH(), impl, x, y, g, N, &al, 1, &dp), SS_ERR_NAN);
    g[3] = INFINITY;
    CHECK_STATUS(ss_normalize_param_vjp(KH(), impl, x, y, g, N, &al, 1, &dp), SS_ERR_NONFINITE);
    g[3] = 0.5f;
    CHECK(st_untouched(dx, N) && dp == -3.0, "%s: output written on error", ss_impl_name(impl));
  }
}
