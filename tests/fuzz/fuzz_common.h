/*
 * Shared pieces of the libFuzzer targets (tests/fuzz/fuzz_<family>.c): a
 * reader over the fuzz bytes, parameter vectors drawn from them (raw
 * doubles, or values steered into and around the registry ranges), raw
 * float inputs, and the checks every target makes. A violated property
 * aborts with a message (libFuzzer then saves the input as a crash); the
 * sanitizers (ASan, UBSan with float-cast-overflow) report the rest.
 *
 * Each target enumerates its family from the registry (ss_kernel_at), so a
 * newly registered kernel is fuzzed without a change here.
 */
#ifndef SS_FUZZ_COMMON_H
#define SS_FUZZ_COMMON_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softscope.h"

typedef struct fz {
  const uint8_t *p;
  size_t left;
} fz;

static inline uint8_t fz_u8(fz *f) {
  if (!f->left) return 0;
  f->left--;
  return *f->p++;
}
static inline uint32_t fz_u32(fz *f) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)fz_u8(f) << (8 * i);
  return v;
}
static inline uint64_t fz_u64(fz *f) { return fz_u32(f) | (uint64_t)fz_u32(f) << 32; }
static inline float fz_f32_bits(fz *f) {
  const uint32_t u = fz_u32(f);
  float v;
  memcpy(&v, &u, 4);
  return v;
}
static inline double fz_f64_bits(fz *f) {
  const uint64_t u = fz_u64(f);
  double v;
  memcpy(&v, &u, 8);
  return v;
}
/* A value in [0, 1). */
static inline double fz_unit(fz *f) { return (double)(fz_u32(f) >> 8) * 0x1p-24; }

/* A length: mostly small (a first byte below 200: n < 70, every SIMD
   tail), sometimes log-uniform in [70, max] (a byte in [200, 252): every
   size class, at a mean near max / ln(max / 70) rather than max / 2: large
   rows are what an execution costs), rarely uniform in [0, max] (a byte
   from 252: the largest sizes). The same bytes are read either way. */
static inline size_t fz_len(fz *f, size_t max) {
  const uint8_t m = fz_u8(f);
  if (m < 200) return m % 70 < max ? (size_t)(m % 70) : max;
  const uint32_t u = fz_u32(f);
  size_t n = u % (max + 1);
  if (m < 252 && max > 70) n = (size_t)(70.0 * pow((double)max / 70.0, (double)(u >> 8) * 0x1p-24));
  return n > max ? max : n;
}

/* Whether an input is a rare large case, given a larger work budget: one
   input in 128, by a hash of all its bytes (FNV-1a). No byte value marks
   it: libFuzzer's comparison tracing finds such a marker and spreads it
   (a two-byte tail 5a a5 ended most of a run's slowest inputs). */
static inline bool fz_large(const uint8_t *data, size_t size) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
  return h >> 25 == 0;
}

/* The kernels of one family, in registry order. */
static inline size_t fz_family(ss_family fam, const ss_kernel_info **out, size_t cap) {
  size_t c = 0;
  for (size_t i = 0; i < ss_kernel_count() && c < cap; i++)
    if (ss_kernel_at(i)->family == fam) out[c++] = ss_kernel_at(i);
  return c;
}

/* The kernel of family `fam` a fuzz byte selects (byte mod the family's
   size; the family's list is built once). */
static inline const ss_kernel_info *fz_kernel_at(ss_family fam, uint8_t byte) {
  static const ss_kernel_info *ks[SS_FAMILY_COUNT][256];
  static size_t nk[SS_FAMILY_COUNT];
  if (!nk[fam]) nk[fam] = fz_family(fam, ks[fam], 256);
  return ks[fam][byte % nk[fam]];
}
/* The same, reading the byte. */
static inline const ss_kernel_info *fz_pick(fz *f, ss_family fam) { return fz_kernel_at(fam, fz_u8(f)); }

/* One parameter from the bytes: a raw double (any bit pattern: NaN, Inf,
   subnormals, out of range), a bound or its neighbour, or a value inside
   the range (linear or log-uniform). n-bounded parameters are clamped to n
   half of the time. */
