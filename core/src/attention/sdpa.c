/*
 * Scaled dot-product attention (Vaswani et al. 2017, "Attention Is All You
 * Need") with any registry normalizer in softmax's place (sparsemax,
 * entmax (Correia, Niculae & Martins 2019, "Adaptively Sparse
 * Transformers"), ssmax, softpick, ...):
 *
 *   A_h = normalize(scale Q_h K_h^T + M),   out_h = A_h V_h
 *
 * scale = 1 / sqrt(d_head) by default; M is 0 where a key is visible and
 * -Inf where it is masked (causal: j > i + m - n; padding: key_mask[j] = 0),
 * so every normalizer gives masked keys exactly zero weight. Each row of
 * scores is a SIMD dot product per key; each row is normalized by the
 * normalizer's own kernel (its SIMD version in the SIMD impl); out skips the
 * zero weights, so sparse normalizers also save the A V work. A score that
 * overflows float is SS_ERR_DOMAIN (out and attn are then unspecified).
 *
 * Backward (ss_attend_vjp; formulas at vjp_run): through the normalizer's
 * own VJP (and parameter VJP), at the very row the forward normalized: all
 * m scores with -Inf at masked keys, so a length-aware normalizer (ssmax,
 * softplus_l1) counts the same visible keys in both passes, and a
 * position-aware one (masked_softmax's window, noisy_softmax's noise index)
 * sees the same positions. Scratch: 4 m floats.
 */
#include <float.h>

#include "attention/attention_internal.h"
#include "common/impl_pair.h"

static const ss_param_info sdpa_params[] = {SS_ATTN_P_HEADS, SS_ATTN_P_SCALE, SS_ATTN_P_CAUSAL};

/* The normalizer's impl for one of its slots: the call's, or its scalar
   form where the normalizer has no SIMD version of it. */
#define NORM_IMPL(impl, slot) ((slot)[impl] ? (impl) : SS_IMPL_SCALAR)

/* Row i of head h's scores, s[j] = scale q_i . k_j, -Inf at the keys the
   query does not see: the row the forward normalizes and the backward
   differentiates (the same ops, so the same bits). */
SS_ALWAYS_INLINE ss_status scores_row(const ss_attn_ops *ops, const ss_attention_io *io, ss_attn_dims D,
                                      float scale, bool causal, size_t h, size_t i, float *s) {
  const float *qi = io->q + i * io->d + h * D.dh;
  const size_t lim = ss_attn_limit(io, causal, i);
  for (size_t j = 0; j < io->m; j++) {
    if (!(j < lim && ss_attn_key_ok(io, j))) {
      s[j] = -INFINITY;
      continue;
    }
    s[j] = scale * ops->dot(qi, io->k + j * io->d + h * D.dh, D.dh);
    /* a score beyond FLT_MAX (|q| |k| ~ 1e19) would read as a mask
       (-Inf) or as +Inf: not a score the normalizer can take */
    if (!(fabsf(s[j]) <= FLT_MAX)) return SS_ERR_DOMAIN;
  }
  return SS_OK;
}

SS_ALWAYS_INLINE ss_status run(ss_impl impl, const ss_attention_io *io, const double *p) {
  const ss_attn_ops *ops = SS_ATTN_OPS(impl);
  const ss_attn_dims D = ss_attn_dims_of(io);
  const float scale = ss_attn_scale(p[1], D.dh);
  const bool causal = p[2] != 0;
  const ss_kernel_info *nk = io->normalizer;
  const ss_impl nimpl = NORM_IMPL(impl, nk->normalize);
  float *s = io->scratch, *prow = io->scratch + io->m;
  for (size_t h = 0; h < D.heads; h++) {
    for (size_t i = 0; i < io->n; i++) {
      ss_status st = scores_row(ops, io, D, scale, causal, h, i, s);
      if (st != SS_OK) return st;
      float *a = io->attn ? io->attn + (h * io->n + i) * io->m : prow;
      st = ss_normalize(nk, nimpl, s, io->m, io->norm_params, io->norm_nparams, a);
      if (st != SS_OK) return st;
      float *o = io->out + i * io->dv + h * D.dvh;
      for (size_t c = 0; c < D.dvh; c++) o[c] = 0.0f;
      for (size_t j = 0; j < io->m; j++)
        if (a[j] != 0.0f) ops->axpy(o, io->v + j * io->dv + h * D.dvh, D.dvh, a[j]);
    }
  }
  return SS_OK;
}

