/* Generic entry points of the families whose input is one vector
   (normalizers, losses, samplers, quantizers, measures, optimizers): the
   shared argument checks, then the kernel's own implementation (which
   validates the data, fused into its first pass). Attention's are in
   dispatch_attention.c. */
#include <math.h>
#include <stdint.h>

#include "common/check.h"
#include "registry/dispatch.h"
#include "softscope.h"

/* A gradient that came out non-finite: its exact value is beyond FLT_MAX
   (e.g. sa_softmax's 1 / range for a subnormal range), SS_ERR_DOMAIN; the
   gradient buffer then holds unspecified values. */
static ss_status ss_check_gradient(const float *d, size_t n) {
  return ss_check_finite_fast(d, n) == SS_OK ? SS_OK : SS_ERR_DOMAIN;
}

/* A backward's answer s for impl, its gradient d[0..n) checked: SS_DECLINED
   where the SIMD impl's is SS_ERR_DOMAIN (dispatch.h). */
static ss_status gradient_answer(ss_status s, ss_impl impl, const float *d, size_t n) {
  if (s == SS_OK) s = ss_check_gradient(d, n);
  return ss_backward_answer(s, impl);
}

/* The checks of the families whose input is one vector of length n. */
static ss_status check_vector(const ss_kernel_info *k, ss_family family,
                              ss_impl impl, size_t n, const double *params,
                              size_t nparams) {
  ss_status s = ss_check_common(k, family, impl);
  if (s != SS_OK) return s;
  s = ss_check_n(n);
  if (s != SS_OK) return s;
  if (n > ss_kernel_max_n(k)) return SS_ERR_TOO_LARGE; /* a kernel's own limit */
  /* counts and indices into x: a size relation the static range can't hold */
  return ss_params_check_n(k, params, nparams, n);
}

/* The single-row calls are the rows calls' rows = 1 (one place for the
   checks; the same kernel call, so the same bits). */
ss_status ss_normalize(const ss_kernel_info *k, ss_impl impl, const float *x,
                       size_t n, const double *params, size_t nparams,
                       float *y) {
  return ss_normalize_rows(k, impl, x, 1, n, n, params, nparams, y, n, NULL);
}

ss_status ss_normalize_vjp(const ss_kernel_info *k, ss_impl impl,
                           const float *x, const float *y, const float *g,
                           size_t n, const double *params, size_t nparams,
                           float *dx) {
  if (!x || !y || !g || !dx) return SS_ERR_NULL;
  ss_status s = check_vector(k, SS_FAMILY_NORMALIZER, impl, n, params, nparams);
  if (s != SS_OK) return s;
  if (!k->has_backward) return SS_ERR_NO_BACKWARD;
  if (!k->normalize_vjp[impl]) return SS_ERR_UNSUPPORTED;
  s = ss_check_finite(g, n);
  if (s != SS_OK) return s;
  s = gradient_answer(k->normalize_vjp[impl](x, y, g, n, params, dx), impl, dx, n);
  if (s == SS_DECLINED)
    s = gradient_answer(k->normalize_vjp[SS_IMPL_SCALAR](x, y, g, n, params, dx), SS_IMPL_SCALAR, dx, n);
  return s;
}

static ss_status param_vjp_checked(const ss_kernel_info *k, ss_impl impl, const float *x,
                                   const float *y, const float *g, size_t n,
                                   const double *params, size_t nparams, double *dparams) {
  ss_status s = k->normalize_param_vjp[impl](x, y, g, n, params, dparams);
  for (size_t i = 0; s == SS_OK && i < nparams; i++)
    if (!isfinite(dparams[i])) s = SS_ERR_DOMAIN;
  return ss_backward_answer(s, impl);
}

ss_status ss_normalize_param_vjp(const ss_kernel_info *k, ss_impl impl,
                                 const float *x, const float *y,
                                 const float *g, size_t n,
                                 const double *params, size_t nparams,
                                 double *dparams) {
  if (!x || !y || !g || !dparams) return SS_ERR_NULL;
  ss_status s = check_vector(k, SS_FAMILY_NORMALIZER, impl, n, params, nparams);
  if (s != SS_OK) return s;
  if (!k->has_param_backward) return SS_ERR_NO_BACKWARD;
  if (!k->normalize_param_vjp[impl]) return SS_ERR_UNSUPPORTED;
  s = ss_check_finite(g, n);
  if (s != SS_OK) return s;
  s = param_vjp_checked(k, impl, x, y, g, n, params, nparams, dparams);
  if (s == SS_DECLINED) s = param_vjp_checked(k, SS_IMPL_SCALAR, x, y, g, n, params, nparams, dparams);
  return s;
}

