/*
 * Conformance testers (tests/c/conformance_<family>.c), in the spirit of
 * XNNPACK's microkernel testers: each enumerates the registry
 * (ss_kernel_at) and every parameter's range, so a kernel is tested the
 * moment it is registered, with no test file written for it.
 *
 * This header holds what the family testers share:
 *   - parameter cases: the registry defaults with one parameter moved to its
 *     min, its max, just inside each bound (the next double inward; +-1 for
 *     integers) and seeded random values (linear and log-uniform), plus
 *     vectors with every parameter random; and the invalid cases (below
 *     min, above max, NaN, +-Inf, not an integer, not 0/1, past n) with the
 *     status each must get;
 *   - input fillers per input kind, "moderate" (on which every in-range
 *     parameter must give SS_OK) and "extreme" (huge, tiny and subnormal
 *     magnitudes, where a kernel may also answer SS_ERR_DOMAIN);
 *   - the lengths every tester runs: n = 0 .. 67 and a large n;
 *   - the sweeps (cf_params_sweep, cf_lengths_sweep): the loops over the
 *     kernels, lengths, cases and kinds, each family giving its own check;
 *   - the exact-zero rule (softscope.h): no probability or weight output is
 *     subnormal.
 */
#ifndef SS_TEST_CONFORMANCE_H
#define SS_TEST_CONFORMANCE_H

#include <float.h>
#include <string.h>

#include "harness.h"

#define CF_MAX_PARAMS 16
/* The lengths of the length sweep: 0 .. CF_SWEEP_N, then CF_LARGE_N. */
#define CF_SWEEP_N 67
#define CF_LARGE_N 65539

/* One parameter vector and what it is. */
typedef struct cf_case {
  double p[CF_MAX_PARAMS];
  char what[96];
  long param;     /* the parameter this case moves (-1: none or all) */
  ss_status want; /* invalid cases: the status they must get */
} cf_case;

/* The valid cases of k at length n (n-bounded parameters are clamped to
   n): defaults first, then per parameter min, max, just inside both bounds
   and `randoms` random values (seeded), then `vectors` all-random vectors.
   Returns the count (at most cap). */
size_t cf_valid_cases(const ss_kernel_info *k, size_t n, uint64_t seed, size_t randoms,
                      size_t vectors, cf_case *out, size_t cap);
/* The invalid cases of k at length n, each with the status it must get. */
size_t cf_invalid_cases(const ss_kernel_info *k, size_t n, cf_case *out, size_t cap);
/* A case array big enough for any kernel (freed with the test). */
cf_case *cf_cases_alloc(size_t *cap);

/* The defaults of k into p (n-bounded parameters clamped to n). */
void cf_defaults(const ss_kernel_info *k, size_t n, double *p);

/* Input data. Moderate kinds first: every in-range parameter must give
   SS_OK on them (or a size / mask status). */
enum {
  CF_NORMAL,  /* N(0, 1) */
  CF_WIDE,    /* U(-20, 20) */
  CF_MASKED,  /* U(-3, 3), a quarter -Inf (logits) or 0 (probabilities) */
  CF_TIES,    /* integers 0 .. 3 */
  CF_EQUAL,   /* all 0.25 */
  CF_DEEP,    /* U(-110, 0) and a 0: exp(x - max) crosses the subnormal range */
  CF_MODERATE_KINDS,
  CF_HUGE = CF_MODERATE_KINDS, /* magnitudes up to FLT_MAX */
  CF_TINY,                     /* magnitudes below 1e-30, subnormals */
  CF_KINDS
};
extern const char *const cf_kind_name[CF_KINDS];

/* Fills x[0..n) for an input of the given kind (ss_input_kind): logits,
   probabilities (non-negative; not normalized for CF_HUGE / CF_TINY),
   or values (finite reals; positive when `positive`). A LOGITS row always
   keeps one finite entry. */
void cf_fill(float *x, size_t n, ss_input_kind input, int kind, bool positive, uint64_t seed);

/* Statuses a valid call may get on moderate data besides SS_OK: a size
   relation the static ranges can't state (a group dividing n, k <= n) or a
   parameter that masks everything. On extreme data SS_ERR_DOMAIN too (an
   intermediate overflowing float, stated by the kernel). */
bool cf_status_allowed(ss_status s, bool extreme);
/* The scalar reference's status s of one call (the family's own `allowed`
   verdict): reports k, what, n and the params when not allowed. Returns
   allowed. */
bool cf_scalar_status(const ss_kernel_info *k, ss_status s, bool allowed, const char *what,
                      size_t n, const double *p);

/* The exact-zero rule: no entry of y is subnormal (or -0 where y is 0). */
bool cf_no_subnormal(const float *y, size_t n, size_t *at);
/* Support equality across impls: a and b (two impls' outputs) are exactly
   0 at the same entries. The rule (common/flush.h) lets the impls differ
   only for a weight within 2^-19 of FLT_MIN, so a mismatch whose nonzero
   entry is within FLT_MIN (1 +- 2^-19) max(1, |scale_i|) is allowed (scale:
   the factor the weight is multiplied by, e.g. x_i for y_i = x_i p_i; NULL
   for 1). *at: the first other mismatch. */
bool cf_same_support(const float *a, const float *b, const float *scale, size_t n, size_t *at);
/* The parameter of k named `name`, or -1. */
long cf_param_index(const ss_kernel_info *k, const char *name);

