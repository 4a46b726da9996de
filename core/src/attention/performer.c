/*
 * Performer's FAVOR+ (Choromanski et al. 2021, "Rethinking Attention with
 * Performers"): the softmax kernel exp(s q . k) as an expectation over
 * positive random features, so softmax attention becomes linear:
 *
 *   exp(q'.k') = E_w[ exp(w.q' - |q'|^2/2) exp(w.k' - |k'|^2/2) ],  w ~ N(0, I)
 *   phi(x) = exp(W x' - |x'|^2 / 2) / sqrt(r),   x' = sqrt(s) x,  W: r x d_head
 *
 * W is drawn from Philox under `seed` (stream = the head). With
 * `orthogonal` (the default, as in FAVOR+) each block of d_head rows is
 * orthogonal and every row keeps a chi-distributed length (see
 * random_features.h): still unbiased per pair, with a lower variance than
 * i.i.d. rows (tests/c/test_random_features.c measures it). The estimate
 * approaches softmax attention as r grows. Factors common to a query's row
 * or to all keys (the largest exponent) cancel in the ratio and only keep
 * the exponentials in range.
 */
#include "attention/random_features.h"
#include "common/impl_pair.h"

#define OMEGA_STREAM 0x9e3000ull

static const ss_param_info performer_params[] = {
    SS_ATTN_P_HEADS, SS_ATTN_P_SCALE, SS_ATTN_P_CAUSAL,
    {.name = "features", .type = SS_PARAM_INT, .min = 1, .max = 4096, .def = 256, .ui_min = 4, .ui_max = 4096,
     .log_scale = true, .help = "random features r"},
    SS_ATTN_P_SEED,
    SS_ATTN_P_ORTHOGONAL,
};

static uint64_t performer_scratch(const ss_attention_io *io, const double *p) {
  const size_t r = (size_t)p[3];
  return ss_linear_scratch(io->m, r, io->dv / io->heads) + (uint64_t)r * (io->d / io->heads);
}

/* The map of head h, its projections drawn into w. */
static ss_rf_map map_of(const ss_attention_io *io, const double *p, size_t h, float *w) {
  const ss_attn_dims D = ss_attn_dims_of(io);
  const size_t r = (size_t)p[3];
  ss_rf_draw((uint64_t)p[4], OMEGA_STREAM + h, r, D.dh, p[5] != 0, w);
  return (ss_rf_map){.wp = w, .p = r, .sq = sqrtf(ss_attn_scale(p[1], D.dh))};
}

static size_t performer_dim(const double *p) { return (size_t)p[3]; }

SS_ATTEND_IMPLS(performer, ss_rf_attend, map_of, performer_dim)
SS_KERNEL_ESTIMATE_IMPLS(performer_estimate, ss_rf_estimate, map_of, performer_dim)

const ss_kernel_info ss_kernel_performer = {
    .name = "performer",
    .family = SS_FAMILY_ATTENTION,
    .summary = "softmax attention estimated with positive random features (FAVOR+), linear in n",
    .formula = "phi(x) = exp(W x' - |x'|^2/2) / sqrt(r), W ~ N(0, I) (orthogonal blocks); "
               "out = phi(Q) (phi(K)^T V) / phi(Q) phi(K)^T 1",
    .paper = "Choromanski et al. 2021, Rethinking Attention with Performers",
    .nparams = sizeof performer_params / sizeof performer_params[0],
    .params = performer_params,
    .input = SS_INPUT_VALUES,
    .attend = SS_IMPLS(performer),
    .role = SS_ROLE_LINEAR_ATTENTION,
    .attend_scratch = performer_scratch,
    .kernel_estimate = SS_IMPLS(performer_estimate),
};
