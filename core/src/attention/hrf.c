/*
 * Hybrid random features (Choromanski et al. 2022, "Hybrid Random
 * Features", ICLR; the angular hybrid): the softmax kernel estimated as
 *
 *   SM_hrf(x, y) = lambda^ SM_hyp(x, y) + (1 - lambda^) SM_trig(x, y),
 *   lambda^ = 1/2 - (1/2) rho(x) . rho(y),  rho(x) = sgn(R x) / sqrt(a)
 *
 * with x = sqrt(s) q, y = sqrt(s) k. SM_hyp (positive features in
 * exp(+-w.x) pairs, p draws) is exact where the kernel is smallest (y = -x,
 * angle pi), SM_trig (t draws) where it is largest (y = x, angle 0);
 * lambda^ is an unbiased estimate of the angle over pi, theta / pi
 * (Goemans-Williamson, a draws), drawn independently, so the hybrid is
 * unbiased and leans on each base estimator in its own region; as a product
 * of linear forms it is again one, phi_q . phi_k with (2p + 2t)(1 + a)
 * features, so attention stays linear in n. Derivation, feature layout and
 * the base estimators' errors: random_features.h. Like trig, its estimates
 * (and a row's estimated normalizer) can be negative: such a row is
 * SS_ERR_DOMAIN. Projections: Philox under `seed`, one stream per part and
 * head, orthogonal blocks by default.
 */
#include "attention/random_features.h"
#include "common/impl_pair.h"

#define POS_STREAM 0x9e6000ull
#define TRIG_STREAM 0x9e7000ull
#define ANGLE_STREAM 0x9e8000ull

static const ss_param_info hrf_params[] = {
    SS_ATTN_P_HEADS, SS_ATTN_P_SCALE, SS_ATTN_P_CAUSAL,
    {.name = "features", .type = SS_PARAM_INT, .min = 1, .max = 512, .def = 32, .ui_min = 2, .ui_max = 512,
     .log_scale = true, .help = "positive (hyperbolic) random projections p: 2 p features"},
    {.name = "trig_features", .type = SS_PARAM_INT, .min = 1, .max = 512, .def = 32, .ui_min = 2, .ui_max = 512,
     .log_scale = true, .help = "trigonometric random projections t: 2 t features"},
    {.name = "angle_features", .type = SS_PARAM_INT, .min = 1, .max = 32, .def = 8, .ui_min = 1, .ui_max = 32,
     .log_scale = true, .help = "sign projections a estimating the angle (the mixing weight)"},
    SS_ATTN_P_SEED,
    SS_ATTN_P_ORTHOGONAL,
};

static size_t hrf_dim(const double *p) { return (2 * (size_t)p[3] + 2 * (size_t)p[4]) * (1 + (size_t)p[5]); }

static uint64_t hrf_scratch(const ss_attention_io *io, const double *p) {
  const size_t dh = io->d / io->heads, dvh = io->dv / io->heads;
  return ss_linear_scratch(io->m, hrf_dim(p), dvh) + ((uint64_t)p[3] + (uint64_t)p[4] + (uint64_t)p[5]) * dh;
}

static ss_rf_map map_of(const ss_attention_io *io, const double *p, size_t h, float *w) {
  const size_t dh = io->d / io->heads, np = (size_t)p[3], nt = (size_t)p[4], na = (size_t)p[5];
  const uint64_t seed = (uint64_t)p[6];
  const bool orth = p[7] != 0;
  ss_rf_draw(seed, POS_STREAM + h, np, dh, orth, w);
  ss_rf_draw(seed, TRIG_STREAM + h, nt, dh, orth, w + np * dh);
  ss_rf_draw(seed, ANGLE_STREAM + h, na, dh, orth, w + (np + nt) * dh);
  return (ss_rf_map){.wp = w, .wt = w + np * dh, .wa = w + (np + nt) * dh, .p = np, .t = nt, .a = na,
                     .hyperbolic = true, .sq = sqrtf(ss_attn_scale(p[1], dh))};
}

SS_ATTEND_IMPLS(hrf, ss_rf_attend, map_of, hrf_dim)
SS_KERNEL_ESTIMATE_IMPLS(hrf_estimate, ss_rf_estimate, map_of, hrf_dim)

const ss_kernel_info ss_kernel_hrf = {
    .name = "hrf",
    .family = SS_FAMILY_ATTENTION,
    .summary = "softmax attention with hybrid random features: positive and trigonometric "
               "estimators mixed by an estimated angle, linear in n",
    .formula = "SM ~ lambda SM_hyp + (1 - lambda) SM_trig, lambda = 1/2 - rho(q).rho(k)/2 ~ angle/pi, "
               "rho = sgn(R x)/sqrt(a); one feature map of size (2p + 2t)(1 + a)",
    .paper = "Choromanski et al. 2022, Hybrid Random Features (ICLR)",
    .nparams = sizeof hrf_params / sizeof hrf_params[0],
    .params = hrf_params,
    .input = SS_INPUT_VALUES,
    .attend = SS_IMPLS(hrf),
    .role = SS_ROLE_LINEAR_ATTENTION,
    .attend_scratch = hrf_scratch,
    .kernel_estimate = SS_IMPLS(hrf_estimate),
};
