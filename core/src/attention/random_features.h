/*
 * Random features of the softmax kernel SM(x, y) = exp(x . y), shared by
 * performer, trig and hrf (x = sqrt(s) q, y = sqrt(s) k for the score scale
 * s, so SM(x, y) = exp(s q . k)). With w ~ N(0, I_dh):
 *
 *   positive (FAVOR+, Choromanski et al. 2021):
 *     SM(x, y) = E[exp(w.x - |x|^2/2) exp(w.y - |y|^2/2)]
 *     relative MSE over m draws: (exp(|x + y|^2) - 1) / m
 *   hyperbolic (the positive pair exp(+-w.x), the same paper):
 *     SM(x, y) = E[exp(-|x|^2/2 - |y|^2/2) cosh(w.(x + y))]
 *     relative MSE: (exp(|x + y|^2 / 2) - exp(-|x + y|^2 / 2))^2 / 2m
 *   trigonometric (Rahimi & Recht 2007, with SM = e^{|x|^2/2} e^{|y|^2/2}
 *   exp(-|x - y|^2 / 2)):
 *     SM(x, y) = E[e^{|x|^2/2} e^{|y|^2/2} cos(w.(x - y))]
 *     relative MSE: (exp(|x - y|^2 / 2) - exp(-|x - y|^2 / 2))^2 / 2m
 *
 * so the positive estimators are exact where the kernel is smallest
 * (y = -x for equal norms, angle pi) and the trigonometric one where it is
 * largest (y = x, angle 0). Hybrid random features (Choromanski et al. 2022,
 * "Hybrid Random Features", the angular hybrid) weight them by the angle
 * theta between x and y:
 *
 *   SM_hrf = lambda SM_hyp + (1 - lambda) SM_trig,   lambda = theta / pi,
 *
 * with lambda itself estimated by random features (Goemans-Williamson:
 * P[sgn(r.x) != sgn(r.y)] = theta / pi for r ~ N(0, I)):
 *
 *   lambda^ = 1/2 - (1/2) rho(x) . rho(y),   rho(x) = sgn(R x) / sqrt(a),
 *
 * drawn independently of the base features, so E[lambda^ SM^] = lambda SM:
 * the product of two linear forms is a linear form of the tensor product of
 * the features, and the whole estimator is phi_q(x) . phi_k(y) with
 *
 *   phi_q = [hyp, trig, -rho_1 hyp, rho_1 trig, ..., -rho_a hyp, rho_a trig] / sqrt 2
 *   phi_k = [hyp, trig, +rho_1 hyp, rho_1 trig, ..., +rho_a hyp, rho_a trig] / sqrt 2
 *
 * (phi_q . phi_k = (hyp.hyp + trig.trig)/2 + (rho.rho)(trig.trig - hyp.hyp)/2),
 * of size F = (2p + 2t)(1 + a): unbiased, and linear in n like its bases.
 *
 * Every feature row is computed in log space and scaled by exp(-shift),
 * shift the largest log-magnitude of the rows computed together, so that
 * no feature overflows; a factor common to a query's row, or to all keys,
 * cancels in the ratio of linear attention.
 */
#ifndef SS_ATTENTION_RANDOM_FEATURES_H
#define SS_ATTENTION_RANDOM_FEATURES_H

#include <stdint.h>

#include "attention/linear_internal.h"
#include "common/impl_pair.h"

/* Projections w (rows x dh, stored transposed: element c of row l at
   w[c rows + l]) = Philox normal number l dh + c of (seed, stream). orthogonal: each block of dh consecutive rows
   is orthogonalized (Gram-Schmidt twice, in double) and every row keeps the
   length of its own Gaussian draw (chi with dh degrees of freedom,
   independent of the directions): the orthogonal random features of Yu et
   al. 2016 that FAVOR+ uses. Each row is still N(0, I) on its own, so every
   estimator stays unbiased; rows of a block are exactly orthogonal, which
   lowers the variance. Deterministic: the same floats in every build. */
void ss_rf_draw(uint64_t seed, uint64_t stream, size_t rows, size_t dh, bool orthogonal, float *w);

/* The parameters every random-feature kernel has. */
#define SS_ATTN_P_SEED                                                                       \
  {.name = "seed", .type = SS_PARAM_INT, .min = 0, .max = 9007199254740992.0, .def = 0,      \
   .ui_min = 0, .ui_max = 1000, .help = "seed of the random features"}
#define SS_ATTN_P_ORTHOGONAL                                                                 \
  {.name = "orthogonal", .type = SS_PARAM_BOOL, .min = 0, .max = 1, .def = 1, .ui_min = 0,  \
   .ui_max = 1, .help = "orthogonal blocks of projections with chi lengths (FAVOR+); 0: i.i.d."}

/* Angle draws of a hybrid map, and projections of one kind, at most. */
#define SS_RF_MAX_ANGLE 64
#define SS_RF_MAX_PROJ 4096

/* A feature map: p positive (hyperbolic: 2p features), t trigonometric (2t
   features) and a angle draws (hybrid when p, t and a are all > 0). */
typedef struct ss_rf_map {
  const float *wp, *wt, *wa; /* p, t, a projections, each stored dh x count (ss_rf_draw) */
  size_t p, t, a;
  bool hyperbolic; /* positive part as exp(+-w.x) pairs */
  float sq;        /* sqrt of the score scale */
} ss_rf_map;

