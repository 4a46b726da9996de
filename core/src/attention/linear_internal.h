/*
 * The engine shared by the linear-attention forms (cosformer, galerkin,
 * performer): with a feature map phi of size F,
 *
 *   out_i = sum_j (phi(q_i) . phi(k_j)) v_j / den_i
 *         = phi(q_i)^T (sum_j phi(k_j) v_j^T) / den_i
 *
 * den_i = phi(q_i) . sum_j phi(k_j) + eps (cosformer, performer) or the key
 * count m (galerkin). The sums run over the visible keys; with causal masking
 * they are prefix sums, grown as i advances, so the cost stays O((n + m) F
 * dv) instead of O(n m). The attention matrix, when asked for, is the
 * explicit quadratic form phi(q_i) . phi(k_j) / den_i (0 for masked keys).
 *
 * Force-inlined into each kernel's _scalar and _simd entry points with a
 * constant ops table and feature function, so every call is direct.
 */
#ifndef SS_ATTENTION_LINEAR_INTERNAL_H
#define SS_ATTENTION_LINEAR_INTERNAL_H

#include <float.h>

#include "attention/attention_internal.h"
#include "common/flush.h"

/* Features of the rows of x (rows x stride; the head's dh columns start at
   x), at positions pos, pos + 1, ..., into phi (rows x F). Keys come all at
   once (a map may need the whole set, like performer's stabilizer), queries
   one row at a time. */
typedef void (*ss_attn_features_fn)(const ss_attn_ops *ops, const void *ctx, const float *x,
                                    size_t rows, size_t stride, size_t dh, size_t pos, bool query,
                                    float *phi);

/* RATIO: the ratio form with a normalizer the features keep >= 0 (cosformer's
   ReLU'd cosines; eps > 0 keeps it positive, at eps = 0 a row matching no
   key comes out 0).
   RATIO_POSITIVE: the ratio form for features that are positive in exact
   arithmetic (performer's exp features): a normalizer that is 0 or
   subnormal in float has underflowed (a large score scale), and that row,
   or an output that overflows, is SS_ERR_DOMAIN (the rows before it are
   written), never a silent 0 or Inf.
   RATIO_SIGNED: the same rule for feature maps whose products can be
   negative (trigonometric random features), whose estimated normalizer can
   be <= 0. Its normalizer, which can cancel, is summed in the scalar order
   in both impls. */
typedef enum {
  SS_LINEAR_RATIO = 0,
  SS_LINEAR_MEAN = 1,
  SS_LINEAR_RATIO_SIGNED = 2,
  SS_LINEAR_RATIO_POSITIVE = 3
} ss_linear_norm;

/* Scratch: m F (key features) + F dvh (sum phi v^T) + F (sum phi) + F (query feature). */
static inline uint64_t ss_linear_scratch(uint64_t m, uint64_t F, uint64_t dvh) { return m * F + F * dvh + 2 * F; }

SS_ALWAYS_INLINE ss_status ss_linear_attention(const ss_attn_ops *ops, ss_attn_features_fn features,
                                               const void *ctx, const ss_attention_io *io,
                                               bool causal, size_t F, ss_linear_norm norm,
                                               float eps, size_t head) {
  const ss_attn_dims D = ss_attn_dims_of(io);
  float *phik = io->scratch, *kv = phik + io->m * F, *z = kv + F * D.dvh, *phiq = z + F;
  features(ops, ctx, io->k + head * D.dh, io->m, io->d, D.dh, 0, false, phik);
  for (size_t t = 0; t < F * D.dvh; t++) kv[t] = 0.0f;
  for (size_t t = 0; t < F; t++) z[t] = 0.0f;
  size_t added = 0;
  for (size_t i = 0; i < io->n; i++) {
    const size_t lim = ss_attn_limit(io, causal, i);
    for (; added < lim; added++) {
      if (!ss_attn_key_ok(io, added)) continue;
      ops->outer(kv, phik + added * F, io->v + added * io->dv + head * D.dvh, F, D.dvh);
      ops->axpy(z, phik + added * F, F, 1.0f);
    }
    features(ops, ctx, io->q + i * io->d + head * D.dh, 1, io->d, D.dh, i, true, phiq);
    float *o = io->out + i * io->dv + head * D.dvh;
    ops->row_times(o, phiq, kv, F, D.dvh);
    /* signed features: the normalizer may cancel, so it is summed in the
       scalar order in both impls (the same bits, not only the same value) */
    const float den = norm == SS_LINEAR_MEAN          ? (float)io->m
                      : norm == SS_LINEAR_RATIO_SIGNED ? attn_dot_scalar(phiq, z, F) + eps
                                                       : ops->dot(phiq, z, F) + eps;
    const float inv = den != 0.0f ? 1.0f / den : 0.0f;
    for (size_t c = 0; c < D.dvh; c++) o[c] *= inv;
    if (norm == SS_LINEAR_RATIO_SIGNED || norm == SS_LINEAR_RATIO_POSITIVE) {
      bool ok = den >= FLT_MIN && isfinite(inv);
      for (size_t c = 0; c < D.dvh; c++) ok = ok && isfinite(o[c]);
      if (!ok) return SS_ERR_DOMAIN;
    }
    if (io->attn) {
      /* signed features: each weight's product can cancel like the
         normalizer, so it is summed in the same scalar order (both impls
         give the same bits; a single visible key gets den / den) */
      float *a = io->attn + (head * io->n + i) * io->m;
      for (size_t j = 0; j < io->m; j++) {
        if (!(j < lim && ss_attn_key_ok(io, j))) {
          a[j] = 0.0f; /* the exact-zero rule */
          continue;
        }
        const float *pk = phik + j * F;
        const float pr = norm == SS_LINEAR_RATIO_SIGNED ? attn_dot_scalar(phiq, pk, F) : ops->dot(phiq, pk, F);
        a[j] = ss_flush(pr * inv);
      }
    }
  }
  return SS_OK;
}

#endif