/* The worst |a - b| / (rel |b| + abs scale) over n floats, and where. */
double cf_worst_ratio(const float *a, const float *b, size_t n, double rel, double abs,
                      size_t *at);
/* max |y_i| over finite entries. */
double cf_max_abs(const float *y, size_t n);

/* Poison for "nothing written on error". */
#define CF_POISON (-1234.5f)
void cf_poison(float *y, size_t n);
bool cf_untouched(const float *y, size_t n);

/* One line "params: name=value ..." (failure messages). */
void cf_print_params(const ss_kernel_info *k, const double *p);

/* Whether the kernel lists an impl entry for both impls. */
bool cf_has_simd(void);

/* Counters of a tester's run, printed at the end of each family test. */
typedef struct cf_count {
  size_t kernels, cases, calls, ok, fd_checked, fd_skipped;
} cf_count;
void cf_report(const char *family, const cf_count *c);

/* Every registered kernel k of family fam, in registry order (`continue`
   goes to the next kernel; there is no `break` out of the registry loop). */
#define CF_FOR_EACH_KERNEL(k, fam)                                   \
  for (size_t k##_at = 0; k##_at < ss_kernel_count(); k##_at++)      \
    for (const ss_kernel_info *k = ss_kernel_at(k##_at);             \
         k && k->family == (fam); k = NULL)

/* ---- the sweeps ------------------------------------------------------------
 * The loops every family tester runs, written once: for each kernel of a
 * family, each length, each parameter case and each input kind, one call
 * of the family's check (cf_sweep.run) with the kernel, the length, the
 * parameters and the seed of the input; the family keeps its buffers (ctx),
 * its fill and its check. cf_params_sweep draws the cases of cf_valid_cases
 * at given lengths (the params and backward tests); cf_lengths_sweep runs
 * the defaults at n = 0 .. CF_SWEEP_N and CF_LARGE_N (the lengths tests).
 */

/* One run of a sweep: kernel k at length n with parameters p, of the case
   `label` (a cf_case's what, or "defaults"), on input kind `kind` to be
   filled with `seed`. c and t number the case and the length (a family's
   own seeds derive from them). */
typedef struct cf_run {
  const ss_kernel_info *k;
  size_t n;
  const double *p;
  const char *label;
  int kind;
  bool extreme; /* kind >= CF_MODERATE_KINDS */
  uint64_t seed;
  size_t c, t;
  char what[160]; /* "[label, kind name]", for messages */
} cf_run;

/* The input kinds of a sweep, a bit per kind (CF_KIND_BIT(CF_NORMAL) | ...);
   0 is every kind. */
#define CF_KIND_BIT(kind) (1u << (kind))
#define CF_ALL_KINDS ((1u << CF_KINDS) - 1u)

/* The lengths sweep's input seed at length n: 7 n + kind with
   CF_SEED_BY_KIND, else 7 n + length_seed. */
#define CF_SEED_BY_KIND (-1)

typedef struct cf_sweep {
  ss_family family;
  /* One run; false after reporting a failure (the kernel's sweep stops). */
  bool (*run)(const cf_run *r, void *ctx, cf_count *cnt);
  void *ctx;
  bool backward_only; /* only the kernels with a backward */
  unsigned kinds;     /* CF_KIND_BIT set; 0: every kind */
  /* params sweep: the input seed of case c at length index t is
     seed_stride * c + t (0: 1000) */
  uint64_t seed_stride;
  /* params sweep: a kernel needs at least this many finite-difference
     checks (cnt->fd_checked) */
  size_t min_fd_checked;
  /* params sweep: nonzero draws the cases once per kernel, at this n with
     seed0, for every length (attention: the cases of one shape run on
     each); 0 draws them at each length ns[t] with seed0 + t */
  size_t cases_at;
  int length_seed; /* lengths sweep: see CF_SEED_BY_KIND */
  /* The lengths sweep's n = 0: cf_expect_empty through this adapter,
     unless the empty hook is set. */
  const struct cf_adapter *adapter;
  /* Optional hooks: before a kernel's sweep; after it (gets whether it
     passed, returns whether the kernel passes); the lengths sweep's n = 0
     (p the defaults; false after reporting). */
  void (*begin)(const ss_kernel_info *k, void *ctx);
  bool (*end)(const ss_kernel_info *k, bool ok, void *ctx, cf_count *cnt);
  bool (*empty)(const ss_kernel_info *k, const double *p, void *ctx);
} cf_sweep;

/* Every kernel of s->family at each length ns[t], each valid case of
   cf_valid_cases(k, ns[t], seed0 + t, randoms, vectors) (or of s->cases_at)
   in order, each kind; reports the counts as `label`. Returns whether all
   passed. */
bool cf_params_sweep(const char *label, const cf_sweep *s, const size_t *ns, size_t nns,
                     uint64_t seed0, size_t randoms, size_t vectors);
#define CF_PARAMS_SWEEP(label, s, ns, seed0, randoms, vectors) \
  cf_params_sweep((label), (s), (ns), sizeof(ns) / sizeof((ns)[0]), (seed0), (randoms), (vectors))
/* Every kernel of s->family with its defaults at n = 0 (s->empty) and each
   kind at n = 1 .. CF_SWEEP_N and CF_LARGE_N; reports the counts as
   `label`. Returns whether all passed. */
bool cf_lengths_sweep(const char *label, const cf_sweep *s);

#endif
