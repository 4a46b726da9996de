/* Float64 references written independently of the library, for tests. */
#ifndef SS_TEST_REFERENCE_H
#define SS_TEST_REFERENCE_H

#include <stddef.h>

/* softmax in double: out[i] = exp(x_i - m) / sum. -Inf entries give 0. */
void ref_softmax(const float *x, size_t n, double beta, double *out);
/* log-sum-exp in double. */
double ref_logsumexp(const float *x, size_t n);

/* Max relative error of y against ref over entries with ref >= floor;
   entries below floor must satisfy |y - ref| <= floor. Index of the worst in *at. */
double ref_max_rel_err(const float *y, const double *ref, size_t n,
                       double floor, size_t *at);

#endif
