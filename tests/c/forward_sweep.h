/*
 * Two drivers for the normalizers' per-kernel tests, each run from a row of
 * the kernel's test file.
 *
 * fw_run, "matches its float64 reference":
 * every n in 1..67 and a few large n, the kernel's own cases at each n (an
 * input scale, an input kind, a parameter value), every impl, and each
 * output entry held to its own bound against the float64 model:
 *
 *   |y_i - ref_i| <= bound_i     where |ref_i| >= FW_FLOOR (1e-30)
 *   |y_i - ref_i| <= FW_FLOOR    below it (an underflow to 0 is fine)
 *
 * A test describes its sweep as a row (fw_sweep: the kernel, the large
 * lengths, the cases, the float64 model and its tolerance) and calls
 * fw_run, which reports the first entry out of bound (the case, n, impl, i,
 * x, y, ref) and returns the worst |y - ref| / bound seen. The commonest
 * row needs no code: x uniform in +-scales[c], a parameter-free model64
 * and a relative tolerance; a kernel with parameters or a bound that grows
 * with the exponent gives its own input and model functions.
 *
 * fd_run, "the VJP matches finite differences": the row's lengths and
 * cases, central differences of the float64 model (st_fd_vjp) against
 * ss_normalize_vjp in every impl, each entry within the row's tolerance.
 */
#ifndef SS_TEST_FORWARD_SWEEP_H
#define SS_TEST_FORWARD_SWEEP_H

#include <stdio.h>

#include "harness.h"
#include "softmax_testing.h"

#define FW_FLOOR 1e-30
#define FW_SMALL_N 67

/* One case at one length: the parameters (registry order) and a label. */
typedef struct fw_case {
  double params[4];
  size_t nparams;
  char what[96];
} fw_case;

typedef struct fw_sweep {
  const char *kernel;   /* a registry normalizer */
  const size_t *big;    /* the lengths after 1..FW_SMALL_N */
  size_t nbig;
  size_t ncases;        /* cases at every length */
  /* The input of case c at length n: x uniform in +-scales[c] (seed
     seed_step * c + n), no parameters; or, when set, input() writes x and
     the case's params and label. */
  const float *scales;
  uint64_t seed_step;
  void (*input)(float *x, size_t n, size_t c, fw_case *out);
  /* The reference: model64 of x in double, each entry within rel |ref_i|;
     or, when set, model() writes the reference and each entry's bound. */
  st_model64 model64;
  double rel;
  void (*model)(const float *x, size_t n, const fw_case *c, double *ref, double *bound);
} fw_sweep;

/* Case c at length n: its input, params, label, reference and bounds. */
static inline void fw_case_at(const fw_sweep *s, float *x, size_t n, size_t c, fw_case *fc,
                                   double *ref, double *bound) {
  if (s->input) {
    s->input(x, n, c, fc);
  } else {
    st_fill(x, n, s->seed_step * c + n, -s->scales[c], s->scales[c]);
    snprintf(fc->what, sizeof fc->what, "scale %g", s->scales[c]);
  }
  if (s->model) {
    s->model(x, n, fc, ref, bound);
  } else {
    st_ref64(s->model64, 0.0, x, n, ref);
    for (size_t i = 0; i < n; i++) bound[i] = s->rel * fabs(ref[i]);
  }
}

/* Runs the sweep; false (after reporting the first entry out of bound, or
   a status other than SS_OK) if any entry fails. *worst: the largest
   |y - ref| / bound over the entries at or above the floor. */
static inline bool fw_run(const fw_sweep *s, double *worst) {
  const ss_kernel_info *k = ss_kernel_find(s->kernel, SS_FAMILY_NORMALIZER);
  *worst = 0.0;
  if (!k) {
    ss_test_fail(__FILE__, __LINE__, "%s: not in the registry", s->kernel);
    return false;
  }
  for (size_t t = 0; t < FW_SMALL_N + s->nbig; t++) {
    const size_t n = t < FW_SMALL_N ? t + 1 : s->big[t - FW_SMALL_N];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8), *bound = ss_test_alloc(n * 8);
    for (size_t c = 0; c < s->ncases; c++) {
      fw_case fc = {{0}, 0, ""};
      fw_case_at(s, x, n, c, &fc, ref, bound);
      FOR_EACH_IMPL(impl) {
        ss_test_count(1);
        const ss_status st = ss_normalize(k, impl, x, n, fc.params, fc.nparams, y);
        if (st != SS_OK) {
          ss_test_fail(__FILE__, __LINE__, "%s %s %s n=%zu: %s", s->kernel, fc.what,
                       ss_impl_name(impl), n, ss_status_str(st));
          return false;
        }
        for (size_t i = 0; i < n; i++) {
          const double e = fabs((double)y[i] - ref[i]);
          const bool tiny = fabs(ref[i]) < FW_FLOOR;
          const double r = tiny ? (e <= FW_FLOOR ? 0.0 : INFINITY) : e / bound[i];
          if (!(r <= 1.0)) {
            ss_test_fail(__FILE__, __LINE__,
                         "%s %s %s n=%zu i=%zu: x=%.9g y=%.9g ref=%.9g (|y - ref| / bound %.3g)",
                         s->kernel, fc.what, ss_impl_name(impl), n, i, x[i], y[i], ref[i], r);
            return false;
          }
          if (r > *worst) *worst = r;
        }
      }
    }
    ss_test_free(x);
    ss_test_free(y);
    ss_test_free(ref);
    ss_test_free(bound);
  }
  return true;
}

