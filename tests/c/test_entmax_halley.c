/*
 * The Halley-bisection hybrid against plain bisection (ss_entmax_solve, same
 * tolerance, same stopping rule). Iteration counts are deterministic, so
 * this is a property of the algorithm, not a timing.
 *
 * Stated: over Gaussian rows and uniform rows (a dense top, the hard case for
 * derivative steps when alpha > 2), scales 1, 3, 10, at tol = 1e-6: for every
 * (family, n, alpha) cell the Halley passes total at most a third of
 * bisection's, and no row needs more than 16 Halley passes.
 * Measured (entmax_solve.c; n = 2^10, 2^16, 2^20, alpha 1.001..10, both
 * impls): bisection averages 19-30 passes on Gaussian rows and 21-37 on
 * uniform rows (up to 60 at alpha = 10, where it runs to double
 * resolution); Halley 2.3-4.8 (max 7) and 2.3-7.5 (max 13): at least 3.7x
 * fewer in every cell, typically 5-8x.
 */
#include <string.h>

#include "entmax_reference.h"
#include "harness.h"
#include "softmax_testing.h"

static void fill_row(float *x, size_t n, uint64_t seed, double scale, bool uniform) {
  ss_rng r = {seed};
  for (size_t i = 0; i < n; i++)
    x[i] = (float)(scale * (uniform ? 2.0 * ss_rng_unif(&r) - 1.0 : ss_rng_normal(&r)));
}

static unsigned passes(ss_impl impl, ss_entmax_solver sv, const float *x, size_t n,
                       double alpha, double tol, float *y) {
  unsigned it = 0;
  if (ss_entmax_solve(impl, sv, x, n, alpha, tol, 100, y, NULL, &it) != SS_OK) return 1000;
  return it;
}

static void check_cell(size_t n, double alpha, int rows, bool uniform) {
  float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
  FOR_EACH_IMPL(impl) {
    unsigned tb = 0, th = 0, worst = 0;
    for (int r = 0; r < rows; r++) {
      fill_row(x, n, 1000 * n + (uint64_t)r, r % 3 == 0 ? 1.0 : r % 3 == 1 ? 3.0 : 10.0,
               uniform);
      const unsigned b = passes(impl, SS_ENTMAX_BISECT, x, n, alpha, 1e-6, y);
      const unsigned h = passes(impl, SS_ENTMAX_HALLEY, x, n, alpha, 1e-6, y);
      CHECK(b < 1000 && h < 1000, "solve failed");
      tb += b;
      th += h;
      if (h > worst) worst = h;
    }
    CHECK(3 * th <= tb, "%s %s n=%zu alpha=%g: Halley %u passes vs bisection %u (> 1/3)",
          uniform ? "uniform" : "gaussian", ss_impl_name(impl), n, alpha, th, tb);
    CHECK(worst <= 16, "%s %s n=%zu alpha=%g: a row took %u Halley passes",
          uniform ? "uniform" : "gaussian", ss_impl_name(impl), n, alpha, worst);
  }
  ss_test_free(x);
  ss_test_free(y);
}

TEST(entmax_halley_third_of_bisection_n1024) {
  static const double as[] = {1.001, 1.01, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 6.0, 10.0};
  for (size_t a = 0; a < sizeof as / sizeof as[0]; a++) {
    check_cell(1024, as[a], 12, false);
    check_cell(1024, as[a], 12, true);
  }
}

TEST(entmax_halley_third_of_bisection_n65536) {
  static const double as[] = {1.01, 1.5, 2.0, 3.0, 10.0};
  for (size_t a = 0; a < sizeof as / sizeof as[0]; a++) {
    check_cell(65536, as[a], 3, false);
    check_cell(65536, as[a], 3, true);
  }
}

/* The ends of the bracket: a one-hot row (root at tau = (alpha-1) max - 1)
   and an all-equal row (root at the other end) take at most 3 Halley
   passes for alpha >= 2 (midpoint, then the step to the end: f is linear
   in tau there, or the alpha > 2 model is exact; one more when the float
   sums at the midpoint, ~150 for an all-equal row, miss by > 1e-6), where
   bisection needs >= 15 to come within 1e-6. For alpha < 2 the steps
   approach the end from inside (cubically; near alpha = 1 f is close to an
   exponential): at most 6. */
TEST(entmax_halley_bracket_ends) {
  enum { N = 300 };
  float x[N], y[N];
  static const double as[] = {1.01, 1.5, 2.0, 3.0, 10.0};
  FOR_EACH_IMPL(impl) {
    for (size_t a = 0; a < sizeof as / sizeof as[0]; a++) {
      st_fill(x, N, 40, -1.0f, 1.0f);
      x[17] = 1.0f + 2.5f / (float)(as[a] - 1.0);
      const unsigned h = passes(impl, SS_ENTMAX_HALLEY, x, N, as[a], 1e-6, y);
      const unsigned b = passes(impl, SS_ENTMAX_BISECT, x, N, as[a], 1e-6, y);
      CHECK(h <= (as[a] < 2.0 ? 6u : 3u) && b >= 15, "%s alpha=%g one-hot: Halley %u, bisection %u",
            ss_impl_name(impl), as[a], h, b);
      CHECK(y[17] == 1.0f, "%s alpha=%g: one-hot gives %g", ss_impl_name(impl), as[a], y[17]);
      for (size_t i = 0; i < N; i++) x[i] = -2.5f;
      const unsigned hu = passes(impl, SS_ENTMAX_HALLEY, x, N, as[a], 1e-6, y);
      CHECK(hu <= (as[a] < 2.0 ? 6u : 3u), "%s alpha=%g all equal: Halley %u", ss_impl_name(impl),
            as[a], hu);
    }
  }
}

/* The stopping rule: with the returned tau, the float64 f(tau) =
   sum [(alpha-1) x - tau]_+^k - 1 is within tol plus the float rounding of
   d (2e-6 here); a tighter tol never takes fewer passes; tol = 0 stops at
   the end of representable progress, before max_iter = 100. */
TEST(entmax_halley_stopping_rule) {
  enum { N = 500 };
  float x[N], y[N];
  fill_row(x, N, 77, 2.0, false);
  static const double as[] = {1.1, 1.5, 2.0, 3.0};
  static const double tols[] = {1e-2, 1e-4, 1e-6, 0.0};
  FOR_EACH_IMPL(impl) {
    for (size_t a = 0; a < sizeof as / sizeof as[0]; a++) {
      for (int sv = 0; sv < 2; sv++) {
        unsigned prev = 0;
        for (size_t t = 0; t < 4; t++) {
          double tau;
          unsigned it;
          CHECK_STATUS(ss_entmax_solve(impl, (ss_entmax_solver)sv, x, N, as[a], tols[t], 100, y,
                                       &tau, &it),
                       SS_OK);
          double s = 0.0;
          for (size_t i = 0; i < N; i++) {
            const double u = (as[a] - 1.0) * x[i] - tau;
            if (u > 0.0) s += pow(u, 1.0 / (as[a] - 1.0));
          }
          CHECK(fabs(s - 1.0) <= tols[t] + 2e-6, "%s solver %d alpha=%g tol=%g: f(tau)=%g",
                ss_impl_name(impl), sv, as[a], tols[t], s - 1.0);
          CHECK(it >= prev && it < 100, "%s solver %d alpha=%g tol=%g: %u passes after %u",
                ss_impl_name(impl), sv, as[a], tols[t], it, prev);
          prev = it;
        }
      }
    }
  }
}
