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

#include <stddef.h>

typedef struct ss_mass_spec {
  float (*key)(float a, const void *ctx);
  double (*mass)(float a, const void *ctx);
  const void *ctx;
} ss_mass_spec;

float ss_mass_select(float *a, size_t m, double P, const ss_mass_spec *spec, size_t *work);

#endif
