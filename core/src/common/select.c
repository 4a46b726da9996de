/* Selection and sorting on float buffers; see common/select.h. */
#include "common/select.h"

static inline uint64_t next_u64(ss_select_rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull); /* splitmix64 */
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform-enough position in [0, n): the high bits of a 64-bit draw times n
   (Lemire's multiply-shift, without the rejection step: bias < n / 2^32). */
static inline size_t position(ss_select_rng *r, size_t n) {
  return (size_t)(((next_u64(r) >> 32) * (uint64_t)n) >> 32);
}

float ss_select_pivot(const float *v, size_t n, ss_select_rng *rng) {
  const float a = v[position(rng, n)], b = v[position(rng, n)],
              c = v[position(rng, n)];
  if (a < b) return b < c ? b : (a < c ? c : a);
  return a < c ? a : (b < c ? c : b);
}

/* Dijkstra's three-way partition, descending: [0, lt) > p, [lt, i) == p,
   [gt, n) < p, with [i, gt) still to look at. */
void ss_partition3_desc(float *v, size_t n, float p, size_t *gt_out,
                        size_t *eq_out) {
  size_t lt = 0, i = 0, gt = n;
  while (i < gt) {
    const float e = v[i];
    if (e > p) {
      v[i++] = v[lt];
      v[lt++] = e;
    } else if (e < p) {
      v[i] = v[--gt];
      v[gt] = e;
    } else {
      i++;
    }
  }
  *gt_out = lt;
  *eq_out = gt - lt;
}

float ss_select_kth_largest(float *v, size_t n, size_t k, size_t *work) {
  ss_select_rng rng = SS_SELECT_RNG_INIT;
  for (;;) { /* invariant: the answer is the k-th largest of v[0..n) */
    const float p = ss_select_pivot(v, n, &rng);
    size_t gt, eq;
    ss_partition3_desc(v, n, p, &gt, &eq);
    if (work) *work += n;
    if (k <= gt) {
      n = gt;
    } else if (k <= gt + eq) {
      return p;
    } else {
      v += gt + eq;
      n -= gt + eq;
      k -= gt + eq;
    }
  }
}

static void insertion_sort_desc(float *v, size_t n) {
  for (size_t i = 1; i < n; i++) {
    const float e = v[i];
    size_t j = i;
    for (; j > 0 && v[j - 1] < e; j--) v[j] = v[j - 1];
    v[j] = e;
  }
}

/* Recurse on the smaller side, loop on the larger: stack depth <= log2 n. */
static void sort_desc(float *v, size_t n, ss_select_rng *rng) {
  while (n > 16) {
    const float p = ss_select_pivot(v, n, rng);
    size_t gt, eq;
    ss_partition3_desc(v, n, p, &gt, &eq);
    float *lo = v + gt + eq;
    const size_t nlo = n - gt - eq;
    if (gt < nlo) {
      sort_desc(v, gt, rng);
      v = lo;
      n = nlo;
    } else {
      sort_desc(lo, nlo, rng);
      n = gt;
    }
  }
  insertion_sort_desc(v, n);
}

void ss_sort_desc(float *v, size_t n) {
  ss_select_rng rng = SS_SELECT_RNG_INIT;
  sort_desc(v, n, &rng);
}
