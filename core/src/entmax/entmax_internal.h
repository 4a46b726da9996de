/*
 * Pieces shared by the alpha-entmax kernels of this folder (entmax_bisect,
 * entmax_halley, asentmax).
 *
 * The problem. With m = max x, A = (alpha - 1) c (c = 1, or the ASEntmax
 * scale) and d_i = A (x_i - m) <= 0 (a float, stored in y as scratch),
 *
 *   p_i(theta) = [d_i - theta]_+^k,  k = 1 / (alpha - 1),
 *   f(theta)   = sum_i p_i - 1,      theta in [-1, -n_eff^{-(alpha-1)}]
 *
 * (n_eff = number of unmasked entries; f >= 0 at -1, f <= 0 at the right
 * end). The paper's tau is theta + A m.
 *
 * The solver variable v. theta itself loses the resolution that matters at
 * one end: for alpha -> 1 the root sits at theta = -1 + O(alpha - 1) and p
 * amplifies an error in theta by k; for alpha >= 2 with many near-ties it sits
 * at theta ~ -n^{-(alpha-1)} (as small as 2^-234). So the solver runs on
 *   v = 1 + theta  (alpha < 2: "phi", f decreasing in v), or
 *   v = -theta     (alpha >= 2: "t", f increasing in v),
 * whose doubles have full relative resolution where the root can be.
 */
#ifndef SS_ENTMAX_INTERNAL_H
#define SS_ENTMAX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/simd.h"
#include "softscope.h"

/* How p = u^k is computed: the two closed forms and the general exp/log. */
typedef enum ss_em_kind {
  SS_EM_GENERAL = 0,
  SS_EM_SQUARE = 1,  /* alpha = 1.5: p = u^2 */
  SS_EM_LINEAR = 2   /* alpha = 2: p = u (sparsemax) */
} ss_em_kind;

typedef struct ss_em_problem {
  float *d;        /* d_i (n floats, -Inf for masked entries): the y buffer */
  size_t n, n_eff;
  double alpha, a, k; /* a = alpha - 1, k = 1 / a */
  ss_em_kind kind;
  bool tcoord;     /* v = -theta (alpha >= 2), else v = 1 + theta */
  bool special;    /* alpha > 2: track the breakpoints nearest to theta */
  float amax;      /* A, and m = max x (for tau) */
  float max;
} ss_em_problem;

/* One pass at theta: sums over the support (u_i = d_i - theta > 0). */
typedef struct ss_em_sums {
  double s0;   /* sum p                                   */
  double s1;   /* sum p / u    (f_theta   = -k s1)        */
  double s2;   /* sum p / u^2  (f_thetatheta = k (k-1) s2) */
  /* special only: */
  double umin, umin_count; /* smallest u in the support, how many have it */
  double uout, uout_count; /* largest u <= 0 outside it (-Inf: none), count */
} ss_em_sums;

/* An O(n) pass: the sums at solver value v (derivs: also s1, s2, umin, uout). */
typedef void (*ss_em_eval_fn)(const ss_em_problem *pr, double v, bool derivs,
                              ss_em_sums *out);

/* The iteration (entmax_solve.c): bisection or the Halley hybrid on f(v).
   Returns the v to finish at; *iterations = passes made, *residual = f
   there, *done (may be NULL) = whether it converged (|f| <= tol, or no
   double left between the bracket's ends / in a step), as opposed to
   stopping at max_iter. fallback: Halley unconverged at max_iter goes on
   by bisection (up to SS_EM_FALLBACK_PASSES more passes). */
double ss_em_iterate(const ss_em_problem *pr, ss_entmax_solver solver,
                     double tol, unsigned max_iter, bool fallback, ss_em_eval_fn eval,
                     unsigned *iterations, double *residual, bool *done);

/* Bracket of the solver variable for n_eff entries: [v_lo, v_hi]. */
void ss_em_bracket(const ss_em_problem *pr, double *v_lo, double *v_hi);
/* theta of a solver value. */
double ss_em_theta(const ss_em_problem *pr, double v);
void ss_em_setup(ss_em_problem *pr, double alpha);

