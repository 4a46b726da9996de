/*
 * gumbel_sigmoid -- binary Concrete / Gumbel-sigmoid masks (Maddison, Mnih
 * & Teh 2017, "The Concrete Distribution"; Jang et al. 2017): for each entry
 * independently, with logit x_i = log(alpha_i),
 *
 *   L = log U - log(1 - U)            (Logistic(0, 1) = difference of two Gumbels)
 *   s_i = sigmoid((x_i + L) / tau)     (the relaxed gate)
 *   hard: m_i = [x_i + L > 0]          (exactly 0/1; backward = the soft one)
 *   ds/dx: u s (1 - s) / tau
 *
 * P(m_i = 1) = sigmoid(x_i), which is what probs holds: the mean of a hard
 * mask and the limit of the soft one's as tau -> 0. A draw is a vector of
 * n gates. The SIMD path generates U, the two logs, the divide and the
 * sigmoid's exp four lanes at a time, with the same operations as the scalar
 * path (det_math.h), so masks are bit-identical.
 *
 * sigmoid(z) = (z >= 0 ? 1 : e) / (1 + e), e = exp(-|z|): never overflows.
 */
#include <float.h>
#include <math.h>

#include "common/check.h"
#include "common/det_math.h"
#include "common/exp_simd.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/log_simd.h"
#include "common/rng.h"
#include "registry/kernels.h"
#include "sample/sample_internal.h"

static const ss_param_info gumbel_sigmoid_params[] = {
    {.name = "tau", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e3, .min_open = true, .def = 1.0,
     .ui_min = 0.05, .ui_max = 10.0, .log_scale = true,
     .help = "relaxation temperature: -> 0 binary gates; exact over the whole range"},
    {.name = "hard", .type = SS_PARAM_BOOL, .min = 0.0, .max = 1.0, .def = 0.0, .ui_min = 0.0,
     .ui_max = 1.0, .help = "exact 0/1 gates forward, soft gradient backward"},
    SS_SAMPLER_SEED_PARAM,
    SS_SAMPLER_DRAWS_PARAM,
};

/* sigmoid, flushed by the exact-zero rule (e < FLT_MIN gives a subnormal
   e / (1 + e) for z < -87). */
static float sigmoid_det(float z) {
  const float e = ss_det_exp_nonpos_corr(-fabsf(z), 0.0f);
  return ss_flush((z >= 0.0f ? 1.0f : e) / (1.0f + e));
}

/* v / tau: float division where tau is a normal float (an overflow gives
   +-Inf, whose sigmoid is exactly 0 or 1); below FLT_MIN in double, so
   tau -> 0 tends to the hard gate (tau = 1e-300 gave 0 / 0 = NaN). */
static float scaled(float v, double tau) {
  const float tf = (float)tau;
  if (tf >= FLT_MIN) return v / tf;
  const double z = (double)v / tau;
  return z > FLT_MAX ? INFINITY : z < -FLT_MAX ? -INFINITY : (float)z;
}

/* The gate of entry value x with uniform u. */
static float gate(float x, float u, double tau, bool hard) {
  const float v = x + (ss_det_log_pos(u) - ss_det_log_pos(1.0f - u));
  return hard ? (v > 0.0f ? 1.0f : 0.0f) : sigmoid_det(scaled(v, tau));
}

static void row_scalar(const float *x, size_t n, uint64_t seed, uint64_t d, double tau, bool hard,
                       float *row) {
  ss_philox_uniform_f32_scalar(seed, SS_STREAM_LOGISTIC, d * ss_blocks_per_draw(n), n, row);
  for (size_t i = 0; i < n; i++) row[i] = gate(x[i], row[i], tau, hard);
}

#if SS_HAVE_SIMD
static void row_simd(const float *x, size_t n, uint64_t seed, uint64_t d, double tau, bool hard,
                     float *row) {
  if ((float)tau < FLT_MIN && !hard) { /* the double quotient: the scalar row */
    row_scalar(x, n, seed, d, tau, hard, row);
    return;
  }
  ss_philox_uniform_f32_simd(seed, SS_STREAM_LOGISTIC, d * ss_blocks_per_draw(n), n, row);
  const ss_exp_consts c = ss_exp_consts_load();
  const v128_t one = wasm_f32x4_splat(1.0f), zero = wasm_f32x4_splat(0.0f);
  const v128_t vt = wasm_f32x4_splat((float)tau), sign = wasm_f32x4_splat(-0.0f);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t u = wasm_v128_load(row + i);
    const v128_t l = wasm_f32x4_sub(ss_log_pos_f32x4(u), ss_log_pos_f32x4(wasm_f32x4_sub(one, u)));
    const v128_t v = wasm_f32x4_add(wasm_v128_load(x + i), l);
    v128_t s;
    if (hard) {
      s = wasm_v128_and(one, wasm_f32x4_gt(v, zero));
    } else {
      const v128_t z = wasm_f32x4_div(v, vt);
      const v128_t e = ss_exp_nonpos_corr_f32x4(wasm_v128_or(z, sign), zero, &c);
      s = ss_flush_f32x4(wasm_f32x4_div(wasm_v128_bitselect(one, e, wasm_f32x4_ge(z, zero)),
                                        wasm_f32x4_add(one, e)));
    }
    wasm_v128_store(row + i, s);
  }
  for (; i < n; i++) row[i] = gate(x[i], row[i], tau, hard);
}
#endif

