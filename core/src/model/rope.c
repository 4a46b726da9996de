/*
 * Rotary position embedding (Su et al. 2021, "RoFormer: Enhanced
 * Transformer with Rotary Position Embedding", arXiv 2104.09864, eq. 34).
 * Each row of x (rows x d) is `heads` heads of hd = d / heads values; in
 * each head the pair (x[2i], x[2i+1]), i < hd / 2, is rotated by the angle
 * a = p theta_i, theta_i = base^(-2i / hd), p = p0 + r % period the
 * position of row r:
 *
 *   forward   y[2i]   = x[2i] c - x[2i+1] s      c = cos(a), s = sin(a)
 *             y[2i+1] = x[2i] s + x[2i+1] c
 *   backward  dx[2i]   = dy[2i] c + dy[2i+1] s   (the transpose: angle -a)
 *             dx[2i+1] = dy[2i+1] c - dy[2i] s
 *
 * The angle, in double (the model's table, model/rope.h, and the tests use
 * the same formula): a = (double)p * pow(base, -2.0 * i / hd); c and s are
 * libm's cos and sin of it in double, each rounded once to float. (For
 * p <= 2^24 this double angle is within about 12 2^-53 p theta_i <= 2^-25
 * radians of the real p theta_i: pow's error and the rounding of the
 * exponent and of the product.) The rotation is then done in float, each
 * product rounded, then the sum: no fused multiply-add (the scalar code
 * multiplies into separate statements; -std=c11 makes gcc's default
 * -ffp-contract=off, wasm has no scalar FMA, the relaxed build compiles
 * with -ffp-contract=off, and the SIMD code uses f32x4.mul and f32x4.add,
 * never relaxed_madd).
 *
 * SIMD: two pairs per f32x4; [c0 s0 c1 s1] loaded from the row's cos/sin,
 * shuffled into [c0 c0 c1 c1] and [s0 s0 s1 s1], x shuffled into
 * [x1 x0 x3 x2], the sine's sign flipped by lane (forward -s on even lanes,
 * backward on odd ones): y = x * c + xs * (+-s) -- the same products and
 * the same sum as the scalar code (a - b is a + (-b) in IEEE arithmetic),
 * so the SIMD result equals the scalar one bit for bit in every build
 * (tests/c/test_model_rope.c checks it); an odd last pair of a head goes
 * through the scalar code.
 *
 * Error (both impls, the same bits), per element against the float64
 * rotation of x by the double angle a:
 *
 *   |y - y64| <= 3.01 2^-24 (|x[2i] c| + |x[2i+1] s|) + 2^-148
 *
 * (c and s rounded once, the products once, the sum once; the 2^-148 the
 * products' underflow). |y| <= sqrt(2) max |x| never overflows. The
 * rotation with the rounded c, s is orthogonal up to |c^2 + s^2 - 1| <=
 * 2^-23, so each pair's norm is kept to the same bound, and backward is the
 * exact transpose of forward's matrix: <y, dy> - <x, dx> is rounding only.
 * Position 0 (c = 1, s = 0) gives x back (as values; x0 - 0 may turn a -0
 * into +0).
 *
 * The public entry points compute each row's cos and sin on a stack buffer
 * of at most ROPE_CHUNK pairs at a time (hd / 2 may be as large as
 * SS_MAX_N / 2 through them; the model's hd / 2 <= 192 is one chunk), the
 * thetas once per chunk, and the row's cos and sin once per position run
 * (period 1: once per call).
 */
#include <math.h>
#include <stdint.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "model/model_internal.h"
#include "model/rope.h"

#define ROPE_MAX_P ((size_t)1 << 24)
#define ROPE_CHUNK 192 /* pairs whose cos and sin one pass holds on the stack */

/* theta_i = base^(-2i / hd), in double. */
static double rope_theta(size_t i, size_t hd, double base) {
  return pow(base, -2.0 * (double)i / (double)hd);
}

/* cos and sin of p theta[i], i < n, each rounded to float. */
static void rope_cs(size_t p, const double *theta, size_t n, float *cs) {
  for (size_t i = 0; i < n; i++) {
    const double a = (double)p * theta[i];
    cs[2 * i] = (float)cos(a);
    cs[2 * i + 1] = (float)sin(a);
  }
}

/* ---- scalar reference ---- */

/* dst's n pairs: src's rotated by cs (inverse: by -angle); dst may be src.
   Each product is its own statement (no contraction into an FMA). */
static void rotate_scalar(const float *src, float *dst, const float *cs, size_t n, bool inverse) {
  if (!inverse) {
    for (size_t i = 0; i < n; i++) {
      const float x0 = src[2 * i], x1 = src[2 * i + 1], c = cs[2 * i], s = cs[2 * i + 1];
      const float a = x0 * c, b = x1 * s, e = x0 * s, f = x1 * c;
      dst[2 * i] = a - b;
      dst[2 * i + 1] = f + e;
    }
  } else {
    for (size_t i = 0; i < n; i++) {
      const float x0 = src[2 * i], x1 = src[2 * i + 1], c = cs[2 * i], s = cs[2 * i + 1];
      const float a = x0 * c, b = x1 * s, e = x0 * s, f = x1 * c;
      dst[2 * i] = a + b;
      dst[2 * i + 1] = f - e;
    }
  }
}

/* ---- SIMD ---- */

