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
