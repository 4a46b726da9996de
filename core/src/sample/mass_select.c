/* Weighted selection by mass (see mass_select.h). */
#include "sample/mass_select.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static float median3(float a, float b, float c) {
  if (a > b) { const float t = a; a = b; b = t; }
  if (b > c) b = c;
  return a > b ? a : b;
}

/* Dutch-flag partition of a[0..m) by key: [> kv | == kv | < kv]. */
static void partition(float *a, size_t m, float kv, const ss_mass_spec *s, size_t *gt, size_t *eq) {
  size_t lo = 0, i = 0, hi = m;
  while (i < hi) {
    const float k = s->key(a[i], s->ctx);
    if (k > kv) {
      const float t = a[lo]; a[lo] = a[i]; a[i] = t;
      lo++, i++;
    } else if (k < kv) {
      hi--;
      const float t = a[hi]; a[hi] = a[i]; a[i] = t;
    } else {
      i++;
    }
  }
  *gt = lo;
  *eq = hi - lo;
}

float ss_mass_select(float *a, size_t m, double P, const ss_mass_spec *s, size_t *work) {
  uint64_t rng = 0x243F6A8885A308D3ull;
  double acc = 0.0;
  float best = INFINITY;
  while (m > 0) {
    const float kv = median3(s->key(a[splitmix(&rng) % m], s->ctx), s->key(a[splitmix(&rng) % m], s->ctx),
                             s->key(a[splitmix(&rng) % m], s->ctx));
    size_t gt, eq;
    partition(a, m, kv, s, &gt, &eq);
    if (work) *work += m;
    double mg = 0.0;
    for (size_t i = 0; i < gt; i++) mg += s->mass(a[i], s->ctx);
    if (acc + mg < P) { /* the pivot's block is kept: go below it */
      best = kv;
      double me = 0.0;
      for (size_t i = gt; i < gt + eq; i++) me += s->mass(a[i], s->ctx);
      acc += mg + me;
      a += gt + eq;
      m -= gt + eq;
    } else { /* not kept: the answer lies above */
      m = gt;
    }
  }
  return best;
}

/* ---- the bit-field histograms (ss_mass_threshold_bits) ------------------ */

static inline uint32_t fbits(float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  return u;
}

/* From the top bin down: the first bin where acc + mass reaches P; *acc
   becomes the mass strictly above it. -1 when no bin does. */
static long crossing(const double *mass, size_t bins, double P, double *acc) {
  for (size_t b = bins; b-- > 0;) {
    if (*acc + mass[b] >= P) return (long)b;
    *acc += mass[b];
  }
  return -1;
}

float ss_mass_threshold_bits(const float *a, size_t m, double P, bool *ok) {
  /* level 1: bits >> 19 (a <= 1 in top-p, but any finite a >= 0 works:
     8 exponent bits + 4 mantissa bits = 4096 bins) */
  enum { B1 = 4096, B2 = 1024, B3 = 512 };
  double m1[B1] = {0}, m1b[B1] = {0};
  size_t i = 0;
  for (; i + 2 <= m; i += 2) { /* two histograms: no store-to-load chain */
    m1[fbits(a[i]) >> 19] += (double)a[i];
    m1b[fbits(a[i + 1]) >> 19] += (double)a[i + 1];
  }
  if (i < m) m1[fbits(a[i]) >> 19] += (double)a[i];
  for (size_t b = 0; b < B1; b++) m1[b] += m1b[b];
  double acc = 0.0;
  const long b1 = crossing(m1, B1, P, &acc);
  *ok = b1 >= 0;
  if (b1 < 0) return 0.0f;
  /* level 2: the next 10 bits, within bin b1 */
  double m2[B2] = {0};
  for (i = 0; i < m; i++) {
    const uint32_t u = fbits(a[i]);
    if ((u >> 19) == (uint32_t)b1) m2[(u >> 9) & (B2 - 1)] += (double)a[i];
  }
  const long b2 = crossing(m2, B2, P, &acc);
  /* level 3: the last 9 bits, one bin per value */
  double m3[B3] = {0};
  const uint32_t hi = ((uint32_t)b1 << 10 | (uint32_t)(b2 < 0 ? 0 : b2)) << 9;
  if (b2 >= 0)
    for (i = 0; i < m; i++) {
      const uint32_t u = fbits(a[i]);
      if ((u & ~(uint32_t)(B3 - 1)) == hi) m3[u & (B3 - 1)] += (double)a[i];
    }
  const long b3 = b2 < 0 ? -1 : crossing(m3, B3, P, &acc);
  *ok = b3 >= 0;
  const uint32_t k = hi | (uint32_t)(b3 < 0 ? 0 : b3);
  float kv;
  memcpy(&kv, &k, 4);
  return kv;
}