ss_status ss_loss(const ss_kernel_info *k, ss_impl impl, const float *x,
                  size_t n, const double *params, size_t nparams,
                  double *loss, float *grad) {
  if (!x || !loss || !grad) return SS_ERR_NULL;
  ss_status s = check_vector(k, SS_FAMILY_LOSS, impl, n, params, nparams);
  if (s != SS_OK) return s;
  if (!k->loss[impl]) return SS_ERR_UNSUPPORTED;
  return k->loss[impl](x, n, params, loss, grad);
}

/* draws * n vector entries must fit like one n. */
static ss_status check_draws(const ss_kernel_info *k, const double *params, size_t n,
                             bool vectors) {
  const double d = ss_param_value(k, params, "draws", 0.0);
  if (vectors && k->draws != SS_DRAW_INDEX && d * (double)n > (double)SS_MAX_N)
    return SS_ERR_TOO_LARGE;
  return SS_OK;
}

ss_status ss_sample(const ss_kernel_info *k, ss_impl impl, const float *x,
                    size_t n, const double *params, size_t nparams,
                    float *probs, uint32_t *indices, float *samples) {
  return ss_sample_rows(k, impl, x, 1, n, n, params, nparams, probs, n, indices, samples, NULL);
}

ss_status ss_quantize(const ss_kernel_info *k, ss_impl impl, const float *x, size_t n,
                      const double *params, size_t nparams, int32_t *codes, float *y) {
  if (!x || !y) return SS_ERR_NULL;
  ss_status s = check_vector(k, SS_FAMILY_QUANTIZER, impl, n, params, nparams);
  if (s != SS_OK) return s;
  if (!k->quantize[impl]) return SS_ERR_UNSUPPORTED;
  s = ss_check_finite_fast(x, n);
  if (s != SS_OK) return s;
  return k->quantize[impl](x, n, params, codes, y);
}

ss_status ss_sample_vjp(const ss_kernel_info *k, ss_impl impl, const float *x,
                        size_t n, const double *params, size_t nparams,
                        const float *g, float *dx) {
  if (!x || !g || !dx) return SS_ERR_NULL;
  ss_status s = check_vector(k, SS_FAMILY_SAMPLER, impl, n, params, nparams);
  if (s != SS_OK) return s;
  if (!k->has_backward) return SS_ERR_NO_BACKWARD;
  if (!k->sample_vjp[impl]) return SS_ERR_UNSUPPORTED;
  s = check_draws(k, params, n, true);
  if (s != SS_OK) return s;
  const size_t draws = (size_t)ss_param_value(k, params, "draws", 0.0);
  s = ss_check_finite(g, draws * n);
  if (s != SS_OK) return s;
  s = gradient_answer(k->sample_vjp[impl](x, n, params, g, dx), impl, dx, n);
  if (s == SS_DECLINED)
    s = gradient_answer(k->sample_vjp[SS_IMPL_SCALAR](x, n, params, g, dx), SS_IMPL_SCALAR, dx, n);
  return s;
}

/* One measure value through the kernel fn (q NULL for one-input measures):
   *out written only when it is a value. */
static ss_status measure_one(const ss_kernel_info *k, ss_measure_fn fn, const float *p,
                             const float *q, size_t n, const double *params, double *out) {
  double v;
  const ss_status s = fn(p, q, n, params, &v);
  if (s != SS_OK) return s;
  /* a value beyond double's range (sum p^a of unnormalized p near FLT_MAX
     with a = 1000 in Tsallis entropy): not a value; a divergence may be
     +Inf exactly (q_i = 0 < p_i) */
  if (isnan(v) || (isinf(v) && !(k->input == SS_INPUT_PROBS_PAIR && v == INFINITY)))
    return SS_ERR_DOMAIN;
  *out = v;
  return SS_OK;
}

ss_status ss_measure(const ss_kernel_info *k, ss_impl impl, const float *p,
                     const float *q, size_t n, const double *params,
                     size_t nparams, double *out) {
  return ss_measure_rows(k, impl, p, q, 1, n, n, n, params, nparams, out, NULL);
}

