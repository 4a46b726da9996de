/* The online (max, sum) accumulation of online_softmax.c, shared with the
   fused top-k of softmax_topk.c. */
#ifndef SS_ONLINE_INTERNAL_H
#define SS_ONLINE_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/simd.h"
#include "softscope.h"

/* exp(a - b) for a <= b (b finite), with the rounding error of fl(a - b)
   folded back in (TwoSum), as the three-pass scalar reference does. Below
   -104 expf is 0 anyway; the test also keeps a - b = -Inf (a = -FLT_MAX,
   b = FLT_MAX overflows, TwoSum's error is then NaN) or a = -Inf out. */
static inline float ss_online_exp_diff(float a, float b) {
  const float d = a - b, bb = a - d, da = d + bb;
  if (!(d > -104.0f)) return 0.0f;
  const float err = (a - da) + (bb - b);
  return expf(d) * (1.0f + err);
}

/* Fold one logit into a running (max m, sum d = sum exp(x - m)):
     x > m:  d <- d e^{m - x} + 1,  m <- x     (m = -Inf: d = 0 stays 0)
     else:   d <- d + e^{x - m}                (x = -Inf adds nothing)
   Returns false on NaN or +Inf (the state is then left as it was). */
static inline bool ss_online_step(float v, float *m, double *d) {
  if (v > *m) {
    if (v == INFINITY) return false;
    *d = *d * exp((double)*m - (double)v) + 1.0;
    *m = v;
  } else if (v != -INFINITY) {
    if (isnan(v)) return false;
    *d += (double)ss_online_exp_diff(v, *m);
  }
  return true;
}

/* (m, d) <- the state of both streams. -Inf states are the identity. */
void ss_online_merge(float *m, double *d, float mb, double db);

/* y_i = exp(x_i - m) / d for a finite m >= every x_i (x_i = -Inf gives 0).
   In place (y == x) is fine. */
void ss_online_apply_scalar(const float *x, size_t n, float m, double d,
                            float *y);

#if SS_HAVE_SIMD
/* Per-lane running maxima and sums (4 accumulator pairs) plus the state they
   are flushed into every SS_SUM_BLOCK elements. */
typedef struct ss_online_lanes {
  v128_t m[4], s[4];
  float max;
  double sum;
} ss_online_lanes;

void ss_online_lanes_init(ss_online_lanes *a);
/* Fold x[0..n) into a; a->max / a->sum hold the state of everything added
   so far when it returns. Returns false once it has seen NaN or +Inf (a is
   then unusable; classify the input with ss_check_logits). */
bool ss_online_lanes_add(ss_online_lanes *a, const float *x, size_t n);
void ss_online_apply_simd(const float *x, size_t n, float m, double d,
                          float *y);
#endif

#endif
