/*
 * The one way a kernel pairs its scalar reference and its SIMD128 version.
 *
 * A registry slot holds one function per impl; SS_IMPLS(name) fills it with
 * name_scalar and name_simd (NULL in the scalar-only build, where no _simd
 * function is compiled):
 *
 *   .normalize = SS_IMPLS(softmax),
 *
 * A function whose one body serves both impls (its code has no SIMD part:
 * a sampler's VJP that only recreates scalar noise) fills both entries:
 * SS_IMPLS_SHARED(f).
 *
 * Where the scalar and the SIMD versions are the same steps with different
 * helpers, the body is written once as an SS_ALWAYS_INLINE function whose
 * argument `impl` (SS_IMPL_SCALAR or SS_IMPL_SIMD, a constant once inlined)
 * picks the helpers with SS_BY_IMPL, and one macro per registry signature
 * writes the two entry points from it (as XNNPACK's templates do):
 *
 *   SS_ALWAYS_INLINE ss_status sum_run(ss_impl impl, const float *p, const float *q,
 *                                      size_t n, const double *params, double *out) {
 *     (void)q, (void)params;
 *     *out = SS_BY_IMPL(impl, ss_sum64)(p, n);
 *     return SS_OK;
 *   }
 *   SS_MEASURE_IMPLS(sum, sum_run)      -> sum_scalar, sum_simd
 *
 * Constants that tell a file's kernels apart (a mode, a format) come before
 * impl: SS_STEP_IMPLS(adamw, adam_run, ADAMW) writes adamw_scalar /
 * adamw_simd calling adam_run(ADAMW, impl, w, g, n, params, t, slots,
 * scalars). They must be constants, not expressions of the arguments.
 *
 * The body must be SS_ALWAYS_INLINE: a body compiled out of line holds
 * both impls' calls, and the scalar reference would then reach SIMD code
 * (tests/build-checks.sh checks that name_scalar holds no SIMD lane
 * instruction, itself or through its callees, and name_simd some).
 * Kernels whose SIMD version is its own algorithm (hand-written vector
 * loops against the scalar reference loops they are tested against) keep
 * two functions, name_scalar and name_simd, and pair them with SS_IMPLS.
 */
#ifndef SS_COMMON_IMPL_PAIR_H
#define SS_COMMON_IMPL_PAIR_H

#include "common/simd.h"
#include "softscope.h"

/* The registry slot of a kernel's two entry points name_scalar, name_simd. */
#define SS_IMPLS(name) {name##_scalar, SS_SIMD(name##_simd)}
/* The registry slot of one function serving both impls. */
#define SS_IMPLS_SHARED(f) {f, SS_SIMD(f)}

/* What a SIMD version returns for an input it cannot answer (a bound its
   float intermediates need: the model layers' 2^64 and 2^124): the one way
   it declines. Its caller then asks the scalar reference
   (SS_RETURN_BY_IMPL; the registry dispatcher, registry/dispatch.h), so no
   caller of the core ever sees it: one past softscope.h's last status. */
#define SS_DECLINED SS_STATUS_COUNT

/* SS_IF_SIMD(code): the code in builds with SIMD, nothing in the scalar-only
   build. SS_BY_IMPL(impl, f): f_simd for SS_IMPL_SIMD, f_scalar otherwise
   (always f_scalar without SIMD, where f_simd does not exist): the one way
   code outside the registry picks by a run-time impl.
   SS_RETURN_BY_IMPL(impl, f, (args)): returns f_simd(args) for SS_IMPL_SIMD
   unless that declined (SS_DECLINED), else f_scalar(args). */
#if SS_HAVE_SIMD
#define SS_IF_SIMD(...) __VA_ARGS__
#define SS_BY_IMPL(impl, f) ((impl) == SS_IMPL_SIMD ? f##_simd : f##_scalar)
#define SS_RETURN_BY_IMPL(impl, f, args)                                               \
  do {                                                                                 \
    if ((impl) == SS_IMPL_SIMD) {                                                      \
      const ss_status ss_simd_ = f##_simd args;                                        \
      if (ss_simd_ != SS_DECLINED) return ss_simd_;                                    \
    }                                                                                  \
    return f##_scalar args;                                                            \
  } while (0)
#else
#define SS_IF_SIMD(...)
#define SS_BY_IMPL(impl, f) ((void)(impl), f##_scalar)
#define SS_RETURN_BY_IMPL(impl, f, args) return ((void)(impl), f##_scalar args)
#endif

