/*
 * noisy_softmax — softmax of logits perturbed by seeded, annealed Gaussian
 * noise (a label-free normalizer form of Noisy Softmax):
 *
 *   sigma_t = sigma / (1 + decay * step)
 *   x~_i    = x_i + sigma_t * a_i * xi_i,   a_i = |x_i| (relative) or 1
 *   y       = softmax(x~),                  xi_i ~ N(0, 1)
 *
 * Chen, Deng & Du 2017, "Noisy Softmax: Improving the
 * Generalization Ability of DCNN via Postponing the Early Softmax
 * Saturation" (CVPR 2017, arXiv:1708.03769). What was checked: the paper
 * injects Gaussian noise into the softmax input (the target-class logit
 * during training) so as to postpone saturation, with an amplitude that
 * adapts to the input and the weights (through |W| |X| and the angle
 * between them, which shrinks as training converges: the "annealing").
 * The exact equation was not retrievable here. As a normalizer has no label
 * and no W, X, this kernel perturbs every logit, keeps the paper's scaling
 * with the logit magnitude (relative = 1: noise sigma_t |x_i| xi_i), and
 * replaces the implicit annealing by an explicit schedule over `step`.
 * relative = 0 gives plain additive noise sigma_t xi_i.
 *
 * Noise: xi_i = ss_philox_normal(seed, step, i) (common/rng.h): a pure
 * function of (seed, step, i), bit-identical on every build, independent of
 * n (so appending -Inf padding leaves the other draws alone) and
 * regenerated, not stored, by the backward pass. Both implementations draw
 * it with the same scalar generator and stage x~ into y (the scratch); the
 * SIMD one then runs softmax's SIMD passes in place. x~ is formed in double
 * and rounded once to float, clamped to +-FLT_MAX (reachable only when
 * |x| (1 + sigma_t |xi|) > FLT_MAX); a masked entry (-Inf) stays -Inf.
 * sigma_t = 0 skips the noise: the output is softmax's, bit for bit.
 *
 * Backward, with the noise held fixed (reparameterisation): dx~/dx =
 * 1 + sigma_t sgn(x) xi (relative; sgn(0) = 0) or 1, so
 *   dx_i = (dx~_i/dx_i) * y_i (g_i - <g, y>).
 *
 * Accuracy: softmax's 2e-6 relative on top of the float rounding of x~
 * (2^-24 |x~_i - max x~| in the exponent): stated bound vs float64
 * softmax of the unrounded x~: (2e-6 + 2^-23 |x~_i - max|) y64_i; SIMD vs
 * scalar: the same noisy logits, softmax's <= 8 ulp. tests/c/test_noisy_softmax.c
 * checks the output bit for bit against softmax of the noisy logits rebuilt
 * from this definition, so softmax's measured figures carry over.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "common/impl_pair.h"
#include "common/rng.h"
#include "common/softmax_row.h"

#define MAX_INT53 9007199254740992.0 /* 2^53: integers exact in a double */

/* step and seed: integers in [0, 2^53], 0 by default. */
#define INT53_PARAM(nm, ui_hi, what)                                                         \
  {.name = nm, .type = SS_PARAM_INT, .min = 0.0, .max = MAX_INT53, .def = 0.0, .ui_min = 0.0, \
   .ui_max = ui_hi, .help = what}

static const ss_param_info noisy_params[] = {
    {.name = "sigma", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 10.0, .def = 0.5, .ui_min = 0.0,
     .ui_max = 2.0,
     .help = "noise scale at step 0 (relative: std of the noise as a fraction of |x_i|)"},
    {.name = "decay", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e6, .def = 0.01, .ui_min = 0.0,
     .ui_max = 0.1, .help = "annealing: sigma_t = sigma / (1 + decay * step)"},
    INT53_PARAM("step", 1000.0, "training step t: anneals sigma and selects the noise stream"),
    INT53_PARAM("seed", 100.0, "random seed: the noise is a pure function of (seed, step, i)"),
    {.name = "relative", .type = SS_PARAM_BOOL, .min = 0.0, .max = 1.0, .def = 1.0, .ui_min = 0.0,
     .ui_max = 1.0,
     .help = "1: noise sigma_t |x_i| xi_i (scales with the logit, as in the paper); "
             "0: sigma_t xi_i"},
};

typedef struct noise_spec {
  double sigma_t;
  uint64_t seed, step;
  int relative;
} noise_spec;

static noise_spec noise_of(const double *params) {
  noise_spec s;
  s.sigma_t = params[0] / (1.0 + params[1] * params[2]);
  s.step = (uint64_t)params[2];
  s.seed = (uint64_t)params[3];
  s.relative = params[4] != 0.0;
  return s;
}

/* y_i = x~_i (see the header); returns max x~ over the row. Shared by both
   implementations so the noisy logits are the same bits. */
