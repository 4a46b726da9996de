/* Random features of the softmax kernel (see random_features.h): the
   projections (i.i.d. or orthogonal blocks), the feature maps, the pointwise
   kernel estimate (its generic entry point is in
   registry/dispatch_attention.c). */
#include "attention/random_features.h"

#include <string.h>

#include "common/rng.h"

/* The projections are pinned bit for bit: no FMA contraction (see rng.c). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Row l of a block (element c at w[c R + l]), orthogonalized against the
   block's rows before it (already final in w) and scaled back to its own
   length: classical Gram-Schmidt applied twice ("twice is enough", Giraud
   et al. 2005), in double, so the rows are orthogonal to ~1e-15 before the
   float rounding. */
static void orthogonalize_row(float *w, size_t R, size_t first, size_t l, size_t dh, double *v) {
  double len2 = 0.0;
  for (size_t c = 0; c < dh; c++) v[c] = w[c * R + l], len2 += v[c] * v[c];
  for (int pass = 0; pass < 2; pass++)
    for (size_t j = first; j < l; j++) {
      double uv = 0.0, uu = 0.0;
      for (size_t c = 0; c < dh; c++) uv += (double)w[c * R + j] * v[c], uu += (double)w[c * R + j] * w[c * R + j];
      const double coef = uv / uu;
      for (size_t c = 0; c < dh; c++) v[c] -= coef * w[c * R + j];
    }
  double r2 = 0.0;
  for (size_t c = 0; c < dh; c++) r2 += v[c] * v[c];
  if (!(r2 > 0.0)) return; /* a draw in the span of the others (probability 0): keep it */
  const double f = sqrt(len2 / r2);
  for (size_t c = 0; c < dh; c++) w[c * R + l] = (float)(v[c] * f);
}

void ss_rf_draw(uint64_t seed, uint64_t stream, size_t rows, size_t dh, bool orthogonal, float *w) {
  for (size_t l = 0; l < rows; l++)
    for (size_t c = 0; c < dh; c++) w[c * rows + l] = (float)ss_philox_normal(seed, stream, l * dh + c);
  if (!orthogonal) return;
  double v[SS_ATTN_MAX_DIM];
  for (size_t l = 0; l < rows; l++) orthogonalize_row(w, rows, l - l % dh, l, dh, v);
}

size_t ss_rf_dim(const ss_rf_map *m) {
  const size_t base = (m->hyperbolic ? 2 * m->p : m->p) + 2 * m->t;
  return m->p && m->t ? base * (1 + m->a) : base;
}

/* Pass 1 for one row, in place in its phi row: the log-magnitudes of the
   positive features (u - half, and -u - half for the hyperbolic pair), the
   trigonometric angles u with half next to each, and the angle signs in the
   first hybrid block (F >= B (1 + a) leaves room); half = |x'|^2 / 2.
   Returns the row's largest log-magnitude. */
static float row_logs(const ss_attn_ops *ops, const ss_rf_map *m, const float *x, size_t dh,
                      float *row) {
  const float sq = m->sq, half = 0.5f * sq * sq * attn_dot_scalar(x, x, dh);
  const size_t np = m->hyperbolic ? 2 * m->p : m->p, B = np + 2 * m->t;
  float u[SS_RF_MAX_PROJ];
  float top = m->t ? half : -INFINITY;
  if (m->p) {
    ops->row_times(u, x, m->wp, dh, m->p);
    for (size_t l = 0; l < m->p; l++) {
      const float ul = sq * u[l];
      if (m->hyperbolic) {
        row[2 * l] = ul - half, row[2 * l + 1] = -ul - half;
        top = fmaxf(top, fmaxf(row[2 * l], row[2 * l + 1]));
      } else {
        row[l] = ul - half;
        top = fmaxf(top, row[l]);
      }
    }
  }
  if (m->t) {
    ops->row_times(u, x, m->wt, dh, m->t);
    for (size_t l = 0; l < m->t; l++) row[np + 2 * l] = sq * u[l], row[np + 2 * l + 1] = half;
  }
  if (m->p && m->t && m->a) {
    ops->row_times(u, x, m->wa, dh, m->a);
    for (size_t l = 0; l < m->a; l++) row[B + l] = (float)((u[l] > 0.0f) - (u[l] < 0.0f));
  }
  return top;
}

/* Pass 2 for one row: the features, scaled by exp(-shift). */
static void row_features(const ss_rf_map *m, bool query, float shift, float *row) {
  const size_t np = m->hyperbolic ? 2 * m->p : m->p, B = np + 2 * m->t;
  const float cp = (float)(1.0 / sqrt((double)(np ? np : 1))), ct = (float)(1.0 / sqrt((double)(m->t ? m->t : 1)));
  for (size_t c = 0; c < np; c++) row[c] = expf(row[c] - shift) * cp;
  for (size_t l = 0; l < m->t; l++) {
    const float u = row[np + 2 * l], amp = expf(row[np + 2 * l + 1] - shift) * ct;
    row[np + 2 * l] = amp * cosf(u), row[np + 2 * l + 1] = amp * sinf(u);
  }
  if (!(m->p && m->t)) return;
  float rho[SS_RF_MAX_ANGLE];
  const float ca = 1.0f / sqrtf((float)m->a), half_sqrt2 = 0.70710678118654752f;
  for (size_t l = 0; l < m->a; l++) rho[l] = row[B + l] * ca;
  for (size_t c = 0; c < B; c++) row[c] *= half_sqrt2;
  for (size_t l = 0; l < m->a; l++) {
    float *blk = row + B * (1 + l);
    const float sp = query ? -rho[l] : rho[l];
    for (size_t c = 0; c < np; c++) blk[c] = sp * row[c];
    for (size_t c = np; c < B; c++) blk[c] = rho[l] * row[c];
  }
}

void ss_rf_features(const ss_attn_ops *ops, const ss_rf_map *m, const float *x, size_t rows,
                    size_t stride, size_t dh, bool query, float *phi, double *shift) {
  const size_t F = ss_rf_dim(m);
  float top = -INFINITY;
  for (size_t r = 0; r < rows; r++) top = fmaxf(top, row_logs(ops, m, x + r * stride, dh, phi + r * F));
  if (!(top > -INFINITY)) top = 0.0f;
  if (shift) *shift = top;
  for (size_t r = 0; r < rows; r++) row_features(m, query, top, phi + r * F);
}
