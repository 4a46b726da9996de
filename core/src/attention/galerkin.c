/*
 * Galerkin attention (Cao 2021, "Choose a Transformer: Fourier or
 * Galerkin"): no softmax, the scores are a Petrov-Galerkin projection,
 *
 *   out = Q (K^T V) / m,   A = Q K^T / m
 *
 * (the paper layer-normalizes K and V first; here they are taken as given,
 * so the call is exactly the linear form). Computed as Q (K^T V): O(m d dv)
 * instead of O(n m). Rows of A need not sum to 1 and may be negative.
 */
#include "attention/linear_internal.h"
#include "common/impl_pair.h"

static const ss_param_info galerkin_params[] = {SS_ATTN_P_HEADS, SS_ATTN_P_CAUSAL};

static void identity_features(const ss_attn_ops *ops, const void *ctx, const float *x, size_t rows,
                              size_t stride, size_t dh, size_t pos, bool query, float *phi) {
  (void)ops, (void)ctx, (void)pos, (void)query;
  for (size_t r = 0; r < rows; r++)
    for (size_t t = 0; t < dh; t++) phi[r * dh + t] = x[r * stride + t];
}

SS_ALWAYS_INLINE ss_status run(ss_impl impl, const ss_attention_io *io, const double *p) {
  const ss_attn_ops *ops = SS_ATTN_OPS(impl);
  const ss_attn_dims D = ss_attn_dims_of(io);
  for (size_t h = 0; h < D.heads; h++)
    ss_linear_attention(ops, identity_features, NULL, io, p[1] != 0, D.dh, SS_LINEAR_MEAN, 0.0f, h);
  return SS_OK;
}

SS_ATTEND_IMPLS(galerkin, run)

static uint64_t galerkin_scratch(const ss_attention_io *io, const double *p) {
  (void)p;
  return ss_linear_scratch(io->m, io->d / io->heads, io->dv / io->heads);
}

const ss_kernel_info ss_kernel_galerkin = {
    .name = "galerkin",
    .family = SS_FAMILY_ATTENTION,
    .summary = "linear attention without softmax: Q (K^T V) / m",
    .formula = "out = Q (K^T V) / m; A = Q K^T / m",
    .paper = "Cao 2021, Choose a Transformer: Fourier or Galerkin",
    .nparams = 2,
    .params = galerkin_params,
    .input = SS_INPUT_VALUES,
    .attend = SS_IMPLS(galerkin),
    .role = SS_ROLE_LINEAR_ATTENTION,
    .attend_scratch = galerkin_scratch,
};
