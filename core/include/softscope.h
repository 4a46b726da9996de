/*
 * softscope — numeric kernels around softmax (normalizers, samplers,
 * optimizers, quantizers, measures, losses, attention), each as a scalar
 * reference and a SIMD128 version.
 *
 * This header, in order: the conventions (here), statuses, implementations,
 * the registry (kernel descriptors, parameters, JSON), the generic entry
 * points (any kernel of a family), then the direct calls by family.
 *
 * Conventions
 *   - Plain C11, float32 data, caller-owned buffers, no global mutable state:
 *     every function is reentrant and thread-safe.
 *   - Every entry point returns an ss_status; ss_status_str() explains it.
 *     On error nothing is written to the outputs unless stated otherwise.
 *   - Logits may be -INFINITY (a masked entry, which gets probability 0);
 *     NaN and +INFINITY are rejected, and so is a row that is all -INFINITY.
 *   - Exact zeros: a probability or weight output (normalizers, sampler
 *     distributions and samples, attention weights) whose value is below
 *     FLT_MIN in magnitude -- a subnormal, or -0 -- is written as +0, in
 *     every build and impl, so the scalar and SIMD paths agree on which
 *     outputs are exactly zero (the support). Masked entries are +0.
 *   - Every parameter value inside its documented range is valid: it gives
 *     SS_OK on ordinary input (or a stated size / mask status), never a
 *     silent NaN or Inf. Input or parameters that drive an intermediate
 *     beyond float's range get SS_ERR_DOMAIN, stated per entry point; the
 *     registry's help text of a parameter says where its range was made
 *     exact. Scalar and SIMD always return the same status.
 *   - n must satisfy 1 <= n <= SS_MAX_N.
 *   - A kernel is described by an ss_kernel_info in the registry
 *     (ss_kernel_count / ss_kernel_at / ss_kernel_find); the generic entry
 *     points (ss_normalize, ss_sample, ss_optimize, ss_quantize, ss_measure,
 *     ss_loss, ss_attend and their companions) run any kernel of their
 *     family with its parameters given as doubles in registry order.
 */
#ifndef SOFTSCOPE_H
#define SOFTSCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version: the one source. The registry JSON carries it
   ("version"), and scripts/gen-registry.js checks package.json against it. */
#define SS_VERSION "0.1.0"

/* Largest accepted vector length: 2^26 floats (256 MiB). */
#define SS_MAX_N ((size_t)1 << 26)

/* ---------------------------------------------------------------------- */
/* Statuses                                                                 */

typedef enum ss_status {
  SS_OK = 0,
  SS_ERR_NULL = 1,          /* a required pointer is NULL */
  SS_ERR_EMPTY = 2,         /* n == 0 */
  SS_ERR_TOO_LARGE = 3,     /* n > SS_MAX_N (or a kernel's own ss_kernel_max_n) */
  SS_ERR_NAN = 4,           /* an input holds NaN */
  SS_ERR_POS_INF = 5,       /* a logit is +Inf */
  SS_ERR_ALL_MASKED = 6,    /* every logit is -Inf */
  SS_ERR_NONFINITE = 7,     /* +-Inf where only finite values are allowed */
  SS_ERR_PARAM_RANGE = 8,   /* a parameter is non-finite or out of its range */
  SS_ERR_PARAM_COUNT = 9,   /* wrong number of parameters for the kernel */
  SS_ERR_LENGTH = 10,       /* sizes disagree (e.g. k > n) */
  SS_ERR_DOMAIN = 11,       /* a value outside the kernel's domain
                               (e.g. a negative probability) */
  SS_ERR_UNSUPPORTED = 12,  /* implementation not compiled into this build */
  SS_ERR_FAMILY = 13,       /* the kernel belongs to another family */
  SS_ERR_UNKNOWN_KERNEL = 14,
  SS_ERR_BUFFER = 15,       /* a caller buffer is too small */
  SS_ERR_NO_BACKWARD = 16,  /* the kernel has no backward pass */
  SS_STATUS_COUNT = 17
} ss_status;

/* A human-readable sentence for a status (never NULL). */
const char *ss_status_str(ss_status s);
/* The status's name as written here, e.g. "SS_ERR_NAN" (never NULL). */
const char *ss_status_name(ss_status s);

/* ---------------------------------------------------------------------- */
/* Implementations                                                          */

typedef enum ss_impl {
  SS_IMPL_SCALAR = 0, /* the plain-C reference */
  SS_IMPL_SIMD = 1,   /* wasm_simd128.h intrinsics (SIMDe natively) */
  SS_IMPL_COUNT = 2
} ss_impl;

/* The best implementation compiled into this build. */
ss_impl ss_impl_default(void);
/* Which build this is: "scalar" (the wasm build without SIMD), "simd"
   (SIMD128: the emcc wasm build, or natively through SIMDe) or "relaxed"
   (the wasm build with relaxed SIMD, clang-19). The relaxed build's SIMD
   impl is SS_IMPL_SIMD: kernels whose descriptor sets .relaxed_simd use relaxed
   ops there, all others run the same SIMD128 code as in the simd build. */
const char *ss_build_name(void);
/* Whether `impl` is compiled into this build (the scalar wasm build has no SIMD). */
bool ss_impl_available(ss_impl impl);
const char *ss_impl_name(ss_impl impl);

/* ---------------------------------------------------------------------- */
/* Registry                                                                 */

typedef enum ss_family {
  SS_FAMILY_NORMALIZER = 0,
  SS_FAMILY_SAMPLER = 1,
  SS_FAMILY_OPTIMIZER = 2,
  SS_FAMILY_QUANTIZER = 3,
  SS_FAMILY_MEASURE = 4,
  SS_FAMILY_LOSS = 5,
  SS_FAMILY_ATTENTION = 6,
  SS_FAMILY_COUNT = 7
} ss_family;

const char *ss_family_name(ss_family f); /* "normalizer", "measure", ... */

typedef enum ss_param_type {
  SS_PARAM_FLOAT = 0,
  SS_PARAM_INT = 1, /* integral value held in a double */
  SS_PARAM_BOOL = 2 /* 0 or 1 */
} ss_param_type;

/* A parameter bounded by the length n of the input (a count or an index):
   checked by the generic entry points, which return SS_ERR_LENGTH. */
typedef enum ss_n_bound {
  SS_N_BOUND_NONE = 0,
  SS_N_BOUND_LE = 1, /* value <= n (e.g. top-k's k) */
  SS_N_BOUND_LT = 2  /* value < n (an index, e.g. a loss target) */
} ss_n_bound;

typedef struct ss_param_info {
  const char *name; /* snake_case, identical in C, JS, CLI and UI */
  ss_param_type type;
  double min, max;  /* valid range; see min_open / max_open */
  bool min_open;    /* true: value must be > min (else >= min) */
  bool max_open;    /* true: value must be < max (else <= max) */
  double def;       /* default */
  double ui_min, ui_max; /* slider range for the playground */
  bool log_scale;   /* slider moves on a log scale */
  const char *help; /* one-line meaning */
  ss_n_bound n_bound; /* also bounded by n (SS_N_BOUND_NONE by default) */
  /* int parameters that name a choice: the names of min, min + 1, ..., max,
     separated by '|' (e.g. "nearest|stochastic"); the JS API, the CLI and
     the UI accept the names. NULL for numeric parameters. */
  const char *choices;
} ss_param_info;

/* What a measure reads. */
typedef enum ss_input_kind {
  SS_INPUT_LOGITS = 0,     /* real logits (may hold -Inf masks) */
  SS_INPUT_PROBS = 1,      /* one non-negative vector p */
  SS_INPUT_PROBS_PAIR = 2, /* two non-negative vectors p, q of equal length */
  SS_INPUT_VALUES = 3      /* finite real values with a kernel-stated domain
                              (dirichlet: concentrations > 0; dare: weights) */
} ss_input_kind;

/* What one draw of a sampler is. */
typedef enum ss_draw_kind {
  SS_DRAW_INDEX = 0,   /* an index in [0, n) (filters, categorical, gumbel_max) */
  SS_DRAW_RELAXED = 1, /* a vector on the simplex and its argmax index
                          (gumbel_softmax, gumbel_softmax_hard, reinmax) */
  SS_DRAW_VECTOR = 2   /* a vector of length n (gumbel_sigmoid, dirichlet, dare) */
} ss_draw_kind;

/* What a normalizer's output is, so a UI or CLI knows how to show it. */
typedef enum ss_output_kind {
  SS_OUTPUT_PROBS = 0,     /* a probability vector (sums to 1) */
  SS_OUTPUT_LOG_PROBS = 1, /* log-probabilities (log_softmax) */
  SS_OUTPUT_WEIGHTS = 2    /* weights that need not sum to 1 (softpick,
                              relu_attention, boltzmann terms; sa_softmax's
                              may be negative) */
} ss_output_kind;

/* What a kernel is for beyond its family, so that a UI can group kernels
   without a list of names: the stages of an LLM decoding pipeline (with
   their position, in the order decoders apply them, and the stage's own
   parameter) and the two kinds of attention. */
typedef enum ss_role {
  SS_ROLE_NONE = 0,
  SS_ROLE_DECODE_STAGE = 1,     /* sampler: a decoding filter (stage = 1, 2, ...) */
  SS_ROLE_EXACT_ATTENTION = 2,  /* attention: scores through a normalizer, O(n m) */
  SS_ROLE_LINEAR_ATTENTION = 3  /* attention: a feature map, O((n + m) F) */
} ss_role;

/* Normalizer: y = f(x; params), y has length n. */
typedef ss_status (*ss_normalize_fn)(const float *x, size_t n,
                                     const double *params, float *y);
/* Vector-Jacobian product: dx = J(x)^T g, given x, y = f(x) and g. Through
   the generic entry points (ss_normalize_vjp, ss_normalize_param_vjp,
   ss_sample_vjp, ss_measure_vjp) g must be finite (SS_ERR_NAN /
   SS_ERR_NONFINITE), and a gradient whose value is beyond FLT_MAX is
   SS_ERR_DOMAIN (the buffer is then unspecified), never Inf. Where a SIMD
   backward's float intermediate overflows (|g| near FLT_MAX), the scalar
   reference (double intermediates) answers the call: both impls give the
   same status. */
/* Two rows of a rows call at once (ss_normalize_rows): true when ya and yb
   are written bit for bit as the single calls write them (both rows
   succeed); false when nothing was written (the rows then run one by one). */
typedef bool (*ss_normalize_pair_fn)(const float *xa, const float *xb, size_t n,
                                     const double *params, float *ya, float *yb);
typedef ss_status (*ss_normalize_vjp_fn)(const float *x, const float *y,
                                         const float *g, size_t n,
                                         const double *params, float *dx);
/* Measure: a scalar of one or two vectors (q is NULL for one-input measures). */
typedef ss_status (*ss_measure_fn)(const float *p, const float *q, size_t n,
                                   const double *params, double *out);
/* Measure gradient: dp = g * d(out)/dp (one-input measures only). */
typedef ss_status (*ss_measure_vjp_fn)(const float *p, size_t n,
                                       const double *params, double g,
                                       float *dp);
/* Parameter VJP of a normalizer: dparams[i] = sum_j g_j dy_j/dparams[i]
   for each float parameter (0 for int and bool parameters), e.g. the
   gradient of alpha-entmax with respect to alpha. */
typedef ss_status (*ss_normalize_param_vjp_fn)(const float *x, const float *y,
                                               const float *g, size_t n,
                                               const double *params,
                                               double *dparams);
/* Loss of logits x against the target in params (`target`, a class index,
   first): *loss = L(x) and grad[0..n) = dL/dx. grad is required (the
   kernel computes the prediction there). */
