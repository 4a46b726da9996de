/* Reading a sampler's `seed` and `draws` (by name: ss_param_value, in
   registry/params.c). */
#include "sample/sample_internal.h"

uint64_t ss_sampler_seed(const ss_kernel_info *k, const double *params) {
  return (uint64_t)ss_param_value(k, params, "seed", 0.0);
}

size_t ss_sampler_draws(const ss_kernel_info *k, const double *params) {
  return (size_t)ss_param_value(k, params, "draws", 0.0);
}
