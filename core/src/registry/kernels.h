/* Every kernel's descriptor, declared from the one list (kernel_list.h). */
#ifndef SS_REGISTRY_KERNELS_H
#define SS_REGISTRY_KERNELS_H

#include "softscope.h"

#define SS_KERNEL(name) extern const ss_kernel_info ss_kernel_##name;
#include "registry/kernel_list.h"
#undef SS_KERNEL

#endif