typedef ss_status (*ss_loss_fn)(const float *x, size_t n, const double *params,
                                double *loss, float *grad);

/* Sampler. params hold `seed` and `draws` (by name; the kernel's own
   parameters first). probs[0..n) receives the distribution the draws come
   from (for SS_DRAW_VECTOR: the mean of one draw); indices[0..draws) the
   drawn indices (INDEX and RELAXED kernels) and samples[0..draws*n) the drawn
   vectors (RELAXED and VECTOR kernels), each may be NULL to skip it. A draw
   is a pure function of (seed, draw number, x, params): bit-identical in
   every build and impl. */
typedef ss_status (*ss_sample_fn)(const float *x, size_t n,
                                  const double *params, float *probs,
                                  uint32_t *indices, float *samples);
/* Sampler VJP (relaxed and straight-through samplers): dx = d/dx of
   sum_d <g_d, sample_d>, g of length draws*n, recreating the forward noise
   from the seed; for hard (one-hot) forwards this is the estimator's
   surrogate gradient (straight-through, ReinMax). */
typedef ss_status (*ss_sample_vjp_fn)(const float *x, size_t n,
                                      const double *params, const float *g,
                                      float *dx);

/* Quantizer (core/src/quant): y[0..n) = dequantize(quantize(x)), codes[0..n)
   the integer codes (may be NULL). x finite. Deterministic like the
   samplers (stochastic rounding draws from Philox under `seed`). */
typedef ss_status (*ss_quantize_fn)(const float *x, size_t n, const double *params,
                                    int32_t *codes, float *y);

/* Optimizer (core/src/optim): one update of the parameters w[0..n) given
   the gradient g at w (SAM: at the ascent point from ss_sam_perturb).
   t is the number of this step, 1 for the first. slots holds the kernel's
   per-parameter state, opt_slots vectors of n floats one after another
   (m, v, ...); scalars its SS_OPT_SCALARS - 1 scalar states (scalars + 1 of
   the generic entry point). Both start at zero. */
typedef ss_status (*ss_step_fn)(float *w, const float *g, size_t n, const double *params,
                                uint64_t t, float *slots, double *scalars);

/* Attention (core/src/attention): the inputs and outputs of one call.
   Q is n x d, K is m x d, V is m x dv (row-major); heads divides d and dv,
   head h reads columns [h d/heads, (h+1) d/heads) of Q and K and writes
   columns [h dv/heads, ...) of out (n x dv). key_mask (m bytes, 0 = a
   padding key) may be NULL. The normalizer (sdpa only; e.g. softmax,
   sparsemax, entmax_bisect) is a registry normalizer with its params.
   attn (heads x n x m, may be NULL) receives the attention matrices.
   scratch holds ss_attention_scratch_size floats. */
typedef struct ss_attention_io {
  const float *q, *k, *v;
  size_t n, m, d, dv, heads;
  const uint8_t *key_mask;
  const struct ss_kernel_info *normalizer;
  const double *norm_params;
  size_t norm_nparams;
  float *out, *attn, *scratch;
} ss_attention_io;
typedef ss_status (*ss_attend_fn)(const ss_attention_io *io, const double *params);
/* Floats of scratch one attention call needs (see ss_attention_scratch_size). */
typedef uint64_t (*ss_attend_scratch_fn)(const ss_attention_io *io, const double *params);
/* Backward of an attention call (see ss_attend_vjp): dq, dk, dv from dout. */
typedef ss_status (*ss_attend_vjp_fn)(const ss_attention_io *io, const double *params,
                                      const float *dout, float *dq, float *dk, float *dv,
                                      double *dnorm_params);
/* Random-feature attention (see ss_attention_kernel_estimate): est receives
   heads x n x m pointwise estimates of the softmax kernel. */
typedef ss_status (*ss_kernel_estimate_fn)(const ss_attention_io *io, const double *params,
                                           double *est);

typedef struct ss_kernel_info {
  const char *name;    /* e.g. "softmax" */
  ss_family family;
  const char *summary; /* one line */
  const char *formula; /* the definition, in plain text */
  const char *paper;   /* where it comes from */
  size_t nparams;
  const ss_param_info *params;
  ss_input_kind input;     /* measures: what they read; normalizers: LOGITS */
  ss_output_kind output;   /* normalizers: what y is (PROBS by default) */
  ss_draw_kind draws;      /* samplers: what one draw is */
  bool has_backward;
  bool has_param_backward; /* normalizers: normalize_param_vjp is set */
  /* normalizers: y may be x itself (the same buffer, same stride; any other
     overlap is still not allowed), in every impl, with the same result bit
     for bit: each pass reads x_i no later than it writes y_i. A caller
     that stages x in a buffer of its own (the JS API) then needs one buffer,
     not two: at 2^22 floats a working set of 16 MB instead of 32. */
  bool in_place;
  /* Indexed by ss_impl; an entry is NULL when that impl is not compiled in.
     Only the members of the kernel's family are set. */
  ss_normalize_fn normalize[SS_IMPL_COUNT];
  ss_normalize_vjp_fn normalize_vjp[SS_IMPL_COUNT];
  ss_normalize_param_vjp_fn normalize_param_vjp[SS_IMPL_COUNT];
  /* normalizers, optional: two rows in one step for short rows, where one
     row alone leaves the CPU waiting on its chain of dependent steps */
  ss_normalize_pair_fn normalize_pair[SS_IMPL_COUNT];
  ss_measure_fn measure[SS_IMPL_COUNT];
  ss_measure_vjp_fn measure_vjp[SS_IMPL_COUNT];
  ss_loss_fn loss[SS_IMPL_COUNT];
  ss_sample_fn sample[SS_IMPL_COUNT];
  ss_sample_vjp_fn sample_vjp[SS_IMPL_COUNT];
  ss_quantize_fn quantize[SS_IMPL_COUNT];
  /* quantizers: x must be >= 0 (a negative x_i is SS_ERR_DOMAIN: the log
     quantizers); a cast's largest finite value, to which x / scale
     saturates (fp8_e4m3: 448), 0 for a quantizer that is not a cast */
  bool nonnegative;
  double cast_max;
  ss_step_fn step[SS_IMPL_COUNT];
  /* optimizers: vectors of n floats of state; whether the gradient is taken
     at a look-ahead point (sam); whether the point to report is the
     averaged copy in slot 0 rather than w (ema) */
  unsigned opt_slots;
  bool lookahead;
  bool averaged;
  ss_attend_fn attend[SS_IMPL_COUNT];
  /* attention: the backward pass (exact attention: through the normalizer's
     VJP) and the scratch it needs (ss_attention_vjp_scratch_size) */
  ss_attend_vjp_fn attend_vjp[SS_IMPL_COUNT];
  ss_attend_scratch_fn attend_vjp_scratch;
  ss_role role;
  unsigned stage;          /* SS_ROLE_DECODE_STAGE: position in the pipeline */
  const char *stage_param; /* SS_ROLE_DECODE_STAGE: the stage's own parameter */
  /* attention: the scratch a call needs; random-feature kernels (performer,
     trig, hrf): their estimate of the softmax kernel, per impl */
  ss_attend_scratch_fn attend_scratch;
  ss_kernel_estimate_fn kernel_estimate[SS_IMPL_COUNT];
  /* Non-NULL when the SIMD impl uses relaxed-SIMD ops in the relaxed build
     (relaxed_madd may round once or twice, by CPU): the error bound that
     holds either way, tested against the scalar reference in every build.
     NULL: the same plain SIMD128 code in every build (anything pinned bit
     for bit: seeded draws, hashes, quantizer rounding). */
  const char *relaxed_simd;
  /* The longest x a registry call takes when that is below SS_MAX_N (a form
     that keeps its state on the stack, e.g. adaround's): longer is
     SS_ERR_TOO_LARGE. 0: SS_MAX_N. Read it with ss_kernel_max_n. */
  size_t max_n;
} ss_kernel_info;

size_t ss_kernel_count(void);
/* The longest x (n) a registry call of k takes: k->max_n, or SS_MAX_N. */
size_t ss_kernel_max_n(const ss_kernel_info *k);
const ss_kernel_info *ss_kernel_at(size_t i); /* NULL when i >= count */
/* Find by name within a family (or any family when family == SS_FAMILY_COUNT). */
const ss_kernel_info *ss_kernel_find(const char *name, ss_family family);

/* Check params (count, finiteness, range, integrality) against the registry. */
ss_status ss_params_check(const ss_kernel_info *k, const double *params,
                          size_t nparams);
/* Index of the offending parameter after a failed ss_params_check, or -1. */
long ss_params_bad_index(const ss_kernel_info *k, const double *params,
                         size_t nparams);
/* As ss_params_check, then the parameters bounded by n (n_bound: a count or
   an index into x) against n: SS_ERR_LENGTH. n = 0 skips the n bounds. The
   generic entry points check exactly this. */
ss_status ss_params_check_n(const ss_kernel_info *k, const double *params,
                            size_t nparams, size_t n);
/* Index of the first parameter ss_params_check_n rejects, or -1. */
long ss_params_bad_index_n(const ss_kernel_info *k, const double *params,
                           size_t nparams, size_t n);
/* The registry index of k's parameter `name`, or -1 when k has none. */
long ss_param_index(const ss_kernel_info *k, const char *name);
/* The value of parameter `name` of k in params (registry order), or `def`
   when k has no such parameter. */
double ss_param_value(const ss_kernel_info *k, const double *params,
                      const char *name, double def);

/* The whole registry as JSON (UTF-8, NUL-terminated). Writes at most cap
   bytes; *len receives the length needed without the NUL. buf may be NULL
   to query the length (returns SS_ERR_BUFFER when cap is too small). */
ss_status ss_registry_json(char *buf, size_t cap, size_t *len);

/* ---------------------------------------------------------------------- */
/* Generic entry points                                                     */

/* Each runs any kernel of its family (ss_kernel_info.family; another family
   is SS_ERR_FAMILY) with the kernel's parameters as doubles in registry
   order (core/src/registry/dispatch*.c). They share their first checks, in
   this order: k (SS_ERR_NULL), its family, the impl (SS_ERR_UNSUPPORTED);
   then the length n and the parameters (ss_params_check_n), or for
   attention the parameters (ss_params_check) and the shapes. */

/* Normalizers (see ss_normalize_fn). y must not overlap x, except y = x
   for a kernel whose in_place is true. */
ss_status ss_normalize(const ss_kernel_info *k, ss_impl impl, const float *x,
                       size_t n, const double *params, size_t nparams,
                       float *y);
ss_status ss_normalize_vjp(const ss_kernel_info *k, ss_impl impl,
                           const float *x, const float *y, const float *g,
                           size_t n, const double *params, size_t nparams,
                           float *dx);
/* dparams has nparams entries (see ss_normalize_param_vjp_fn);
   SS_ERR_NO_BACKWARD when the kernel has no parameter gradient. */
ss_status ss_normalize_param_vjp(const ss_kernel_info *k, ss_impl impl,
                                 const float *x, const float *y,
                                 const float *g, size_t n,
                                 const double *params, size_t nparams,
                                 double *dparams);

/* Samplers. */
/* A sampler (see ss_sample_fn). probs is required; indices and samples may
   be NULL. draws * n > SS_MAX_N with samples != NULL is SS_ERR_TOO_LARGE. */
ss_status ss_sample(const ss_kernel_info *k, ss_impl impl, const float *x,
                    size_t n, const double *params, size_t nparams,
                    float *probs, uint32_t *indices, float *samples);
/* g has draws * n entries; SS_ERR_NO_BACKWARD for samplers without one. */
ss_status ss_sample_vjp(const ss_kernel_info *k, ss_impl impl, const float *x,
                        size_t n, const double *params, size_t nparams,
                        const float *g, float *dx);

