/* Generic entry points of the attention family: the shape and argument
   checks shared by every attention kernel, the scratch size, the call, and
   the random-feature kernels' estimate of the softmax kernel. What differs
   by kind is decided by the kernel's role (SS_ROLE_EXACT_ATTENTION: scores
   through a registry normalizer), never by its name. */
#include <math.h>
#include <stdint.h>

#include "common/attn_rules.h"
#include "common/check.h"
#include "registry/dispatch.h"
#include "softscope.h"

/* 0 for what no call accepts: a wrong kernel, parameters out of their
   ranges (a NaN or huge `features` was cast to size_t: undefined
   behaviour), heads not fitting d, shapes past SS_MAX_N / SS_ATTN_MAX_DIM,
   or a size whose bytes overflow size_t. fn: the kernel's scratch query
   (the forward's or the backward's; NULL: 0). */
static size_t scratch_floats(const ss_kernel_info *k, const ss_attention_io *io,
                             const double *params, ss_attend_scratch_fn fn) {
  if (!k || k->family != SS_FAMILY_ATTENTION || !io || !params || !fn) return 0;
  if (ss_params_check(k, params, k->nparams) != SS_OK) return 0;
  if (!io->heads || io->heads > io->d || io->heads > io->dv || io->m > SS_MAX_N ||
      io->d > SS_ATTN_MAX_DIM || io->dv > SS_ATTN_MAX_DIM)
    return 0;
  const uint64_t floats = fn(io, params); /* 64-bit: m F overflows a 32-bit size_t */
  return floats <= SIZE_MAX / sizeof(float) ? (size_t)floats : 0;
}

size_t ss_attention_scratch_size(const ss_kernel_info *k, const ss_attention_io *io,
                                 const double *params) {
  return scratch_floats(k, io, params, k && k->family == SS_FAMILY_ATTENTION ? k->attend_scratch : NULL);
}

size_t ss_attention_vjp_scratch_size(const ss_kernel_info *k, const ss_attention_io *io,
                                     const double *params) {
  return scratch_floats(k, io, params, k && k->family == SS_FAMILY_ATTENTION ? k->attend_vjp_scratch : NULL);
}

/* The shapes every attention call checks first: heads as in params[0],
   no empty dimension, d and dv within SS_ATTN_MAX_DIM and n m within
   SS_MAX_N. */
static ss_status check_shape(const ss_attention_io *io, const double *params) {
  if (io->heads != (size_t)params[0]) return SS_ERR_LENGTH;
  if (!io->n || !io->m || !io->d || !io->dv) return SS_ERR_EMPTY;
  if (io->d > SS_ATTN_MAX_DIM || io->dv > SS_ATTN_MAX_DIM || io->n > SS_MAX_N / io->m)
    return SS_ERR_TOO_LARGE;
  return SS_OK;
}

/* |q|, |k| <= SS_ATTN_QK_MAX: a score's float dot product then cannot
   overflow in any summation order (d q k scale < 2^128), so the scalar and
   SIMD paths (which add in different orders) agree on every status; and
   |x|^2 / 2 of a random feature stays finite. */
static ss_status check_qk_bound(const ss_attention_io *io) {
  if (!ss_attn_within(io->q, io->n * io->d, SS_ATTN_QK_MAX) ||
      !ss_attn_within(io->k, io->m * io->d, SS_ATTN_QK_MAX))
    return SS_ERR_DOMAIN;
  return SS_OK;
}

/* Exact attention's normalizer: a registry normalizer whose output are
   weights (not log-weights), taking rows of m scores (its own length limit,
   and parameters valid at that length: top-k's k <= m), as the kernels call
   it row by row (ss_attend_vjp calls its VJP slots directly). */
