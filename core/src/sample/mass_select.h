/*
 * Weighted selection, expected O(n), in place (mass_select.c): the
 * threshold of the "smallest tie-closed set whose mass reaches P" filters
 * (top-p, typical sampling) without sorting.
 *
 * Elements a[0..m) carry a key key(a_i) (larger = kept first) and a mass
 * mass(a_i) >= 0. Entry i is kept iff the mass of the entries with a
 * strictly larger key is < P; the kept set is {i : key_i >= k*}, and
 * ss_mass_select returns k* (the smallest kept key; +Inf when nothing is
 * kept, which P > 0 rules out since the top key has nothing above it).
 *
 * Method (a quickselect on mass): pick a pivot key kv, partition into
 * [> kv | == kv | < kv], let M = acc + mass(> part). If M < P the pivot is
 * kept, and so is everything above it: record kv, add the > and == masses
 * to acc and continue in the < part; else continue in the > part. Each
 * step discards a part, so the expected work is linear (counted in *work
 * for the tests). Masses are summed in double in the (deterministic)
 * partition order: scalar code shared by both impls.
 */
#ifndef SS_SAMPLE_MASS_SELECT_H
#define SS_SAMPLE_MASS_SELECT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ss_mass_spec {
  float (*key)(float a, const void *ctx);
  double (*mass)(float a, const void *ctx);
  const void *ctx;
} ss_mass_spec;

float ss_mass_select(float *a, size_t m, double P, const ss_mass_spec *spec, size_t *work);

/*
 * The same threshold for key = mass = a_i, finite a_i >= 0 (top-p over the
 * exps e), without moving anything: a float >= 0 orders like its bits, so
 * three mass histograms by bit fields find k* exactly -- by the top 13 bits
 * (2048 bins: exponent and 4 mantissa bits) the bin where the mass from
 * the top reaches P, within it by the next 10 bits, within that by the last
 * 9 (one bin per float value, ties together). Three reads of a[], the first
 * with a scatter-add, the others a compare each; no sort, no partition, a
 * left as it is. Masses summed in double in index order, per bin.
 * *ok = false when rounding left a level without a crossing (the sums per
 * bin can differ from the bin total in the last bit): use ss_mass_select.
 */
float ss_mass_threshold_bits(const float *a, size_t m, double P, bool *ok);

#endif
