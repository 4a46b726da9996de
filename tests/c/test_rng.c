/*
 * common/rng: Philox4x32-10, uniforms in (0, 1), Gaussians.
 *
 * Known answers: the three "philox4x32 10" lines of Random123's
 * tests/kat_vectors (github.com/DEShawResearch/random123): counter (4
 * words), key (2 words), expected output (4 words). Published constants,
 * not output of this code.
 * Statistics are on fixed seeds, so they are deterministic; each bound is
 * a quantile at a stated significance level: a correct generator passes
 * them with probability >= 1 - alpha, a broken one (bias, a stuck word,
 * correlated pairs) fails them. Measured (every build: the draws are the
 * same bits): chi2 232.4 / 284.5 / 290.4 (bins) and 224.3 / 230.7 / 260.4
 * (pairs) for the three seeds; Gaussians: mean -7.2e-4, variance 0.99906,
 * skewness -4.3e-3, kurtosis 3.0006, pair correlation 1.0e-3, max |z| 4.98,
 * KS distance 7.7e-4 (bound 1.9e-3).
 */
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "harness.h"

static const uint32_t KAT[3][10] = {
    /* ctr0..3, key0..1, out0..3 */
    {0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
     0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
    {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
     0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
};

TEST(rng_philox_known_answers) {
  for (int t = 0; t < 3; t++) {
    uint32_t out[4];
    ss_philox4x32_10(&KAT[t][0], &KAT[t][4], out);
    for (int w = 0; w < 4; w++)
      CHECK(out[w] == KAT[t][6 + w], "vector %d word %d: %08x, want %08x", t, w, out[w],
            KAT[t][6 + w]);
  }
}

/* The (seed, stream, index) layout: key = seed (low word first), counter =
   (index low, index high, stream low, stream high), checked on the third
   known-answer vector. */
TEST(rng_block_layout) {
  const uint64_t index = 0x85a308d3243f6a88ull, stream = 0x0370734413198a2eull;
  const uint64_t seed = 0x299f31d0a4093822ull;
  uint32_t out[4];
  ss_philox_block(seed, stream, index, out);
  for (int w = 0; w < 4; w++) CHECK(out[w] == KAT[2][6 + w], "word %d: %08x", w, out[w]);
  /* the SIMD generator carries index + j into the high counter word */
  float a[16], b[16];
  ss_philox_uniform_f32_scalar(seed, stream, 0xFFFFFFFEull, 16, a);
  for (int j = 0; j < 4; j++) {
    ss_philox_block(seed, stream, 0xFFFFFFFEull + (uint64_t)j, out);
    for (int w = 0; w < 4; w++) b[4 * j + w] = ss_philox_u01f(out[w]);
  }
  CHECK(memcmp(a, b, sizeof a) == 0, "uniform stream differs from its blocks");
}

/* The extremes of the maps are inside (0, 1), exactly where stated. */
TEST(rng_uniform_extremes) {
  CHECK(ss_philox_u01f(0) == 0x1p-24f, "u01f(0) = %a", ss_philox_u01f(0));
  CHECK(ss_philox_u01f(0xFFFFFFFFu) == 1.0f - 0x1p-24f, "u01f(max) = %a",
        ss_philox_u01f(0xFFFFFFFFu));
  CHECK(ss_philox_u01f(0xFFFFFFFFu) < 1.0f && ss_philox_u01f(0) > 0.0f, "not open");
  CHECK(ss_philox_u01d(0, 0) == 0x1p-53, "u01d(0) = %a", ss_philox_u01d(0, 0));
  CHECK(ss_philox_u01d(~0u, ~0u) == 1.0 - 0x1p-53, "u01d(max) = %a", ss_philox_u01d(~0u, ~0u));
  /* every 2^-23 step is distinct: the map is injective on u >> 9 */
  CHECK(ss_philox_u01f(1u << 9) - ss_philox_u01f(0) == 0x1p-23f, "step");
}

/* 2^20 uniforms: all in (0, 1); chi-square over 256 equal bins (df = 255)
   and over 16 x 16 bins of consecutive pairs (df = 255, catches dependence
   between neighbouring words). Two-sided significance 0.001: accept
   187.1 < chi2 < 335.9 (Wilson-Hilferty quantiles 0.0005 and 0.9995). */
static double chi2(const uint32_t *count, size_t bins, double expected) {
  double c = 0.0;
  for (size_t b = 0; b < bins; b++) {
    const double d = (double)count[b] - expected;
    c += d * d / expected;
  }
  return c;
}

TEST(rng_uniform_chi_square) {
  enum { N = 1 << 20 };
  float *u = ss_test_alloc(N * sizeof *u);
  static const uint64_t seeds[] = {0, 1, 0xDEADBEEFCAFEull};
  for (size_t s = 0; s < 3; s++) {
    FOR_EACH_IMPL(impl) {
      if (impl == SS_IMPL_SCALAR)
        ss_philox_uniform_f32_scalar(seeds[s], 7, 0, N, u);
#if SS_HAVE_SIMD
      else
        ss_philox_uniform_f32_simd(seeds[s], 7, 0, N, u);
#endif
      uint32_t c1[256] = {0}, c2[256] = {0};
      for (size_t i = 0; i < N; i++) {
        CHECK(u[i] > 0.0f && u[i] < 1.0f, "u[%zu] = %a", i, u[i]);
        c1[(int)(u[i] * 256.0f)]++;
      }
      for (size_t i = 0; i + 1 < N; i += 2) c2[(int)(u[i] * 16.0f) * 16 + (int)(u[i + 1] * 16.0f)]++;
      const double x1 = chi2(c1, 256, N / 256.0), x2 = chi2(c2, 256, N / 2 / 256.0);
      CHECK(x1 > 187.1 && x1 < 335.9, "%s seed %zu: chi2 (bins) = %.1f", ss_impl_name(impl), s, x1);
      CHECK(x2 > 187.1 && x2 < 335.9, "%s seed %zu: chi2 (pairs) = %.1f", ss_impl_name(impl), s, x2);
    }
  }
}

/* SIMD uniforms equal the scalar ones bit for bit, for every length (the
   16-wide body and the scalar tail) and block offsets whose index + j
   carries into the high counter word. */
TEST(rng_uniform_simd_matches_scalar) {
#if !SS_HAVE_SIMD
  SKIP("no SIMD in this build");
#else
  static const uint64_t firsts[] = {0, 5, 0xFFFFFFFDull, 0xFFFFFFFFFFFFFFFEull};
  float a[300], b[300];
  for (size_t f = 0; f < 4; f++) {
    for (size_t n = 0; n <= 300; n += (n < 70 ? 1 : 23)) {
      ss_philox_uniform_f32_scalar(42, 0x123456789ull, firsts[f], n, a);
      ss_philox_uniform_f32_simd(42, 0x123456789ull, firsts[f], n, b);
      CHECK(n == 0 || memcmp(a, b, n * sizeof *a) == 0, "first=%llx n=%zu: differ",
            (unsigned long long)firsts[f], n);
    }
  }
#endif
}

/* Our log and sin/cos against libm in double: the Gaussian needs neither
   libm nor its last bit, but it needs the functions right. Bounds: log
   within 2 ulp of libm (relative 4.5e-16), sin/cos within 1e-15 absolute
   (libm's own sin(2 pi v) carries the rounding of 2 pi v, ~7e-16). */
TEST(rng_log_and_sincos_accuracy) {
  ss_rng r = {99};
  double worst_log = 0.0, worst_trig = 0.0;
  for (int i = 0; i < 200000; i++) {
    double u = ss_rng_unif(&r);
    if (i % 4 == 1) u = ldexp(u, -(i % 1000)); /* down to 2^-1000 */
    if (i % 4 == 2) u = 1.0 - ldexp(u, -(i % 50)); /* near 1 */
    if (i % 4 == 3) u = 1.0 + 1e6 * u;             /* above 1 */
    if (!(u > 0.0) || u == 1.0) continue;
    const double l = log(u), e = fabs(ss_philox_log(u) - l) / fabs(l);
    if (e > worst_log) worst_log = e;
    const double v = ss_rng_unif(&r);
    double s, c;
    ss_philox_sincos2pi(v, &s, &c);
    const double t = 6.283185307179586 * v;
    const double et = fmax(fabs(s - sin(t)), fabs(c - cos(t)));
    if (et > worst_trig) worst_trig = et;
  }
  CHECK(worst_log <= 4.5e-16, "log: worst rel err %.3g", worst_log);
  CHECK(worst_trig <= 1e-15, "sincos: worst abs err %.3g", worst_trig);
  double s, c;
  ss_philox_sincos2pi(0.0, &s, &c);
  CHECK(s == 0.0 && c == 1.0, "sincos(0) = %a %a", s, c);
  ss_philox_sincos2pi(0.25, &s, &c);
  CHECK(s == 1.0 && fabs(c) < 1e-16, "sincos(pi/2) = %a %a", s, c);
  CHECK(ss_philox_log(1.0) == 0.0, "log 1 = %a", ss_philox_log(1.0));
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* 2^20 standard normals: mean, variance, skewness, excess kurtosis within
   5 standard errors (sqrt(1/N), sqrt(2/N), sqrt(6/N), sqrt(24/N)), the
   pair correlation within 5/sqrt(N), |z| <= 8.57 (u1 >= 2^-53), and the
   Kolmogorov-Smirnov distance to Phi below 1.949 / sqrt(N) (alpha = 0.001). */
TEST(rng_gaussian_distribution) {
  enum { N = 1 << 20 };
  double *z = ss_test_alloc(N * sizeof *z);
  double m1 = 0.0, m2 = 0.0, m3 = 0.0, m4 = 0.0, cross = 0.0;
  for (size_t i = 0; i < N; i += 2) {
    uint32_t w[4];
    ss_philox_block(2024, 3, i / 2, w);
    ss_philox_normal_pair(w, z + i);
    cross += z[i] * z[i + 1];
  }
  for (size_t i = 0; i < N; i++) {
    const double v = z[i];
    CHECK(fabs(v) <= 8.57, "z[%zu] = %g", i, v);
    m1 += v;
    m2 += v * v;
    m3 += v * v * v;
    m4 += v * v * v * v;
  }
  m1 /= N;
  m2 /= N;
  m3 /= N;
  m4 /= N;
  const double var = m2 - m1 * m1;
  CHECK(fabs(m1) <= 5.0 * sqrt(1.0 / N), "mean %.3g", m1);
  CHECK(fabs(var - 1.0) <= 5.0 * sqrt(2.0 / N), "variance %.6f", var);
  CHECK(fabs(m3) <= 5.0 * sqrt(6.0 / N), "skewness %.3g", m3);
  CHECK(fabs(m4 - 3.0) <= 5.0 * sqrt(24.0 / N), "kurtosis %.4f", m4);
  CHECK(fabs(cross / (N / 2)) <= 5.0 / sqrt(N / 2.0), "pair correlation %.3g", cross / (N / 2));
  qsort(z, N, sizeof *z, cmp_double);
  double d = 0.0;
  for (size_t i = 0; i < N; i++) {
    const double f = 0.5 * erfc(-z[i] / sqrt(2.0));
    d = fmax(d, fmax(fabs(f - (double)i / N), fabs((double)(i + 1) / N - f)));
  }
  CHECK(d <= 1.949 / sqrt((double)N), "KS distance %.3g", d);
}

/* ss_philox_normal(i) is element i % 2 of the pair from block i / 2. */
TEST(rng_gaussian_indexing) {
  for (uint64_t i = 0; i < 64; i++) {
    uint32_t w[4];
    double z[2];
    ss_philox_block(77, 0xABCDEF0123ull, i / 2, w);
    ss_philox_normal_pair(w, z);
    const double v = ss_philox_normal(77, 0xABCDEF0123ull, i);
    CHECK(memcmp(&v, &z[i & 1], sizeof v) == 0, "i=%llu", (unsigned long long)i);
  }
}

/* Cross-build determinism pin: an FNV-1a hash of the bits of 4096
   Gaussians (seed 1, stream 2). The value was recorded from the native
   build; what this test asserts is that the wasm builds (scalar and SIMD)
   draw the very same bits -- the property the samplers rely on -- not that
   the value is correct (the tests above are about that). */
TEST(rng_gaussian_bits_pinned_across_builds) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t i = 0; i < 4096; i++) {
    const double v = ss_philox_normal(1, 2, i);
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    for (int k = 0; k < 8; k++) {
      h ^= (b >> (8 * k)) & 0xFF;
      h *= 0x100000001b3ull;
    }
  }
  CHECK(h == 0x999ff8972001ca6cull, "hash %016llx", (unsigned long long)h);
}
