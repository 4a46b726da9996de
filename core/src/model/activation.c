/*
 * GELU, tanh form (Hendrycks & Gimpel 2016, "Gaussian Error Linear Units";
 * torch.nn.functional.gelu(x, approximate='tanh')):
 *
 *   y = x (1 + tanh(u)) / 2,   u = c (x + a x^3),  c = sqrt(2 / pi), a = 0.044715
 *
 * computed as y = x s with s = (1 + tanh(u)) / 2 = sigmoid(2u), which has no
 * cancellation where tanh(u) -> -1:
 *
 *   e = exp(-2|u|) in (0, 1],  s = 1 / (1 + e) for u >= 0,  e / (1 + e) for u < 0
 *
 * backward: dx = dy gelu'(x),
 *
 *   gelu'(x) = s + x s (1 - s) 2 c (1 + 3 a x^2),  s (1 - s) = e / (1 + e)^2
 *
 * Scalar reference: double (libm exp), each output rounded once. SIMD: the
 * same formulas in float, e from ss_exp_nonpos_f32x4 (common/exp_simd.h;
 * exactly 0 for 2|u| > 87.3, i.e. x < -9.6). tanh(u) = 2 s - 1; GELU only
 * needs 1 + tanh(u) = 2 s, which keeps its relative accuracy where tanh(u)
 * -> -1. u carries at most 5 roundings, so e is off by a relative
 * 5 2^-24 2|u| plus the exp's few ulp, which matters only where s ~ e
 * (x < 0). Bounds against float64 (tests/c/test_model_gelu.c; measured on
 * a grid of 240001 points in [-12, 12]: 0.62 of the x < 0 bound, 3.0 2^-24
 * for x >= 0, 0.57 of the dx bound):
 *
 *   |y - y64|    <= (8 + 10 |u|) 2^-24 |y64| + 2^-122   for x < 0
 *                <= 6 2^-24 |y64| + 2^-149               for x >= 0
 *   |dx - dx64|  <= (12 + 10 |u|) 2^-24 |dy| (s + |x| e/(1+e)^2 2c (1 + 3a x^2))
 *                   + 2^-118 |dy|
 *
 * (the absolute terms: where e flushes to 0 while x e is still a normal
 * float). A SIMD backward whose dx reaches 2^127 is computed by the scalar
 * reference, which gives SS_ERR_DOMAIN beyond FLT_MAX; |y| <= |x| never
 * overflows.
 */
#include "common/check.h"
#include "common/exp_simd.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"
#include "model/layers.h"
#include "model/model_internal.h"

#define GELU_C 0.7978845608028654 /* sqrt(2 / pi) */
#define GELU_A 0.044715

/* ---- scalar reference ---- */

/* s = sigmoid(2u) and e = exp(-2|u|) of x, in double. */
static double sig2u(double x, double *e) {
  const double u = GELU_C * (x + GELU_A * x * x * x);
  *e = exp(-2.0 * fabs(u));
  return u >= 0.0 ? 1.0 / (1.0 + *e) : *e / (1.0 + *e);
}

static void forward_scalar(const float *x, size_t n, float *y) {
  for (size_t i = 0; i < n; i++) {
    double e;
    y[i] = (float)((double)x[i] * sig2u(x[i], &e)); /* |y| <= |x|: no overflow */
  }
}

static ss_status backward_scalar(const float *x, const float *dy, size_t n, float *dx) {
  for (size_t i = 0; i < n; i++) {
    const double v = x[i];
    double e;
    const double s = sig2u(v, &e);
    const double q = 1.0 / (1.0 + e);
    const double dg = s + v * (2.0 * GELU_C * (1.0 + 3.0 * GELU_A * v * v)) * (e * q * q);
    if (!ss_model_f32((double)dy[i] * dg, &dx[i])) return SS_ERR_DOMAIN;
  }
  return SS_OK;
}

/* ---- SIMD ---- */

#if SS_HAVE_SIMD
typedef struct gelu_consts {
  ss_exp_consts ex;
  v128_t c, a, one, m2, three_a, two_c, lim;
} gelu_consts;

static inline gelu_consts gelu_consts_load(void) {
  gelu_consts k;
  k.ex = ss_exp_consts_load();
  k.c = wasm_f32x4_splat((float)GELU_C);
  k.a = wasm_f32x4_splat((float)GELU_A);
  k.one = wasm_f32x4_splat(1.0f);
  k.m2 = wasm_f32x4_splat(-2.0f);
  k.three_a = wasm_f32x4_splat((float)(3.0 * GELU_A));
  k.two_c = wasm_f32x4_splat((float)(2.0 * GELU_C));
  k.lim = wasm_f32x4_splat(12.0f); /* e = 0 exactly beyond |x| = 12 */
  return k;
}

