/*
 * cosFormer (Qin et al. 2022, "cosFormer: Rethinking Softmax in Attention"):
 * ReLU features with a cos re-weighting by position,
 *
 *   A_ij ∝ ReLU(q_i) . ReLU(k_j) cos(pi (i - j) / (2 M)),   M = max(n, m)
 *
 * which is linear because cos(a - b) = cos a cos b + sin a sin b: the
 * feature of a row at position p is [ReLU(x) cos(pi p / 2M), ReLU(x)
 * sin(pi p / 2M)] (F = 2 d_head). Rows are normalized by their sum (+ eps,
 * for rows whose ReLU features are all 0). Positions: query i, key j.
 */
#include "attention/linear_internal.h"
#include "common/impl_pair.h"

static const ss_param_info cosformer_params[] = {
    SS_ATTN_P_HEADS, SS_ATTN_P_CAUSAL,
    {.name = "eps", .type = SS_PARAM_FLOAT, .min = 0, .max = 1, .def = 1e-6, .ui_min = 0, .ui_max = 1e-3,
     .help = "added to each row's normalizer"},
};

static void cos_features(const ss_attn_ops *ops, const void *ctx, const float *x, size_t rows,
                         size_t stride, size_t dh, size_t pos, bool query, float *phi) {
  (void)ops, (void)query;
  const double M = *(const double *)ctx;
  for (size_t r = 0; r < rows; r++) {
    const double th = 1.5707963267948966 * (double)(pos + r) / M;
    const float cs = (float)cos(th), sn = (float)sin(th);
    for (size_t t = 0; t < dh; t++) {
      const float v = x[r * stride + t] > 0.0f ? x[r * stride + t] : 0.0f;
      phi[r * 2 * dh + t] = v * cs;
      phi[r * 2 * dh + dh + t] = v * sn;
    }
  }
}

SS_ALWAYS_INLINE ss_status run(ss_impl impl, const ss_attention_io *io, const double *p) {
  const ss_attn_ops *ops = SS_ATTN_OPS(impl);
  const ss_attn_dims D = ss_attn_dims_of(io);
  const double M = (double)(io->n > io->m ? io->n : io->m);
  for (size_t h = 0; h < D.heads; h++)
    ss_linear_attention(ops, cos_features, &M, io, p[1] != 0, 2 * D.dh, SS_LINEAR_RATIO, (float)p[2], h);
  return SS_OK;
}

SS_ATTEND_IMPLS(cosformer, run)

static uint64_t cosformer_scratch(const ss_attention_io *io, const double *p) {
  (void)p;
  return ss_linear_scratch(io->m, 2 * (io->d / io->heads), io->dv / io->heads);
}

const ss_kernel_info ss_kernel_cosformer = {
    .name = "cosformer",
    .family = SS_FAMILY_ATTENTION,
    .summary = "linear attention: ReLU features with cos re-weighting by position",
    .formula = "A_ij ∝ relu(q_i).relu(k_j) cos(pi (i - j) / 2M), computed as phi(Q) (phi(K)^T V)",
    .paper = "Qin et al. 2022, cosFormer: Rethinking Softmax in Attention",
    .nparams = 3,
    .params = cosformer_params,
    .input = SS_INPUT_VALUES,
    .attend = SS_IMPLS(cosformer),
    .role = SS_ROLE_LINEAR_ATTENTION,
    .attend_scratch = cosformer_scratch,
};
