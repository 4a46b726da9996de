#include "reference.h"

#include <math.h>

void ref_softmax(const float *x, size_t n, double beta, double *out) {
  double m = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (x[i] > m) m = x[i];
  double s = 0.0;
  for (size_t i = 0; i < n; i++) {
    out[i] = x[i] == -INFINITY ? 0.0 : exp(beta * ((double)x[i] - m));
    s += out[i];
  }
  for (size_t i = 0; i < n; i++) out[i] /= s;
}

double ref_logsumexp(const float *x, size_t n) {
  double m = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (x[i] > m) m = x[i];
  double s = 0.0;
  for (size_t i = 0; i < n; i++)
    if (x[i] != -INFINITY) s += exp((double)x[i] - m);
  return m + log(s);
}

double ref_max_rel_err(const float *y, const double *ref, size_t n,
                       double floor, size_t *at) {
  double worst = 0.0;
  size_t w = 0;
  for (size_t i = 0; i < n; i++) {
    double e;
    if (fabs(ref[i]) >= floor)
      e = fabs((double)y[i] - ref[i]) / fabs(ref[i]);
    else
      e = fabs((double)y[i] - ref[i]) > floor ? INFINITY : 0.0;
    if (!(e <= worst)) { /* also catches NaN */
      worst = isnan(e) ? INFINITY : e;
      w = i;
    }
  }
  if (at) *at = w;
  return worst;
}
