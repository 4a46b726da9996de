/* The exact sparsemax / 1.5-entmax threshold: grid, searches, output pass
   (scalar). The driver that runs them is threshold_driver.c. See
   sparse/threshold.h. */
#include "sparse/threshold.h"

#include <float.h>
#include <math.h>

#include "common/check.h"
#include "common/select.h"

void ss_grid_init(ss_grid *g, ss_sparse_kind kind, float max) {
  g->max = max;
  g->square = kind == SS_SPARSE_ENTMAX15;
  if (g->square) { /* q = trunc(z * 2^48), z = d / 2 in (-1, 0] */
    g->scale = 0x1p47;
    g->dmin = -2.0;
    g->qfloor = -((int64_t)1 << 48);
    g->one = (ss_i128)1 << 96;
  } else { /* q = trunc(d * 2^62), d in (-1, 0] */
    g->scale = 0x1p62;
    g->dmin = -1.0;
    g->qfloor = -((int64_t)1 << 62);
    g->one = (ss_i128)1 << 62;
  }
}

/* max - r is exact in double; rounding it to float may go up by half an
   ulp, so step one float down: the result is < max - r (and any x below it
   has d = x - max <= -r, the grid floor). */
float ss_sparse_floor(ss_sparse_kind kind, float max) {
  const double r = kind == SS_SPARSE_ENTMAX15 ? 2.0 : 1.0;
  const float lo = nextafterf((float)((double)max - r), -INFINITY);
  return lo < -FLT_MAX ? -FLT_MAX : lo;
}

/* g(v) of (*) on the grid, for the c entries >= v with sums s1, s2 (all
   entries >= v must be counted; entries equal to v add 0). */
static inline ss_i128 excess(const ss_grid *g, size_t c, ss_i128 s1, ss_i128 s2,
                             int64_t qv) {
  if (!g->square) return s1 - (ss_i128)c * qv;
  /* sum (q - qv)^2 = S2 + c qv^2 - 2 qv S1; q, qv <= 0 so the last term is
     <= 0 and the partial sum S2 + c qv^2 <= 2^123 does not overflow. */
  return s2 + (ss_i128)c * qv * qv - 2 * ((ss_i128)qv * s1);
}

void ss_sparse_select(float *v, size_t m, const ss_grid *g, ss_support *s,
                      size_t *work) {
  ss_select_rng rng = SS_SELECT_RNG_INIT;
  /* (c, s1, s2): the entries already known to be in S, all larger than
     every entry of the undecided range v[0..m). */
  size_t c = 0;
  ss_i128 s1 = 0, s2 = 0;
  int64_t qmin = 0;
  float vmin = INFINITY;
  while (m > 0) {
    const float p = ss_select_pivot(v, m, &rng);
    size_t gt, eq;
    ss_partition3_desc(v, m, p, &gt, &eq);
    const int64_t qp = ss_grid_q(g, p);
    ss_i128 t1 = s1 + (ss_i128)eq * qp, t2 = s2;
    if (g->square) {
      t2 += (ss_i128)eq * qp * qp;
      for (size_t i = 0; i < gt; i++) {
        const int64_t q = ss_grid_q(g, v[i]);
        t1 += q;
        t2 += (ss_i128)q * q;
      }
    } else {
      for (size_t i = 0; i < gt; i++) t1 += ss_grid_q(g, v[i]);
    }
    if (work) *work += m + gt;
    if (excess(g, c + gt + eq, t1, t2, qp) < g->one) {
      /* p satisfies (*): so does every entry >= p; go on below p. */
      c += gt + eq;
      s1 = t1;
      s2 = t2;
      qmin = qp;
      vmin = p;
      v += gt + eq;
      m -= gt + eq;
    } else {
      m = gt; /* p and everything <= p is out; go on above p */
    }
  }
  s->count = c;
  s->s1 = s1;
  s->s2 = s2;
  s->qmin = qmin;
  s->vmin = vmin;
}

void ss_sparse_sort(float *v, size_t m, float lo, const ss_grid *g,
                    ss_support *s) {
  ss_sort_desc(v, m);
  size_t c = 0;
  ss_i128 s1 = 0, s2 = 0;
  int64_t qmin = 0;
  float vmin = INFINITY;
  for (size_t k = 0; k < m && v[k] >= lo; k++) {
    const int64_t q = ss_grid_q(g, v[k]);
    const ss_i128 t1 = s1 + q, t2 = g->square ? s2 + (ss_i128)q * q : 0;
    if (excess(g, c + 1, t1, t2, q) >= g->one) break; /* monotone: done */
    c++;
    s1 = t1;
    s2 = t2;
    qmin = q;
    vmin = v[k];
  }
  s->count = c;
  s->s1 = s1;
  s->s2 = s2;
  s->qmin = qmin;
  s->vmin = vmin;
}

bool ss_sparse_would_join(const ss_grid *g, const ss_support *s, float x) {
  return excess(g, s->count, s->s1, s->s2, ss_grid_q(g, x)) < g->one;
}

double ss_sparse_theta(const ss_grid *g, const ss_support *s) {
  const double c = (double)s->count;
  if (!g->square) return (double)(s->s1 - g->one) * 0x1p-62 / c;
  const ss_i128 r = s->qmin;
  const ss_i128 d1 = s->s1 - (ss_i128)s->count * r;       /* <= 2^75 */
  const ss_i128 d2 = excess(g, s->count, s->s1, s->s2, s->qmin); /* < 2^96 */
  const ss_i128 w = (ss_i128)s->count * d2 - d1 * d1;     /* >= 0, < 2^122 */
  const ss_i128 num = (ss_i128)s->count * g->one - w;     /* > 0 */
  const double delta = (double)num * 0x1p-96 / (c * c);
  return (double)s->s1 * 0x1p-48 / c - sqrt(delta);
}

size_t ss_compact_ge_scalar(const float *x, size_t n, float lo, float *y) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (x[i] >= lo) y[m++] = x[i];
  return m;
}

size_t ss_sparse_output_scalar(const float *x, size_t n, const ss_grid *g,
                               double theta, float vmin, float *y) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    y[i] = ss_sparse_output1(g, theta, vmin, x[i]);
    k += y[i] > 0.0f;
  }
  return k;
}

/* The argument checks of ss_normalize, plus the method. */
ss_status ss_sparse_check_args(ss_impl impl, ss_threshold_method method,
                               const float *x, size_t n, const float *y) {
  if (!x || !y) return SS_ERR_NULL;
  if ((unsigned)impl >= SS_IMPL_COUNT || !ss_impl_available(impl))
    return SS_ERR_UNSUPPORTED;
  const ss_status s = ss_check_n(n);
  if (s != SS_OK) return s;
  if (method != SS_THRESHOLD_SELECT && method != SS_THRESHOLD_SORT)
    return SS_ERR_PARAM_RANGE;
  return SS_OK;
}