/* Optimizers. */
/* scalars[0] counts the steps taken; scalars[1..] are the kernel's. */
#define SS_OPT_SCALARS 4
/* Floats of per-parameter state an optimizer needs for n parameters. */
size_t ss_opt_state_size(const ss_kernel_info *k, size_t n);
/* One step: w <- update(w, g, state). slots (ss_opt_state_size floats) and
   scalars (SS_OPT_SCALARS doubles) start zeroed and are carried between
   steps; scalars[0] is the steps taken so far. w and g must be finite
   (SS_ERR_NAN / SS_ERR_NONFINITE, nothing written). A step whose result
   overflows float -- a weight or a state value that would be +-Inf or NaN,
   e.g. lr and weight decay at the top of their ranges on large weights, or
   |g| beyond ~1e19 in a squared-gradient moment -- is SS_ERR_DOMAIN: w and
   the state then hold that step's values (keep a copy to restart from) and
   scalars[0] is not advanced. ss_opt_state_size is 0 for n > SS_MAX_N. */
ss_status ss_optimize(const ss_kernel_info *k, ss_impl impl, float *w, const float *g,
                      size_t n, const double *params, size_t nparams, float *slots,
                      double *scalars);

/* Quantizers. */
/* A quantizer (see ss_quantize_fn); y is required, codes may be NULL except
   for vq, which keeps its assignment there (SS_ERR_NULL). */
ss_status ss_quantize(const ss_kernel_info *k, ss_impl impl, const float *x, size_t n,
                      const double *params, size_t nparams, int32_t *codes, float *y);

/* Measures. */
/* A measure's value (never NaN; +Inf only for a divergence whose exact
   value is infinite, q_i = 0 < p_i); a value beyond double's range is
   SS_ERR_DOMAIN, and so is an input where the measure is undefined, as each
   kernel states: for the measures of values, a vector with no spread
   (constant, n = 1 included: kurtosis 0 / 0) or no typical magnitude
   (median |p| = 0: max_median_ratio). */
ss_status ss_measure(const ss_kernel_info *k, ss_impl impl, const float *p,
                     const float *q, size_t n, const double *params,
                     size_t nparams, double *out);
ss_status ss_measure_vjp(const ss_kernel_info *k, ss_impl impl,
                         const float *p, size_t n, const double *params,
                         size_t nparams, double g, float *dp);

/* Rows. */
/* rows x n problems in one call: row r of x starts at x + r * x_stride (a
   stride in elements, >= n; SS_ERR_LENGTH otherwise), and each row is one
   problem of the single-vector entry point, with the same parameters:

     ss_normalize_rows:  y_r = kernel(x_r; params)          for r < rows
     ss_measure_rows:    out[r] = measure(p_r[, q_r]; params)
     ss_sample_rows:     row r = ss_sample(x_r) with `seed` replaced by seed + r

   bit for bit what the single call gives on that row (masks, exact zeros
   and statuses per row: a row that is all -Inf is that row's
   SS_ERR_ALL_MASKED). The kernel, impl, n and the parameters are checked
   once, before any row runs; then the row kernel runs rows times with no
   further checks. Entries between rows (from n to the stride) are neither
   read nor written. rows = 0 is SS_ERR_EMPTY; a last row past SIZE_MAX
   SS_ERR_TOO_LARGE.
   bad_row (may be NULL) is written on every return: the index of the row
   that failed, or SS_NO_ROW when the call succeeded or failed before any
   row ran (an argument's status). When row r fails, the call stops there
   with that row's status: rows 0 .. r-1 are written as on success, row r's
   outputs as the single call leaves them on that error, rows after r are
   untouched. y must not overlap x, except y = x with x_stride = y_stride
   for a kernel whose in_place is true. */
#define SS_NO_ROW ((size_t)-1)
ss_status ss_normalize_rows(const ss_kernel_info *k, ss_impl impl, const float *x,
                            size_t rows, size_t n, size_t x_stride, const double *params,
                            size_t nparams, float *y, size_t y_stride, size_t *bad_row);
/* out has rows doubles; q (two-input measures only, else ignored) has its
   own stride. */
ss_status ss_measure_rows(const ss_kernel_info *k, ss_impl impl, const float *p,
                          const float *q, size_t rows, size_t n, size_t p_stride,
                          size_t q_stride, const double *params, size_t nparams, double *out,
                          size_t *bad_row);
/* Batch decoding: row r draws with seed + r (its own Philox key; params'
   seed + rows - 1 must stay within the seed's range, 2^53, else
   SS_ERR_PARAM_RANGE before any row), so its probs, indices and samples are
   bit for bit those of ss_sample on x_r with params' seed + r, in every
   build. probs: row r at probs + r * probs_stride (>= n); indices: row r's
   draws at indices + r * draws (may be NULL); samples: row r's draws * n
   values at samples + r * draws * n (may be NULL). */
ss_status ss_sample_rows(const ss_kernel_info *k, ss_impl impl, const float *x, size_t rows,
                         size_t n, size_t x_stride, const double *params, size_t nparams,
                         float *probs, size_t probs_stride, uint32_t *indices, float *samples,
                         size_t *bad_row);

/* Losses. */
/* A loss kernel: *loss and grad[0..n) = dL/dx (see ss_loss_fn). A target
   index >= n is SS_ERR_LENGTH; a masked (-Inf) target SS_ERR_DOMAIN. */
ss_status ss_loss(const ss_kernel_info *k, ss_impl impl, const float *x,
                  size_t n, const double *params, size_t nparams,
                  double *loss, float *grad);

/* Attention (the kernels in core/src/attention). */
/* One attention call with kernel k (family attention: sdpa, cosformer,
   galerkin, performer, trig, hrf) and its params (heads first). Shapes: n, m >= 1,
   d, dv >= heads, heads dividing both, n m <= SS_MAX_N, d, dv <=
   SS_ATTN_MAX_DIM; Q, K, V finite, |Q|, |K| <= SS_ATTN_QK_MAX (else
   SS_ERR_DOMAIN). A query row whose keys are all masked
   is SS_ERR_ALL_MASKED. An intermediate that overflows float (a score
   |scale q.k| or a feature sum beyond FLT_MAX, e.g. |q|, |k| ~ 1e19) is
   SS_ERR_DOMAIN; out and attn are then unspecified. Performer's features
   exp(w.q' - |q'|^2/2) underflow for large |q'| |k'| (scaled scores
   beyond ~80, from large inputs or a large scale): a row whose estimate
   becomes 0 / 0 is SS_ERR_DOMAIN too. trig and hrf estimate each row's
   normalizer with features that can be negative: a row whose estimate is
   not positive (or whose output overflows) is SS_ERR_DOMAIN, with the rows
   before it written (more features make it rarer).
   ss_attention_scratch_size is 0 for anything ss_attend would reject
   (invalid parameters, heads not fitting d, shapes past SS_MAX_N or
   SS_ATTN_MAX_DIM) and for a size whose bytes overflow size_t. */
#define SS_ATTN_MAX_DIM 4096
/* Largest accepted |q_i|, |k_i| (2^40 ~ 1.1e12; larger is SS_ERR_DOMAIN):
   a score's dot product then stays below FLT_MAX in every summation order,
   with any scale in range. V may hold any finite values. */
#define SS_ATTN_QK_MAX 0x1p40f
size_t ss_attention_scratch_size(const ss_kernel_info *k, const ss_attention_io *io,
                                 const double *params);
ss_status ss_attend(const ss_kernel_info *k, ss_impl impl, const ss_attention_io *io,
                    const double *params, size_t nparams);
/* The backward pass of one ss_attend call with the same k, io and params:
   given dout = dL/d(out) (n x dv, finite), writes (overwrites) dq = dL/dQ
   (n x d), dk = dL/dK (m x d) and dv = dL/dV (m x dv), and, when
   dnorm_params is not NULL, dnorm_params[0..norm_nparams) = dL/d(normalizer
   parameters) summed over heads and query rows (the normalizer's parameter
   VJP, ss_normalize_param_vjp: 0 for int and bool parameters), e.g. a
   learned temperature or entmax's alpha. The score scale gets no gradient.
   Per head h and query i, with s_i the scores row the forward normalized
   and a_i its weights:
     dA_ij = dout_i . V_j,   dS_i = VJP of the normalizer at (s_i, a_i, dA_i),
     dQ_i = scale sum_j dS_ij K_j,  dK_j += scale dS_ij Q_i,  dV_j += a_ij dout_i.
   Masked rows: the normalizer sees the same row as in the forward, all m
   scores with -Inf at every masked key (causal, padding), and its VJP at
   that row (normalizers take -Inf as a masked entry: weight 0, gradient 0;
   a length-aware one, ssmax or softplus_l1, counts the unmasked entries in
   both passes); masked keys get exactly zero gradient from that query.
   io->attn: when not NULL it must hold the forward's weights (heads x n x m,
   as ss_attend wrote them with the same impl; finite) and is read instead
   of normalizing the scores again; when NULL the weights are recomputed
   (the scores are always recomputed: a normalizer's VJP reads them). io->out
   is not used; io->scratch holds ss_attention_vjp_scratch_size floats.
   The outputs must not overlap the inputs. Statuses: those of ss_attend
   (checked alike, in the same order), then SS_ERR_NULL for a NULL dout, dq,
   dk or dv; SS_ERR_NAN / SS_ERR_NONFINITE for dout or io->attn not finite;
   SS_ERR_NO_BACKWARD when the normalizer has no VJP, or dnorm_params is
   not NULL for a normalizer with parameters but no parameter VJP;
   SS_ERR_UNSUPPORTED for kernels without a backward pass (linear
   attention). An intermediate or a gradient beyond FLT_MAX is
   SS_ERR_DOMAIN (the outputs are then unspecified); where only a SIMD
   normalizer VJP's float intermediates overflowed, the scalar reference
   answers the call, as in ss_normalize_vjp. Near float's range the two
   impls may still differ between SS_OK and SS_ERR_DOMAIN: a normalizer
   VJP whose rounding is amplified (multimax's slope of 1e14 times the
   cancellation in y (g - <g, y>)) can give a gradient that overflows in
   one impl only; every other status is the same in both. */
ss_status ss_attend_vjp(const ss_kernel_info *k, ss_impl impl, const ss_attention_io *io,
                        const double *params, size_t nparams, const float *dout, float *dq,
                        float *dk, float *dv, double *dnorm_params);
/* Floats of scratch ss_attend_vjp needs (sdpa: 4 m); 0 as for
   ss_attention_scratch_size, and for kernels without a backward pass. */
size_t ss_attention_vjp_scratch_size(const ss_kernel_info *k, const ss_attention_io *io,
                                     const double *params);
/* The random-feature kernels' estimate of the softmax kernel itself (the
   quantity their attention is built from), for every query-key pair:
   est[(h n + i) m + j] = phi_q(x_i) . phi_k(y_j) ~ exp(s q_i . k_j), with x =
   sqrt(s) q and y = sqrt(s) k of head h and s the score scale. Unbiased for
   each pair: its mean over seeds is exp(s q_i . k_j). Uses io's q, k, n, m, d,
   heads and scratch (ss_attention_scratch_size floats, which depends on dv:
   dv is checked as by ss_attend, e.g. dv = d); v, out and attn are not
   used. |Q|, |K| <= SS_ATTN_QK_MAX as for ss_attend (else SS_ERR_DOMAIN);
   an estimate beyond double's range (its row scales overflow) is
   SS_ERR_DOMAIN, est then unspecified. SS_ERR_UNSUPPORTED for kernels
   without random features. */
