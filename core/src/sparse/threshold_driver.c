/* The driver of the exact sparsemax / 1.5-entmax threshold, shared by both
   kernels: validate x, find the support by the method (sort or selection)
   with the scalar pieces (threshold.c) or the SIMD ones (threshold_simd.c),
   write y. A file of its own so that the two sets of pieces never call
   each other. See sparse/threshold.h. */
#include <float.h>
#include <math.h>

#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "sparse/threshold.h"

void ss_sparse_report(const ss_grid *g, double theta, size_t k, float *tau,
                      size_t *support) {
  if (tau) *tau = (float)((g->square ? 0.5 * g->max : g->max) + theta);
  if (support) *support = k;
}

/* The support by the selection method, y as scratch. Scalar: every entry
   >= lo is a candidate. SIMD: Newton narrowing first (threshold_simd.c);
   the subset holds the support unless the search kept all of it and the
   largest entry left out would have joined (rounding beyond the margin):
   then every entry >= lo is searched. */
static void select_support_scalar(const float *x, size_t n, const ss_grid *g, float lo,
                                  double margin, float *y, ss_support *s) {
  (void)margin;
  const size_t m = ss_compact_ge_scalar(x, n, lo, y);
  ss_sparse_select(y, m, g, s, NULL);
}

#if SS_HAVE_SIMD
static void select_support_simd(const float *x, size_t n, const ss_grid *g, float lo,
                                double margin, float *y, ss_support *s) {
  float excluded;
  size_t m = ss_sparse_narrow_simd(x, n, g, lo, margin, y, &excluded);
  if (m > 0) ss_sparse_select(y, m, g, s, NULL);
  if (m == 0 || (s->count == m && excluded != -INFINITY &&
                 ss_sparse_would_join(g, s, excluded))) {
    m = ss_compact_ge_simd(x, n, lo, y);
    ss_sparse_select(y, m, g, s, NULL);
  }
}
#endif

/* The kernel, once for both impls (common/impl_pair.h). */
SS_ALWAYS_INLINE ss_status sparse_run(ss_impl impl, ss_sparse_kind kind,
                                      ss_threshold_method method, const float *x, size_t n,
                                      double margin, float *y, float *tau, size_t *support) {
  float max;
  const ss_status st = SS_BY_IMPL(impl, ss_logits_max)(x, n, &max);
  if (st != SS_OK) return st;
  /* From here on y is scratch: the candidates, then the result. */
  ss_grid g;
  ss_grid_init(&g, kind, max);
  const float lo = ss_sparse_floor(kind, max);
  ss_support s;
  if (method == SS_THRESHOLD_SORT) {
    /* every finite logit (x >= -FLT_MAX), as the textbook method sorts */
    const size_t m = SS_BY_IMPL(impl, ss_compact_ge)(x, n, -FLT_MAX, y);
    ss_sparse_sort(y, m, lo, &g, &s);
  } else {
    SS_BY_IMPL(impl, select_support)(x, n, &g, lo, margin, y, &s);
  }
  const double theta = ss_sparse_theta(&g, &s);
  const size_t k = SS_BY_IMPL(impl, ss_sparse_output)(x, n, &g, theta, s.vmin, y);
  ss_sparse_report(&g, theta, k, tau, support);
  return SS_OK;
}

ss_status ss_sparse_run_scalar(ss_sparse_kind kind, ss_threshold_method method,
                               const float *x, size_t n, double margin, float *y,
                               float *tau, size_t *support) {
  return sparse_run(SS_IMPL_SCALAR, kind, method, x, n, margin, y, tau, support);
}

#if SS_HAVE_SIMD
ss_status ss_sparse_run_simd(ss_sparse_kind kind, ss_threshold_method method,
                             const float *x, size_t n, double margin, float *y,
                             float *tau, size_t *support) {
  return sparse_run(SS_IMPL_SIMD, kind, method, x, n, margin, y, tau, support);
}
#endif

ss_status ss_sparse_run_margin(ss_sparse_kind kind, ss_impl impl,
                               ss_threshold_method method, const float *x,
                               size_t n, double margin, float *y, float *tau,
                               size_t *support) {
  return SS_BY_IMPL(impl, ss_sparse_run)(kind, method, x, n, margin, y, tau, support);
}

ss_status ss_sparse_ex(ss_sparse_kind kind, ss_impl impl, ss_threshold_method method,
                       const float *x, size_t n, float *y, float *tau, size_t *support) {
  const ss_status s = ss_sparse_check_args(impl, method, x, n, y);
  if (s != SS_OK) return s;
  return ss_sparse_run_margin(kind, impl, method, x, n, SS_SPARSE_MARGIN, y, tau, support);
}
