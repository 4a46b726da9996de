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
#include "common/impl_pair.h"

#define OMEGA_STREAM 0x9e5000ull

static const ss_param_info trig_params[] = {
    SS_ATTN_P_HEADS, SS_ATTN_P_SCALE, SS_ATTN_P_CAUSAL,
    {.name = "features", .type = SS_PARAM_INT, .min = 1, .max = 4096, .def = 128, .ui_min = 4, .ui_max = 2048,
     .log_scale = true, .help = "random projections r (2 r features: cos and sin)"},
    SS_ATTN_P_SEED,
    SS_ATTN_P_ORTHOGONAL,
};

static uint64_t trig_scratch(const ss_attention_io *io, const double *p) {
  const size_t r = (size_t)p[3];
  return ss_linear_scratch(io->m, 2 * r, io->dv / io->heads) + (uint64_t)r * (io->d / io->heads);
}

static ss_rf_map map_of(const ss_attention_io *io, const double *p, size_t h, float *w) {
  const size_t r = (size_t)p[3], dh = io->d / io->heads;
  ss_rf_draw((uint64_t)p[4], OMEGA_STREAM + h, r, dh, p[5] != 0, w);
  return (ss_rf_map){.wt = w, .t = r, .sq = sqrtf(ss_attn_scale(p[1], dh))};
}

static size_t trig_dim(const double *p) { return 2 * (size_t)p[3]; }

SS_ATTEND_IMPLS(trig, ss_rf_attend, map_of, trig_dim)
SS_KERNEL_ESTIMATE_IMPLS(trig_estimate, ss_rf_estimate, map_of, trig_dim)

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
    .attend = SS_IMPLS(trig),
    .role = SS_ROLE_LINEAR_ATTENTION,
    .attend_scratch = trig_scratch,
    .kernel_estimate = SS_IMPLS(trig_estimate),
};
