/* What every generic entry point checks first (registry/dispatch.c,
   registry/dispatch_attention.c). */
#ifndef SS_REGISTRY_DISPATCH_H
#define SS_REGISTRY_DISPATCH_H

#include "softscope.h"

/* k is a kernel of `family` and impl is compiled into this build:
   SS_ERR_NULL, SS_ERR_FAMILY, SS_ERR_UNSUPPORTED, in that order. Each entry
   point then checks its shapes and the parameters (ss_params_check_n, or
   ss_params_check where there is no single length). */
static inline ss_status ss_check_common(const ss_kernel_info *k, ss_family family, ss_impl impl) {
  if (!k) return SS_ERR_NULL;
  if (k->family != family) return SS_ERR_FAMILY;
  if ((unsigned)impl >= SS_IMPL_COUNT || !ss_impl_available(impl)) return SS_ERR_UNSUPPORTED;
  return SS_OK;
}

/* The most parameters a sampler's rows call copies to give each row its
   seed (ss_sample_rows; tests/c/test_rows.c checks every sampler fits). */
#define SS_ROW_PARAMS_MAX 32

#endif
