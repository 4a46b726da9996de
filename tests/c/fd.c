#include "fd.h"

double fd_central64(fd_fn64 f, const void *ctx, double *v, size_t n, size_t i, double h) {
  const double s = v[i];
  v[i] = s + h;
  const double a = f(v, n, ctx);
  v[i] = s - h;
  const double b = f(v, n, ctx);
  v[i] = s;
  return (a - b) / (2.0 * h);
}

double fd_central32(fd_fn32 f, const void *ctx, float *v, size_t n, size_t i, double h) {
  const float s = v[i];
  const float up = (float)((double)s + h), dn = (float)((double)s - h);
  v[i] = up;
  const double a = f(v, n, ctx);
  v[i] = dn;
  const double b = f(v, n, ctx);
  v[i] = s;
  return (a - b) / ((double)up - (double)dn);
}

double fd_along32(fd_fn32 f, const void *ctx, const float *v, size_t n, const float *d, double h,
                  const float *grad, double *pred, float *work) {
  float *vp = work, *vm = work + n;
  for (size_t i = 0; i < n; i++) {
    vp[i] = v[i] == -INFINITY ? v[i] : (float)((double)v[i] + h * d[i]);
    vm[i] = v[i] == -INFINITY ? v[i] : (float)((double)v[i] - h * d[i]);
  }
  if (pred) {
    double dd = 0.0;
    for (size_t i = 0; i < n; i++)
      if (v[i] != -INFINITY) dd += (double)grad[i] * ((double)vp[i] - vm[i]);
    *pred = dd / (2.0 * h);
  }
  return (f(vp, n, ctx) - f(vm, n, ctx)) / (2.0 * h);
}
