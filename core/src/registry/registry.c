/* The kernel registry: the one list that the CLI, the JS API, the playground,
   the tests and the benchmarks enumerate. Beside it in this folder: the
   parameter checks (params.c), the generic entry points (dispatch.c,
   dispatch_attention.c) and the registry as JSON (json.c). */
#include <string.h>

#include "registry/kernels.h"

static const ss_kernel_info *const registry[] = {
#define SS_KERNEL(name) &ss_kernel_##name,
#include "registry/kernel_list.h"
#undef SS_KERNEL
};

#define REGISTRY_LEN (sizeof registry / sizeof registry[0])

size_t ss_kernel_count(void) { return REGISTRY_LEN; }

const ss_kernel_info *ss_kernel_at(size_t i) {
  return i < REGISTRY_LEN ? registry[i] : NULL;
}

const ss_kernel_info *ss_kernel_find(const char *name, ss_family family) {
  if (!name) return NULL;
  for (size_t i = 0; i < REGISTRY_LEN; i++) {
    const ss_kernel_info *k = registry[i];
    if ((family == SS_FAMILY_COUNT || k->family == family) &&
        strcmp(k->name, name) == 0)
      return k;
  }
  return NULL;
}

const char *ss_family_name(ss_family f) {
  switch (f) {
    case SS_FAMILY_NORMALIZER: return "normalizer";
    case SS_FAMILY_SAMPLER: return "sampler";
    case SS_FAMILY_OPTIMIZER: return "optimizer";
    case SS_FAMILY_QUANTIZER: return "quantizer";
    case SS_FAMILY_MEASURE: return "measure";
    case SS_FAMILY_LOSS: return "loss";
    case SS_FAMILY_ATTENTION: return "attention";
    default: return "unknown";
  }
}
