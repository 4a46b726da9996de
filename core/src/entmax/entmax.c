/*
 * entmax_bisect and entmax_halley — alpha-entmax (Peters, Niculae & Martins
 * 2019), the same function solved two ways:
 *
 *   y_i = [(alpha - 1) x_i - tau]_+^{1/(alpha-1)},   tau: sum_i y_i = 1,
 *   tau in [(alpha-1) max x - 1, (alpha-1) max x - n_eff^{-(alpha-1)}].
 *
 * alpha -> 1 tends to softmax, alpha = 2 is sparsemax, alpha = 1.5 the
 * "entmax15" of the paper; for every alpha > 1 entries below the threshold
 * get exactly 0.
 *
 * Solvers (entmax_solve.c), one O(n) pass per iteration:
 *   entmax_bisect: bisection of the bracket of tau;
 *   entmax_halley: Halley steps with f, f', f'' from one pass, bisection when
 *     a step leaves the bracket (AdaSplash, Goncalves et al. 2025), with four
 *     measured additions (entmax_solve.c): the bracket ends as targets, a
 *     nearest-support-change model for alpha > 2, a log-log Newton step far
 *     from the root, an Illinois secant as the fallback.
 * Stopping rule of both registry kernels: stop when |sum y - 1| <= 1e-6, or
 * no representable progress is left, or after 100 iterations; then y is
 * divided by its sum. (ss_entmax_solve takes tol and max_iter.)
 * Measured passes (tol 1e-6, alpha 1.001..10, n = 2^10, 2^16, 2^20, both
 * impls): Gaussian rows, bisection 19-30 on average, Halley 2.3-4.8 (max 7);
 * uniform rows (a dense top), bisection 21-37, Halley 2.3-7.5 (max 13).
 * Time per element, n = 2^16 (wasm SIMD, node): Halley 3.5-4 ns at alpha =
 * 1.5 and 2 (softmax: 1.9 ns), 8-13 ns for general alpha (log + exp per
 * support entry); bisection 3-5x that.
 *
 * Backward: dx = s (g - gbar), s = y^{2-alpha} on the support,
 * gbar = sum s g / sum s; dalpha = sum (g - gbar) y (1 - (alpha-1) log y) /
 * (alpha-1)^2 (Correia et al. 2019; derivation in entmax_backward.c).
 *
 * Accuracy (tests/c/test_entmax_bisect.c): |y - y64| <= 1e-6 absolute for
 * alpha in [1.25, 2] against a float64 sort-based reference, exact at
 * alpha = 2 and 1.5 against closed forms within the same bound; sum y = 1
 * within 1e-6.
 */
#include "common/impl_pair.h"
#include "entmax/entmax_internal.h"

static const ss_param_info entmax_params[] = {SS_EM_ALPHA_PARAM(
    "alpha > 1: -> 1 is softmax, 1.5 entmax15, 2 sparsemax; larger is sparser")};

/* ---- entry points: ss_em_* of entmax_forward.c / entmax_backward.c ---- */

SS_ALWAYS_INLINE ss_status forward_run(ss_entmax_solver solver, ss_impl impl, const float *x,
                                       size_t n, const double *params, float *y) {
  const unsigned max_iter =
      solver == SS_ENTMAX_BISECT ? SS_EM_MAX_ITER_BISECT : SS_EM_MAX_ITER_HALLEY;
  return SS_BY_IMPL(impl, ss_em_forward)(solver, x, n, params[0], 1.0, SS_EM_TOL, max_iter, y,
                                         NULL, NULL);
}

SS_ALWAYS_INLINE ss_status vjp_run(ss_impl impl, const float *x, const float *y, const float *g,
                                   size_t n, const double *params, float *dx) {
  (void)x;
  SS_BY_IMPL(impl, ss_em_vjp)(y, g, n, params[0], 1.0, dx);
  return SS_OK;
}

SS_ALWAYS_INLINE ss_status param_vjp_run(ss_impl impl, const float *x, const float *y,
                                         const float *g, size_t n, const double *params,
                                         double *dparams) {
  SS_BY_IMPL(impl, ss_em_param)(x, y, g, n, params[0], &dparams[0], NULL);
  return SS_OK;
}

SS_NORMALIZE_IMPLS(bisect, forward_run, SS_ENTMAX_BISECT)
SS_NORMALIZE_IMPLS(halley, forward_run, SS_ENTMAX_HALLEY)
SS_NORMALIZE_VJP_IMPLS(entmax_vjp, vjp_run)
SS_NORMALIZE_PARAM_VJP_IMPLS(entmax_param_vjp, param_vjp_run)

/* ---- registry entries and direct calls ---------------------------------- */

#define ENTMAX_FORMULA                                                      \
  "y_i = [(alpha-1) x_i - tau]_+^{1/(alpha-1)}, tau such that sum y = 1; " \
  "VJP: dx = s (g - sum(s g)/sum(s)), s = y^{2-alpha} on the support; "     \
  "dalpha = sum (g - gbar) y (1 - (alpha-1) log y) / (alpha-1)^2"

/* The descriptor fields both kernels share (one parameter, the same VJPs);
   `fwd` names their forward entry points. */
#define ENTMAX_KERNEL(fwd)                                                      \
  .family = SS_FAMILY_NORMALIZER, .formula = ENTMAX_FORMULA, .nparams = 1,      \
  .params = entmax_params, .input = SS_INPUT_LOGITS, .output = SS_OUTPUT_PROBS, \
  .has_backward = true, .has_param_backward = true, .normalize = SS_IMPLS(fwd), \
  .normalize_vjp = SS_IMPLS(entmax_vjp),                                        \
  .normalize_param_vjp = SS_IMPLS(entmax_param_vjp)

const ss_kernel_info ss_kernel_entmax_bisect = {
    .name = "entmax_bisect",
    ENTMAX_KERNEL(bisect),
    .summary = "alpha-entmax by bisection on tau (|sum - 1| <= 1e-6 or 100 iterations)",
    .paper = "Peters, Niculae & Martins 2019, 'Sparse Sequence-to-Sequence Models'; "
             "alpha gradient: Correia, Niculae & Martins 2019, 'Adaptively Sparse "
             "Transformers'",
};

const ss_kernel_info ss_kernel_entmax_halley = {
    .name = "entmax_halley",
    ENTMAX_KERNEL(halley),
    .summary = "alpha-entmax by Halley steps with bisection fallback "
               "(|sum - 1| <= 1e-6 or 100 iterations)",
    .paper = "Goncalves, Treviso & Martins 2025, 'AdaSplash: Adaptive Sparse Flash "
             "Attention' (Halley-bisection); Peters, Niculae & Martins 2019, 'Sparse "
             "Sequence-to-Sequence Models'; Correia, Niculae & Martins 2019, "
             "'Adaptively Sparse Transformers'",
};

ss_status ss_entmax_bisect(const float *x, size_t n, double alpha, float *y) {
  return ss_normalize(&ss_kernel_entmax_bisect, ss_impl_default(), x, n, &alpha, 1, y);
}

ss_status ss_entmax_halley(const float *x, size_t n, double alpha, float *y) {
  return ss_normalize(&ss_kernel_entmax_halley, ss_impl_default(), x, n, &alpha, 1, y);
}