ss_status ss_attention_kernel_estimate(const ss_kernel_info *k, ss_impl impl, const ss_attention_io *io,
                                       const double *params, size_t nparams, double *est);

/* ====================================================================== */
/* Direct calls, by family: a kernel's own form with typed arguments, and   */
/* what a family offers beyond its registry kernels.                        */

/* ---------------------------------------------------------------------- */
/* Softmax core (direct calls; they use ss_impl_default())                  */

ss_status ss_softmax(const float *x, size_t n, float *y);
ss_status ss_log_softmax(const float *x, size_t n, float *y);
ss_status ss_logsumexp(const float *x, size_t n, double *out);
ss_status ss_softmax_temperature(const float *x, size_t n, double temperature,
                                 float *y);
ss_status ss_two_pass_softmax(const float *x, size_t n, float *y);

/* Online softmax (Milakov & Gimelshein 2018). The state of a stream of
   logits is (max, sum) with sum = sum_i exp(x_i - max); two states merge as
   m = max(m_a, m_b), d = d_a e^{m_a - m} + d_b e^{m_b - m}, so chunks
   processed separately (or on different threads) combine exactly. */
typedef struct ss_softmax_state {
  float max;  /* running maximum (-Inf for an empty state) */
  double sum; /* sum of exp(x - max) */
} ss_softmax_state;

void ss_softmax_state_init(ss_softmax_state *s);
/* Fold a chunk into the state (one pass over x). Validates the chunk
   (NaN / +Inf); an all -Inf chunk is fine here. */
ss_status ss_softmax_state_update(ss_softmax_state *s, ss_impl impl,
                                  const float *x, size_t n);
ss_status ss_softmax_state_merge(ss_softmax_state *a,
                                 const ss_softmax_state *b);
/* y = exp(x - max) / sum for one chunk, using a finished state. Returns
   SS_ERR_ALL_MASKED when the state saw only -Inf, and SS_ERR_DOMAIN for a
   malformed state (valid: max -Inf with sum 0, or finite max with
   1 <= sum < Inf) or a chunk holding a logit above the state's max (it was
   not folded into that state). Update and merge also return SS_ERR_DOMAIN
   for a malformed state; a failed update leaves the state unchanged. */
ss_status ss_softmax_state_apply(const ss_softmax_state *s, ss_impl impl,
                                 const float *x, size_t n, float *y);

/* Fused online softmax + top-k: the k largest probabilities of softmax(x)
   in descending order and their indices, in one pass, without writing the
   full output. Ties are broken by the lower index. 1 <= k <= n.
   probs[] and indices[] serve as the heap during the pass, so unlike other
   entry points they hold scratch values after a data error (NaN, +Inf,
   all -Inf); argument errors (NULL, k out of range) write nothing. */
ss_status ss_softmax_topk(ss_impl impl, const float *x, size_t n, size_t k,
                          float *probs, uint32_t *indices);

/* ---------------------------------------------------------------------- */
/* Sparse normalizers (core/src/sparse)                                     */

/* How sparsemax / 1.5-entmax find their threshold. Both give the same
   support and bitwise the same tau and y (the support test is done in exact
   integer arithmetic); SELECT is expected O(n), SORT is O(n log n). */
typedef enum ss_threshold_method {
  SS_THRESHOLD_SELECT = 0, /* quickselect-style pivot search */
  SS_THRESHOLD_SORT = 1    /* sort every finite logit, then scan */
} ss_threshold_method;

/* y = sparsemax(x) = [x - tau]_+ with sum y = 1 (Martins & Astudillo 2016),
   by the chosen impl and method. tau and support (each may be NULL) receive
   the threshold (rounded to float) and #{y_i > 0}. y is used as scratch
   before the result is written, so y must not overlap x. Errors: as
   ss_normalize, and SS_ERR_PARAM_RANGE for an unknown method. */
ss_status ss_sparsemax_ex(ss_impl impl, ss_threshold_method method,
                          const float *x, size_t n, float *y, float *tau,
                          size_t *support);
/* y = 1.5-entmax(x) = [x/2 - tau]_+^2 with sum y = 1 (Peters, Niculae &
   Martins 2019); tau is on the scale of x/2. As ss_sparsemax_ex otherwise. */
ss_status ss_entmax15_ex(ss_impl impl, ss_threshold_method method,
                         const float *x, size_t n, float *y, float *tau,
                         size_t *support);
/* Default impl, SELECT. */
ss_status ss_sparsemax(const float *x, size_t n, float *y);
ss_status ss_entmax15(const float *x, size_t n, float *y);
/* Softmax over the k largest logits and every logit tied with the k-th,
   exactly 0 elsewhere (see core/src/sparse/topk_softmax.c). 1 <= k;
   k > n is SS_ERR_LENGTH. Default impl; y must not overlap x. */
ss_status ss_topk_softmax(const float *x, size_t n, size_t k, float *y);

/* ---------------------------------------------------------------------- */
/* alpha-entmax solvers (core/src/entmax)                                   */

/* alpha-entmax (Peters, Niculae & Martins 2019):
     y_i = [(alpha - 1) x_i - tau]_+^{1/(alpha-1)},  tau such that sum y = 1,
   alpha > 1 (alpha -> 1 is softmax, 2 is sparsemax). tau is found by an
   iteration on f(tau) = sum_i y_i(tau) - 1, each iteration one O(n) pass. */
typedef enum ss_entmax_solver {
  SS_ENTMAX_BISECT = 0, /* bisection of the bracket of tau */
  SS_ENTMAX_HALLEY = 1  /* Halley steps, bisection when they leave the
                           bracket (AdaSplash, Goncalves et al. 2025) */
} ss_entmax_solver;

/* Solve alpha-entmax with an explicit stopping rule: iterate until
   |sum y - 1| <= tol, or no representable progress is left, or max_iter
   iterations (passes over x) were made; then y is divided by its sum.
   max_iter is the caller's cap: a run it stops is returned as it stands
   (*iterations == max_iter tells; the registry kernels below never stop
   unconverged: Halley there goes on by bisection of its bracket).
   1 < alpha <= 10, tol >= 0 finite, max_iter >= 1 (else SS_ERR_PARAM_RANGE).
   tau (may be NULL) receives the final tau of the formula above (before the
   division by the sum), iterations (may be NULL) the passes made. */
ss_status ss_entmax_solve(ss_impl impl, ss_entmax_solver solver,
                          const float *x, size_t n, double alpha, double tol,
                          unsigned max_iter, float *y, double *tau,
                          unsigned *iterations);
/* The registry kernels with their fixed stopping rule (tol 1e-6, at most 100
   iterations; Halley unconverged after them finishes by bisection), on
   ss_impl_default(). */
ss_status ss_entmax_bisect(const float *x, size_t n, double alpha, float *y);
ss_status ss_entmax_halley(const float *x, size_t n, double alpha, float *y);
/* Adaptive-Scalable Entmax (Vasylenko et al. 2025):
   y = entmax_alpha((delta + beta (log n_eff)^gamma) x), n_eff the number of
   entries that are not -Inf. */
ss_status ss_asentmax(const float *x, size_t n, double alpha, double delta,
                      double beta, double gamma, float *y);

/* ---------------------------------------------------------------------- */
/* Softmax variants (core/src/variants)                                     */

/* Masked softmax (Kim, Kwon & Kim 2023): keep[i] != 0 keeps entry i; masked
   entries come out exactly 0 and the kept ones are renormalised. Every entry
   is validated (NaN, +Inf), masked or not; SS_ERR_ALL_MASKED when no kept
   entry is finite. The registry form ("masked_softmax") masks the index
   range [mask_from, mask_to) instead. */
ss_status ss_masked_softmax(ss_impl impl, const float *x, const uint8_t *keep,
                            size_t n, float *y);
/* Noisy softmax (Chen, Deng & Du 2017), label-free: y = softmax(x + sigma_t
   a xi), sigma_t = sigma / (1 + decay step), a = |x| (relative) or 1, xi the
   Philox normals of (seed, step, i). step, seed <= 2^53. */
ss_status ss_noisy_softmax(const float *x, size_t n, double sigma, double decay,
                           uint64_t step, uint64_t seed, bool relative, float *y);

/* Softpick (Zuhri, Fuadi & Aji 2025): y_i = relu(e^{x_i} - 1) / sum_j |e^{x_j} - 1|
   over the unmasked j; y = 0 when max x <= 0 (including the 0/0 all-zero
   row). Does not sum to 1. */
ss_status ss_softpick(const float *x, size_t n, float *y);
/* ReLU attention (Guo et al. 2024; Wortsman et al. 2023): y_i = relu(x_i) / L,
   L = the number of unmasked entries (x_j != -Inf: in causal attention the
   keys the query sees). Exact zeros for x_i <= 0; does not sum to 1. */
ss_status ss_relu_attention(const float *x, size_t n, float *y);
/* StableMax (Prieto et al. 2025): y_i = s(x_i) / sum_j s(x_j),
   s(x) = x + 1 (x >= 0), 1 / (1 - x) (x < 0). */
ss_status ss_stablemax(const float *x, size_t n, float *y);
/* MultiMax (Zhou, Fritz & Keuper 2024): softmax of
   x + t0 relu(r0 - x) + t1 relu(x - r1) + t2 relu(r2 - x)^2 + t3 relu(x - r3)^2;
   SS_ERR_DOMAIN when a modulated logit overflows float. */
ss_status ss_multimax(const float *x, size_t n, const double t[4],
                      const double r[4], float *y);
/* Self-Adjust Softmax (Zheng et al. 2025): y = x softmax(x), or with
   normalized, y = (x - lo) / (hi - lo) softmax(x), lo = min(min x, 0),
   hi = max(max x, 0). Need not sum to 1; the plain form is negative for
   x < 0. -Inf entries give 0. */
ss_status ss_sa_softmax(const float *x, size_t n, bool normalized, float *y);
/* Boltzmann operator: *value = sum_i x_i softmax(b x)_i over the unmasked
   entries, a soft maximum (b > 0; max x - value <= (n - 1) / (e b)), the
   mean (b = 0) or a soft minimum (b < 0); -1e3 <= b <= 1e3. The registry
   kernel "boltzmann" returns the terms x_i softmax(b x)_i. */
ss_status ss_boltzmann(const float *x, size_t n, double b, double *value);
/* VQ-Logits softmax (Shao et al. 2025): y_v = e^{z_{codes[v]}} /
   sum_k count_k e^{z_k}, the softmax of the tied logits z_{codes[v]}, with
   exps over the k codebook logits only (at most min(v, 2k)). A code >= k is
   SS_ERR_DOMAIN; k and v are checked like n; unused codes take no part;
   SS_ERR_ALL_MASKED when every used code is -Inf. */
ss_status ss_vq_softmax(ss_impl impl, const float *z, size_t k,
                        const uint32_t *codes, size_t v, float *y);

/* ---------------------------------------------------------------------- */
/* Length-aware and adaptive normalizers (core/src/adaptive)                */

/* Adaptive temperature (Velickovic et al. 2024): softmax(beta x) with
   beta = max(P(H), 1) a fitted polynomial of the entropy H of softmax(x). */
ss_status ss_adaptive_temperature(const float *x, size_t n, float *y);
/* Scalable-Softmax (Nakanishi 2025): softmax(s log(n) x), n = number of
   unmasked entries. */
ss_status ss_ssmax(const float *x, size_t n, double s, float *y);
/* Length-scaled Softplus attention weights (Gao & Spratling 2025):
   softplus(log(head_dim) log(n) x), l1-normalised; head_dim an integer. */
ss_status ss_softplus_l1(const float *x, size_t n, double head_dim, float *y);

/* ---------------------------------------------------------------------- */
/* Losses (core/src/loss)                                                   */
/* Reached through ss_loss (cross_entropy, sparsemax_loss, entmax15_loss,
   entmax_bisect_loss). */

