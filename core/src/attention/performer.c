/*
 * Performer's FAVOR+ (Choromanski et al. 2021, "Rethinking Attention with
 * Performers"): the softmax kernel exp(s q . k) as an expectation over
 * positive random features, so softmax attention becomes linear:
 *
 *   exp(q'.k') = E_w[ exp(w.q' - |q'|^2/2) exp(w.k' - |k'|^2/2) ],  w ~ N(0, I)
 *   phi(x) = exp(W x' - |x'|^2 / 2) / sqrt(r),   x' = sqrt(s) x,  W: r x d_head
 *
 * W is drawn from Philox under `seed` (stream = the head), i.i.d. Gaussian
 * rows (the paper's orthogonal rows lower the variance further; not done
 * here). The estimate is unbiased per pair and approaches softmax attention
 * as r grows. Factors common to a query's row (exp(-max_l w_l.q'), the
 * |q'|^2 term) or to all keys (exp(-max_jl (w_l.k'_j - |k'_j|^2/2))) cancel
 * in the ratio and only keep the exponentials in range.
 */
#include "attention/linear_internal.h"
#include "common/rng.h"

#define OMEGA_STREAM 0x9e3000ull

static const ss_param_info performer_params[] = {
    SS_ATTN_P_HEADS, SS_ATTN_P_SCALE, SS_ATTN_P_CAUSAL,
    {.name = "features", .type = SS_PARAM_INT, .min = 1, .max = 4096, .def = 256, .ui_min = 4, .ui_max = 4096,
     .log_scale = true, .help = "random features r"},
    {.name = "seed", .type = SS_PARAM_INT, .min = 0, .max = 9007199254740992.0, .def = 0, .ui_min = 0,
     .ui_max = 1000, .help = "seed of the random features"},
};

typedef struct { const float *omega; size_t r; float sq; float inv_sqrt_r; } favor_ctx;

static void favor_features(const ss_attn_ops *ops, const void *c, const float *x, size_t rows,
                           size_t stride, size_t dh, size_t pos, bool query, float *phi) {
  (void)pos;
  const favor_ctx *ctx = c;
  float top = -INFINITY;
  for (size_t j = 0; j < rows; j++) {
    const float *xj = x + j * stride;
    const float half = query ? 0.0f : 0.5f * ctx->sq * ctx->sq * ops->dot(xj, xj, dh);
    for (size_t l = 0; l < ctx->r; l++) {
      const float u = ctx->sq * ops->dot(ctx->omega + l * dh, xj, dh) - half;
      phi[j * ctx->r + l] = u;
      if (u > top) top = u;
    }
  }
  for (size_t t = 0; t < rows * ctx->r; t++) phi[t] = expf(phi[t] - top) * ctx->inv_sqrt_r;
}

SS_ALWAYS_INLINE ss_status run(const ss_attn_ops *ops, const ss_attention_io *io, const double *p) {
  const ss_attn_dims D = ss_attn_dims_of(io);
  const size_t r = (size_t)p[3];
  float *omega = io->scratch + ss_linear_scratch(io->m, r, D.dvh);
  favor_ctx ctx = {omega, r, sqrtf(ss_attn_scale(p[1], D.dh)), (float)(1.0 / sqrt((double)r))};
  for (size_t h = 0; h < D.heads; h++) {
    for (size_t t = 0; t < r * D.dh; t++)
      omega[t] = (float)ss_philox_normal((uint64_t)p[4], OMEGA_STREAM + h, t);
    ss_linear_attention(ops, favor_features, &ctx, io, p[2] != 0, r, SS_LINEAR_RATIO, 0.0f, h);
  }
  return SS_OK;
}

static ss_status performer_scalar(const ss_attention_io *io, const double *p) {
  return run(&ss_attn_ops_scalar, io, p);
}
#if SS_HAVE_SIMD
static ss_status performer_simd(const ss_attention_io *io, const double *p) {
  return run(&ss_attn_ops_simd, io, p);
}
#endif

const ss_kernel_info ss_kernel_performer = {
    .name = "performer",
    .family = SS_FAMILY_ATTENTION,
    .summary = "softmax attention estimated with positive random features (FAVOR+), linear in n",
    .formula = "phi(x) = exp(W x' - |x'|^2/2) / sqrt(r), W ~ N(0, I); out = phi(Q) (phi(K)^T V) / phi(Q) phi(K)^T 1",
    .paper = "Choromanski et al. 2021, Rethinking Attention with Performers",
    .nparams = 5,
    .params = performer_params,
    .input = SS_INPUT_VALUES,
    .attend = {performer_scalar, SS_SIMD(performer_simd)},
    .role = SS_ROLE_LINEAR_ATTENTION,
};
