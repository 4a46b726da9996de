/*
 * One adapter per kernel family for the conformance testers (in the way of
 * XNNPACK's testers: the per-family test drives a tester object instead of
 * repeating the call): the family's forward entry point behind one
 * signature, every output it may write in one poisoned block, and the
 * statuses each kind of bad input must get. With it, one bad-input battery
 * (cf_bad_input_battery) serves the normalizer, loss, sampler, quantizer and
 * measure testers; what only one family checks (the VJPs, a masked target,
 * a negative weight, draws * n) stays in its tester.
 */
#ifndef SS_TEST_FAMILY_ADAPTER_H
#define SS_TEST_FAMILY_ADAPTER_H

#include "conformance.h"

/* The rows of the bad-input battery hold at most this many entries. */
#define CF_OUT_N 40

/* Every output a family's call may write (poisoned before each call). */
typedef struct cf_outputs {
  float y[CF_OUT_N];            /* probabilities, gradient, dequantized values */
  float samples[4 * CF_OUT_N];  /* a sampler's vector draws (draws <= 4) */
  int32_t codes[CF_OUT_N];      /* a quantizer's codes */
  uint32_t idx[4];              /* a sampler's index draws */
  double d[2];                  /* a loss, a measure */
} cf_outputs;

/* A family behind one signature. rows[0] is the input (x, or p of a
   measure), rows[1] the second row of pair measures (else unused); out
   NULL passes NULL for every output. */
typedef struct cf_adapter {
  ss_family family;
  const char *name;
  ss_status (*call)(const ss_kernel_info *k, ss_impl impl, const float *const rows[2], size_t n,
                    const double *p, size_t np, cf_outputs *out);
  bool positive;   /* cf_fill's `positive` for inputs of values */
  bool second_row; /* a second row is passed (measures: read by pair measures) */
} cf_adapter;

/* The rows k reads: 2 for pair measures, else 1. */
int cf_rows_read(const ss_kernel_info *k);
/* Valid rows of the given kind (cf_fill's kinds) for k through adapter a:
   rows[0] with seed, rows[1] (if a->second_row) with seed + 99 and the
   masked kind replaced by CF_NORMAL. */
void cf_fill_rows(const cf_adapter *a, const ss_kernel_info *k, float *const rows[2], size_t n,
                  int kind, uint64_t seed);

extern const cf_adapter cf_normalizer_adapter, cf_loss_adapter, cf_sampler_adapter,
    cf_quantizer_adapter, cf_measure_adapter;

/* One call with poisoned outputs: it must get `want` and write nothing.
   Counts one check; reports and returns false otherwise. */
bool cf_expect(const cf_adapter *a, const ss_kernel_info *k, ss_impl impl,
               const float *const rows[2], size_t n, const double *p, size_t np, ss_status want,
               const char *what);

/* n = 0 with parameters p in every available impl: SS_ERR_EMPTY, no
   output written (cf_expect). Reports and returns false otherwise. */
bool cf_expect_empty(const cf_adapter *a, const ss_kernel_info *k, const double *p);

/* The status a non-finite entry of k's input must get: NaN -> SS_ERR_NAN
   (before anything else), +Inf -> SS_ERR_POS_INF on logits (a logit
   cannot be +Inf) and SS_ERR_NONFINITE on probabilities and values, -Inf
   -> SS_ERR_NONFINITE on probabilities and values (on logits it masks). */
ss_status cf_nonfinite_status(const ss_kernel_info *k, float v);

/* The battery every family's bad inputs share, for kernel k with valid
   parameters p (np of them, p[np] readable) at length N <= CF_OUT_N, each
   available impl: NaN / +Inf / -Inf entries at each of `where` in every
   row (alone and with a NaN 9 entries on), NULL rows, NULL outputs,
   n = 0, n > SS_MAX_N, n = SIZE_MAX, one parameter too many / short, NULL
   params, every invalid parameter case (counted into *cases); then impls
   out of range and SIMD where the build has none. Returns false after
   reporting a failure. `extra`, if given, runs the family's own bad inputs
   for each impl with valid rows (return false on a failure). */
typedef bool (*cf_battery_extra)(const cf_adapter *a, const ss_kernel_info *k, ss_impl impl,
                                 float *const rows[2], size_t n, const double *p, size_t np);
bool cf_bad_input_battery(const cf_adapter *a, const ss_kernel_info *k, const double *p,
                          size_t np, size_t N, const size_t *where, size_t nwhere,
                          cf_battery_extra extra, size_t *cases);

/* The battery over every kernel of the adapter's family at length n with
   its default parameters (draws = `draws` where a kernel has that parameter
   and draws > 0), the counts reported as "<family> bad inputs". The body of
   each tester's conformance_<family>_bad_inputs. */
bool cf_family_bad_inputs(const cf_adapter *a, size_t n, const size_t *where, size_t nwhere,
                          cf_battery_extra extra, double draws);
#define CF_FAMILY_BAD_INPUTS(a, n, where, extra, draws) \
  cf_family_bad_inputs((a), (n), (where), sizeof(where) / sizeof((where)[0]), (extra), (draws))

#endif