ss_status ss_measure_vjp(const ss_kernel_info *k, ss_impl impl,
                         const float *p, size_t n, const double *params,
                         size_t nparams, double g, float *dp) {
  if (!p || !dp) return SS_ERR_NULL;
  ss_status s = check_vector(k, SS_FAMILY_MEASURE, impl, n, params, nparams);
  if (s != SS_OK) return s;
  if (!k->has_backward) return SS_ERR_NO_BACKWARD;
  if (!k->measure_vjp[impl]) return SS_ERR_UNSUPPORTED;
  if (!isfinite(g)) return SS_ERR_NONFINITE;
  s = gradient_answer(k->measure_vjp[impl](p, n, params, g, dp), impl, dp, n);
  if (s == SS_DECLINED)
    s = gradient_answer(k->measure_vjp[SS_IMPL_SCALAR](p, n, params, g, dp), SS_IMPL_SCALAR, dp, n);
  return s;
}

size_t ss_opt_state_size(const ss_kernel_info *k, size_t n) {
  /* 0 for a length no call accepts: the product cannot overflow size_t */
  if (!k || k->family != SS_FAMILY_OPTIMIZER || n > SS_MAX_N) return 0;
  return (size_t)k->opt_slots * n;
}

ss_status ss_optimize(const ss_kernel_info *k, ss_impl impl, float *w, const float *g,
                      size_t n, const double *params, size_t nparams, float *slots,
                      double *scalars) {
  if (!w || !g || !scalars || (k && k->opt_slots && !slots)) return SS_ERR_NULL;
  ss_status s = check_vector(k, SS_FAMILY_OPTIMIZER, impl, n, params, nparams);
  if (s != SS_OK) return s;
  if (!k->step[impl]) return SS_ERR_UNSUPPORTED;
  /* the step counter: a whole number below 2^53 */
  if (!(scalars[0] >= 0.0 && scalars[0] < 9007199254740992.0 && scalars[0] == floor(scalars[0])))
    return SS_ERR_DOMAIN;
  if ((s = ss_check_finite_fast(w, n)) != SS_OK || (s = ss_check_finite_fast(g, n)) != SS_OK)
    return s;
  const uint64_t t = (uint64_t)scalars[0] + 1;
  s = k->step[impl](w, g, n, params, t, slots, scalars + 1);
  if (s != SS_OK) return s;
  /* a step that overflowed float (see ss_optimize in softscope.h) */
  bool finite = ss_check_finite_fast(w, n) == SS_OK &&
                (!k->opt_slots || ss_check_finite_fast(slots, ss_opt_state_size(k, n)) == SS_OK);
  for (int i = 1; i < SS_OPT_SCALARS; i++) finite = finite && isfinite(scalars[i]);
  if (!finite) return SS_ERR_DOMAIN;
  scalars[0] = (double)t;
  return SS_OK;
}

/* ---- Rows: rows x n problems in one call (softscope.h, "Rows") ----------
   The kernel's impl, the parameters and n are checked once; the loop then
   calls the row kernel itself, so a row costs what the kernel costs. */

/* The checks of a rows call after check_vector: rows >= 1, strides >= n, and
   the last row's end addressable ((rows - 1) * stride + n fits a size_t). */
static ss_status check_rows(size_t rows, size_t n, size_t stride_a, size_t stride_b) {
  if (rows == 0) return SS_ERR_EMPTY;
  if (stride_a < n || stride_b < n) return SS_ERR_LENGTH;
  const size_t last = rows - 1, stride = stride_a > stride_b ? stride_a : stride_b;
  if (stride && last > (SIZE_MAX - n) / stride) return SS_ERR_TOO_LARGE;
  return SS_OK;
}

static ss_status row_error(ss_status s, size_t r, size_t *bad_row) {
  if (bad_row) *bad_row = r;
  return s;
}

