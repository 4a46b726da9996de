/* A kernel's parameters as the registry describes them: its limit on n,
   reading one by name, and the checks every generic entry point runs
   (range, integrality, the bounds by n). */
#include <math.h>
#include <string.h>

#include "softscope.h"

/* The kernel's own limit on n, or SS_MAX_N: apart from registry.c (the
   kernel list) because every generic entry point checks it. */
size_t ss_kernel_max_n(const ss_kernel_info *k) {
  return k && k->max_n && k->max_n < SS_MAX_N ? k->max_n : SS_MAX_N;
}

long ss_param_index(const ss_kernel_info *k, const char *name) {
  if (!k || !name) return -1;
  for (size_t i = 0; i < k->nparams; i++)
    if (strcmp(k->params[i].name, name) == 0) return (long)i;
  return -1;
}

double ss_param_value(const ss_kernel_info *k, const double *params, const char *name,
                      double def) {
  const long i = ss_param_index(k, name);
  if (i < 0) return def;
  return params ? params[i] : k->params[i].def;
}

static bool param_ok(const ss_param_info *p, double v) {
  if (!isfinite(v)) return false;
  if (p->min_open ? !(v > p->min) : !(v >= p->min)) return false;
  if (p->max_open ? !(v < p->max) : !(v <= p->max)) return false;
  if (p->type == SS_PARAM_INT && v != floor(v)) return false;
  if (p->type == SS_PARAM_BOOL && v != 0.0 && v != 1.0) return false;
  return true;
}

long ss_params_bad_index(const ss_kernel_info *k, const double *params,
                         size_t nparams) {
  if (!k || nparams != k->nparams || (nparams && !params)) return -1;
  for (size_t i = 0; i < nparams; i++)
    if (!param_ok(&k->params[i], params[i])) return (long)i;
  return -1;
}

/* A count or an index into x (top-k's k, a loss target) is bounded by n. */
static bool n_bound_ok(const ss_param_info *p, double v, size_t n) {
  if (n == 0) return true;
  if (p->n_bound == SS_N_BOUND_LE) return v <= (double)n;
  if (p->n_bound == SS_N_BOUND_LT) return v < (double)n;
  return true;
}

long ss_params_bad_index_n(const ss_kernel_info *k, const double *params,
                           size_t nparams, size_t n) {
  const long i = ss_params_bad_index(k, params, nparams);
  if (i >= 0 || !k || nparams != k->nparams) return i;
  for (size_t j = 0; j < nparams; j++)
    if (!n_bound_ok(&k->params[j], params[j], n)) return (long)j;
  return -1;
}

ss_status ss_params_check_n(const ss_kernel_info *k, const double *params,
                            size_t nparams, size_t n) {
  const ss_status s = ss_params_check(k, params, nparams);
  if (s != SS_OK) return s;
  for (size_t j = 0; j < nparams; j++)
    if (!n_bound_ok(&k->params[j], params[j], n)) return SS_ERR_LENGTH;
  return SS_OK;
}

ss_status ss_params_check(const ss_kernel_info *k, const double *params,
                          size_t nparams) {
  if (!k) return SS_ERR_NULL;
  if (nparams != k->nparams) return SS_ERR_PARAM_COUNT;
  if (nparams && !params) return SS_ERR_NULL;
  return ss_params_bad_index(k, params, nparams) >= 0 ? SS_ERR_PARAM_RANGE
                                                      : SS_OK;
}
