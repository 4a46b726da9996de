#include "bench_ref.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void bench_fill_uniform(float *x, size_t n, uint64_t seed, float lo, float hi) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++) {
    /* 53 random bits -> u in [0, 1) in double, then one rounding to float:
       every float of [lo, hi) can occur, at full precision also near 0 (a
       float-only lo + (hi - lo) * u would put all logits on the coarse grid
       of |hi - lo| and hide the rounding error of x - max from the accuracy
       figures). */
    const double u = (double)(splitmix64(&s) >> 11) * 0x1p-53;
    float v = (float)((double)lo + ((double)hi - (double)lo) * u);
    if (v >= hi) v = lo; /* the rounding to float can reach hi */
    x[i] = v;
  }
}

void bench_ref_softmax64(const float *x, size_t n, int log_out, double *out) {
  double m = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (x[i] > m) m = x[i];
  /* Compensated (Kahan-Babuska) sum so the reference sum is exact to ~1e-16
     regardless of n. */
  double s = 0.0, c = 0.0;
  for (size_t i = 0; i < n; i++) {
    const double e = exp((double)x[i] - m);
    if (!log_out) out[i] = e;
    const double t = s + e;
    c += fabs(s) >= fabs(e) ? (s - t) + e : (e - t) + s;
    s = t;
  }
  s += c;
  if (log_out) {
    const double lse = m + log(s);
    for (size_t i = 0; i < n; i++) out[i] = (double)x[i] - lse;
  } else {
    for (size_t i = 0; i < n; i++) out[i] /= s;
  }
}

double bench_max_rel_err(const float *y, const double *ref, size_t n,
                         int log_out, double floor, size_t *at) {
  double worst = 0.0;
  size_t w = 0;
  const double log_floor = log(floor);
  for (size_t i = 0; i < n; i++) {
    double e;
    if (log_out) {
      if (ref[i] < log_floor) continue;
      e = fabs((double)y[i] - ref[i]);
    } else {
      if (ref[i] < floor) continue;
      e = fabs((double)y[i] - ref[i]) / ref[i];
    }
    if (!(e <= worst)) { /* also catches NaN */
      worst = isnan(e) ? INFINITY : e;
      w = i;
    }
  }
  if (at) *at = w;
  return worst;
}

void bench_naive_softmax(const float *x, size_t n, float *y) {
  float m = x[0];
  for (size_t i = 1; i < n; i++)
    if (x[i] > m) m = x[i];
  float s = 0.0f;
  for (size_t i = 0; i < n; i++) {
    y[i] = expf(x[i] - m);
    s += y[i];
  }
  const float inv = 1.0f / s;
  for (size_t i = 0; i < n; i++) y[i] *= inv;
}