SS_ATTEND_IMPLS(sdpa, run)

/* dnorm[t] += the row's parameter VJP (the normalizer's slot, called
   directly: ss_attend_vjp checked its parameters at length m). */
static ss_status add_param_vjp(const ss_kernel_info *nk, ss_impl impl, const ss_attention_io *io,
                               const float *s, const float *a, const float *ga, double *dnorm) {
  double dp[SS_ATTN_NORM_PARAMS_MAX];
  const ss_status st = nk->normalize_param_vjp[NORM_IMPL(impl, nk->normalize_param_vjp)](
      s, a, ga, io->m, io->norm_params, dp);
  if (st != SS_OK) return st;
  for (size_t t = 0; t < io->norm_nparams; t++) {
    if (!isfinite(dp[t])) return SS_ERR_DOMAIN;
    dnorm[t] += dp[t];
  }
  return SS_OK;
}

/* max |x_t| over t < len (x finite) */
static inline float abs_max(const float *x, size_t len) {
  float mx = 0.0f;
  for (size_t t = 0; t < len; t++) mx = fabsf(x[t]) > mx ? fabsf(x[t]) : mx;
  return mx;
}

/* dA_i in double (the extreme inputs of grad_weights), the same in both
   impls: SS_ERR_DOMAIN where a dA_ij is beyond FLT_MAX. */
static ss_status grad_weights_f64(const ss_attention_io *io, size_t len, const float *o, const float *s,
                                  const float *vh, float *ga) {
  for (size_t j = 0; j < io->m; j++) {
    double t = 0.0;
    for (size_t c = 0; s[j] != -INFINITY && c < len; c++) t += (double)o[c] * vh[j * io->dv + c];
    if (!(fabs(t) <= FLT_MAX)) return SS_ERR_DOMAIN;
    ga[j] = (float)t;
  }
  return SS_OK;
}

/* dA_ij = dout_i . v_j (0 at masked keys), vh = V's columns of the head.
   When len max|dout_i| max|V| <= 2^127 no partial sum can overflow in any
   order: the impl's dot. Else (extreme inputs) the dots are taken in
   double, the same in both impls, so that both give the same status. */
SS_ALWAYS_INLINE ss_status grad_weights(const ss_attn_ops *ops, const ss_attention_io *io, size_t len,
                                        const float *o, const float *s, const float *vh, double vmax,
                                        float *ga) {
  if (!((double)len * abs_max(o, len) * vmax <= 0x1p127))
    return grad_weights_f64(io, len, o, s, vh, ga);
  for (size_t j = 0; j < io->m; j++) ga[j] = s[j] == -INFINITY ? 0.0f : ops->dot(o, vh + j * io->dv, len);
  return SS_OK;
}

/* Backward, per head h and query i (masked keys: s_ij = -Inf, a_ij = 0):
     dA_ij = dout_i . V_j (0 at masked keys), dS_i = VJP(s_i, a_i, dA_i),
     dQ_i = scale sum_j dS_ij K_j, dK_j += scale dS_ij Q_i, dV_j += a_ij dout_i
   with the forward's scores row (scores_row, the same bits) and weights
   (io->attn, or normalized again by the forward's impl). Exact zeros are
   skipped: a_ij = 0 adds nothing to dV (sparse normalizers), dS_ij = 0
   nothing to dQ and dK (their VJPs are zero off the support). */