static ss_status check_normalizer(const ss_attention_io *io) {
  const ss_kernel_info *nk = io->normalizer;
  if (!nk) return SS_ERR_NULL;
  if (nk->family != SS_FAMILY_NORMALIZER) return SS_ERR_FAMILY;
  if (nk->output == SS_OUTPUT_LOG_PROBS) return SS_ERR_DOMAIN; /* weights, not log-weights */
  const ss_status s = ss_params_check(nk, io->norm_params, io->norm_nparams);
  if (s != SS_OK) return s;
  if (io->m > ss_kernel_max_n(nk)) return SS_ERR_TOO_LARGE;
  return ss_params_check_n(nk, io->norm_params, io->norm_nparams, io->m);
}

/* The checks ss_attend and ss_attend_vjp share, in ss_attend's order,
   after the pointers each requires: the kernel, impl and parameters, fn
   (the kernel's entry point for impl: NULL is SS_ERR_UNSUPPORTED), the
   shapes, Q, K, V finite and bounded, exact attention's normalizer, and
   every query seeing a key. */
static ss_status check_call(const ss_kernel_info *k, ss_impl impl, const ss_attention_io *io,
                            const double *params, size_t nparams, bool (*fn)(const ss_kernel_info *, ss_impl)) {
  ss_status s = ss_check_common(k, SS_FAMILY_ATTENTION, impl);
  if (s != SS_OK) return s;
  if ((s = ss_params_check(k, params, nparams)) != SS_OK) return s;
  if (!fn(k, impl)) return SS_ERR_UNSUPPORTED;
  if ((s = check_shape(io, params)) != SS_OK) return s;
  /* every buffer's float count fits size_t bytes (a 32-bit size_t holds
     n d = 2^38 only as a wrapped value) */
  const uint64_t cap = SIZE_MAX / sizeof(float), n = io->n, m = io->m;
  if (n * io->d > cap || m * io->d > cap || m * io->dv > cap || n * io->dv > cap ||
      (io->attn && (uint64_t)io->heads * n * m > cap))
    return SS_ERR_TOO_LARGE;
  if (io->d % io->heads || io->dv % io->heads) return SS_ERR_LENGTH;
  if ((s = ss_check_finite_fast(io->q, io->n * io->d)) != SS_OK ||
      (s = ss_check_finite_fast(io->k, io->m * io->d)) != SS_OK ||
      (s = ss_check_finite_fast(io->v, io->m * io->dv)) != SS_OK)
    return s;
  if ((s = check_qk_bound(io)) != SS_OK) return s;
  if (k->role == SS_ROLE_EXACT_ATTENTION && (s = check_normalizer(io)) != SS_OK) return s;
  /* every query must see a key (a padding mask with none kept, or causal
     queries before the first key) */
  const bool causal = ss_param_value(k, params, "causal", 0) != 0;
  for (size_t i = 0; i < io->n; i++) {
    const size_t lim = ss_attn_limit(io, causal, i);
    size_t j = 0;
    while (j < lim && !ss_attn_key_ok(io, j)) j++;
    if (j == lim) return SS_ERR_ALL_MASKED;
    if (!causal) break; /* the same keys for every query */
  }
  return SS_OK;
}

static bool has_attend(const ss_kernel_info *k, ss_impl impl) { return k->attend[impl] != NULL; }
static bool has_attend_vjp(const ss_kernel_info *k, ss_impl impl) { return k->attend_vjp[impl] != NULL; }

ss_status ss_attend(const ss_kernel_info *k, ss_impl impl, const ss_attention_io *io,
                    const double *params, size_t nparams) {
  if (!k || !io || !io->q || !io->k || !io->v || !io->out || !io->scratch) return SS_ERR_NULL;
  ss_status s = check_call(k, impl, io, params, nparams, has_attend);
  if (s != SS_OK) return s;
  s = k->attend[impl](io, params);
  if (s != SS_OK) return s;
  /* an intermediate that overflowed float (|Q K^T| or feature sums beyond
     FLT_MAX): out or the weights not finite */
  if (ss_check_finite_fast(io->out, io->n * io->dv) != SS_OK ||
      (io->attn && ss_check_finite_fast(io->attn, io->heads * io->n * io->m) != SS_OK))
    return SS_ERR_DOMAIN;
  return SS_OK;
}