/* ---------------------------------------------------------------------- */
/* Random numbers and samplers (core/src/common/rng.c, core/src/sample)     */

/* Philox4x32-10 counter-based draws (see core/src/common/rng.h): number i
   of (seed, stream) is a pure function of the three, the same in every
   build. Uniforms lie in the open interval (0, 1): 2^-24 <= u <= 1 - 2^-24,
   so -log(-log u) is always finite. out[i] is number first + i of the
   stream; seed, stream, first: any 64-bit values (first + n must not wrap);
   n checked like every n. */
ss_status ss_uniform(uint64_t seed, uint64_t stream, uint64_t first, size_t n,
                     float *out);
/* Standard normals (Box-Muller in double, own log / sin / cos, rounded to
   float). */
ss_status ss_normal(uint64_t seed, uint64_t stream, uint64_t first, size_t n,
                    float *out);
/* Standard Gumbel noise g = -log(-log u) of the same uniforms (float). */
ss_status ss_gumbel(uint64_t seed, uint64_t stream, uint64_t first, size_t n,
                    float *out);
/* Draws from the categorical distribution with non-negative weights w
   (need not sum to 1; zero weight is never drawn): out[d] for draw d =
   first .. first + draws - 1, by inverse CDF of uniform d of (seed, stream).
   SS_ERR_DOMAIN for a negative / non-finite weight or a zero total;
   draws <= 2^31. */
ss_status ss_categorical(const float *w, size_t n, uint64_t seed,
                         uint64_t stream, uint64_t first, size_t draws,
                         uint32_t *out);

/* Gradient estimators of a categorical objective (core/src/sample/
   estimators.c), for the sampling view: the objective is
     L(theta) = E_{z ~ onehot(softmax(theta))} sum_i (z_i - target_i)^2,
   its exact gradient is computed by enumeration over the n outcomes, and
   `samples` Monte Carlo estimates (Gumbel noise of (seed, stream 2), draw d
   as in gumbel_max) give mean[0..n), bias = |mean - exact|_2 and
   variance = (1/M) sum_d |est_d - mean|_2^2. exact[0..n) receives the
   exact gradient. n <= SS_ESTIMATOR_MAX_N, 0 < tau <= 1e3,
   1 <= samples <= 2^24; exact over that whole range (tau -> 0: a one-hot
   softmax's Jacobian term is exactly 0). SS_ERR_DOMAIN (nothing written)
   when an output does not fit its type (mean, exact: float; bias, variance:
   double), e.g. (1/tau) times the Jacobian of tied logits at tau = 1e-300. */
typedef enum ss_estimator {
  SS_ESTIMATOR_ST = 0,             /* straight-through: (1/tau) J_softmax(theta/tau)^T grad f(D) */
  SS_ESTIMATOR_GUMBEL_SOFTMAX = 1, /* (1/tau) J_y^T grad f(y), y = softmax((theta + G) / tau) */
  SS_ESTIMATOR_ST_GUMBEL = 2,      /* (1/tau) J_y^T grad f(D): straight-through Gumbel-Softmax */
  SS_ESTIMATOR_REINMAX = 3,        /* 2 J_pi1^T grad f(D) - J_pi0^T grad f(D) / 2 */
  SS_ESTIMATOR_COUNT = 4
} ss_estimator;
#define SS_ESTIMATOR_MAX_N 256
ss_status ss_estimator_stats(int estimator, const float *theta, const float *target, size_t n,
                             double tau, uint64_t seed, size_t samples, double *bias,
                             double *variance, float *mean, float *exact);

/* ---------------------------------------------------------------------- */
/* Optimizers (core/src/optim)                                              */

/* SAM's ascent point: w_adv = w + rho g / |g|_2 (w when g = 0), at which the
   caller takes the gradient handed to the `sam` step. */
ss_status ss_sam_perturb(ss_impl impl, const float *w, const float *g, size_t n, double rho,
                         float *w_adv);

/* Learning-rate schedules: the factor on lr at step t (1-based) of total.
   constant: 1. cosine: linear warm-up t / warmup, then
   min + (1 - min) (1 + cos(pi p)) / 2, p = (t - warmup) / (total - warmup).
   wsd (warm-up, stable, decay): warm-up, then 1 until the last
   decay * total steps, then linear down to min. */
typedef enum ss_schedule {
  SS_SCHEDULE_CONSTANT = 0,
  SS_SCHEDULE_COSINE = 1,
  SS_SCHEDULE_WSD = 2,
  SS_SCHEDULE_COUNT = 3
} ss_schedule;
const char *ss_schedule_name(ss_schedule s);
double ss_schedule_factor(ss_schedule s, double t, double total, double warmup, double decay,
                          double min_factor);

/* 2-D test functions: value and analytic gradient. For a game (bilinear,
   x minimizes and y maximizes f) the gradient is the descent field
   (df/dx, -df/dy), which every optimizer follows as its "gradient". */
typedef struct ss_testfn_info {
  const char *name, *summary, *formula;
  double xmin, xmax, ymin, ymax; /* the view */
  double start[2];               /* a sensible start */
  size_t nminima;
  const double (*minima)[2];     /* known minima (games: the equilibrium) */
  double fmin;                   /* f at the minima */
  bool game;
} ss_testfn_info;
size_t ss_testfn_count(void);
const ss_testfn_info *ss_testfn_at(size_t i); /* NULL past the end */
long ss_testfn_find(const char *name);        /* index, or -1 */
ss_status ss_testfn_eval(size_t fn, double x, double y, double *f, double grad[2]);
/* out[j * nx + i] = f(x_i, y_j) on an nx by ny grid over [x0, x1] x [y0, y1]. */
ss_status ss_testfn_grid(size_t fn, double x0, double x1, double y0, double y1, size_t nx,
                         size_t ny, float *out);

/* Trajectory engine: `steps` steps of optimizer k on test function fn from
   the 2-D point w, continuing from the state (slots: ss_opt_state_size(k,
   2) floats, scalars), so a run can advance frame by frame. Each gradient
   gets N(0, noise^2) noise per coordinate (Philox under seed, a function of
   the step number: every optimizer sees the same noise) and is then clipped
   to norm <= clip (0: off); lr follows the schedule over `total` steps.
   path[3 i ..] = (x, y, f) of the point after step i (ema: the averaged
   point). *done = the steps taken: fewer than `steps` when the run
   diverged (a non-finite value or |w| > 1e12), which is not an error. */
typedef struct ss_traj_opts {
  double noise, clip, seed;
  double schedule; /* an ss_schedule */
  double total, warmup, decay, min_factor;
} ss_traj_opts;
ss_status ss_trajectory(const ss_kernel_info *k, ss_impl impl, size_t fn, const double *params,
                        size_t nparams, const ss_traj_opts *o, size_t steps, float *w,
                        float *slots, double *scalars, double *path, size_t *done);

/* ---------------------------------------------------------------------- */
/* Quantizers (core/src/quant)                                              */

/* Codes packed 8, 4 or 2 bits each, lowest bits first (core/src/quant/pack.c):
   ss_packed_bytes(n, bits) bytes (0 for other bits or n > SS_MAX_N). Signed codes are two's
   complement in their bits; out-of-range codes are SS_ERR_DOMAIN. */
size_t ss_packed_bytes(size_t n, int bits);
ss_status ss_pack(const int32_t *codes, size_t n, int bits, bool is_signed, uint8_t *out);
ss_status ss_unpack(const uint8_t *in, size_t n, int bits, bool is_signed, int32_t *codes);
/* Vector quantization (core/src/quant/vq.c): x is nvec vectors of dim
   values (row-major), the codebook k vectors of dim. dim <= SS_VQ_MAX_DIM.
   ss_vq_train: k-means++ seeding under `seed`, then up to `iters` Lloyd
   iterations (stopping when no code changes); codebook[k dim] and
   codes[nvec] receive the result, loss (NULL or iters + 1 entries) the mean
   squared error per value after the seeding and after each iteration (never
   increasing); scratch is nvec floats. k > nvec is SS_ERR_LENGTH. The
   result is the same in every build and impl. */
#define SS_VQ_MAX_DIM 256
#define SS_VQ_MAX_ITERS 100000u
ss_status ss_vq_train(ss_impl impl, const float *x, size_t nvec, size_t dim, size_t k,
                      unsigned iters, uint64_t seed, float *codebook, int32_t *codes,
                      double *loss, float *scratch);
/* codes[i] = the nearest codeword of x_i (ties: the lowest index); y (may
   be NULL) receives the codewords, nvec * dim values. */
ss_status ss_vq_assign(ss_impl impl, const float *x, size_t nvec, size_t dim,
                       const float *codebook, size_t k, int32_t *codes, float *y);
/* The straight-through backward of VQ-VAE with commitment weight beta:
   given g = dL/dz_q, dx = g + 2 beta (x - e_c(x)) and (dcodebook may be
   NULL) dcodebook_k = sum over x with code k of 2 (e_k - x). x, g and the
   codebook must be finite (SS_ERR_NAN / SS_ERR_NONFINITE), beta >= 0
   finite; codes outside [0, k) are SS_ERR_DOMAIN, and so is a gradient
   beyond FLT_MAX (dx and dcodebook are then unspecified). */
ss_status ss_vq_backward(const float *x, size_t nvec, size_t dim, const float *codebook,
                         size_t k, const int32_t *codes, const float *g, double beta, float *dx,
                         float *dcodebook);
/* AdaRound (Nagel et al. 2020; core/src/quant/adaround.c): learned up/down
   rounding of a layer W (rows x cols, row-major) on the b-bit uniform grid
   of the "uniform" quantizer (per tensor), minimizing the output error
   |W X - W~ X|^2 on the calibration inputs X (cols x batch, row-major)
   with the rectified-sigmoid relaxation h(V) (zeta 1.1, gamma -0.1), the
   regularizer lambda sum (1 - |2h - 1|^beta) (off for the first 20 % of
   the iterations, then beta annealed 20 -> 2) and `iters` steps of the
   registry's Adam with learning rate lr; h is rounded at the end. wq
   (rows cols) receives W~ = (q - z) s (held at +-FLT_MAX, as "uniform"
   does), codes (may be NULL) the codes q,
   each floor(W/s) + z or that + 1. stats (may be NULL) receives
   SS_ADAROUND_NSTATS doubles, indexed below. scratch holds
   ss_adaround_scratch_size(rows, cols, batch) floats (0: sizes too large).
   2 <= bits <= 8, 1 <= iters <= SS_ADAROUND_MAX_ITERS, 0 <= lambda <= 1e3,
   0 < lr <= 10; W and X finite; rows cols and cols batch <= SS_MAX_N.
   The same bits in every build and impl. The registry kernel "adaround"
   is this call on x = W read as rows of cols weights (n <= 8192; when cols
   does not divide n, the last row is shorter and reads the first inputs) with calibration inputs
   drawn under seed: z = ss_normal(seed, 1, 0, cols batch) as cols x batch,
   x_0b = z_0b, x_kb = corr x_(k-1)b + sqrt(1 - corr^2) z_kb (in double). */
#define SS_ADAROUND_MAX_ITERS 1000000u
enum {
  SS_ADAROUND_ERR = 0,         /* |W X - W~ X|_F^2 with the learned rounding (float64) */
  SS_ADAROUND_ERR_NEAREST = 1, /* the same with rounding to nearest on the same grid */
  SS_ADAROUND_SCALE = 2,       /* the grid step s */
  SS_ADAROUND_ZERO = 3,        /* the zero point z (0 when symmetric) */
  SS_ADAROUND_FLIPPED = 4,     /* weights whose code differs from nearest rounding */
  SS_ADAROUND_SOFT = 5,        /* h strictly inside (0, 1) before the final rounding */
  SS_ADAROUND_NSTATS = 6
};
size_t ss_adaround_scratch_size(size_t rows, size_t cols, size_t batch);
ss_status ss_adaround(ss_impl impl, const float *w, size_t rows, size_t cols, const float *x, size_t batch,
                      int bits, bool symmetric, unsigned iters, double lambda, double lr, float *wq,
                      int32_t *codes, float *scratch, double *stats);
