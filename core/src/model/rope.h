/*
 * Rotary position embedding for the model (core/src/model/rope.c): a table
 * of cos and sin computed once, and the rotation by it, without the public
 * entry points' checks. ss_rope / ss_rope_backward give the same bits as
 * ss_rope_table + ss_rope_apply (each cos and sin is the same double
 * formula rounded to float, the rotation the same float operations):
 *
 *   angle(p, i) = (double)p * pow(base, -2.0 * i / hd)     (in double)
 *   cs[2 (p (hd/2) + i)]     = (float)cos(angle(p, i))
 *   cs[2 (p (hd/2) + i) + 1] = (float)sin(angle(p, i))
 */
#ifndef SS_MODEL_ROPE_H
#define SS_MODEL_ROPE_H

#include <stdbool.h>
#include <stddef.h>

#include "softscope.h"

/* cos and sin of p theta_i for p < positions, i < hd/2: cs[2 (p (hd/2) + i)]
   = cos, [+1] = sin, each computed in double and rounded to float (cs holds
   positions hd floats). hd even, base > 1. */
void ss_rope_table(size_t positions, size_t hd, double base, float *cs);

/* x (rows x d, heads of hd = d / heads) rotated in place by the table
   (inverse: by -angle, the backward); row r's position p0 + r % period;
   the table must hold positions up to p0 + period - 1 (or p0 + rows - 1
   when rows < period). impl SS_IMPL_SCALAR or SS_IMPL_SIMD (the SIMD one
   only in builds that have it). No checks. */
void ss_rope_apply(ss_impl impl, float *x, size_t rows, size_t d, size_t heads, size_t period,
                   size_t p0, const float *cs, bool inverse);

#endif