ss_status ss_normalize_rows(const ss_kernel_info *k, ss_impl impl, const float *x,
                            size_t rows, size_t n, size_t x_stride, const double *params,
                            size_t nparams, float *y, size_t y_stride, size_t *bad_row) {
  if (bad_row) *bad_row = SS_NO_ROW;
  if (!x || !y) return SS_ERR_NULL;
  ss_status s = check_vector(k, SS_FAMILY_NORMALIZER, impl, n, params, nparams);
  if (s == SS_OK) s = check_rows(rows, n, x_stride, y_stride);
  if (s != SS_OK) return s;
  const ss_normalize_fn fn = k->normalize[impl];
  if (!fn) return SS_ERR_UNSUPPORTED;
  const ss_normalize_pair_fn pair = k->normalize_pair[impl];
  for (size_t r = 0; r < rows; r++) {
    if (pair && r + 1 < rows &&
        pair(x + r * x_stride, x + (r + 1) * x_stride, n, params, y + r * y_stride,
             y + (r + 1) * y_stride)) {
      r++;
      continue;
    }
    s = fn(x + r * x_stride, n, params, y + r * y_stride);
    if (s != SS_OK) return row_error(s, r, bad_row);
  }
  return SS_OK;
}

ss_status ss_measure_rows(const ss_kernel_info *k, ss_impl impl, const float *p,
                          const float *q, size_t rows, size_t n, size_t p_stride,
                          size_t q_stride, const double *params, size_t nparams, double *out,
                          size_t *bad_row) {
  if (bad_row) *bad_row = SS_NO_ROW;
  if (!p || !out) return SS_ERR_NULL;
  const bool pair = k && k->input == SS_INPUT_PROBS_PAIR;
  if (pair && !q) return SS_ERR_NULL;
  ss_status s = check_vector(k, SS_FAMILY_MEASURE, impl, n, params, nparams);
  if (s == SS_OK) s = check_rows(rows, n, p_stride, pair ? q_stride : n);
  if (s != SS_OK) return s;
  const ss_measure_fn fn = k->measure[impl];
  if (!fn) return SS_ERR_UNSUPPORTED;
  for (size_t r = 0; r < rows; r++) {
    s = measure_one(k, fn, p + r * p_stride, pair ? q + r * q_stride : NULL, n, params, out + r);
    if (s != SS_OK) return row_error(s, r, bad_row);
  }
  return SS_OK;
}

ss_status ss_sample_rows(const ss_kernel_info *k, ss_impl impl, const float *x, size_t rows,
                         size_t n, size_t x_stride, const double *params, size_t nparams,
                         float *probs, size_t probs_stride, uint32_t *indices, float *samples,
                         size_t *bad_row) {
  if (bad_row) *bad_row = SS_NO_ROW;
  if (!x || !probs) return SS_ERR_NULL;
  ss_status s = check_vector(k, SS_FAMILY_SAMPLER, impl, n, params, nparams);
  if (s == SS_OK) s = check_rows(rows, n, x_stride, probs_stride);
  if (s != SS_OK) return s;
  const ss_sample_fn fn = k->sample[impl];
  if (!fn) return SS_ERR_UNSUPPORTED;
  if (nparams > SS_ROW_PARAMS_MAX) return SS_ERR_PARAM_COUNT;
  s = check_draws(k, params, n, samples != NULL);
  if (s != SS_OK) return s;
  if (k->draws == SS_DRAW_VECTOR) indices = NULL;
  if (k->draws == SS_DRAW_INDEX) samples = NULL;
  /* each row's draws and samples: draws and draws * n entries */
  const size_t draws = (size_t)ss_param_value(k, params, "draws", 0.0);
  if (draws && (rows > SIZE_MAX / draws || (samples && rows * draws > SIZE_MAX / n)))
    return SS_ERR_TOO_LARGE;
  /* row r draws under seed + r, within the seed's range */
  double row_params[SS_ROW_PARAMS_MAX];
  for (size_t i = 0; i < nparams; i++) row_params[i] = params[i];
  const long si = ss_param_index(k, "seed");
  /* (max - seed is exact: integers <= 2^53; seed + rows - 1 may not be) */
  if (si >= 0 && (double)(rows - 1) > k->params[si].max - params[si]) return SS_ERR_PARAM_RANGE;
  for (size_t r = 0; r < rows; r++) {
    if (si >= 0) row_params[si] = params[si] + (double)r;
    s = fn(x + r * x_stride, n, row_params, probs + r * probs_stride,
           indices ? indices + r * draws : NULL, samples ? samples + r * draws * n : NULL);
    if (s != SS_OK) return row_error(s, r, bad_row);
  }
  return SS_OK;
}
