/* What every generic entry point checks first (registry/dispatch.c,
   registry/dispatch_attention.c). */
#ifndef SS_REGISTRY_DISPATCH_H
#define SS_REGISTRY_DISPATCH_H

#include <stdbool.h>

#include "common/impl_pair.h"
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

/* A SIMD backward keeps its intermediates in float, the scalar reference in
   double: where a float intermediate overflowed (g_i - <g, y> with |g| near
   FLT_MAX, a one-hot y) the SIMD gradient is non-finite although the exact
   one is not. A SIMD backward's SS_ERR_DOMAIN is therefore its decline
   (SS_DECLINED, common/impl_pair.h): the entry point asks the scalar
   reference, so that both impls give the same status and, where it is
   SS_OK, a finite gradient
   (tests/fuzz/corpus/fuzz_normalizer/regress-adaptive-vjp-g-near-flt-max). */
static inline ss_status ss_backward_answer(ss_status s, ss_impl impl) {
  return s == SS_ERR_DOMAIN && impl == SS_IMPL_SIMD ? SS_DECLINED : s;
}

/* The most parameters a sampler's rows call copies to give each row its
   seed (ss_sample_rows; tests/c/test_rows.c checks every sampler fits). */
#define SS_ROW_PARAMS_MAX 32

#endif
