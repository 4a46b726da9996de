/*
 * Philox4x32-10 and the uniform / Gaussian draws built on it (see rng.h).
 *
 * Philox4x32 round (Salmon et al. 2011, section 4; constants as published
 * with Random123):
 *   (hi0, lo0) = M0 * c0,  (hi1, lo1) = M1 * c2        (32 x 32 -> 64 bits)
 *   c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)
 * with M0 = 0xD2511F53, M1 = 0xCD9E8D57; between rounds the key is bumped by
 * the Weyl constants W0 = 0x9E3779B9, W1 = 0xBB67AE85. Ten rounds. Checked
 * against the Random123 known-answer vectors in tests/c/test_rng.c.
 *
 * Floating point determinism. Every Gaussian is a fixed sequence of IEEE
 * double +, -, *, / and sqrt, which are correctly rounded on every target we
 * build for (x86-64 SSE2, wasm f64), so the bits only depend on the order of
 * operations, which C fixes, and on two compiler liberties that we close:
 *   - FMA contraction (a*b + c fused, one rounding instead of two): wasm has
 *     no FMA instruction; gcc does not contract in ISO C mode (-std=c11
 *     implies -ffp-contract=off, even with -march=native); clang honours the
 *     STDC pragma below, and the GCC pragma covers gnu dialects.
 *   - excess precision (x87): ruled out by the FLT_EVAL_METHOD check.
 * (-ffast-math would break this too: it licenses reassociation.)
 * No libm call: log and sin/cos are our own polynomials (glibc and musl
 * differ in the last bit of log/sin/cos). sqrt is the IEEE operation.
 */
#include "common/rng.h"

#include <float.h>
#include <math.h>
#include <string.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* Doubles must be evaluated as doubles: FLT_EVAL_METHOD 0 or 1, or N = 16,
   32, 64 (TS 18661-3: only types narrower than _FloatN are widened; gcc
   reports 16 for gnu dialects on AVX512-FP16 machines). 2 (long double, x87)
   and -1 (indeterminable) would make the draws platform-dependent. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD < 0 || FLT_EVAL_METHOD == 2 || \
    FLT_EVAL_METHOD > 64
#error "rng.c needs doubles evaluated as doubles (FLT_EVAL_METHOD) for reproducible draws"
#endif

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* ---- the block function (scalar) ------------------------------------- */

