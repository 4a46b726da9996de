/*
 * The alpha-entmax forward pass, y = entmax_alpha(c x), and the direct
 * solver call ss_entmax_solve.
 *
 *   1. prep: validate x (NaN, +Inf, all -Inf: nothing written), m = max x,
 *      d_i = A (x_i - m) with A = (alpha - 1) c, stored in y (scratch: no
 *      allocation); -Inf stays -Inf. n_eff = entries that are not -Inf.
 *   2. iterate on the threshold (entmax_solve.c), each iteration one pass
 *      over d (entmax_pass.c).
 *   3. finish: p_i over d_i in y, then y /= sum y. When the iteration ends
 *      with |sum - 1| > tol (large alpha with an entry at the threshold,
 *      where one ulp of theta moves its p by ~(2^-52)^(alpha-1)), the SIMD
 *      path redoes it in double, as the scalar path, and both keep the
 *      resolved p_i while the unresolved entries share the deficit
 *      (ss_em_finish_unresolved): the impls agree, and a single unresolved
 *      entry gets its exact value.
 * Masked entries never enter a sum and come out exactly 0; the bracket uses
 * n_eff, so padding changes nothing but float summation order.
 */
#include <math.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "entmax/entmax_internal.h"

static void report(const ss_em_problem *pr, double v, unsigned it, double *tau,
                   unsigned *iterations) {
  /* p_i = [A x_i - (theta + A m)]_+^k */
  if (tau) *tau = ss_em_theta(pr, v) + (double)pr->amax * (double)pr->max;
  if (iterations) *iterations = it;
}

/* Iterate with double-precision passes and finish: the scalar path, and
   the SIMD path where float lanes cannot decide. Returns the final v;
   *it = the passes made, *done = converged (see ss_em_iterate; fallback:
   Halley's bisection after its cap). */
static double solve_scalar(const ss_em_problem *pr, ss_entmax_solver solver, double tol,
                           unsigned max_iter, bool fallback, float *y, unsigned *it,
                           bool *done) {
  double f;
  const double v =
      ss_em_iterate(pr, solver, tol, max_iter, fallback, ss_em_eval_f64, it, &f, done);
  if (fabs(f) <= tol || !ss_em_finish_unresolved(pr, v, tol, y)) ss_em_finish_f64(pr, v, tol, y);
  return v;
}

#if SS_HAVE_SIMD
static double solve_simd(const ss_em_problem *pr, ss_entmax_solver solver, double tol,
                         unsigned max_iter, bool fallback, float *y, unsigned *it,
                         bool *done) {
  double f;
  const double v =
      ss_em_iterate(pr, solver, tol, max_iter, fallback, ss_em_eval_simd, it, &f, done);
  /* above alpha = 2 with near-ties the float lanes can also agree on a
     false root (p = u^(1/(alpha-1)) of u ~ 1e-32): the sum is verified in
     double once, and a miss is treated as a stall */
  if (fabs(f) <= tol && pr->special) {
    ss_em_sums chk;
    ss_em_eval_f64(pr, v, false, &chk);
    if (!(fabs(chk.s0 - 1.0) <= fmax(tol, 0x1p-20))) f = chk.s0 - 1.0;
  }
  /* not converged in float lanes (large alpha: an entry at the threshold,
     where f jumps across one ulp, or near-ties whose root float cannot
     place): the double iteration and finish of the scalar path, so both
     impls give the same answer where float lanes cannot decide;
     *it counts the run whose result is returned */
  if (fabs(f) > (tol > 0.0 ? tol : 0x1p-20))
    return solve_scalar(pr, solver, tol, max_iter, fallback, y, it, done);
  ss_em_finish_simd(pr, v, tol, y);
  return v;
}
#endif

/* The forward, once for both impls (common/impl_pair.h). fallback: the
   registry kernels' rule, under which an unconverged result is an error
   (unreachable: bisection reaches double resolution within the fallback's
   passes); without it (ss_entmax_solve) max_iter is the caller's own cap. */
SS_ALWAYS_INLINE ss_status em_forward(ss_impl impl, ss_entmax_solver solver, const float *x,
                                      size_t n, double alpha, double c, double tol,
                                      unsigned max_iter, bool fallback, float *y,
                                      double *tau, unsigned *iterations) {
  ss_em_problem pr;
  ss_em_setup(&pr, alpha);
  ss_status s = SS_BY_IMPL(impl, ss_em_prep)(x, n, (alpha - 1.0) * c, y, &pr);
  if (s != SS_OK) return s;
  unsigned it;
  bool done;
  const double v = SS_BY_IMPL(impl, solve)(&pr, solver, tol, max_iter, fallback, y, &it, &done);
  report(&pr, v, it, tau, iterations);
  return done || !fallback ? SS_OK : SS_ERR_DOMAIN;
}

ss_status ss_em_forward_scalar(ss_entmax_solver solver, const float *x,
                               size_t n, double alpha, double c, double tol,
                               unsigned max_iter, float *y, double *tau,
                               unsigned *iterations) {
  return em_forward(SS_IMPL_SCALAR, solver, x, n, alpha, c, tol, max_iter, true, y, tau,
                    iterations);
}

/* ss_entmax_solve's forward: max_iter is the caller's cap, no fallback. */
static ss_status direct_forward_scalar(ss_entmax_solver solver, const float *x, size_t n,
                                       double alpha, double tol, unsigned max_iter, float *y,
                                       double *tau, unsigned *iterations) {
  return em_forward(SS_IMPL_SCALAR, solver, x, n, alpha, 1.0, tol, max_iter, false, y, tau,
                    iterations);
}

#if SS_HAVE_SIMD
ss_status ss_em_forward_simd(ss_entmax_solver solver, const float *x, size_t n,
                             double alpha, double c, double tol,
                             unsigned max_iter, float *y, double *tau,
                             unsigned *iterations) {
  return em_forward(SS_IMPL_SIMD, solver, x, n, alpha, c, tol, max_iter, true, y, tau,
                    iterations);
}

static ss_status direct_forward_simd(ss_entmax_solver solver, const float *x, size_t n,
                                     double alpha, double tol, unsigned max_iter, float *y,
                                     double *tau, unsigned *iterations) {
  return em_forward(SS_IMPL_SIMD, solver, x, n, alpha, 1.0, tol, max_iter, false, y, tau,
                    iterations);
}
#endif

ss_status ss_entmax_solve(ss_impl impl, ss_entmax_solver solver,
                          const float *x, size_t n, double alpha, double tol,
                          unsigned max_iter, float *y, double *tau,
                          unsigned *iterations) {
  if (!x || !y) return SS_ERR_NULL;
  if ((unsigned)impl >= SS_IMPL_COUNT || !ss_impl_available(impl))
    return SS_ERR_UNSUPPORTED;
  ss_status s = ss_check_n(n);
  if (s != SS_OK) return s;
  /* the registry range of alpha: (1, 10] */
  if (!(alpha > 1.0 && alpha <= 10.0) || !(tol >= 0.0 && tol < INFINITY) ||
      max_iter == 0 || (solver != SS_ENTMAX_BISECT && solver != SS_ENTMAX_HALLEY))
    return SS_ERR_PARAM_RANGE;
  return SS_BY_IMPL(impl, direct_forward)(solver, x, n, alpha, tol, max_iter, y, tau,
                                          iterations);
}
