/*
 * adaptive_temperature — softmax sharpened by an inverse temperature that is
 * a fitted function of the entropy of softmax itself:
 *
 *   p = softmax(x),  H = -sum_i p_i log p_i   (nats)
 *   beta = max(P(H), 1) if H > 0.5, else 1
 *   P(H) = -0.037 H^4 + 0.481 H^3 - 2.3 H^2 + 4.917 H - 1.791
 *   y = softmax(beta x)
 *
 * Velickovic, Perivolaropoulos, Barbero & Pascanu 2024, "softmax is not
 * enough (for sharp out-of-distribution)" (arXiv:2410.01104), section 5 and
 * its JAX listing. Checked against that listing (as reproduced in several
 * public ports): poly_fit = [-0.037, 0.481, -2.3, 4.917, -1.791] evaluated
 * with polyval (highest power first), beta = where(H > 0.5, maximum(
 * polyval(poly_fit, H), 1), 1), output softmax(logits * beta); beta = 1 /
 * theta "never increases entropy". One deviation: the listing's entropy is
 * sum -p log(p + 1e-9); we use the exact Shannon entropy (0 log 0 = 0),
 * which differs from it by up to n * 1e-9 nats.
 *
 * Shape of beta: P(0.5) = 0.150 < 1, so the H > 0.5 guard never binds and
 * beta is continuous; beta > 1 exactly on H in (0.8486, 5.9445) nats (the
 * roots of P = 1), with max P = 2.42 near H = 4.3. Outside that band the
 * output is softmax, bit for bit (the same code path). For very long rows of
 * near-uniform logits (H > 5.94, e.g. n > ~400 equal-ish logits) the fit no
 * longer sharpens: it was fitted on the lengths the paper trained on.
 *
 * Backward (full derivative, as the listing differentiates through beta):
 * where beta = 1 it is softmax's. Where beta = P(H) > 1,
 *   dx_j = beta y_j (g_j - <g, y>) + G P'(H) dH/dx_j,
 *   G = dL/dbeta = sum_i g_i y_i (x_i - <x, y>),
 *   dH/dx_j = -p_j (log p_j + H).
 * The derivative jumps at the two roots of P(H) = 1 (beta has kinks there);
 * tests compare with finite differences away from them.
 *
 * Implementation: pass 1 max (validation), pass 2 e_i = exp(x_i - m) into y
 * (TwoSum-corrected, softmax/softmax.c), pass 3 S = sum e_i and
 * T = sum e_i (x_i - m) in double (masked entries skipped; SIMD: f64x2
 * lanes), H = log S - T / S (both terms >= 0: no cancellation). Then either y = e / S (beta = 1, softmax's
 * own scaling) or the exp pass again with beta = fl(P(H)).
 * Errors: H inherits the float rounding of the e_i (~1e-7 relative), which
 * moves beta by |P'(H)| (<= 2.5) times that, and beta is rounded to float:
 * one ulp of beta moves the exponent z_i = beta (x_i - m) by |x_i - m| ulp.
 * Stated bound: |y_i - y64_i| <= (2e-6 + 2^-21 |z_i|) y64_i for outputs
 * >= 1e-30 (2^-23, enough for softmax_temperature, is not); measured 0.34
 * of it. SIMD and scalar may round beta one ulp apart: |a - b| <=
 * (1e-6 + 2^-22 |z|) a, measured 0.78 of that
 * (tests/c/test_adaptive_temperature.c).
 */
#include <math.h>

#include "adaptive/adaptive_internal.h"
#include "common/flush.h"
#include "common/impl_pair.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"

/* P(H) by Horner, highest power first (numpy/jax polyval order). */
static double poly(double h) {
  return (((-0.037 * h + 0.481) * h - 2.3) * h + 4.917) * h - 1.791;
}
static double dpoly(double h) {
  return ((4.0 * -0.037 * h + 3.0 * 0.481) * h - 2.0 * 2.3) * h + 4.917;
}
static double adaptive_beta(double h) {
  const double p = poly(h);
  return h > 0.5 && p > 1.0 ? p : 1.0;
}

/* H from S = sum e_i and T = sum e_i (x_i - m) <= 0. */
static double entropy_of(double s, double t) { return log(s) - t / s; }

/* ---- scalar reference ------------------------------------------------- */

/* H of the row whose e_i = exp(x_i - m) are in e, with s = sum e_i (the
   exp pass's sum) and T = sum e_i (x_i - m) in double. */
static double row_entropy_scalar(const float *e, const float *x, float m, size_t n, double s) {
  return entropy_of(s, ss_shifted_dot(e, x, m, n));
}

/* The backward in double from x alone (p, H, beta recomputed): S = sum e_i
   and T = sum e_i (x_i - m), e_i = exp(x_i - m) (dx: the SIMD form's
   scratch, unused here). */
