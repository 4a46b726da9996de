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
    case SS_STATUS_COUNT: break;
  }
  return "unknown status";
}

const char *ss_status_name(ss_status s) {
  switch (s) {
    case SS_OK: return "SS_OK";
    case SS_ERR_NULL: return "SS_ERR_NULL";
    case SS_ERR_EMPTY: return "SS_ERR_EMPTY";
    case SS_ERR_TOO_LARGE: return "SS_ERR_TOO_LARGE";
    case SS_ERR_NAN: return "SS_ERR_NAN";
    case SS_ERR_POS_INF: return "SS_ERR_POS_INF";
    case SS_ERR_ALL_MASKED: return "SS_ERR_ALL_MASKED";
    case SS_ERR_NONFINITE: return "SS_ERR_NONFINITE";
    case SS_ERR_PARAM_RANGE: return "SS_ERR_PARAM_RANGE";
    case SS_ERR_PARAM_COUNT: return "SS_ERR_PARAM_COUNT";
    case SS_ERR_LENGTH: return "SS_ERR_LENGTH";
    case SS_ERR_DOMAIN: return "SS_ERR_DOMAIN";
    case SS_ERR_UNSUPPORTED: return "SS_ERR_UNSUPPORTED";
    case SS_ERR_FAMILY: return "SS_ERR_FAMILY";
    case SS_ERR_UNKNOWN_KERNEL: return "SS_ERR_UNKNOWN_KERNEL";
    case SS_ERR_BUFFER: return "SS_ERR_BUFFER";
    case SS_ERR_NO_BACKWARD: return "SS_ERR_NO_BACKWARD";
    case SS_STATUS_COUNT: break;
  }
  return "SS_STATUS_UNKNOWN";
}