SS_ALWAYS_INLINE ss_status vjp_run(ss_impl impl, const ss_attention_io *io, const double *p,
                                   const float *dout, float *dq, float *dk, float *dv, double *dnorm) {
  const ss_attn_ops *ops = SS_ATTN_OPS(impl);
  const ss_attn_dims D = ss_attn_dims_of(io);
  const float scale = ss_attn_scale(p[1], D.dh);
  const bool causal = p[2] != 0;
  const ss_kernel_info *nk = io->normalizer;
  const size_t m = io->m;
  float *s = io->scratch, *arow = s + m, *ga = arow + m, *gs = ga + m;
  for (size_t t = 0; t < m * io->d; t++) dk[t] = 0.0f;
  for (size_t t = 0; t < m * io->dv; t++) dv[t] = 0.0f;
  if (!io->norm_nparams) dnorm = NULL; /* nothing to differentiate */
  for (size_t t = 0; dnorm && t < io->norm_nparams; t++) dnorm[t] = 0.0;
  const double vmax = abs_max(io->v, m * io->dv);
  for (size_t h = 0; h < D.heads; h++) {
    for (size_t i = 0; i < io->n; i++) {
      ss_status st = scores_row(ops, io, D, scale, causal, h, i, s);
      if (st != SS_OK) return st;
      const float *a = io->attn ? io->attn + (h * io->n + i) * m : arow;
      if (!io->attn &&
          (st = ss_normalize(nk, NORM_IMPL(impl, nk->normalize), s, m, io->norm_params,
                             io->norm_nparams, arow)) != SS_OK)
        return st;
      const float *oi = dout + i * io->dv + h * D.dvh;
      if ((st = grad_weights(ops, io, D.dvh, oi, s, io->v + h * D.dvh, vmax, ga)) != SS_OK) return st;
      /* the normalizer's VJP slot, called directly (ss_attend_vjp checked
         its parameters at length m, and ga is finite) */
      st = nk->normalize_vjp[NORM_IMPL(impl, nk->normalize_vjp)](s, a, ga, m, io->norm_params, gs);
      if (st != SS_OK) return st;
      if (dnorm && (st = add_param_vjp(nk, impl, io, s, a, ga, dnorm)) != SS_OK) return st;
      const float *qi = io->q + i * io->d + h * D.dh;
      float *dqi = dq + i * io->d + h * D.dh;
      for (size_t c = 0; c < D.dh; c++) dqi[c] = 0.0f;
      for (size_t j = 0; j < m; j++) {
        if (s[j] == -INFINITY) continue;
        /* a SIMD VJP's float intermediates overflowed: the scalar call answers */
        if (!(fabsf(gs[j]) <= FLT_MAX)) return SS_ERR_DOMAIN;
        if (a[j] != 0.0f) ops->axpy(dv + j * io->dv + h * D.dvh, oi, D.dvh, a[j]);
        if (gs[j] != 0.0f) {
          ops->axpy(dqi, io->k + j * io->d + h * D.dh, D.dh, gs[j]);
          ops->axpy(dk + j * io->d + h * D.dh, qi, D.dh, scale * gs[j]);
        }
      }
      for (size_t c = 0; c < D.dh; c++) dqi[c] *= scale;
    }
  }
  return SS_OK;
}

SS_ATTEND_VJP_IMPLS(sdpa_vjp, vjp_run)

static uint64_t sdpa_scratch(const ss_attention_io *io, const double *p) {
  (void)p;
  return 2 * (uint64_t)io->m;
}

/* the scores row, the weights row (when io->attn is NULL), dA_i and dS_i */
static uint64_t sdpa_vjp_scratch(const ss_attention_io *io, const double *p) {
  (void)p;
  return 4 * (uint64_t)io->m;
}

const ss_kernel_info ss_kernel_sdpa = {
    .name = "sdpa",
    .family = SS_FAMILY_ATTENTION,
    .summary = "scaled dot-product attention with any registry normalizer, multi-head, masks",
    .formula = "A = normalize(scale Q K^T + mask) row by row; out = A V; backward: dA = dO V^T, "
               "dS = VJP of the normalizer, dQ = scale dS K, dK = scale dS^T Q, dV = A^T dO",
    .paper = "Vaswani et al. 2017, Attention Is All You Need",
    .nparams = 3,
    .params = sdpa_params,
    .input = SS_INPUT_VALUES,
    .has_backward = true,
    .attend = SS_IMPLS(sdpa),
    .attend_vjp = SS_IMPLS(sdpa_vjp),
    .role = SS_ROLE_EXACT_ATTENTION,
    .attend_scratch = sdpa_scratch,
    .attend_vjp_scratch = sdpa_vjp_scratch,
};
