#include "softscope.h"

const char *ss_status_str(ss_status s) {
  switch (s) {
    case SS_OK: return "ok";
    case SS_ERR_NULL: return "a required pointer is NULL";
    case SS_ERR_EMPTY: return "the input is empty (n = 0)";
    case SS_ERR_TOO_LARGE: return "n exceeds SS_MAX_N (2^26)";
    case SS_ERR_NAN: return "the input contains NaN";
    case SS_ERR_POS_INF: return "the input contains +Inf (only -Inf, a masked logit, is allowed)";
    case SS_ERR_ALL_MASKED: return "every logit is -Inf: nothing to normalize";
    case SS_ERR_NONFINITE: return "the input contains +-Inf where only finite values are allowed";
    case SS_ERR_PARAM_RANGE: return "a parameter is not finite or outside its range";
    case SS_ERR_PARAM_COUNT: return "wrong number of parameters for this kernel";
    case SS_ERR_LENGTH: return "sizes do not match";
    case SS_ERR_DOMAIN: return "a value is outside the kernel's domain (e.g. a negative probability)";
    case SS_ERR_UNSUPPORTED: return "this implementation is not compiled into this build";
    case SS_ERR_FAMILY: return "the kernel belongs to another family";
    case SS_ERR_UNKNOWN_KERNEL: return "unknown kernel";
    case SS_ERR_BUFFER: return "the output buffer is too small";
    case SS_ERR_NO_BACKWARD: return "this kernel has no backward pass";
  }
  return "unknown status";
}
