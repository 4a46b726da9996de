/*
 * One driver for the "matches its float64 reference" tests of normalizers:
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

/* ref = f(x; param) in double, of float logits. */
static inline void fw_ref64(st_model64 f, double param, const float *x, size_t n, double *ref) {
  double *xd = ss_test_alloc(n * 8);
  for (size_t i = 0; i < n; i++) xd[i] = x[i];
  f(xd, n, param, ref);
  ss_test_free(xd);
}

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
    fw_ref64(s->model64, 0.0, x, n, ref);
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

#endif