void ss_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                      uint32_t out[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; r++) {
    if (r > 0) { /* the key of round r is key + r * W */
      k0 += PHILOX_W0;
      k1 += PHILOX_W1;
    }
    const uint64_t p0 = (uint64_t)PHILOX_M0 * c0;
    const uint64_t p1 = (uint64_t)PHILOX_M1 * c2;
    const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

void ss_philox_block(uint64_t seed, uint64_t stream, uint64_t index,
                     uint32_t out[4]) {
  const uint32_t ctr[4] = {(uint32_t)index, (uint32_t)(index >> 32),
                           (uint32_t)stream, (uint32_t)(stream >> 32)};
  const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  ss_philox4x32_10(ctr, key, out);
}

/* ---- uniforms --------------------------------------------------------- */

/* Words [from, to) of the stream starting at block `first` (shared by the
   scalar generator and the SIMD tail). */
static void uniform_words(uint64_t seed, uint64_t stream, uint64_t first,
                          size_t from, size_t to, float *out) {
  size_t i = from;
  while (i < to) {
    uint32_t w[4];
    ss_philox_block(seed, stream, first + i / 4, w);
    for (size_t j = i % 4; j < 4 && i < to; j++, i++) out[i] = ss_philox_u01f(w[j]);
  }
}

void ss_philox_uniform_f32_scalar(uint64_t seed, uint64_t stream,
                                  uint64_t first, size_t n, float *out) {
  uniform_words(seed, stream, first, 0, n, out);
}

#if SS_HAVE_SIMD

/* (hi, lo) = m * a per lane. wasm has i32x4.mul (the low half) but no high
   half multiply; u64x2.extmul gives the full 64-bit products of lanes 0, 1
   and 2, 3, and two shuffles pick their high and low 32-bit halves. */
static inline void mulhilo_x4(v128_t a, v128_t m, v128_t *hi, v128_t *lo) {
  const v128_t p01 = wasm_u64x2_extmul_low_u32x4(a, m);
  const v128_t p23 = wasm_u64x2_extmul_high_u32x4(a, m);
  *lo = wasm_i32x4_shuffle(p01, p23, 0, 2, 4, 6);
  *hi = wasm_i32x4_shuffle(p01, p23, 1, 3, 5, 7);
}

/* Four blocks at counters (index + j, stream), j = 0..3, written block-major
   (out[4 j + w] = word w of block j), as uint32 words. */
static inline void philox_x4(uint64_t seed, uint64_t stream, uint64_t index,
                             v128_t r[4]) {
  uint32_t lo[4], hi[4];
  for (int j = 0; j < 4; j++) { /* index + j may carry into the high word */
    lo[j] = (uint32_t)(index + (uint64_t)j);
    hi[j] = (uint32_t)((index + (uint64_t)j) >> 32);
  }
  v128_t c0 = wasm_v128_load(lo), c1 = wasm_v128_load(hi);
  v128_t c2 = wasm_i32x4_splat((int32_t)(uint32_t)stream);
  v128_t c3 = wasm_i32x4_splat((int32_t)(uint32_t)(stream >> 32));
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  const v128_t m0 = wasm_i32x4_splat((int32_t)PHILOX_M0);
  const v128_t m1 = wasm_i32x4_splat((int32_t)PHILOX_M1);
  for (int round = 0; round < 10; round++) {
    if (round > 0) {
      k0 += PHILOX_W0;
      k1 += PHILOX_W1;
    }
    v128_t hi0, lo0, hi1, lo1;
    mulhilo_x4(c0, m0, &hi0, &lo0);
    mulhilo_x4(c2, m1, &hi1, &lo1);
    const v128_t n0 = wasm_v128_xor(wasm_v128_xor(hi1, c1), wasm_i32x4_splat((int32_t)k0));
    const v128_t n2 = wasm_v128_xor(wasm_v128_xor(hi0, c3), wasm_i32x4_splat((int32_t)k1));
    c1 = lo1;
    c3 = lo0;
    c0 = n0;
    c2 = n2;
  }
  /* Transpose: c_w holds word w of blocks 0..3; r_j = block j. */
  const v128_t t0 = wasm_i32x4_shuffle(c0, c1, 0, 4, 1, 5);
  const v128_t t1 = wasm_i32x4_shuffle(c2, c3, 0, 4, 1, 5);
  const v128_t t2 = wasm_i32x4_shuffle(c0, c1, 2, 6, 3, 7);
  const v128_t t3 = wasm_i32x4_shuffle(c2, c3, 2, 6, 3, 7);
  r[0] = wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5);
  r[1] = wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7);
  r[2] = wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5);
  r[3] = wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7);
}

/* ((u >> 9) + 0.5) * 2^-23 per lane: u >> 9 < 2^23 converts exactly, so the
   lanes equal ss_philox_u01f bit for bit. */
static inline v128_t u01f_x4(v128_t u) {
  const v128_t f = wasm_f32x4_convert_u32x4(wasm_u32x4_shr(u, 9));
  return wasm_f32x4_mul(wasm_f32x4_add(f, wasm_f32x4_splat(0.5f)),
                        wasm_f32x4_splat(0x1p-23f));
}

void ss_philox_uniform_f32_simd(uint64_t seed, uint64_t stream,
                                uint64_t first, size_t n, float *out) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    v128_t r[4];
    philox_x4(seed, stream, first + i / 4, r);
    for (int j = 0; j < 4; j++) wasm_v128_store(out + i + 4 * j, u01f_x4(r[j]));
  }
  uniform_words(seed, stream, first, i, n, out);
}

#endif /* SS_HAVE_SIMD */

/* ---- log and sin/cos without libm --------------------------------------- */

/* ln 2 = LN2_HI + LN2_LO; LN2_HI has 21 trailing zero bits, so k * LN2_HI is
   exact for |k| < 2^11. */
#define LN2_HI 0x1.62e42feep-1
#define LN2_LO 0x1.a39ef35793c76p-33