static void vjp_sums_scalar(const float *x, size_t n, float m, float *dx, double *s_out,
                            double *t_out) {
  (void)dx;
  double s = 0.0, t = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) continue;
    const double d = (double)x[i] - m, e = exp(d);
    s += e;
    t += e * d;
  }
  *s_out = s;
  *t_out = t;
}

/* dx = beta y (g - <g, y>) - G P'(H) p (log p + H), from the sums: S, H and
   mom of ss_shifted_moments_* (G = mom[0] - mom[2] mom[1]). */
static void vjp_pass_scalar(const float *x, const float *y, const float *g, size_t n, float m,
                            float beta, double h, double s, const double mom[3], float *dx) {
  const double ls = log(s);
  const double k = (mom[0] - mom[2] * mom[1]) * dpoly(h); /* G P'(H) */
  for (size_t j = 0; j < n; j++) {
    if (x[j] == -INFINITY) {
      dx[j] = 0.0f;
      continue;
    }
    const double d = (double)x[j] - m, p = exp(d) / s;
    dx[j] = (float)((double)beta * y[j] * ((double)g[j] - mom[2]) - k * p * (d - ls + h));
  }
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* S = sum e_i and T = sum e_i (x_i - m) in f64x2 lanes: the products of
   floats are exact in double and the sums carry no float block error, so H
   is as accurate as the e_i themselves (the scalar reference sums the same
   floats in double). Masked lanes get d = 0. */
static void entropy_sums_simd(const float *e, const float *x, float m, size_t n,
                              double *s_out, double *t_out) {
  const v128_t vm = wasm_f64x2_splat((double)m), ninf = wasm_f64x2_splat(-INFINITY);
  v128_t s0 = wasm_f64x2_splat(0.0), s1 = s0, t0 = s0, t1 = s0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t ev = wasm_v128_load(e + i), xv = wasm_v128_load(x + i);
    const v128_t elo = wasm_f64x2_promote_low_f32x4(ev);
    const v128_t ehi = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(ev, ev, 2, 3, 0, 1));
    const v128_t xlo = wasm_f64x2_promote_low_f32x4(xv);
    const v128_t xhi = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(xv, xv, 2, 3, 0, 1));
    const v128_t dlo = wasm_v128_and(wasm_f64x2_sub(xlo, vm), wasm_f64x2_ne(xlo, ninf));
    const v128_t dhi = wasm_v128_and(wasm_f64x2_sub(xhi, vm), wasm_f64x2_ne(xhi, ninf));
    s0 = wasm_f64x2_add(s0, elo);
    s1 = wasm_f64x2_add(s1, ehi);
    t0 = wasm_f64x2_add(t0, wasm_f64x2_mul(elo, dlo));
    t1 = wasm_f64x2_add(t1, wasm_f64x2_mul(ehi, dhi));
  }
  double s = 0.0, t = 0.0;
  for (; i < n; i++) {
    s += e[i];
    if (x[i] != -INFINITY) t += (double)e[i] * ((double)x[i] - m);
  }
  s0 = wasm_f64x2_add(s0, s1);
  t0 = wasm_f64x2_add(t0, t1);
  *s_out = s + (wasm_f64x2_extract_lane(s0, 0) + wasm_f64x2_extract_lane(s0, 1));
  *t_out = t + (wasm_f64x2_extract_lane(t0, 0) + wasm_f64x2_extract_lane(t0, 1));
}

/* H with S and T both summed in f64x2 lanes (entropy_sums_simd): the exp
   pass's float-block sum s is not used for it. */
static double row_entropy_simd(const float *e, const float *x, float m, size_t n, double s) {
  (void)s;
  double sd, td;
  entropy_sums_simd(e, x, m, n, &sd, &td);
  return entropy_of(sd, td);
}

/* dx is the scratch for e_i = exp(x_i - m) until the last pass, which reads
   e_i before writing dx_i at the same index. */
static void vjp_sums_simd(const float *x, size_t n, float m, float *dx, double *s_out,
                          double *t_out) {
  ss_exp_store_simd(x, n, m, 1.0f, dx);
  entropy_sums_simd(dx, x, m, n, s_out, t_out);
}

