/* Pieces shared by the loss kernels of this folder. */
#ifndef SS_LOSS_INTERNAL_H
#define SS_LOSS_INTERNAL_H

#include <stddef.h>

#include "softscope.h"

/* The `target` parameter (a class index) every loss takes first: the
   registry block, and a parameter list of it alone. */
#define SS_LOSS_TARGET_PARAM                                                  \
  {.name = "target", .type = SS_PARAM_INT, .n_bound = SS_N_BOUND_LT, .min = 0, \
   .max = (double)(SS_MAX_N - 1), .def = 0, .ui_min = 0, .ui_max = 64,        \
   .help = "index of the target class (must be < n)"}
extern const ss_param_info ss_loss_target_param[1];

/* target (an integral double already range-checked by the registry, and
   < n by its n_bound in ss_loss) as an index; SS_ERR_LENGTH when it is not
   < n (a direct call of the kernel function). */
static inline ss_status ss_loss_target(double target, size_t n, size_t *t) {
  if (!(target < (double)n)) return SS_ERR_LENGTH;
  *t = (size_t)target;
  return SS_OK;
}

#endif