static inline double fz_param(fz *f, const ss_param_info *p, size_t n) {
  const uint8_t mode = fz_u8(f) % 8;
  double v;
  switch (mode) {
    case 0: v = fz_f64_bits(f); break;
    case 1: v = p->min; break;
    case 2: v = p->max; break;
    case 3: v = nextafter(p->min, p->max); break;
    case 4: v = nextafter(p->max, p->min); break;
    case 5: v = p->def; break;
    case 6: v = p->min + (p->max - p->min) * fz_unit(f); break;
    default: {
      const double big = fmax(fabs(p->min), fabs(p->max)), small = big * 0x1p-80;
      v = exp(log(small) + (log(big) - log(small)) * fz_unit(f));
      if (p->min < 0.0 && (fz_u8(f) & 1)) v = -v;
      break;
    }
  }
  if (p->type != SS_PARAM_FLOAT && mode >= 6) v = floor(v);
  if (p->n_bound != SS_N_BOUND_NONE && (fz_u8(f) & 1)) {
    const double cap = p->n_bound == SS_N_BOUND_LE ? (double)n : (double)n - 1.0;
    if (v > cap) v = cap;
  }
  return v;
}

static inline void fz_params(fz *f, const ss_kernel_info *k, size_t n, double *p) {
  for (size_t i = 0; i < k->nparams; i++) p[i] = fz_param(f, &k->params[i], n);
}

/* n floats: raw bit patterns, or steered (finite values of a random scale,
   -Inf masks, ties, zeros) so that valid inputs are reached too. */
static inline void fz_floats(fz *f, float *x, size_t n) {
  const uint8_t mode = fz_u8(f) % 4;
  const float scale = ldexpf(1.0f, (int)(fz_u8(f) % 256) - 128);
  for (size_t i = 0; i < n; i++) {
    if (mode == 0) {
      x[i] = fz_f32_bits(f);
      continue;
    }
    const uint8_t b = fz_u8(f);
    if (mode == 2 && b < 32) x[i] = -INFINITY;
    else if (mode == 3) x[i] = (float)(b % 5) * scale;
    else x[i] = (float)((double)(int8_t)b / 16.0) * scale;
  }
}

/* What the current input is, printed on a violation (set by each target). */
static const ss_kernel_info *fz_kernel;
static const double *fz_p;
static const float *fz_x;
static size_t fz_n;

static inline void fz_dump(void) {
  if (!fz_kernel) return;
  fprintf(stderr, "  kernel %s n=%zu params:", fz_kernel->name, fz_n);
  for (size_t i = 0; fz_p && i < fz_kernel->nparams; i++)
    fprintf(stderr, " %s=%.17g", fz_kernel->params[i].name, fz_p[i]);
  fprintf(stderr, "\n  x:");
  for (size_t i = 0; fz_x && i < fz_n && i < 24; i++) fprintf(stderr, " %a", fz_x[i]);
  fprintf(stderr, "\n");
  const char *path = getenv("FZ_DUMP"); /* the whole input row, one %a per line */
  FILE *out = path ? fopen(path, "w") : NULL;
  for (size_t i = 0; out && fz_x && i < fz_n; i++) fprintf(out, "%a\n", fz_x[i]);
  if (out) fclose(out);
}

#define FZ_CHECK(cond, ...)                                    \
  do {                                                         \
    if (!(cond)) {                                             \
      fprintf(stderr, "fuzz property violated: " __VA_ARGS__); \
      fprintf(stderr, "\n");                                   \
      fz_dump();                                               \
      abort();                                                 \
    }                                                          \
  } while (0)

/* Record the case for fz_dump (printed at once with FZ_SHOW=1 in the
   environment: to turn a corpus input into a C regression test). */
static inline void fz_case(const ss_kernel_info *k, const double *p, const float *x, size_t n) {
  fz_kernel = k, fz_p = p, fz_x = x, fz_n = n;
  if (getenv("FZ_SHOW")) fz_dump();
}

/* With FZ_SHOW=1: print another input row (e.g. the VJP's g). */
static inline void fz_show(const char *what, const float *r, size_t n) {
  if (!getenv("FZ_SHOW")) return;
  fprintf(stderr, "  %s:", what);
  for (size_t i = 0; i < n && i < 24; i++) fprintf(stderr, " %a", r[i]);
  fprintf(stderr, "\n");
}

static inline bool fz_finite(const float *y, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(y[i])) return false;
  return true;
}

static inline bool fz_no_nan(const float *y, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (isnan(y[i])) return false;
  return true;
}

/* The exact-zero rule (softscope.h). */
static inline bool fz_no_subnormal(const float *y, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((y[i] != 0.0f && fabsf(y[i]) < FLT_MIN) || (y[i] == 0.0f && signbit(y[i]))) return false;
  return true;
}

/* Buffers of at most FZ_MAX_N floats (fuzz inputs stay small and fast). */
#define FZ_MAX_N 4096

#endif