/* Number of features F of a map. */
size_t ss_rf_dim(const ss_rf_map *m);

/* phi (rows x F) of the rows of x (stride between rows, dh columns), as a
   query (the hybrid's -rho hyp block) or a key, all scaled by exp(-shift);
   *shift receives the shift (may be NULL). The projections are ops->row_times
   over the transposed w, each in the order of the scalar loop, and |x|^2 is
   a scalar-order dot, so both impls compute the same features. */
void ss_rf_features(const ss_attn_ops *ops, const ss_rf_map *m, const float *x, size_t rows,
                    size_t stride, size_t dh, bool query, float *phi, double *shift);

/* The pointwise estimate of head h: est[i m + j] = phi_q(x_i) . phi_k(y_j)
   exp(shift_i + shift_j), every row with its own shift (the products by
   ops->dot in float like the attention itself; in the scalar order for a
   map with trigonometric features, whose products cancel, so both impls
   give the same bits). False when an estimate is beyond double's range
   (exp(shift_i + shift_j), the rows' scales, overflows). Scratch:
   (m + 1) F floats. */
SS_ALWAYS_INLINE bool ss_rf_estimate_head(const ss_attn_ops *ops, const ss_rf_map *m,
                                          const ss_attention_io *io, size_t h, float *scratch,
                                          double *est) {
  const ss_attn_dims D = ss_attn_dims_of(io);
  const size_t F = ss_rf_dim(m);
  float *pk = scratch, *pq = scratch + io->m * F;
  bool finite = true;
  /* each key with its own shift, kept in est's first row until query 0 */
  for (size_t j = 0; j < io->m; j++)
    ss_rf_features(ops, m, io->k + j * io->d + h * D.dh, 1, io->d, D.dh, false, pk + j * F, est + j);
  for (size_t i = io->n; i-- > 0;) {
    double sq;
    ss_rf_features(ops, m, io->q + i * io->d + h * D.dh, 1, io->d, D.dh, true, pq, &sq);
    for (size_t j = 0; j < io->m; j++) {
      const float pr = m->t ? attn_dot_scalar(pq, pk + j * F, F) : ops->dot(pq, pk + j * F, F);
      est[i * io->m + j] = (double)pr * exp(sq + est[j]);
      finite &= isfinite(est[i * io->m + j]);
    }
  }
  return finite;
}

/* The engine's view of a map (keys share one shift, queries one each). */
static void ss_rf_engine_features(const ss_attn_ops *ops, const void *ctx, const float *x, size_t rows,
                                  size_t stride, size_t dh, size_t pos, bool query, float *phi) {
  (void)pos;
  ss_rf_features(ops, (const ss_rf_map *)ctx, x, rows, stride, dh, query, phi, NULL);
}

/* The linear attention of head h with the map: the engine's ratio form,
   signed when the map has trigonometric features, positive otherwise (a
   normalizer that cancelled or underflowed is SS_ERR_DOMAIN either way). Inlined, so each entry point keeps its impl's
   engine. Scratch: ss_linear_scratch(m, F, dvh). */
SS_ALWAYS_INLINE ss_status ss_rf_attend_head(const ss_attn_ops *ops, const ss_rf_map *m,
                                             const ss_attention_io *io, bool causal, size_t h) {
  return ss_linear_attention(ops, ss_rf_engine_features, m, io, causal, ss_rf_dim(m),
                             m->t ? SS_LINEAR_RATIO_SIGNED : SS_LINEAR_RATIO_POSITIVE, 0.0f, h);
}

/* A kernel's map for head h, with its projections drawn into w, and its
   number of features F. */
typedef ss_rf_map (*ss_rf_map_fn)(const ss_attention_io *io, const double *p, size_t h, float *w);
typedef size_t (*ss_rf_dim_fn)(const double *p);

/* A random-feature kernel over every head (params: heads, scale, causal,
   then its own): with est the kernel estimate, else the linear attention;
   the projections live after the engine's scratch for F features. The
   bodies of a kernel's entry points (common/impl_pair.h):
   SS_ATTEND_IMPLS(name, ss_rf_attend, map, dim) and
   SS_KERNEL_ESTIMATE_IMPLS(name_estimate, ss_rf_estimate, map, dim). */
SS_ALWAYS_INLINE ss_status ss_rf_estimate(ss_rf_map_fn map_of, ss_rf_dim_fn dim, ss_impl impl,
                                          const ss_attention_io *io, const double *p, double *est) {
  const ss_attn_ops *ops = SS_ATTN_OPS(impl);
  const size_t F = dim(p);
  float *w = io->scratch + ss_linear_scratch(io->m, F, io->dv / io->heads);
  for (size_t h = 0; h < io->heads; h++) {
    const ss_rf_map m = map_of(io, p, h, w);
    if (est) {
      if (!ss_rf_estimate_head(ops, &m, io, h, io->scratch, est + h * io->n * io->m)) return SS_ERR_DOMAIN;
    } else {
      const ss_status s = ss_rf_attend_head(ops, &m, io, p[2] != 0, h);
      if (s != SS_OK) return s;
    }
  }
  return SS_OK;
}

SS_ALWAYS_INLINE ss_status ss_rf_attend(ss_rf_map_fn map_of, ss_rf_dim_fn dim, ss_impl impl,
                                        const ss_attention_io *io, const double *p) {
  return ss_rf_estimate(map_of, dim, impl, io, p, NULL);
}

#endif
