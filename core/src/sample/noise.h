/* Per-draw noise for the samplers (noise.c). `first` is a Philox block
   index: the uniforms of draw d of an n-vector start at block
   d * ss_blocks_per_draw(n), so any draw can be recreated alone (a VJP
   regenerates the forward noise this way). */
#ifndef SS_SAMPLE_NOISE_H
#define SS_SAMPLE_NOISE_H

#include <stddef.h>
#include <stdint.h>

#include "common/simd.h"
#include "softscope.h"

/* A noise generator: out[0..n) from blocks first.. of (seed, stream). */
typedef void (*ss_noise_fn)(uint64_t seed, uint64_t stream, uint64_t first, size_t n, float *out);

/* g[0..n) = -log(-log u) for the uniforms of blocks first.. of (seed, stream). */
void ss_gumbel_noise_scalar(uint64_t seed, uint64_t stream, uint64_t first, size_t n, float *g);
#if SS_HAVE_SIMD
void ss_gumbel_noise_simd(uint64_t seed, uint64_t stream, uint64_t first, size_t n, float *g);
#endif
/* The one of the two that impl names (bit-identical either way). */
void ss_gumbel_noise(ss_impl impl, uint64_t seed, uint64_t stream, uint64_t first, size_t n, float *g);

#endif