/* Passes (entmax_pass.c). prep: validate x, m = max, d_i = A (x_i - m) into
   y, count n_eff; writes nothing on a data error. finish: y_i = p_i(v) (in
   place over d_i), then y /= sum. The _f64 pair is the double-precision
   evaluation the scalar reference uses, and the SIMD path's fallback when
   theta is too small for a float (t < 2^-100, only with near-ties).
   finish's support is u_i > the cut at tol (the exact-zero rule of entmax,
   entmax_pass.c): the same in both impls. */
ss_status ss_em_prep_scalar(const float *x, size_t n, double A, float *y,
                            ss_em_problem *pr);
void ss_em_eval_f64(const ss_em_problem *pr, double v, bool derivs, ss_em_sums *out);
void ss_em_finish_f64(const ss_em_problem *pr, double v, double tol, float *y);
/* The finish of an unresolved iteration (|sum p - 1| > tol left by entries
   within an ulp of the threshold; see entmax_pass.c), for both impls;
   false (nothing written) when the ordinary finish applies. */
bool ss_em_finish_unresolved(const ss_em_problem *pr, double v, double tol, float *y);
#if SS_HAVE_SIMD
ss_status ss_em_prep_simd(const float *x, size_t n, double A, float *y,
                          ss_em_problem *pr);
void ss_em_eval_simd(const ss_em_problem *pr, double v, bool derivs, ss_em_sums *out);
void ss_em_finish_simd(const ss_em_problem *pr, double v, double tol, float *y);
#endif

/* The whole forward pass (entmax_forward.c): y = entmax_alpha(c x), one
   entry per implementation (a *_scalar function must reach no SIMD code).
   tau and iterations may be NULL. */
ss_status ss_em_forward_scalar(ss_entmax_solver solver, const float *x,
                               size_t n, double alpha, double c, double tol,
                               unsigned max_iter, float *y, double *tau,
                               unsigned *iterations);
#if SS_HAVE_SIMD
ss_status ss_em_forward_simd(ss_entmax_solver solver, const float *x, size_t n,
                             double alpha, double c, double tol,
                             unsigned max_iter, float *y, double *tau,
                             unsigned *iterations);
#endif

/* Backward (entmax_backward.c), from y alone: s_i = y_i^{2-alpha} on the
   support, gbar = sum s g / sum s,
     dz_i = s_i (g_i - gbar)                            (VJP, times c outside)
     dalpha = sum_i (g_i - gbar) y_i (1 - a log y_i) / a^2
   vjp writes dx = c dz; param returns dalpha and (when dc != NULL)
   dc = sum_i dz_i (x_i - max x) over the support. */
void ss_em_vjp_scalar(const float *y, const float *g, size_t n, double alpha,
                      double c, float *dx);
void ss_em_param_scalar(const float *x, const float *y, const float *g,
                        size_t n, double alpha, double *dalpha, double *dc);
#if SS_HAVE_SIMD
void ss_em_vjp_simd(const float *y, const float *g, size_t n, double alpha,
                    double c, float *dx);
void ss_em_param_simd(const float *x, const float *y, const float *g, size_t n,
                      double alpha, double *dalpha, double *dc);
#endif

/* The registry block of the `alpha` parameter, alpha in (1, 10] (the range
   ss_entmax_solve checks), with the kernel's help text. */
#define SS_EM_ALPHA_PARAM(help_)                                              \
  {.name = "alpha", .type = SS_PARAM_FLOAT, .min = 1.0, .max = 10.0,          \
   .min_open = true, .def = 1.5, .ui_min = 1.01, .ui_max = 4.0, .help = help_}

/* Registry defaults of the registered solvers. */
#define SS_EM_TOL 1e-6
#define SS_EM_MAX_ITER_BISECT 100u
#define SS_EM_MAX_ITER_HALLEY 100u
/* Bisection passes after an unconverged Halley run (entmax_solve.c (6)):
   geometric halving of t's decades (<= 11 passes), then of the mantissa
   (<= 53), or in phi down from 1 to a root near 2^-1074 at worst. */
#define SS_EM_FALLBACK_PASSES 1200u

#endif