static void vjp_pass_simd(const float *x, const float *y, const float *g, size_t n, float m,
                          float beta, double h, double s, const double mom[3], float *dx) {
  const float k = (float)((mom[0] - mom[2] * mom[1]) * dpoly(h) / s); /* G P'(H) / S */
  const float c = (float)(h - log(s));                                /* H - log S */
  const v128_t vb = wasm_f32x4_splat(beta), vgy = wasm_f32x4_splat((float)mom[2]);
  const v128_t vk = wasm_f32x4_splat(k), vc = wasm_f32x4_splat(c), vm = wasm_f32x4_splat(m);
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const v128_t xv = wasm_v128_load(x + j);
    /* log p_j + H = (x_j - m) - log S + H; masked lanes: e = 0, d := 0 */
    const v128_t d = wasm_v128_and(wasm_f32x4_sub(xv, vm), wasm_f32x4_ne(xv, ninf));
    const v128_t direct = wasm_f32x4_mul(wasm_f32x4_mul(vb, wasm_v128_load(y + j)),
                                         wasm_f32x4_sub(wasm_v128_load(g + j), vgy));
    const v128_t via_h = wasm_f32x4_mul(wasm_f32x4_mul(vk, wasm_v128_load(dx + j)),
                                        wasm_f32x4_add(d, vc));
    wasm_v128_store(dx + j, wasm_f32x4_sub(direct, via_h));
  }
  for (; j < n; j++) {
    const float d = x[j] == -INFINITY ? 0.0f : x[j] - m;
    dx[j] = beta * y[j] * (g[j] - (float)mom[2]) - k * dx[j] * (d + c);
  }
}

#endif /* SS_HAVE_SIMD */

/* ---- forward and VJP, one body each for both impls (common/impl_pair.h) */

SS_ALWAYS_INLINE ss_status adaptive_run(ss_impl impl, const float *x, size_t n,
                                        const double *params, float *y) {
  (void)params;
  float max;
  ss_status st = SS_BY_IMPL(impl, ss_logits_max)(x, n, &max);
  if (st != SS_OK) return st;
  /* s is softmax's own sum, so that beta == 1 is exactly softmax's scaling
     pass (bitwise softmax) */
  const double s = SS_BY_IMPL(impl, ss_exp_store)(x, n, max, 1.0f, y);
  const float beta = (float)adaptive_beta(SS_BY_IMPL(impl, row_entropy)(y, x, max, n, s));
  const double sum = beta == 1.0f ? s : SS_BY_IMPL(impl, ss_exp_store)(x, n, max, beta, y);
  SS_BY_IMPL(impl, ss_divide_flush)(y, n, sum);
  return SS_OK;
}

/* Where beta = 1 softmax's VJP; else through beta(H(x)) as well. */
SS_ALWAYS_INLINE ss_status adaptive_vjp_run(ss_impl impl, const float *x, const float *y,
                                            const float *g, size_t n, const double *params,
                                            float *dx) {
  (void)params;
  const float m = SS_BY_IMPL(impl, ss_row_max)(x, n);
  double s, t;
  SS_BY_IMPL(impl, vjp_sums)(x, n, m, dx, &s, &t);
  const double h = entropy_of(s, t);
  const float beta = (float)adaptive_beta(h);
  if (beta == 1.0f) {
    SS_BY_IMPL(impl, ss_softmax_vjp_core)(y, g, n, 1.0f, dx);
    return SS_OK;
  }
  double mom[3];
  SS_BY_IMPL(impl, ss_shifted_moments)(x, y, g, n, m, mom);
  SS_BY_IMPL(impl, vjp_pass)(x, y, g, n, m, beta, h, s, mom, dx);
  return SS_OK;
}

SS_NORMALIZE_IMPLS(adaptive, adaptive_run)
SS_NORMALIZE_VJP_IMPLS(adaptive_vjp, adaptive_vjp_run)

/* ---- registry entry and direct call ------------------------------------ */

const ss_kernel_info ss_kernel_adaptive_temperature = {
    .name = "adaptive_temperature",
    .family = SS_FAMILY_NORMALIZER,
    .summary = "Softmax sharpened by an entropy-fitted inverse temperature (never flatter)",
    .formula = "p = softmax(x), H = -sum p log p; beta = max(P(H), 1) if H > 0.5 else 1, "
               "P(H) = -0.037 H^4 + 0.481 H^3 - 2.3 H^2 + 4.917 H - 1.791; "
               "y = softmax(beta x); VJP through beta(H(x))",
    .paper = "Velickovic, Perivolaropoulos, Barbero & Pascanu 2024, 'softmax is not enough "
             "(for sharp out-of-distribution)' (arXiv:2410.01104)",
    .nparams = 0,
    .params = NULL,
    .input = SS_INPUT_LOGITS,
    .output = SS_OUTPUT_PROBS,
    .has_backward = true,
    .normalize = SS_IMPLS(adaptive),
    .normalize_vjp = SS_IMPLS(adaptive_vjp),
    .relaxed_simd = SS_RELAXED_EXP_STORE,
};

ss_status ss_adaptive_temperature(const float *x, size_t n, float *y) {
  return ss_normalize(&ss_kernel_adaptive_temperature, ss_impl_default(), x, n, NULL, 0, y);
}
