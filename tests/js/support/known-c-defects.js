// C kernel defects that tests/js/param-extremes.test.js exposes (issue 17),
// by `kernel.parameter`, with the failing call. The JS side cannot fix them;
// the tests of these pairs are marked so the suite stays green until C does,
// and each entry goes when its fix lands (an it.fails test that starts to
// pass fails, which says so).
//
// Empty: every defect listed here before is fixed in C, and each has a named
// C regression test (tests/c/test_regressions.c): ssmax.s
// (regress_ssmax_s_1e_50_is_not_nan), the samplers' temperature / tau at
// 5e-324 (regress_*temperature* / regress_gumbel_softmax_tau_5e_324), fp8
// scale (regress_fp8_scale_1e_50), LARS / LAMB on large weights
// (regress_optimizer_norms_in_double), the optimizers' eps
// (regress_optimizer_eps_below_float), adagrad_norm b0 and adam_atan2 b
// (regress_optimizer_tiny_b0_and_b).

/** Fixed, or assigned, in a C branch: it.fails. */
export const PENDING_C_FIXES = {};

/** Found by these tests and in no C branch's list yet (reported to the lead):
 *  skipped, not it.fails, so they are not taken for claimed work. */
export const UNCLAIMED_C_DEFECTS = {};
