#include "common/simd.h"
#include "softscope.h"

ss_impl ss_impl_default(void) { return SS_HAVE_SIMD ? SS_IMPL_SIMD : SS_IMPL_SCALAR; }

const char *ss_build_name(void) {
  return SS_RELAXED ? "relaxed" : SS_HAVE_SIMD ? "simd" : "scalar";
}

bool ss_impl_available(ss_impl impl) {
  if (impl == SS_IMPL_SCALAR) return true;
  if (impl == SS_IMPL_SIMD) return SS_HAVE_SIMD;
  return false;
}

const char *ss_impl_name(ss_impl impl) {
  switch (impl) {
    case SS_IMPL_SCALAR: return "scalar";
    case SS_IMPL_SIMD: return "simd";
    default: return "unknown";
  }
}
