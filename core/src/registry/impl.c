#include "common/simd.h"
#include "softscope.h"

ss_impl ss_impl_default(void) { return SS_HAVE_SIMD ? SS_IMPL_SIMD : SS_IMPL_SCALAR; }

/* SS_BUILD_RELAXED: set for every file of the relaxed build (the Makefile),
   also those compiled without relaxed ops. */
const char *ss_build_name(void) {
#if defined(SS_BUILD_RELAXED)
  return "relaxed";
#else
  return SS_HAVE_SIMD ? "simd" : "scalar";
#endif
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