/* name_scalar and name_simd with the signature `params` returning `ret`,
   each calling body([constants,] impl, args). */
#define SS_UNPAREN_(...) __VA_ARGS__
#define SS_CALL_(body, ...) body(__VA_ARGS__)
#define SS_PAIR_(ret, name, params, args, ...)                                         \
  static ret name##_scalar params {                                                    \
    return SS_CALL_(__VA_ARGS__, SS_IMPL_SCALAR, SS_UNPAREN_ args);                     \
  }                                                                                    \
  SS_IF_SIMD(static ret name##_simd params {                                           \
    return SS_CALL_(__VA_ARGS__, SS_IMPL_SIMD, SS_UNPAREN_ args);                       \
  })

/* One macro per registry signature (softscope.h); `...` is the body, then
   the kernel's constants if any. */
#define SS_NORMALIZE_IMPLS(name, ...)                                                  \
  SS_PAIR_(ss_status, name, (const float *x, size_t n, const double *params, float *y),  \
           (x, n, params, y), __VA_ARGS__)
#define SS_NORMALIZE_VJP_IMPLS(name, ...)                                              \
  SS_PAIR_(ss_status, name,                                                            \
           (const float *x, const float *y, const float *g, size_t n,                  \
            const double *params, float *dx),                                          \
           (x, y, g, n, params, dx), __VA_ARGS__)
#define SS_NORMALIZE_PARAM_VJP_IMPLS(name, ...)                                        \
  SS_PAIR_(ss_status, name,                                                            \
           (const float *x, const float *y, const float *g, size_t n,                  \
            const double *params, double *dparams),                                    \
           (x, y, g, n, params, dparams), __VA_ARGS__)
#define SS_MEASURE_IMPLS(name, ...)                                                    \
  SS_PAIR_(ss_status, name,                                                            \
           (const float *p, const float *q, size_t n, const double *params, double *out), \
           (p, q, n, params, out), __VA_ARGS__)
#define SS_MEASURE_VJP_IMPLS(name, ...)                                                \
  SS_PAIR_(ss_status, name,                                                            \
           (const float *p, size_t n, const double *params, double g, float *dp),      \
           (p, n, params, g, dp), __VA_ARGS__)
#define SS_LOSS_IMPLS(name, ...)                                                       \
  SS_PAIR_(ss_status, name,                                                            \
           (const float *x, size_t n, const double *params, double *loss, float *grad), \
           (x, n, params, loss, grad), __VA_ARGS__)
#define SS_SAMPLE_IMPLS(name, ...)                                                     \
  SS_PAIR_(ss_status, name,                                                            \
           (const float *x, size_t n, const double *params, float *probs,              \
            uint32_t *indices, float *samples),                                        \
           (x, n, params, probs, indices, samples), __VA_ARGS__)
#define SS_SAMPLE_VJP_IMPLS(name, ...)                                                 \
  SS_PAIR_(ss_status, name,                                                            \
           (const float *x, size_t n, const double *params, const float *g, float *dx), \
           (x, n, params, g, dx), __VA_ARGS__)
#define SS_QUANTIZE_IMPLS(name, ...)                                                   \
  SS_PAIR_(ss_status, name,                                                            \
           (const float *x, size_t n, const double *params, int32_t *codes, float *y), \
           (x, n, params, codes, y), __VA_ARGS__)
#define SS_STEP_IMPLS(name, ...)                                                       \
  SS_PAIR_(ss_status, name,                                                            \
           (float *w, const float *g, size_t n, const double *params, uint64_t t,      \
            float *slots, double *scalars),                                            \
           (w, g, n, params, t, slots, scalars), __VA_ARGS__)
#define SS_ATTEND_IMPLS(name, ...)                                                     \
  SS_PAIR_(ss_status, name, (const ss_attention_io *io, const double *params),         \
           (io, params), __VA_ARGS__)
#define SS_ATTEND_VJP_IMPLS(name, ...)                                                 \
  SS_PAIR_(ss_status, name,                                                            \
           (const ss_attention_io *io, const double *params, const float *dout,        \
            float *dq, float *dk, float *dv, double *dnorm_params),                    \
           (io, params, dout, dq, dk, dv, dnorm_params), __VA_ARGS__)
#define SS_KERNEL_ESTIMATE_IMPLS(name, ...)                                            \
  SS_PAIR_(ss_status, name,                                                            \
           (const ss_attention_io *io, const double *params, double *est),             \
           (io, params, est), __VA_ARGS__)

#endif
