/* Every kernel's descriptor. Each lives in its kernel's own C file, next to
   the code and the formula; registry.c lists them. Adding a kernel = one C
   file + one line here + one line in registry.c. */
#ifndef SS_REGISTRY_KERNELS_H
#define SS_REGISTRY_KERNELS_H

#include "softscope.h"

/* normalizers (core/src/softmax) */
extern const ss_kernel_info ss_kernel_softmax;
extern const ss_kernel_info ss_kernel_log_softmax;
extern const ss_kernel_info ss_kernel_softmax_temperature;

/* measures (core/src/measure) */
extern const ss_kernel_info ss_kernel_logsumexp; /* core/src/softmax/logsumexp.c */

#endif
