/*
 * Scalar twins of the SIMD exp and log (common/exp_simd.h, common/log_simd.h):
 * the same IEEE float operations in the same order, so the scalar and the
 * SIMD sampler paths give bit-identical values natively and in wasm. libm's
 * expf / logf are not used here because glibc and musl differ in the last
 * bit, and a sampler's draws must not depend on the build.
 *
 * No FMA contraction may fuse these multiply-adds: gcc in ISO C mode does
 * not contract, clang honours the pragma below, wasm has no FMA. Files that
 * include this header inherit the pragma.
 */
#ifndef SS_COMMON_DET_MATH_H
#define SS_COMMON_DET_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

static inline uint32_t ss_f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static inline float ss_u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* exp(x + e) for x <= 0 (x may be -Inf), e a tiny correction: the lane
   function of ss_exp_nonpos_corr_f32x4, operation for operation. */
static inline float ss_det_exp_nonpos_corr(float x, float e) {
  const float cutoff = -0x1.5D589Ep6f, magic = 0x1.8000FEp23f;
  const float xc = cutoff < x ? x : cutoff; /* f32x4.pmax(cutoff, x) */
  const int below = x < cutoff;
  if (below) e = 0.0f;
  float n = xc * 0x1.715476p+0f + magic;
  const float s = ss_u2f(ss_f2u(n) << 23);
  n = n - magic;
  float t = n * -0x1.62E400p-1f + xc;
  t = n * -0x1.7F7D1Cp-20f + (t + e);
  float p = 0x1.0F9F9Cp-7f * t + 0x1.573A1Ap-5f;
  p = p * t + 0x1.555A80p-3f;
  p = p * t + 0x1.FFFDC6p-2f;
  p = p * t + 0x1.FFFFF6p-1f;
  const float f = s * (t * p + 1.0f);
  return below ? 0.0f : f;
}

/* exp(a - b) for a <= b, with the TwoSum correction of ss_exp_diff_f32x4. */
static inline float ss_det_exp_diff(float a, float b) {
  const float d = a - b;
  const float bb = a - d;
  const float da = d + bb;
  const float e = (a - da) + (bb - b);
  return ss_det_exp_nonpos_corr(d, e);
}

/* log x for positive finite x: the lane function of ss_log_pos_f32x4. */
static inline float ss_det_log_pos(float x) {
  const int tiny = x < 0x1p-126f;
  if (tiny) x = x * 0x1p23f;
  const uint32_t ix = ss_f2u(x) + (0x3F800000u - 0x3F3504F3u);
  const int32_t k = (int32_t)(ix >> 23) - 127 - (tiny ? 23 : 0);
  const float m = ss_u2f((ix & 0x007FFFFFu) + 0x3F3504F3u);
  const float f = m - 1.0f;
  const float fk = (float)k;
  float p = 7.0376836292e-2f;
  p = p * f + -1.1514610310e-1f;
  p = p * f + 1.1676998740e-1f;
  p = p * f + -1.2420140846e-1f;
  p = p * f + 1.4249322787e-1f;
  p = p * f + -1.6668057665e-1f;
  p = p * f + 2.0000714765e-1f;
  p = p * f + -2.4999993993e-1f;
  p = p * f + 3.3333331174e-1f;
  const float z = f * f;
  float y = (p * f) * z;
  y = y + fk * -2.12194440e-4f;
  y = y - z * 0.5f;
  const float r = f + y;
  return r + fk * 0.693359375f;
}

#endif
