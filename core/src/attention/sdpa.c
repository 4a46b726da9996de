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
 */
#include <float.h>

#include "attention/attention_internal.h"
#include "common/impl_pair.h"

static const ss_param_info sdpa_params[] = {SS_ATTN_P_HEADS, SS_ATTN_P_SCALE, SS_ATTN_P_CAUSAL};

SS_ALWAYS_INLINE ss_status run(ss_impl impl, const ss_attention_io *io, const double *p) {
  const ss_attn_ops *ops = SS_ATTN_OPS(impl);
  const ss_attn_dims D = ss_attn_dims_of(io);
  const float scale = ss_attn_scale(p[1], D.dh);
  const bool causal = p[2] != 0;
  const ss_kernel_info *nk = io->normalizer;
  const ss_impl nimpl = nk->normalize[impl] ? impl : SS_IMPL_SCALAR;
  float *s = io->scratch, *prow = io->scratch + io->m;
  for (size_t h = 0; h < D.heads; h++) {
    for (size_t i = 0; i < io->n; i++) {
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
      float *a = io->attn ? io->attn + (h * io->n + i) * io->m : prow;
      const ss_status st = ss_normalize(nk, nimpl, s, io->m, io->norm_params, io->norm_nparams, a);
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

static uint64_t sdpa_scratch(const ss_attention_io *io, const double *p) {
  (void)p;
  return 2 * (uint64_t)io->m;
}

const ss_kernel_info ss_kernel_sdpa = {
    .name = "sdpa",
    .family = SS_FAMILY_ATTENTION,
    .summary = "scaled dot-product attention with any registry normalizer, multi-head, masks",
    .formula = "A = normalize(scale Q K^T + mask) row by row; out = A V",
    .paper = "Vaswani et al. 2017, Attention Is All You Need",
    .nparams = 3,
    .params = sdpa_params,
    .input = SS_INPUT_VALUES,
    .attend = SS_IMPLS(sdpa),
    .role = SS_ROLE_EXACT_ATTENTION,
    .attend_scratch = sdpa_scratch,
};
