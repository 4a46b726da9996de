/*
 * Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror & Shaw
 * 2011, "Parallel Random Numbers: As Easy as 1, 2, 3"), a keyed bijection of
 * a 128-bit counter. A draw is a pure function of (seed, stream, index), so
 * kernels can regenerate any draw (a VJP re-creates the forward noise), any
 * chunk can be drawn independently, and there is no state to carry.
 *
 * Layout used throughout the library:
 *   key     = seed             (k0 = low 32 bits, k1 = high 32 bits)
 *   counter = (index, stream)  (c0, c1 = index low/high, c2, c3 = stream)
 * One block is the 4 x 32-bit output for one counter value.
 *
 * Bit-identical everywhere (native gcc/clang, wasm scalar and SIMD): the
 * block and the uniforms use only integer operations and exact float
 * operations; the Gaussian uses only IEEE double +, -, *, / and sqrt (all
 * correctly rounded) in a fixed order, with its own log and sin/cos
 * polynomials (no libm, whose last bit differs between glibc and musl), and
 * rng.c turns off FMA contraction (see there).
 */
#ifndef SS_COMMON_RNG_H
#define SS_COMMON_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "common/simd.h"

/* The Philox4x32 bijection with 10 rounds: out = philox(ctr, key). */
void ss_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                      uint32_t out[4]);

/* Block `index` of `stream` under `seed` (the layout above). */
void ss_philox_block(uint64_t seed, uint64_t stream, uint64_t index,
                     uint32_t out[4]);

/* Uniform float in the open interval (0, 1) from 32 random bits:
   ((u >> 9) + 0.5) * 2^-23, i.e. the 2^23 midpoints k + 1/2 of [0, 2^23)
   scaled, from 2^-24 to 1 - 2^-24. Every step is exact in float. (With 24
   bits, (2^24 - 1/2) * 2^-24 = 1 - 2^-25 is not a float and rounds to 1.) */
static inline float ss_philox_u01f(uint32_t u) {
  return ((float)(u >> 9) + 0.5f) * 0x1p-23f;
}

/* Uniform double in (0, 1) from 64 bits: ((w >> 12) + 0.5) * 2^-52, from
   2^-53 to 1 - 2^-53, exact (52 bits for the same reason as above). */
static inline double ss_philox_u01d(uint32_t hi, uint32_t lo) {
  const uint64_t w = ((uint64_t)hi << 32) | lo;
  return ((double)(w >> 12) + 0.5) * 0x1p-52;
}

/* out[i] = ss_philox_u01f(word i % 4 of block first + i / 4), i < n. */
void ss_philox_uniform_f32_scalar(uint64_t seed, uint64_t stream,
                                  uint64_t first, size_t n, float *out);
#if SS_HAVE_SIMD
/* The same numbers, bit for bit, four blocks at a time: the 32x32 -> 64-bit
   multiplies use u64x2.extmul_{low,high}_u32x4 for the high halves. */
void ss_philox_uniform_f32_simd(uint64_t seed, uint64_t stream,
                                uint64_t first, size_t n, float *out);
#endif

/* Two independent standard normals from one block (Box-Muller):
   u1 = u01d(hi = w1, lo = w0), u2 = u01d(hi = w3, lo = w2),
   r = sqrt(-2 log u1), z0 = r cos(2 pi u2), z1 = r sin(2 pi u2).
   |z| <= sqrt(2 * 53 ln 2) = 8.57 (u1 >= 2^-53).
   Scalar only: a SIMD (f64x2) Box-Muller would give the same bits if it
   ran the same operations in the same order, but nothing needs it yet
   (noisy_softmax draws its noise with this and runs softmax in SIMD). */
void ss_philox_normal_pair(const uint32_t block[4], double z[2]);

/* Standard normal number i of `stream` under `seed`: element i % 2 of the
   pair from block i / 2. */
double ss_philox_normal(uint64_t seed, uint64_t stream, uint64_t i);

/* The elementary functions behind the Gaussian, exposed for tests.
   ss_philox_log: natural log of a positive normal finite double (a few ulp).
   ss_philox_sincos2pi: sin and cos of 2 pi v for v in [0, 1) (abs err ~1e-16). */
double ss_philox_log(double x);
void ss_philox_sincos2pi(double v, double *s, double *c);

#endif