static void probs_sigmoid(const float *x, size_t n, float *probs) {
  for (size_t i = 0; i < n; i++) probs[i] = sigmoid_det(x[i]);
}

SS_ALWAYS_INLINE ss_status gumbel_sigmoid_run(ss_impl impl, const float *x, size_t n,
                                              const double *params, float *probs,
                                              uint32_t *indices, float *samples) {
  (void)indices;
  float mx;
  const ss_status st = ss_check_logits(x, n, &mx);
  if (st != SS_OK) return st;
  const double tau = params[0];
  const bool hard = params[1] != 0.0;
  probs_sigmoid(x, n, probs);
  if (!samples) return SS_OK;
  const uint64_t seed = ss_sampler_seed(&ss_kernel_gumbel_sigmoid, params);
  const size_t draws = ss_sampler_draws(&ss_kernel_gumbel_sigmoid, params);
  for (size_t d = 0; d < draws; d++) SS_BY_IMPL(impl, row)(x, n, seed, d, tau, hard, samples + d * n);
  return SS_OK;
}

SS_SAMPLE_IMPLS(gumbel_sigmoid, gumbel_sigmoid_run)

/* dx_i = sum_d u_d,i s_d,i (1 - s_d,i) / tau with the soft gate s (hard or
   not), recomputed from the regenerated uniforms a chunk at a time, in
   double as e / (1 + e)^2 / tau, e = exp(-|v| / tau): 0 where the gate is
   saturated, and SS_ERR_DOMAIN (dx unspecified) where it overflows float (a
   gate at v = 0 with tau below ~1e-38: the true slope is 1 / (4 tau)). */
static ss_status gumbel_sigmoid_vjp(const float *x, size_t n, const double *params,
                                    const float *g, float *dx) {
  float mx;
  const ss_status st = ss_check_logits(x, n, &mx);
  if (st != SS_OK) return st;
  const double tau = params[0];
  const uint64_t seed = ss_sampler_seed(&ss_kernel_gumbel_sigmoid, params);
  const size_t draws = ss_sampler_draws(&ss_kernel_gumbel_sigmoid, params);
  enum { CH = 512 };
  float u[CH];
  for (size_t i = 0; i < n; i++) dx[i] = 0.0f;
  for (size_t d = 0; d < draws; d++) {
    for (size_t c0 = 0; c0 < n; c0 += CH) {
      const size_t len = n - c0 < CH ? n - c0 : CH;
      ss_philox_uniform_f32_scalar(seed, SS_STREAM_LOGISTIC, d * ss_blocks_per_draw(n) + c0 / 4,
                                   len, u);
      for (size_t j = 0; j < len; j++) {
        const size_t i = c0 + j;
        const float v = x[i] + (ss_det_log_pos(u[j]) - ss_det_log_pos(1.0f - u[j]));
        const double e = exp(-fabs((double)v) / tau);
        const float t = (float)((double)g[d * n + i] * (e / ((1.0 + e) * (1.0 + e))) / tau);
        if (!isfinite(t) || !isfinite(dx[i] + t)) return SS_ERR_DOMAIN;
        dx[i] += t;
      }
    }
  }
  return SS_OK;
}

const ss_kernel_info ss_kernel_gumbel_sigmoid = {
    .name = "gumbel_sigmoid",
    .family = SS_FAMILY_SAMPLER,
    .summary = "binary Concrete (Gumbel-sigmoid) gates, soft or hard",
    .formula = "s_i = sigmoid((x_i + log U - log(1 - U)) / tau); hard: [x_i + L > 0]; "
               "P(gate on) = sigmoid(x_i)",
    .paper = "Maddison, Mnih & Teh 2017, The Concrete Distribution",
    .nparams = sizeof gumbel_sigmoid_params / sizeof gumbel_sigmoid_params[0],
    .params = gumbel_sigmoid_params,
    .input = SS_INPUT_LOGITS,
    .draws = SS_DRAW_VECTOR,
    .has_backward = true,
    .sample = SS_IMPLS(gumbel_sigmoid),
    .sample_vjp = SS_IMPLS_SHARED(gumbel_sigmoid_vjp),
};
