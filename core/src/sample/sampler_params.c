/* Reading a sampler's `seed` and `draws` (and any parameter by name). */
#include <string.h>

#include "sample/sample_internal.h"

double ss_param_value(const ss_kernel_info *k, const double *params, const char *name,
                      double def) {
  if (!k || !name) return def;
  for (size_t i = 0; i < k->nparams; i++)
    if (strcmp(k->params[i].name, name) == 0) return params ? params[i] : k->params[i].def;
  return def;
}

uint64_t ss_sampler_seed(const ss_kernel_info *k, const double *params) {
  return (uint64_t)ss_param_value(k, params, "seed", 0.0);
}

size_t ss_sampler_draws(const ss_kernel_info *k, const double *params) {
  return (size_t)ss_param_value(k, params, "draws", 0.0);
}
