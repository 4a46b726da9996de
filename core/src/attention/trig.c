/*
 * Trigonometric random features (Rahimi & Recht 2007, "Random Features for
 * Large-Scale Kernel Machines") for the softmax kernel: by Bochner,
 * exp(-|x - y|^2 / 2) = E_w[cos(w.(x - y))], w ~ N(0, I), and
 * exp(x . y) = exp(|x|^2/2) exp(|y|^2/2) exp(-|x - y|^2/2), so
 *
 *   phi(x) = exp(|x'|^2 / 2) / sqrt(r) [cos(W x'), sin(W x')],   x' = sqrt(s) x
 *
 * gives an unbiased estimate phi(q) . phi(k) of exp(s q . k) and linear
 * attention like performer's. Its relative error is smallest where the
 * kernel is largest (k' = q': exact) and grows with |q' - k'| -- the mirror
 * image of the positive features (see random_features.h); the estimates can
 * be negative, and so can a row's estimated normalizer when there are few
 * features: that row is SS_ERR_DOMAIN (Choromanski et al. 2021 show this
 * instability; it is why FAVOR+ uses positive features). W: Philox under
 * `seed`, stream per head, orthogonal blocks by default.
 */
#include "attention/random_features.h"

#define OMEGA_STREAM 0x9e5000ull

static const ss_param_info trig_params[] = {
    SS_ATTN_P_HEADS, SS_ATTN_P_SCALE, SS_ATTN_P_CAUSAL,
    {.name = "features", .type = SS_PARAM_INT, .min = 1, .max = 4096, .def = 128, .ui_min = 4, .ui_max = 2048,
     .log_scale = true, .help = "random projections r (2 r features: cos and sin)"},
    SS_ATTN_P_SEED,
    SS_ATTN_P_ORTHOGONAL,
};

static size_t trig_scratch(const ss_attention_io *io, const double *p) {
  const size_t r = (size_t)p[3], dh = io->d / io->heads, dvh = io->dv / io->heads;
  return ss_linear_scratch(io->m, 2 * r, dvh) + r * dh;
}

static ss_rf_map map_of(const ss_attention_io *io, const double *p, size_t h, float *w) {
  const size_t r = (size_t)p[3], dh = io->d / io->heads;
  ss_rf_draw((uint64_t)p[4], OMEGA_STREAM + h, r, dh, p[5] != 0, w);
  return (ss_rf_map){.wt = w, .t = r, .sq = sqrtf(ss_attn_scale(p[1], dh))};
}

SS_ALWAYS_INLINE ss_status run(const ss_attn_ops *ops, const ss_attention_io *io, const double *p) {
  float *w = io->scratch + ss_linear_scratch(io->m, 2 * (size_t)p[3], io->dv / io->heads);
  for (size_t h = 0; h < io->heads; h++) {
    const ss_rf_map m = map_of(io, p, h, w);
    const ss_status s = ss_rf_attend_head(ops, &m, io, p[2] != 0, h);
    if (s != SS_OK) return s;
  }
  return SS_OK;
}

SS_ALWAYS_INLINE ss_status estimate(const ss_attn_ops *ops, const ss_attention_io *io, const double *p,
                                    double *est) {
  float *w = io->scratch + ss_linear_scratch(io->m, 2 * (size_t)p[3], io->dv / io->heads);
  for (size_t h = 0; h < io->heads; h++) {
    const ss_rf_map m = map_of(io, p, h, w);
    ss_rf_estimate_head(ops, &m, io, h, io->scratch, est + h * io->n * io->m);
  }
  return SS_OK;
}

static ss_status trig_scalar(const ss_attention_io *io, const double *p) { return run(&ss_attn_ops_scalar, io, p); }
static ss_status trig_estimate_scalar(const ss_attention_io *io, const double *p, double *est) {
  return estimate(&ss_attn_ops_scalar, io, p, est);
}
#if SS_HAVE_SIMD
static ss_status trig_simd(const ss_attention_io *io, const double *p) { return run(&ss_attn_ops_simd, io, p); }
static ss_status trig_estimate_simd(const ss_attention_io *io, const double *p, double *est) {
  return estimate(&ss_attn_ops_simd, io, p, est);
}
#endif

const ss_kernel_info ss_kernel_trig = {
    .name = "trig",
    .family = SS_FAMILY_ATTENTION,
    .summary = "softmax attention estimated with trigonometric random features (Rahimi & Recht), "
               "linear in n",
    .formula = "phi(x) = exp(|x'|^2/2) / sqrt(r) [cos(W x'), sin(W x')], W ~ N(0, I); "
               "out = phi(Q) (phi(K)^T V) / phi(Q) phi(K)^T 1",
    .paper = "Rahimi & Recht 2007, Random Features for Large-Scale Kernel Machines",
    .nparams = sizeof trig_params / sizeof trig_params[0],
    .params = trig_params,
    .input = SS_INPUT_VALUES,
    .attend = {trig_scalar, SS_SIMD(trig_simd)},
    .role = SS_ROLE_LINEAR_ATTENTION,
    .attend_scratch = trig_scratch,
    .kernel_estimate = {trig_estimate_scalar, SS_SIMD(trig_estimate_simd)},
};