double ss_philox_log(double x) {
  /* x = 2^k m with m in [sqrt(1/2), sqrt(2)), by integer operations on the
     bits (x must be a positive normal double). */
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  int k = (int)(b >> 52) - 1023;
  b = (b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull; /* m in [1, 2) */
  double m;
  memcpy(&m, &b, sizeof m);
  if (m > 0x1.6a09e667f3bcdp+0) { /* sqrt(2) */
    m *= 0.5;                      /* exact */
    k += 1;
  }
  /* log m = log((1 + s) / (1 - s)) = 2 atanh(s), s = (m - 1) / (m + 1),
     |s| <= 0.1716, so z = s^2 <= 0.0295 and the series
     2 s (1 + z/3 + z^2/5 + ... + z^11/23) is complete to ~1e-19 relative.
     m - 1 is exact (Sterbenz). */
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  double p = 1.0 / 23.0;
  p = p * z + 1.0 / 21.0;
  p = p * z + 1.0 / 19.0;
  p = p * z + 1.0 / 17.0;
  p = p * z + 1.0 / 15.0;
  p = p * z + 1.0 / 13.0;
  p = p * z + 1.0 / 11.0;
  p = p * z + 1.0 / 9.0;
  p = p * z + 1.0 / 7.0;
  p = p * z + 1.0 / 5.0;
  p = p * z + 1.0 / 3.0;
  const double two_s = 2.0 * s;
  const double log_m = two_s + two_s * (z * p);
  const double dk = (double)k;
  return dk * LN2_HI + (log_m + dk * LN2_LO);
}

/* sin a and cos a for a in [0, pi/4] by Taylor series (remainder terms
   below 1e-18). */
static void sincos_octant(double a, double *s, double *c) {
  const double z = a * a;
  double ps = 1.0 / 121645100408832000.0; /* 1/19! */
  ps = ps * z - 1.0 / 355687428096000.0;  /* 1/17! */
  ps = ps * z + 1.0 / 1307674368000.0;    /* 1/15! */
  ps = ps * z - 1.0 / 6227020800.0;       /* 1/13! */
  ps = ps * z + 1.0 / 39916800.0;         /* 1/11! */
  ps = ps * z - 1.0 / 362880.0;           /* 1/9!  */
  ps = ps * z + 1.0 / 5040.0;             /* 1/7!  */
  ps = ps * z - 1.0 / 120.0;              /* 1/5!  */
  ps = ps * z + 1.0 / 6.0;                /* 1/3!, negated below */
  *s = a - a * (z * ps);
  double pc = 1.0 / 6402373705728000.0;   /* 1/18! */
  pc = pc * z - 1.0 / 20922789888000.0;   /* 1/16! */
  pc = pc * z + 1.0 / 87178291200.0;      /* 1/14! */
  pc = pc * z - 1.0 / 479001600.0;        /* 1/12! */
  pc = pc * z + 1.0 / 3628800.0;          /* 1/10! */
  pc = pc * z - 1.0 / 40320.0;            /* 1/8!  */
  pc = pc * z + 1.0 / 720.0;              /* 1/6!  */
  pc = pc * z - 1.0 / 24.0;               /* 1/4!  */
  pc = pc * z + 0.5;                      /* 1/2!, negated below */
  *c = 1.0 - z * pc;
}

void ss_philox_sincos2pi(double v, double *s, double *c) {
  /* 2 pi v = (pi/4) t, t = 8 v in [0, 8): octant q = floor(t), r = t - q,
     both exact. An even octant rotates a = r pi/4 by q pi/4 = j pi/2; an
     odd one writes the angle as (q + 1) pi/4 - a with a = (1 - r) pi/4, so
     only the exact quarter-turn symmetries are used. */
  const double t = 8.0 * v;
  int q = (int)t;
  const double r = t - (double)q;
  double sign = 1.0, frac = r;
  if (q & 1) {
    q += 1;
    sign = -1.0;
    frac = 1.0 - r;
  }
  double sa, ca;
  sincos_octant(frac * 0x1.921fb54442d18p-1, &sa, &ca); /* pi/4 */
  sa *= sign;
  switch ((q / 2) & 3) {
    case 0: *s = sa; *c = ca; break;
    case 1: *s = ca; *c = -sa; break;
    case 2: *s = -sa; *c = -ca; break;
    default: *s = -ca; *c = sa; break;
  }
}

/* ---- Gaussian ------------------------------------------------------------ */

void ss_philox_normal_pair(const uint32_t block[4], double z[2]) {
  const double u1 = ss_philox_u01d(block[1], block[0]);
  const double u2 = ss_philox_u01d(block[3], block[2]);
  const double r = sqrt(-2.0 * ss_philox_log(u1));
  double s, c;
  ss_philox_sincos2pi(u2, &s, &c);
  z[0] = r * c;
  z[1] = r * s;
}

double ss_philox_normal(uint64_t seed, uint64_t stream, uint64_t i) {
  uint32_t w[4];
  double z[2];
  ss_philox_block(seed, stream, i / 2, w);
  ss_philox_normal_pair(w, z);
  return z[i & 1];
}