/* ---- the VJP against central differences of the float64 model ---------- */

#define FD_MAX_N 64

/* One case at one length: registry params, the model's param, the step. */
typedef struct fd_case {
  double params[4];
  size_t nparams;
  double model_param;
  double h;
  char what[96];
  bool no_input; /* set by input: no input fits the case (a failure) */
  bool own_y;    /* set by fd_run for tol: the VJP gets the kernel's own y,
                    else y = float(p), the model's output */
} fd_case;

/* Which y a row's VJP is checked at (0: FD_OWN_Y). */
enum { FD_OWN_Y = 1, FD_REF_Y = 2 };

/* A row: the kernel, its lengths (each <= FD_MAX_N), its cases, the input
   of a case (x, g and the case), the float64 model, the tolerance of each
   entry given the model's output p at x and G = sum |g|, and the y (ys) the
   VJP is given: the kernel's own, float(p), or both. Every case runs in
   every impl: |dx_j - fd_j| <= tol_j, and dx_j == 0 exactly where x_j is
   -Inf (a masked entry has no gradient). */
typedef struct fd_sweep {
  const char *kernel;
  const size_t *ns;
  size_t nns;
  size_t ncases;
  void (*input)(float *x, float *g, size_t n, size_t c, fd_case *out);
  st_model64 model64;
  void (*tol)(const float *x, const float *g, size_t n, const fd_case *c, const double *p,
              double G, double *tol);
  unsigned ys;
} fd_sweep;

/* One impl at one case, the VJP given y: false after reporting. */
static inline bool fd_check(const fd_sweep *s, const ss_kernel_info *k, ss_impl impl,
                            const fd_case *fc, const float *x, const float *y, const float *g,
                            size_t n, const double *fd, const double *tol) {
  float dx[FD_MAX_N];
  ss_test_count(1);
  const ss_status st = ss_normalize_vjp(k, impl, x, y, g, n, fc->params, fc->nparams, dx);
  if (st != SS_OK) {
    ss_test_fail(__FILE__, __LINE__, "%s %s %s n=%zu (%s y): %s", s->kernel, fc->what,
                 ss_impl_name(impl), n, fc->own_y ? "own" : "ref", ss_status_str(st));
    return false;
  }
  ss_test_count(n);
  for (size_t j = 0; j < n; j++) {
    const bool ok = x[j] == -INFINITY ? dx[j] == 0.0f : fabs(dx[j] - fd[j]) <= tol[j];
    if (!ok) {
      ss_test_fail(__FILE__, __LINE__,
                   "%s %s %s n=%zu j=%zu (%s y): x=%.9g dx=%.9g fd=%.9g tol %.3g", s->kernel,
                   fc->what, ss_impl_name(impl), n, j, fc->own_y ? "own" : "ref", x[j], dx[j],
                   fd[j], tol[j]);
      return false;
    }
  }
  return true;
}

static inline bool fd_run(const fd_sweep *s) {
  const ss_kernel_info *k = ss_kernel_find(s->kernel, SS_FAMILY_NORMALIZER);
  if (!k) {
    ss_test_fail(__FILE__, __LINE__, "%s: not in the registry", s->kernel);
    return false;
  }
  const unsigned ys = s->ys ? s->ys : FD_OWN_Y;
  for (size_t t = 0; t < s->nns; t++) {
    const size_t n = s->ns[t];
    float x[FD_MAX_N], g[FD_MAX_N], y[FD_MAX_N], yr[FD_MAX_N];
    double fd[FD_MAX_N], p[FD_MAX_N], tol[2][FD_MAX_N];
    for (size_t c = 0; c < s->ncases; c++) {
      fd_case fc = {.h = 1e-5};
      s->input(x, g, n, c, &fc);
      ss_test_count(1);
      if (fc.no_input) {
        ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: no input fits", s->kernel, fc.what, n);
        return false;
      }
      double G = 0.0;
      for (size_t i = 0; i < n; i++) G += fabs(g[i]);
      st_fd_vjp(s->model64, x, g, n, fc.model_param, fc.h, fd);
      st_ref64(s->model64, fc.model_param, x, n, p);
      for (size_t i = 0; i < n; i++) yr[i] = (float)p[i];
      for (int own = 0; own < 2; own++) {
        fc.own_y = own;
        s->tol(x, g, n, &fc, p, G, tol[own]);
      }
      FOR_EACH_IMPL(impl) {
        if (ys & FD_REF_Y) {
          fc.own_y = false;
          if (!fd_check(s, k, impl, &fc, x, yr, g, n, fd, tol[0])) return false;
        }
        if (ys & FD_OWN_Y) {
          ss_test_count(1);
          const ss_status st = ss_normalize(k, impl, x, n, fc.params, fc.nparams, y);
          if (st != SS_OK) {
            ss_test_fail(__FILE__, __LINE__, "%s %s %s n=%zu: %s", s->kernel, fc.what,
                         ss_impl_name(impl), n, ss_status_str(st));
            return false;
          }
          fc.own_y = true;
          if (!fd_check(s, k, impl, &fc, x, y, g, n, fd, tol[1])) return false;
        }
      }
    }
  }
  return true;
}

#endif