/* The registry kernel "adaround"'s calibration inputs (cols x batch,
   row-major, the AR(1) chain above) drawn under seed into x, so a caller
   can pass the registry form's very inputs to ss_adaround. -1 <= corr <= 1;
   cols batch <= SS_MAX_N. */
ss_status ss_adaround_inputs(uint64_t seed, size_t cols, size_t batch, double corr, float *x);

/* ---------------------------------------------------------------------- */
/* Measures of attention (core/src/measure/attention_measures.c)            */

/* Row and head measures of attention matrices (heads x n x m, rows of
   weights): rows[4 (h n + i) + c] = entropy (nats, of the row normalized
   by its |sum|), exact-zero fraction, max weight, sink share (weight of key
   0 over the row's sum); dist[a heads + b] = the mean over rows of the
   total-variation distance between heads a and b. */
ss_status ss_attention_measures(const float *attn, size_t heads, size_t n, size_t m, float *rows,
                                double *dist);

/* Head measures of one attention call, as the softpick paper compares
   softmax and softpick (Zuhri, Fuadi & Aji 2025): out is the call's output
   (n x dv, head h owns columns [h dv/heads, (h+1) dv/heads)), attn its
   attention matrices (heads x n x m, may be NULL). head[4 h + c] =
     0: Pearson kurtosis m4 / m2^2 of the head's n dv/heads output values
        (the "kurtosis" measure), 0 when they are all equal (undefined; a
        defined kurtosis is >= 1);
     1: max |o| / median |o| over the same values (the "max_median_ratio"
        measure: massive activations), 0 when the median is 0;
     2: alpha_0 = (1/n) sum_i A_h[i][0], the mean raw weight on key 0 (the
        first token; 0 without attn);
     3: 1 when alpha_0 > sink_eps (a sink head), else 0.
   The sink rate of Gu et al. 2025 ("When Attention Sink Emerges in Language
   Models") is the mean of entry 3 over heads (and layers) with
   sink_eps = 0.3. out and attn must be finite; 0 <= sink_eps <= 1. */
ss_status ss_attention_head_measures(const float *out, const float *attn, size_t heads, size_t n,
                                     size_t m, size_t dv, double sink_eps, double *head);

/* ---------------------------------------------------------------------- */
/* Layers of the tiny attention model (core/src/model)                      */
/* Direct calls, forward and backward, for a model of embeddings, attention,
   norms, linear layers and an MLP. Each takes the impl first (the
   backward and the SIMD versions state their error bounds in their source
   files), checks in this order: NULL pointers (SS_ERR_NULL), the impl
   (SS_ERR_UNSUPPORTED), the shapes (a dimension 0: SS_ERR_EMPTY; a
   dimension or a matrix of more than SS_MAX_N values: SS_ERR_TOO_LARGE),
   hyperparameters (SS_ERR_PARAM_RANGE), then the values (NaN: SS_ERR_NAN,
   +-Inf: SS_ERR_NONFINITE; every input must be finite). A result beyond
   FLT_MAX is SS_ERR_DOMAIN, and the outputs are then unspecified; on any
   other error nothing is written. Matrices are row-major; outputs must not
   overlap inputs. Backward passes overwrite their outputs (they do not
   accumulate into them). */

/* Linear layer (torch.nn.Linear): y[r, o] = b[o] + sum_i x[r, i] w[o, i],
   i.e. y = x W^T + b. x: rows x in; w: out x in; b: out values, or NULL for
   none; y: rows x out. core/src/model/linear.c. */
ss_status ss_linear(ss_impl impl, const float *x, size_t rows, size_t in, const float *w,
                    const float *b, size_t out, float *y);
/* Its backward given dy (rows x out): dx = dy W (rows x in; NULL to skip),
   dw = dy^T x (out x in), db = the column sums of dy (out; NULL to skip). */
ss_status ss_linear_backward(ss_impl impl, const float *x, size_t rows, size_t in, const float *w,
                             size_t out, const float *dy, float *dx, float *dw, float *db);

/* Largest row of the norms: their backward sums the gain (and bias)
   gradient over rows in double on the stack (SS_ERR_TOO_LARGE beyond). */
#define SS_NORM_MAX_D 4096
/* RMSNorm (Zhang & Sennrich 2019) of each of the rows of x (rows x d):
   y = x / sqrt(mean(x^2) + eps) * gain; gain: d values; 0 <= eps <= 1.
   eps = 0 and an all-zero row is SS_ERR_DOMAIN. core/src/model/rmsnorm.c. */
ss_status ss_rmsnorm(ss_impl impl, const float *x, size_t rows, size_t d, const float *gain,
                     double eps, float *y);
/* Its backward given dy (rows x d): dx (rows x d) and dgain (d values,
   summed over the rows; NULL to skip). Takes x, not y: the row's rms is
   recomputed. */
ss_status ss_rmsnorm_backward(ss_impl impl, const float *x, size_t rows, size_t d,
                              const float *gain, double eps, const float *dy, float *dx,
                              float *dgain);
/* LayerNorm (Ba et al. 2016; torch.nn.LayerNorm, biased variance) of each
   row: y = (x - mean) / sqrt(var + eps) * gain + bias; bias may be NULL
   (0); 0 <= eps <= 1; eps = 0 and a constant row is SS_ERR_DOMAIN.
   core/src/model/layernorm.c. */
ss_status ss_layernorm(ss_impl impl, const float *x, size_t rows, size_t d, const float *gain,
                       const float *bias, double eps, float *y);
/* Its backward given dy: dx (rows x d), dgain and dbias (d values each,
   summed over the rows; each may be NULL). The mean and variance are
   recomputed from x. */
ss_status ss_layernorm_backward(ss_impl impl, const float *x, size_t rows, size_t d,
                                const float *gain, double eps, const float *dy, float *dx,
                                float *dgain, float *dbias);

/* Token embedding (torch.nn.Embedding): y[t, :] = table[tokens[t], :] for
   t < count; table: vocab x d; y: count x d. A token >= vocab is
   SS_ERR_DOMAIN; only the rows read must be finite. A copy: the same in
   every impl. core/src/model/embedding.c. */
ss_status ss_embedding(const float *table, size_t vocab, size_t d, const uint32_t *tokens,
                       size_t count, float *y);
/* Its backward: dtable (vocab x d) is zeroed, then dy[t, :] (count x d) is
   added to row tokens[t] in token order, in float (the same bits in every
   impl and build). */
ss_status ss_embedding_backward(ss_impl impl, const float *dy, const uint32_t *tokens,
                                size_t count, size_t vocab, size_t d, float *dtable);
/* Sinusoidal positions (Vaswani et al. 2017): y[p, 2i] = sin(p w_i),
   y[p, 2i + 1] = cos(p w_i), w_i = 10000^(-2i/d), for p < n; y: n x d. An
   odd d is SS_ERR_LENGTH. */
ss_status ss_positions_sinusoidal(size_t n, size_t d, float *y);

/* Rotary position embedding (Su et al. 2021, "RoFormer", arXiv 2104.09864):
   each row of x (rows x d) is `heads` heads of hd = d / heads values; in
   each head, the pair (x[2i], x[2i+1]), i < hd / 2, is rotated by the
   angle p theta_i, theta_i = base^(-2i / hd), where p = p0 + r % period is
   row r's position (period n for batch examples of n positions; period 1
   and p0 = t for one row at position t):
     y[2i]   = x[2i] cos(p theta_i) - x[2i+1] sin(p theta_i)
     y[2i+1] = x[2i] sin(p theta_i) + x[2i+1] cos(p theta_i)
   cos and sin are computed in double and rounded to float; y may be x (in
   place). Checks: NULL (SS_ERR_NULL), impl (SS_ERR_UNSUPPORTED), rows or d
   0 (SS_ERR_EMPTY), rows d > SS_MAX_N (SS_ERR_TOO_LARGE), heads 0 or not
   dividing d, period 0, base not finite or <= 1, p0 + period - 1 > 2^24
   (SS_ERR_PARAM_RANGE), hd odd (SS_ERR_LENGTH), x not finite.
   core/src/model/rope.c. */
ss_status ss_rope(ss_impl impl, const float *x, size_t rows, size_t d, size_t heads, size_t period,
                  size_t p0, double base, float *y);
/* Its backward (the transpose: the rotation by -p theta_i) of dy into dx;
   dx may be dy. */
ss_status ss_rope_backward(ss_impl impl, const float *dy, size_t rows, size_t d, size_t heads,
                           size_t period, size_t p0, double base, float *dx);

/* GELU, tanh form (Hendrycks & Gimpel 2016; torch's
   gelu(approximate='tanh')): y = x (1 + tanh(sqrt(2/pi) (x + 0.044715
   x^3))) / 2 on n values. core/src/model/activation.c. */
ss_status ss_gelu(ss_impl impl, const float *x, size_t n, float *y);
/* Its backward: dx = dy gelu'(x). */
ss_status ss_gelu_backward(ss_impl impl, const float *x, const float *dy, size_t n, float *dx);

/* ---------------------------------------------------------------------- */
/* The model: one causal transformer for the Experiments tasks and for      */
/* language modelling (core/src/model)                                       */
/* A pre-norm transformer written the way llm.c writes GPT-2
   (train_gpt2.c): one struct of parameter tensors, one struct of
   activations, the same structs for their gradients, each layer's forward
   and backward side by side (core/src/model/model_layer.c).

     h0_j = E_a[a_j] (+ E_b[b_j]) (+ f_j u) (+ pos_j)  (positions: learned
                                                       or sinusoidal)
     for each layer l:
       x = Norm1(h);  q, k, v = Wq x, Wk x, Wv x  (RoPE on q and k: rope)
       h = h + Wo Attn(q, k, v)
       with mlp:  h = h + W2 GELU(W1 Norm2(h))        (W1: 4d x d)
     logits = W_U NormF(h)   (W_U = E_a with tied)
     loss = the loss kernel (cross-entropy) at the target of each read row

   Norm is RMSNorm (gain) or LayerNorm (gain and bias), eps
   SS_MODEL_NORM_EPS. Linear layers have no bias. Attn is the registry's
   exact attention (cfg.attention, e.g. sdpa) through any registry
   normalizer with a VJP and its heads; causal: query i sees keys j <= i.
   loss_at: SS_LOSS_AT_LAST reads position n-1 of each example (the
   Experiments tasks: the last layer then computes its queries, attention
   output, MLP and readout on that row alone, the same function as
   computing every row); SS_LOSS_AT_EVERY reads every position (language
   modelling: target[e n + p] is the token after position p; needs causal).
   core/src/model: model_config.c (checks, tensors, workspace, init),
   model_embed.c, model_layer.c, model_head.c, model.c (the entry points),
   model_step.c, model_inputs.c; tasks.c, task_list.h, text.c (data). */
#define SS_MODEL_MAX_D 384       /* d */
#define SS_MODEL_MAX_HEADS 8
#define SS_MODEL_MAX_LAYERS 8
#define SS_MODEL_MAX_VOCAB 65536 /* vocab_a, vocab_b, classes */
#define SS_MODEL_MAX_N 16384     /* positions per example (and learned positions' max_n) */
#define SS_MODEL_NORM_EPS 1e-5
#define SS_MODEL_ROPE_BASE 10000.0