/* One backward call; a gradient beyond FLT_MAX (or a parameter gradient
   beyond double's) is SS_ERR_DOMAIN, as is a kernel's own overflow (a
   normalizer VJP row that came out non-finite: its SIMD float
   intermediates: the SIMD impl's decline, see ss_backward_answer). */
static ss_status vjp_checked(const ss_kernel_info *k, ss_impl impl, const ss_attention_io *io,
                             const double *params, const float *dout, float *dq, float *dk, float *dv,
                             double *dnorm_params) {
  ss_status s = k->attend_vjp[impl](io, params, dout, dq, dk, dv, dnorm_params);
  if (s == SS_OK &&
      (ss_check_finite_fast(dq, io->n * io->d) != SS_OK || ss_check_finite_fast(dk, io->m * io->d) != SS_OK ||
       ss_check_finite_fast(dv, io->m * io->dv) != SS_OK))
    s = SS_ERR_DOMAIN;
  for (size_t t = 0; s == SS_OK && dnorm_params && t < io->norm_nparams; t++)
    if (!isfinite(dnorm_params[t])) s = SS_ERR_DOMAIN;
  return ss_backward_answer(s, impl);
}

ss_status ss_attend_vjp(const ss_kernel_info *k, ss_impl impl, const ss_attention_io *io,
                        const double *params, size_t nparams, const float *dout, float *dq,
                        float *dk, float *dv, double *dnorm_params) {
  if (!k || !io || !io->q || !io->k || !io->v || !io->scratch || !dout || !dq || !dk || !dv)
    return SS_ERR_NULL;
  ss_status s = check_call(k, impl, io, params, nparams, has_attend_vjp);
  if (s != SS_OK) return s;
  const ss_kernel_info *nk = io->normalizer;
  if (k->role == SS_ROLE_EXACT_ATTENTION) {
    if (!nk->has_backward) return SS_ERR_NO_BACKWARD;
    if (dnorm_params && io->norm_nparams) {
      if (!nk->has_param_backward) return SS_ERR_NO_BACKWARD;
      if (io->norm_nparams > SS_ATTN_NORM_PARAMS_MAX) return SS_ERR_UNSUPPORTED;
    }
  }
  if ((s = ss_check_finite(dout, io->n * io->dv)) != SS_OK ||
      (io->attn && (s = ss_check_finite(io->attn, io->heads * io->n * io->m)) != SS_OK))
    return s;
  s = vjp_checked(k, impl, io, params, dout, dq, dk, dv, dnorm_params);
  if (s == SS_DECLINED) s = vjp_checked(k, SS_IMPL_SCALAR, io, params, dout, dq, dk, dv, dnorm_params);
  return s;
}

ss_status ss_attention_kernel_estimate(const ss_kernel_info *k, ss_impl impl, const ss_attention_io *io,
                                       const double *params, size_t nparams, double *est) {
  if (!k || !io || !io->q || !io->k || !io->scratch || !est) return SS_ERR_NULL;
  ss_status s = ss_check_common(k, SS_FAMILY_ATTENTION, impl);
  if (s != SS_OK) return s;
  if ((s = ss_params_check(k, params, nparams)) != SS_OK) return s;
  if (!k->kernel_estimate[impl]) return SS_ERR_UNSUPPORTED;
  /* dv as ss_attend checks it: v is not read, but the scratch layout (the
     projections after the engine's part, ss_attention_scratch_size) depends
     on dv / heads; an unchecked dv put them past the scratch */
  if ((s = check_shape(io, params)) != SS_OK) return s;
  if (io->heads > SS_MAX_N / (io->n * io->m)) return SS_ERR_TOO_LARGE; /* est: heads n m */
  if (io->d % io->heads || io->dv % io->heads) return SS_ERR_LENGTH;
  if ((s = ss_check_finite_fast(io->q, io->n * io->d)) != SS_OK ||
      (s = ss_check_finite_fast(io->k, io->m * io->d)) != SS_OK)
    return s;
  if ((s = check_qk_bound(io)) != SS_OK) return s;
  return k->kernel_estimate[impl](io, params, est);
}
