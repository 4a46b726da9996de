/* Weighted selection by mass (see mass_select.h). */
#include "sample/mass_select.h"

#include <math.h>
#include <stdint.h>

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
