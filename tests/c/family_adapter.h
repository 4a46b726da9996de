/*
 * One adapter per kernel family for the conformance testers (in the way of
 * XNNPACK's testers: the per-family test drives a tester object instead of
 * repeating the call): the family's forward entry point behind one
 * signature, every output it may write in one poisoned block, and the
 * statuses each kind of bad input must get. With it, one bad-input battery
 * (cf_bad_input_battery) serves every family's tester: normalizer, loss,
 * sampler, quantizer, measure, optimizer and attention; what only one
 * family checks (the VJPs, a masked target, a negative weight, draws * n,
 * an optimizer's step counter, attention's shapes and normalizer) stays in
 * its tester.
 *
 * The optimizer's w, state and scalars are updated in place: its adapter
 * steps a copy of the input row from a zero state and copies each one out
 * (into y, state, scalars) only when the call changed it, so "writes
 * nothing" reads the same as for the other families. Attention's adapter
 * runs n queries against n keys of width CF_ATT_D (rows q, k, v of
 * n * CF_ATT_D entries, one head, no padding, the registry's first
 * parameter-free probability normalizer).
 */
#ifndef SS_TEST_FAMILY_ADAPTER_H
#define SS_TEST_FAMILY_ADAPTER_H

#include "conformance.h"

/* The rows of the bad-input battery hold at most this many entries. */
#define CF_OUT_N 40
/* The input rows a family's call takes at most (attention: q, k, v). */
#define CF_ROWS 3
/* Attention's row width: a row of n queries (keys) holds n * CF_ATT_D. */
#define CF_ATT_D 8

/* Every output a family's call may write (poisoned before each call). */
typedef struct cf_outputs {
  float y[CF_OUT_N];            /* probabilities, gradient, dequantized values */
  float samples[4 * CF_OUT_N];  /* a sampler's vector draws (draws <= 4) */
  int32_t codes[CF_OUT_N];      /* a quantizer's codes */
  uint32_t idx[4];              /* a sampler's index draws */
  double d[2];                  /* a loss, a measure */
  float weights[CF_OUT_N];      /* attention's weights (n x n of one head) */
  float state[4 * CF_OUT_N];    /* an optimizer's state, when changed */
  double scalars[SS_OPT_SCALARS]; /* an optimizer's scalars, when changed */
} cf_outputs;

/* A family behind one signature. rows[0] is the input (x, p of a measure,
   w of an optimizer, q of attention), rows[1] the second row of pair
   measures, an optimizer's g or attention's K, rows[2] attention's V; each
   holds n * width entries. out NULL passes NULL for every output. */
typedef struct cf_adapter {
  ss_family family;
  const char *name;
  ss_status (*call)(const ss_kernel_info *k, ss_impl impl, const float *const rows[CF_ROWS],
                    size_t n, const double *p, size_t np, cf_outputs *out);
  bool positive;  /* cf_fill's `positive` for inputs of values */
  int rows;       /* the rows passed (1 .. CF_ROWS) */
  bool pair_only; /* the second row is read by pair kernels only (measures) */
  size_t width;   /* entries of a row per unit of n (0: 1) */
} cf_adapter;

/* The rows k reads through a: a->rows, but 1 for a measure of one row. */
int cf_rows_read(const cf_adapter *a, const ss_kernel_info *k);
/* The entries of a row at n. */
size_t cf_row_len(const cf_adapter *a, size_t n);
/* Valid rows of the given kind (cf_fill's kinds) for k through adapter a,
   cf_row_len(a, n) entries each: rows[0] with seed, rows[r] (r < a->rows)
   with seed + 99 r and the masked kind replaced by CF_NORMAL. */
void cf_fill_rows(const cf_adapter *a, const ss_kernel_info *k, float *const rows[CF_ROWS],
                  size_t n, int kind, uint64_t seed);

extern const cf_adapter cf_normalizer_adapter, cf_loss_adapter, cf_sampler_adapter,
    cf_quantizer_adapter, cf_measure_adapter, cf_optimizer_adapter, cf_attention_adapter;

/* The normalizer attention's adapter runs exact attention with: the
   registry's first parameter-free normalizer of probabilities. */
const ss_kernel_info *cf_attention_normalizer(void);

/* One call with poisoned outputs: it must get `want` and write nothing.
   Counts one check; reports and returns false otherwise. */
bool cf_expect(const cf_adapter *a, const ss_kernel_info *k, ss_impl impl,
               const float *const rows[CF_ROWS], size_t n, const double *p, size_t np,
               ss_status want, const char *what);

/* n = 0 with parameters p in every available impl: SS_ERR_EMPTY, no
   output written (cf_expect). Reports and returns false otherwise. */
bool cf_expect_empty(const cf_adapter *a, const ss_kernel_info *k, const double *p);

/* The status a non-finite entry of k's input must get: NaN -> SS_ERR_NAN
   (before anything else), +Inf -> SS_ERR_POS_INF on logits (a logit
   cannot be +Inf) and SS_ERR_NONFINITE on probabilities and values, -Inf
   -> SS_ERR_NONFINITE on probabilities and values (on logits it masks). */
ss_status cf_nonfinite_status(const ss_kernel_info *k, float v);

/* The battery every family's bad inputs share, for kernel k with valid
   parameters p (np of them, p[np] readable) at length N (rows of
   cf_row_len(a, N) <= CF_OUT_N entries), each available impl: NaN / +Inf /
   -Inf entries at each of `where` in every row (alone and with a NaN 9
   entries on), NULL rows, NULL outputs,
   n = 0, n > SS_MAX_N, n = SIZE_MAX, one parameter too many / short, NULL
   params, every invalid parameter case (counted into *cases); then impls
   out of range and SIMD where the build has none. Returns false after
   reporting a failure. `extra`, if given, runs the family's own bad inputs
   for each impl with valid rows (return false on a failure). */
typedef bool (*cf_battery_extra)(const cf_adapter *a, const ss_kernel_info *k, ss_impl impl,
                                 float *const rows[CF_ROWS], size_t n, const double *p, size_t np);
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
