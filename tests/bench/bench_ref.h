/* Pieces of the benchmark that are not timing: the input generator, the
   float64 references the accuracy column is measured against, and the naive
   C softmax used as a baseline (the loop XNNPACK's 5.7x figure compares to). */
#ifndef SS_BENCH_REF_H
#define SS_BENCH_REF_H

#include <stddef.h>
#include <stdint.h>

/* x[i] uniform in [lo, hi) from a splitmix64 stream with this seed. */
void bench_fill_uniform(float *x, size_t n, uint64_t seed, float lo, float hi);

/* Float64 softmax (log_out = 0) or log-softmax (log_out = 1) of x. */
void bench_ref_softmax64(const float *x, size_t n, int log_out, double *out);

/* Accuracy of y against the float64 reference ref (same kind as y).
   Probabilities: max |y - ref| / ref over ref >= floor.
   Log-probabilities: max |y - ref| over exp(ref) >= floor, which is the
   relative error of the implied probability exp(y) to first order.
   Returns +Inf if any compared y is NaN. *at gets the worst index. */
double bench_max_rel_err(const float *y, const double *ref, size_t n,
                         int log_out, double floor, size_t *at);

/* The softmax a C programmer writes first: float max, expf, float sum, divide. */
void bench_naive_softmax(const float *x, size_t n, float *y);

#endif