/* s = sigmoid(2u), e = exp(-2|u|) and q = 1 / (1 + e) of four lanes. */
static inline v128_t sig2u_f32x4(v128_t x, const gelu_consts *k, v128_t *e, v128_t *q) {
  const v128_t t = wasm_f32x4_add(k->one, wasm_f32x4_mul(k->a, wasm_f32x4_mul(x, x)));
  const v128_t u = wasm_f32x4_mul(wasm_f32x4_mul(k->c, x), t);
  *e = ss_exp_nonpos_f32x4(wasm_f32x4_mul(k->m2, wasm_f32x4_abs(u)), &k->ex);
  *q = wasm_f32x4_div(k->one, wasm_f32x4_add(k->one, *e));
  /* u >= 0 (x >= 0): q; else e q */
  return wasm_v128_bitselect(*q, wasm_f32x4_mul(*e, *q), wasm_f32x4_ge(x, wasm_f32x4_splat(0.0f)));
}

/* The tail (< 4 values) through a padded vector. */
static void forward_simd(const float *x, size_t n, float *y) {
  const gelu_consts k = gelu_consts_load();
  size_t i = 0;
  v128_t e, q;
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(x + i);
    wasm_v128_store(y + i, wasm_f32x4_mul(v, sig2u_f32x4(v, &k, &e, &q)));
  }
  if (i < n) {
    const v128_t v = ss_load_partial(x + i, n - i, 0.0f);
    ss_store_partial(y + i, n - i, wasm_f32x4_mul(v, sig2u_f32x4(v, &k, &e, &q)));
  }
}

static inline v128_t dgelu_f32x4(v128_t v, const gelu_consts *k) {
  v128_t e, q;
  const v128_t s = sig2u_f32x4(v, k, &e, &q);
  const v128_t xc = wasm_f32x4_pmin(wasm_f32x4_pmax(v, wasm_f32x4_neg(k->lim)), k->lim);
  const v128_t p = wasm_f32x4_mul(xc, wasm_f32x4_mul(k->two_c, wasm_f32x4_add(k->one, wasm_f32x4_mul(k->three_a, wasm_f32x4_mul(xc, xc)))));
  return wasm_f32x4_add(s, wasm_f32x4_mul(p, wasm_f32x4_mul(e, wasm_f32x4_mul(q, q))));
}

/* SS_DECLINED: some dx reached 2^127 (the scalar reference decides). */
static ss_status backward_simd(const float *x, const float *dy, size_t n, float *dx) {
  const gelu_consts k = gelu_consts_load();
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    wasm_v128_store(dx + i, wasm_f32x4_mul(wasm_v128_load(dy + i), dgelu_f32x4(wasm_v128_load(x + i), &k)));
  if (i < n)
    ss_store_partial(dx + i, n - i, wasm_f32x4_mul(ss_load_partial(dy + i, n - i, 0.0f),
                                                   dgelu_f32x4(ss_load_partial(x + i, n - i, 0.0f), &k)));
  return ss_model_big_simd(dx, n) ? SS_DECLINED : SS_OK;
}
#endif

/* ---- entry points ---- */

ss_status ss_gelu(ss_impl impl, const float *x, size_t n, float *y) {
  if (!x || !y) return SS_ERR_NULL;
  if (!ss_model_impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  ss_status s = ss_check_n(n);
  if (s != SS_OK || (s = ss_check_finite_fast(x, n)) != SS_OK) return s;
  ss_gelu_run(impl, x, n, y);
  return SS_OK;
}

void ss_gelu_run(ss_impl impl, const float *x, size_t n, float *y) {
  SS_BY_IMPL(impl, forward)(x, n, y);
}

ss_status ss_gelu_backward(ss_impl impl, const float *x, const float *dy, size_t n, float *dx) {
  if (!x || !dy || !dx) return SS_ERR_NULL;
  if (!ss_model_impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  ss_status s = ss_check_n(n);
  if (s != SS_OK || (s = ss_check_finite_fast(x, n)) != SS_OK ||
      (s = ss_check_finite_fast(dy, n)) != SS_OK)
    return s;
  return ss_gelu_backward_run(impl, x, dy, n, dx);
}

ss_status ss_gelu_backward_run(ss_impl impl, const float *x, const float *dy, size_t n, float *dx) {
  SS_RETURN_BY_IMPL(impl, backward, (x, dy, n, dx));
}