typedef enum ss_positions {
  SS_POSITIONS_NONE = 0,       /* a set: no position information (default) */
  SS_POSITIONS_SINUSOIDAL = 1, /* ss_positions_sinusoidal, added to h0 */
  SS_POSITIONS_LEARNED = 2,    /* a max_n x d table (cannot extrapolate past max_n) */
  SS_POSITIONS_ROPE = 3,       /* ss_rope on q and k in every layer (Su et al. 2021) */
  SS_POSITIONS_COUNT = 4
} ss_positions;

typedef enum ss_model_norm {
  SS_MODEL_NORM_RMS = 0,   /* RMSNorm, a gain */
  SS_MODEL_NORM_LAYER = 1, /* LayerNorm, a gain and a bias */
  SS_MODEL_NORM_COUNT = 2
} ss_model_norm;

typedef enum ss_loss_at {
  SS_LOSS_AT_LAST = 0,  /* one target per example, at position n-1 */
  SS_LOSS_AT_EVERY = 1, /* a target at every position (next-token prediction) */
  SS_LOSS_AT_COUNT = 2
} ss_loss_at;

/* The model's shape. Flags are 0 or 1 (uint32_t, so a caller outside C
   writes plain words). Ranges (SS_ERR_PARAM_RANGE otherwise, after
   SS_ERR_NULL for a NULL cfg or kernel):
   1 <= vocab_a, classes <= SS_MODEL_MAX_VOCAB; vocab_b 0 (no second
   token table) or in [1, SS_MODEL_MAX_VOCAB]; 2 <= d <= SS_MODEL_MAX_D,
   even when positions are sinusoidal, d / heads even with rope; 1 <= heads
   <= SS_MODEL_MAX_HEADS dividing d; 1 <= layers <= SS_MODEL_MAX_LAYERS;
   positions an ss_positions; learned positions: 1 <= max_n <=
   SS_MODEL_MAX_N (ignored otherwise); norm an ss_model_norm; tied: classes
   == vocab_a; loss_at an ss_loss_at, SS_LOSS_AT_EVERY with causal;
   attention an exact-attention kernel (e.g. sdpa; SS_ERR_FAMILY for
   another family, SS_ERR_UNSUPPORTED for linear attention, which has no
   backward pass); normalizer a normalizer with a VJP (SS_ERR_NO_BACKWARD
   otherwise) whose norm_params pass ss_params_check; with
   train_norm_params, its float parameters are trained (one copy per layer
   in the parameter arena; SS_ERR_NO_BACKWARD when it has no parameter
   VJP); loss a loss kernel whose first parameter is the target
   (SS_ERR_UNSUPPORTED otherwise; e.g. cross_entropy), loss_params its
   parameters (loss_nparams of them, SS_ERR_PARAM_COUNT otherwise; the
   target's value is ignored: each row's is put there). */
typedef struct ss_model_config {
  uint32_t vocab_a, vocab_b, classes;
  uint32_t d, heads, layers;
  uint32_t mlp;               /* 1: the MLP block in every layer */
  uint32_t positions;         /* an ss_positions */
  uint32_t max_n;             /* learned positions: the table's rows */
  uint32_t causal;            /* 1: query i sees keys j <= i */
  uint32_t train_norm_params; /* 1: the normalizer's float parameters are trained */
  uint32_t feature;           /* 1: each item carries a scalar feature f_j (tensor u) */
  uint32_t norm;              /* an ss_model_norm */
  uint32_t tied;              /* 1: the unembedding is E_a (no unembed tensor) */
  uint32_t loss_at;           /* an ss_loss_at */
  uint64_t seed;              /* ss_model_init's draws */
  const ss_kernel_info *attention;
  const ss_kernel_info *normalizer;
  const double *norm_params;
  size_t norm_nparams;
  const ss_kernel_info *loss;
  const double *loss_params;
  size_t loss_nparams;
} ss_model_config;

/* The shape's checks above, alone. */
ss_status ss_model_check(const ss_model_config *cfg);
/* The same checks, and on a rejection what causes it: *field the name of
   the ss_model_config member to change ("heads", "d", "norm_params", ...;
   "cfg" for a NULL cfg) and *reason why, in a few words ("must divide d");
   both static strings, NULL on SS_OK. Of two members a rule relates, the
   one named is the one a caller picks (heads against d, tied against
   classes, causal against loss_at). field and reason may be NULL. */
ss_status ss_model_check_field(const ss_model_config *cfg, const char **field,
                               const char **reason);

/* What a parameter tensor is: it decides its init and whether an
   optimizer's weight decay applies (decay: embeddings and matrices, as
   nanoGPT decays every 2-D tensor; never gains, biases or trained
   normalizer parameters). */
typedef enum ss_tensor_kind {
  SS_TENSOR_EMBEDDING = 0,  /* a lookup table (tokens, positions) or the feature's u: N(0, std^2) */
  SS_TENSOR_MATRIX = 1,     /* a linear layer's weights, out x in: N(0, std^2) */
  SS_TENSOR_GAIN = 2,       /* a norm's gain: 1 */
  SS_TENSOR_BIAS = 3,       /* a norm's bias: 0 */
  SS_TENSOR_NORMALIZER = 4, /* the normalizer's trained parameters: cfg->norm_params */
  SS_TENSOR_KIND_COUNT = 5
} ss_tensor_kind;

/* The parameters are one float arena of ss_model_param_count(cfg) values
   (gradients: an arena of the same shape), tensor after tensor in this
   order, each row-major (rows x cols):
     embed_a (vocab_a x d), [embed_b (vocab_b x d), vocab_b > 0],
     [feature (1 x d: u), with feature], [positions (max_n x d), learned],
   then per layer l:
     attn_norm (1 x d: gain), [attn_norm_bias (1 x d), LayerNorm],
     wq, wk, wv, wo (d x d),
     [mlp_norm (1 x d), [mlp_norm_bias], w1 (4d x d), w2 (d x 4d), with mlp],
     [norm_params (1 x the normalizer's float parameters), trained only],
   then final_norm (1 x d), [final_norm_bias], [unembed (classes x d),
   not tied]. init_std: 0.02 for embeddings and matrices, 0.02 /
   sqrt(2 layers) for wo and w2 (GPT-2's scaling of the matrices that write
   into the residual stream), 0 for the other kinds.
   ss_model_param_count is 0 for a config ss_model_check rejects. */
typedef struct ss_model_tensor {
  const char *name; /* as above */
  uint32_t kind;    /* an ss_tensor_kind */
  uint32_t layer;   /* the layer of a per-layer tensor, else 0 */
  size_t offset;    /* in floats from the arena's start */
  size_t rows, cols;
  double init_std;  /* embeddings and matrices: the init's standard deviation */
} ss_model_tensor;
size_t ss_model_param_count(const ss_model_config *cfg);
/* The number of tensors (0 for a rejected config) and tensor i's place. */
size_t ss_model_tensor_count(const ss_model_config *cfg);
ss_status ss_model_tensor_at(const ss_model_config *cfg, size_t i, ss_model_tensor *out);

/* Bytes of workspace a forward, gradient or training step on batch
   examples of n positions needs (caller-provided: no allocation in core);
   0 for a rejected config, batch or n out of range (1 <= batch, 2 <= n <=
   SS_MODEL_MAX_N, 1 <= n with SS_LOSS_AT_EVERY: a language model reads a
   window of one token, n <= max_n with learned positions, batch n 4d <=
   SS_MAX_N) or a size beyond size_t. */
size_t ss_model_workspace_size(const ss_model_config *cfg, size_t batch, size_t n);
/* The smaller workspace ss_model_forward alone needs. */
size_t ss_model_forward_workspace_size(const ss_model_config *cfg, size_t batch, size_t n);

/* Seeded init (Philox normals under cfg->seed, one stream per tensor; the
   same bits in every build): embeddings and matrices N(0, init_std^2),
   gains 1, biases 0, trained normalizer parameters their values in
   cfg->norm_params. */
ss_status ss_model_init(const ss_model_config *cfg, float *params);

/* One batch: batch examples of n positions. tokens_a (batch n, below
   vocab_a), tokens_b (batch n, below vocab_b; read only when vocab_b > 0,
   may be NULL otherwise), feature (batch n, finite; read only with
   cfg->feature), target (below classes): batch values with
   SS_LOSS_AT_LAST, batch n with SS_LOSS_AT_EVERY. A token or target out of
   range is SS_ERR_DOMAIN. */
typedef struct ss_model_batch {
  size_t batch, n;
  const uint32_t *tokens_a, *tokens_b;
  const float *feature;
  const uint32_t *target;
} ss_model_batch;

/* What a forward reports. The read rows are the rows with a target:
   batch (SS_LOSS_AT_LAST) or batch n (SS_LOSS_AT_EVERY). loss: the mean
   of the loss over the read rows; accuracy: the fraction of read rows
   whose argmax logit (the lowest index among ties) is the target. The
   pointers are set by the caller, each may be NULL: pred (the read rows'
   argmax), logits (read rows x classes), query_attn (batch x heads x n:
   the last layer's attention weights of position n-1, head by head),
   maps (layers x heads x n x n: every row's weights, layer by layer, for
   example map_example), position_loss (n values: the loss at each
   position averaged over the batch; SS_LOSS_AT_EVERY only, else left
   alone), hidden ((layers + 1) x n x d: example map_example's residual
   stream entering each layer, then after the last; under
   SS_LOSS_AT_LAST the last layer's output is position n-1 alone, its other
   rows 0), values (layers x n x d: each layer's values v of example
   map_example, heads side by side): what sinks, value drains and massive
   activations are measured on. */
typedef struct ss_model_outputs {
  double loss, accuracy;
  uint32_t *pred;
  float *logits;
  float *query_attn;
  float *maps;
  size_t map_example;
  float *position_loss;
  float *hidden;
  float *values;
} ss_model_outputs;

/* The forward on one batch. work: work_bytes >= ss_model_forward_workspace_size
   (SS_ERR_BUFFER otherwise; a NULL work SS_ERR_NULL; ss_model_grad and
   ss_model_step need ss_model_workspace_size). Inputs are checked here,
   once (the layers inside are not): the config's statuses,
   SS_ERR_UNSUPPORTED for an impl not in this build, SS_ERR_PARAM_RANGE for
   batch or n out of range (or map_example >= batch with maps, hidden or
   values), the
   batch's SS_ERR_NULL / SS_ERR_DOMAIN / SS_ERR_NAN / SS_ERR_NONFINITE,
   params not finite (SS_ERR_NAN / SS_ERR_NONFINITE); then a layer's or the
   attention's error (an overflow: SS_ERR_DOMAIN); and a loss that is NaN
   or Inf: SS_ERR_DOMAIN, never SS_OK (out->loss then holds it). */
ss_status ss_model_forward(const ss_model_config *cfg, ss_impl impl, const float *params,
                           const ss_model_batch *b, void *work, size_t work_bytes,
                           ss_model_outputs *out);
/* The forward, then the backward: grads (ss_model_param_count floats, the
   arena's layout) = d(mean loss)/d(params), overwritten. out may be NULL. */
ss_status ss_model_grad(const ss_model_config *cfg, ss_impl impl, const float *params,
                        const ss_model_batch *b, void *work, size_t work_bytes, float *grads,
                        ss_model_outputs *out);

/* The optimizer of a training run: a registry optimizer with its
   parameters (registry order), applied to every tensor with its own slots
   and scalars, its lr times ss_schedule_factor(schedule, t, total, warmup,
   decay, min_factor) at step t (1-based), its weight_decay (if it has one)
   on embeddings and matrices only (ss_tensor_kind). An optimizer with a
   `cols` parameter (sage) gets each tensor's cols; a look-ahead optimizer
   (sam) takes its gradient at each tensor's own ascent point
   (ss_sam_perturb per tensor: layer-wise SAM), a second forward and
   backward per step. */
