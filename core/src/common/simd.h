/*
 * One source for SIMD code: kernels are written with the wasm_simd128.h
 * intrinsics. In a wasm build with -msimd128 they are the real thing; natively
 * they compile through SIMDe (which maps them to SSE/NEON and keeps wasm's
 * semantics, e.g. NaN propagation in f32x4.max), so the same SIMD code is
 * tested under sanitizers and valgrind. A wasm build without -msimd128 (the
 * scalar fallback build) has no SIMD at all: SS_HAVE_SIMD is 0 and each
 * kernel registers only its scalar reference.
 */
#ifndef SS_COMMON_SIMD_H
#define SS_COMMON_SIMD_H

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define SS_HAVE_SIMD 1
#elif defined(__wasm__)
#define SS_HAVE_SIMD 0
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/wasm/simd128.h>
#define SS_HAVE_SIMD 1
#endif

/* Relaxed SIMD (the third wasm build, clang-19 -mrelaxed-simd): SS_RELAXED
   is 1 there and 0 in every other build. Only kernels that state an error
   bound holding both with and without fused multiply-add use it, through
   ss_madd_relaxed below (their registry entry says so in .relaxed_simd); anything
   pinned bit for bit (seeded draws, hashes, quantizer rounding) keeps
   ss_mul_add and is the same plain SIMD128 code in every build. */
#if defined(__wasm_relaxed_simd__)
#define SS_RELAXED 1
#else
#define SS_RELAXED 0
#endif

#if SS_HAVE_SIMD
/* a * b + c rounded twice (mul, then add): bit-identical everywhere. */
static inline v128_t ss_mul_add(v128_t a, v128_t b, v128_t c) {
  return wasm_f32x4_add(wasm_f32x4_mul(a, b), c);
}
/* a * b + c for relaxed kernels: f32x4.relaxed_madd in the relaxed build,
   which the engine runs fused (one rounding, CPUs with FMA) or not (two
   roundings, ss_mul_add); ss_mul_add in the other builds, which is the
   unfused case. A kernel that uses it is tested in both cases: the SIMD
   builds run it unfused, the relaxed build fused on FMA machines. */
static inline v128_t ss_madd_relaxed(v128_t a, v128_t b, v128_t c) {
#if SS_RELAXED
  return wasm_f32x4_relaxed_madd(a, b, c);
#else
  return ss_mul_add(a, b, c);
#endif
}
/* Lanes of v where the all-ones / all-zeros lane mask `keep` is set, +0
   elsewhere. A plain AND would do, but clang turns and(v, mask) into a
   select that V8 lowers to three instructions (andn, and, or) plus a zero
   constant; relaxed_laneselect is one blendv. The result is the same in
   every build: the mask lanes are all ones or all zeros. */
static inline v128_t ss_keep(v128_t v, v128_t keep) {
#if SS_RELAXED
  return wasm_i32x4_relaxed_laneselect(v, wasm_i32x4_splat(0), keep);
#else
  return wasm_v128_and(v, keep);
#endif
}
#endif

/* SS_SIMD(f) names the SIMD function in a registry entry, or NULL when the
   build has no SIMD (the function is then not compiled). */
#if SS_HAVE_SIMD
#define SS_SIMD(f) f
#else
#define SS_SIMD(f) NULL
#endif

/* A kernel body written once and force-inlined into its _scalar and _simd
   entry points, so each calls its own impl's helpers directly (checked by
   tests/build-checks.sh). */
#define SS_ALWAYS_INLINE static inline __attribute__((always_inline))

#endif