static float stage_noisy_logits(const float *x, size_t n, const noise_spec *s,
                                float *y) {
  float m = -INFINITY;
  for (size_t i = 0; i < n; i += 2) {
    uint32_t w[4];
    double z[2];
    ss_philox_block(s->seed, s->step, i / 2, w);
    ss_philox_normal_pair(w, z);
    for (size_t j = 0; j < 2 && i + j < n; j++) {
      const float v = x[i + j];
      float t = -INFINITY;
      if (v != -INFINITY) {
        const double a = s->relative ? fabs((double)v) : 1.0;
        double u = (double)v + s->sigma_t * a * z[j];
        u = u > FLT_MAX ? FLT_MAX : u < -FLT_MAX ? -FLT_MAX : u;
        t = (float)u;
      }
      y[i + j] = t;
      m = t > m ? t : m;
    }
  }
  return m;
}

/* The row the softmax runs on: x itself when sigma_t = 0, else the noisy
   logits staged into y, with *max their maximum (the softmax then runs in
   place: each y_i is read before it is written). */
static const float *noisy_source(const float *x, size_t n, const double *params, float *max,
                                 float *y) {
  const noise_spec s = noise_of(params);
  if (s.sigma_t == 0.0) return x;
  *max = stage_noisy_logits(x, n, &s, y);
  return y;
}

/* dx_i *= 1 + sigma_t sgn(x_i) xi_i (relative noise only). */
static void chain_noise(const float *x, size_t n, const noise_spec *s, float *dx) {
  if (!s->relative || s->sigma_t == 0.0) return;
  for (size_t i = 0; i < n; i += 2) {
    uint32_t w[4];
    double z[2];
    ss_philox_block(s->seed, s->step, i / 2, w);
    ss_philox_normal_pair(w, z);
    for (size_t j = 0; j < 2 && i + j < n; j++) {
      const float v = x[i + j];
      const double sg = v > 0.0f ? 1.0 : v < 0.0f ? -1.0 : 0.0;
      dx[i + j] = (float)((double)dx[i + j] * (1.0 + s->sigma_t * sg * z[j]));
    }
  }
}

/* ---- forward and VJP, one body each for both impls (common/impl_pair.h) */

SS_ALWAYS_INLINE ss_status noisy_run(ss_impl impl, const float *x, size_t n,
                                     const double *params, float *y) {
  float max;
  ss_status st = SS_BY_IMPL(impl, ss_logits_max)(x, n, &max);
  if (st != SS_OK) return st;
  const float *src = noisy_source(x, n, params, &max, y);
  SS_BY_IMPL(impl, ss_exp_normalize)(src, n, max, 1.0f, y);
  return SS_OK;
}

/* softmax's VJP, then the chain rule through the (fixed) noise. */
SS_ALWAYS_INLINE ss_status noisy_vjp_run(ss_impl impl, const float *x, const float *y,
                                         const float *g, size_t n, const double *params,
                                         float *dx) {
  const noise_spec s = noise_of(params);
  SS_BY_IMPL(impl, ss_softmax_vjp_core)(y, g, n, 1.0f, dx);
  chain_noise(x, n, &s, dx);
  return SS_OK;
}

SS_NORMALIZE_IMPLS(noisy, noisy_run)
SS_NORMALIZE_VJP_IMPLS(noisy_vjp, noisy_vjp_run)

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_noisy_softmax = {
    .name = "noisy_softmax",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Softmax of logits with seeded, annealed Gaussian noise (Noisy Softmax)",
    .formula = "sigma_t = sigma / (1 + decay step); x~_i = x_i + sigma_t a_i xi_i, "
               "a_i = |x_i| (relative) or 1, xi_i = Philox normal (seed, step, i); "
               "y = softmax(x~); VJP with the noise fixed: dx = (1 + sigma_t sgn(x) xi) "
               "y (g - <g, y>)",
    .paper = "Chen, Deng & Du 2017, 'Noisy Softmax: Improving the Generalization Ability of "
             "DCNN via Postponing the Early Softmax Saturation' (CVPR 2017, arXiv:1708.03769); "
             "label-free form",
    .nparams = 5,
    .params = noisy_params,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .normalize = SS_IMPLS(noisy),
    .normalize_vjp = SS_IMPLS(noisy_vjp),
    .relaxed_simd = SS_RELAXED_EXP_STORE,
};

ss_status ss_noisy_softmax(const float *x, size_t n, double sigma, double decay,
                           uint64_t step, uint64_t seed, bool relative, float *y) {
  /* Beyond 2^53 the conversion to double would round onto a valid value. */
  if (step > (uint64_t)MAX_INT53 || seed > (uint64_t)MAX_INT53) return SS_ERR_PARAM_RANGE;
  const double params[5] = {sigma, decay, (double)step, (double)seed, relative ? 1.0 : 0.0};
  return ss_normalize(&ss_kernel_noisy_softmax, ss_impl_default(), x, n, params, 5, y);
}