#if SS_HAVE_SIMD
/* The same products and sums, two pairs per vector. */
static void rotate_simd(const float *src, float *dst, const float *cs, size_t n, bool inverse) {
  /* forward: [x0 c - x1 s, x1 c + x0 s] = x c + [x1 x0] [-s  s];
     backward: [x0 c + x1 s, x1 c - x0 s] = x c + [x1 x0] [s -s] */
  const v128_t sign = inverse ? wasm_i32x4_make(0, INT32_MIN, 0, INT32_MIN)
                              : wasm_i32x4_make(INT32_MIN, 0, INT32_MIN, 0);
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const v128_t x = wasm_v128_load(src + 2 * i), t = wasm_v128_load(cs + 2 * i);
    const v128_t c = wasm_i32x4_shuffle(t, t, 0, 0, 2, 2);
    const v128_t s = wasm_v128_xor(wasm_i32x4_shuffle(t, t, 1, 1, 3, 3), sign);
    const v128_t xs = wasm_i32x4_shuffle(x, x, 1, 0, 3, 2);
    wasm_v128_store(dst + 2 * i, wasm_f32x4_add(wasm_f32x4_mul(x, c), wasm_f32x4_mul(xs, s)));
  }
  if (i < n) rotate_scalar(src + 2 * i, dst + 2 * i, cs + 2 * i, n - i, inverse);
}
#endif

/* Row by row, head by head: the pairs [i0, i0 + n) of each head of rows
   [r0, r1) of src rotated into dst by the row's cs (n pairs). */
SS_ALWAYS_INLINE void rotate_heads(ss_impl impl, const float *src, float *dst, size_t d,
                                   size_t hd, size_t i0, size_t n, const float *cs,
                                   bool inverse) {
  for (size_t h = 0; h < d; h += hd)
    SS_BY_IMPL(impl, rotate)(src + h + 2 * i0, dst + h + 2 * i0, cs, n, inverse);
}

/* ---- the model's table ---- */

void ss_rope_table(size_t positions, size_t hd, double base, float *cs) {
  const size_t half = hd / 2;
  for (size_t i = 0; i < half; i++) {
    const double theta = rope_theta(i, hd, base);
    for (size_t p = 0; p < positions; p++) rope_cs(p, &theta, 1, cs + 2 * (p * half + i));
  }
}

void ss_rope_apply(ss_impl impl, float *x, size_t rows, size_t d, size_t heads, size_t period,
                   size_t p0, const float *cs, bool inverse) {
  const size_t hd = d / heads, half = hd / 2;
  for (size_t r = 0; r < rows; r++) {
    const size_t p = p0 + r % period;
    rotate_heads(impl, x + r * d, x + r * d, d, hd, 0, half, cs + 2 * p * half, inverse);
  }
}

/* ---- entry points ---- */

/* The header's checks in order: NULL, impl, empty, too large, parameters,
   hd odd, x finite. */
static ss_status rope_check(ss_impl impl, const float *x, size_t rows, size_t d, size_t heads,
                            size_t period, size_t p0, double base, const float *y) {
  if (!x || !y) return SS_ERR_NULL;
  if (!ss_model_impl_ok(impl)) return SS_ERR_UNSUPPORTED;
  const ss_status s = ss_model_check_shape(rows, d);
  if (s != SS_OK) return s;
  if (heads == 0 || d % heads != 0 || period == 0 || !(base > 1.0) || !isfinite(base) ||
      p0 > ROPE_MAX_P || period - 1 > ROPE_MAX_P - p0)
    return SS_ERR_PARAM_RANGE;
  if ((d / heads) % 2 != 0) return SS_ERR_LENGTH;
  return ss_check_finite_fast(x, rows * d);
}

static ss_status rope_run(ss_impl impl, const float *x, size_t rows, size_t d, size_t heads,
                          size_t period, size_t p0, double base, float *y, bool inverse) {
  const ss_status st = rope_check(impl, x, rows, d, heads, period, p0, base, y);
  if (st != SS_OK) return st;
  const size_t hd = d / heads, half = hd / 2;
  double theta[ROPE_CHUNK];
  float cs[2 * ROPE_CHUNK];
  for (size_t i0 = 0; i0 < half; i0 += ROPE_CHUNK) {
    const size_t n = half - i0 < ROPE_CHUNK ? half - i0 : ROPE_CHUNK;
    for (size_t i = 0; i < n; i++) theta[i] = rope_theta(i0 + i, hd, base);
    size_t have = SIZE_MAX; /* the position cs holds */
    for (size_t r = 0; r < rows; r++) {
      const size_t p = p0 + r % period;
      if (p != have) rope_cs(p, theta, n, cs), have = p;
      rotate_heads(impl, x + r * d, y + r * d, d, hd, i0, n, cs, inverse);
    }
  }
  return SS_OK;
}

ss_status ss_rope(ss_impl impl, const float *x, size_t rows, size_t d, size_t heads, size_t period,
                  size_t p0, double base, float *y) {
  return rope_run(impl, x, rows, d, heads, period, p0, base, y, false);
}

ss_status ss_rope_backward(ss_impl impl, const float *dy, size_t rows, size_t d, size_t heads,
                           size_t period, size_t p0, double base, float *dx) {
  return rope_run(impl, dy, rows, d, heads, period, p0, base, dx, true);
}