typedef struct ss_model_optim {
  const ss_kernel_info *optimizer;
  const double *params;
  size_t nparams;
  uint32_t schedule; /* an ss_schedule */
  double total, warmup, decay, min_factor;
} ss_model_optim;
/* Floats of optimizer state (the slots of every tensor, one after another)
   for cfg and optimizer k; 0 when either is rejected. The scalars are
   ss_model_tensor_count(cfg) x SS_OPT_SCALARS doubles. Both start zeroed. */
size_t ss_model_opt_state_size(const ss_model_config *cfg, const ss_kernel_info *k);

/* One training step: ss_model_grad at params, then the optimizer on every
   tensor (t = the steps taken so far + 1, read from the scalars). out (may
   be NULL) reports the forward before the update. Statuses: those of
   ss_model_grad, the optimizer's (SS_ERR_PARAM_RANGE for its parameters or
   the schedule's), and SS_ERR_DOMAIN when the loss is NaN or Inf or an
   update overflows: the run has diverged at this step (params and state are
   then unspecified: keep a copy to restart from). A trained normalizer
   parameter is held inside its registry range after each update (a closed
   bound is clamped to, an open one to the next float inside it). */
ss_status ss_model_step(const ss_model_config *cfg, ss_impl impl, const ss_model_optim *opt,
                        float *params, float *grads, float *state, double *scalars,
                        const ss_model_batch *b, void *work, size_t work_bytes,
                        ss_model_outputs *out);

/* The calibration inputs of weight matrix `tensor` (an index of
   ss_model_tensor_at) on one batch, for post-training quantization: the
   activations that multiply it in the forward, written cols x samples
   (row-major, sample by sample in row order: ss_adaround's X). wq, wk,
   wv: the layer's normed input (at its query rows for wq); wo: the
   attention output; w1: the second norm's output; w2: GELU's output;
   unembed (and embed_a when tied: the unembedding): the final norm's
   output. A layer's query rows are all batch n rows, except in the last
   layer under SS_LOSS_AT_LAST, which computes position n-1 alone: *samples
   = batch there for wq, wo, w1, w2 and the unembedding, batch n
   elsewhere. Other tensors (an untied embedding, the feature, positions,
   gains, biases, normalizer parameters) are not a linear layer's weights:
   SS_ERR_DOMAIN. Statuses: ss_model_forward's checks (work_bytes >=
   ss_model_forward_workspace_size), SS_ERR_NULL for a NULL samples,
   SS_ERR_LENGTH for tensor >= ss_model_tensor_count, SS_ERR_DOMAIN as
   above; *samples is then set, and out_cap 0 (out may then be NULL)
   queries the count: SS_OK; 0 < out_cap < cols samples is SS_ERR_BUFFER,
   a NULL out SS_ERR_NULL; then the forward's own statuses.
   core/src/model/model_inputs.c. */
ss_status ss_model_linear_inputs(const ss_model_config *cfg, ss_impl impl, const float *params,
                                 const ss_model_batch *b, void *work, size_t work_bytes,
                                 size_t tensor, float *out, size_t out_cap, size_t *samples);

/* Incremental decoding with a cache of keys and values, for a language
   model (SS_LOSS_AT_EVERY, one token table, no feature; SS_ERR_UNSUPPORTED
   otherwise): ss_model_decode feeds `count` tokens at positions pos .. pos
   + count - 1 and writes the next token's logits (classes floats): the
   last row of ss_model_forward on every token fed since position 0,
   computed on the new rows alone with every layer's keys and values of the
   earlier positions kept in `state` (ss_model_decode_size(cfg, max_n)
   bytes, max_n the positions it holds: 1 <= max_n <= SS_MODEL_MAX_N, <=
   cfg->max_n with learned positions; 0 otherwise). pos 0 starts a new
   sequence; each later call must continue at pos = the positions fed so far
   (the caller keeps that order), and the parameters must not change
   between pos 0 and the later calls (the state holds the matrices
   transposed, copied at pos 0). A prompt or a shifted window is one call of
   many tokens; generation one call a token. Statuses: the config's,
   SS_ERR_UNSUPPORTED, SS_ERR_NULL, SS_ERR_PARAM_RANGE (max_n, count 0, pos
   + count > max_n), SS_ERR_BUFFER (state_bytes too small), SS_ERR_DOMAIN (a
   token >= vocab_a; an overflow), params not finite (checked at pos 0).
   core/src/model/model_decode.c. */
size_t ss_model_decode_size(const ss_model_config *cfg, size_t max_n);
ss_status ss_model_decode(const ss_model_config *cfg, ss_impl impl, const float *params,
                          void *state, size_t state_bytes, size_t max_n, const uint32_t *tokens,
                          size_t count, size_t pos, float *logits);

/* Tasks (core/src/model/tasks.c, listed once in task_list.h): seeded
   generators of batches. Every draw is a Philox draw of (seed, stream =
   step, index): a batch is a pure function of (task, seed, step, batch,
   n), the same in every build.
   - SS_TASK_MAX_RETRIEVAL (Velickovic et al. 2024, "softmax is not enough"):
     items j < n-1 carry a value class a_j in [0, values) and a priority
     f_j ~ U(0, 1) (the feature); the query has a = values (QUERY), f = 0.
     Target: the value of the max-priority item (ties, 2^-23 apart: the
     first). vocab_a = values + 1, no second table, feature, classes =
     values, loss at the last position.
   - SS_TASK_KV_RETRIEVAL (needle; Nakanishi 2025, Scalable-Softmax): items
     are pairs (a = key k_j in [0, keys), b = value v_j in [0, values)); the
     query has a = keys + k* (a query copy of the key ids), b = values
     (NONE). k* appears exactly once among the items, at a uniform position;
     the other items' keys are drawn from the other keys (repeats allowed).
     Target: k*'s value. vocab_a = 2 keys, vocab_b = values + 1, classes =
     values, loss at the last position. keys >= 2.
   - SS_TASK_KV_OR_NONE (softpick, Zuhri et al. 2025: where attention sinks
     appear): as KV_RETRIEVAL with a BOS item first (a = 2 keys, b =
     values), and with probability 1/2 the query key is absent from the
     items: target NONE = values. vocab_a = 2 keys + 1, vocab_b = values +
     1, classes = values + 1. n >= 3.
   - SS_TASK_BIGRAM_BACKCOPY (Guo et al. 2024, "Active-Dormant Attention
     Heads", arXiv 2410.13835): a language of `values` = V tokens (ids 0 ..
     V-1) plus BOS = V; tokens 0 .. keys-1 are the k triggers (1 <= keys <
     V <= 1024). A fixed seeded transition table (tasks.h's seed, the same
     for every run seed; task_bigram_backcopy.c) gives each token's
     next-token distribution. A sequence is BOS, then a token uniform over
     the non-triggers keys .. V-1 (as the paper's code: so no trigger
     follows BOS or a trigger), then: after a trigger, the token before the
     trigger (a copy); otherwise a draw from the previous token's row.
     tokens_a = the sequence's first n tokens, target = the next n (the
     language model's targets: loss at every position). vocab_a = classes =
     V + 1, no second table, no feature.
   Uniform integers in [0, m) are floor(u32 m / 2^32) (bias below m 2^-32);
   the bigram draws floor(u64 W / 2^64) over a row's integer weights. */
typedef enum ss_task_kind {
  SS_TASK_MAX_RETRIEVAL = 0,
  SS_TASK_KV_RETRIEVAL = 1,
  SS_TASK_KV_OR_NONE = 2,
  SS_TASK_BIGRAM_BACKCOPY = 3,
  SS_TASK_COUNT = 4
} ss_task_kind;
typedef struct ss_task {
  uint32_t kind;   /* an ss_task_kind */
  uint32_t values; /* value classes, 2 .. SS_MODEL_MAX_VOCAB - 1 (bigram_backcopy: V, 2 .. 1024) */
  uint32_t keys;   /* key ids (kv tasks: 2 .. SS_MODEL_MAX_VOCAB / 2 - 1); triggers (bigram_backcopy: 1 .. V - 1) */
} ss_task;
/* What a model for a task needs: its vocabularies (vocab_b 0: none),
   classes, whether items carry a feature, where the loss reads, and the
   least n of an example. */
typedef struct ss_task_shape {
  uint32_t vocab_a, vocab_b, classes;
  uint32_t feature; /* 0 or 1 */
  uint32_t loss_at; /* an ss_loss_at */
  uint32_t min_n;
} ss_task_shape;
/* "max_retrieval", "kv_retrieval", "kv_or_none", "bigram_backcopy"; NULL
   past the end. */
const char *ss_task_name(uint32_t kind);
/* The task's shape (SS_ERR_NULL, SS_ERR_PARAM_RANGE for the task's fields). */
ss_status ss_task_shape_of(const ss_task *task, ss_task_shape *out);
/* The shape's vocabularies and classes alone (the JS API's call until it
   reads ss_task_shape_of). */
ss_status ss_task_dims(const ss_task *task, uint32_t *vocab_a, uint32_t *vocab_b,
                       uint32_t *classes);
/* One batch into the caller's arrays: tokens_a (batch n), tokens_b and
   feature (batch n each, written when not NULL: zeros where the task has
   none), target (batch, or batch n for a task whose loss is at every
   position). 1 <= batch, min_n <= n <= SS_MODEL_MAX_N, batch n <=
   SS_MAX_N (else SS_ERR_PARAM_RANGE); seed and step any 64-bit values. */
ss_status ss_task_batch(const ss_task *task, uint64_t seed, uint64_t step, size_t batch, size_t n,
                        uint32_t *tokens_a, uint32_t *tokens_b, float *feature, uint32_t *target);

/* Text as tokens (core/src/model/text.c), for language modelling.
   ss_text_batch: batch windows of a token sequence text (len tokens, each
   below vocab), each starting at a uniform offset (Philox (seed, stream =
   step, index = e)): without BOS (bos = SS_TEXT_NO_BOS) tokens = text[s ..
   s+n), target = text[s+1 .. s+n] (s <= len - n - 1, as nanoGPT's
   get_batch); with a BOS id, tokens = BOS, text[s .. s+n-1), target =
   text[s .. s+n) (s <= len - n). Statuses: SS_ERR_NULL, SS_ERR_PARAM_RANGE
   for batch 0, n < 1, n > SS_MODEL_MAX_N, batch n > SS_MAX_N, a text too
   short for one window, SS_ERR_DOMAIN for a text token >= vocab or a bos
   >= vocab (other than SS_TEXT_NO_BOS). */
#define SS_TEXT_NO_BOS UINT32_MAX
ss_status ss_text_batch(const uint32_t *text, size_t len, uint32_t vocab, uint32_t bos,
                        uint64_t seed, uint64_t step, size_t batch, size_t n, uint32_t *tokens,
                        uint32_t *target);
/* An English-like text from a seeded grammar (core/src/model/grammar.c):
   sentences of subjects, verbs, objects, adjectives, adverbs,
   prepositional phrases and relative clauses, capitalised and punctuated,
   in lowercase ASCII letters, space, '.', ',', '\n' and capitals: the
   default corpus of the language view. Writes exactly len bytes (a whole
   number of sentences, then the start of the next cut at len) to out, no
   terminating NUL; the same bytes for the same seed in every build.
   SS_ERR_NULL, SS_ERR_PARAM_RANGE for len 0 or len > SS_MAX_N. */
ss_status ss_grammar_text(uint64_t seed, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* SOFTSCOPE_H */
