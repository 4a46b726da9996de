/*
 * The model's layers without their checks (core/src/model): the public
 * entry points (ss_linear, ss_rmsnorm, ...: softscope.h) check their inputs
 * and then call these; the model checks its inputs once, at its own entry
 * points (model.c), and calls these inside. Each computes exactly what its
 * public entry point does (the same bits); the caller guarantees what the
 * checks would: valid impl, sizes in range, finite inputs, no overlap.
 * Statuses left: SS_ERR_DOMAIN for a result beyond FLT_MAX (and, for the
 * norms, eps = 0 on a zero or constant row).
 */
#ifndef SS_MODEL_LAYERS_H
#define SS_MODEL_LAYERS_H

#include <stddef.h>
#include <stdint.h>

#include "softscope.h"

ss_status ss_linear_run(ss_impl impl, const float *x, size_t rows, size_t in, const float *w,
                        const float *b, size_t out, float *y);
/* y = x B, B in x out (a layer's W^T; bt_max = max |B|): ss_linear_run's
   bits without packing. */
ss_status ss_linear_t_run(ss_impl impl, const float *x, size_t rows, size_t in, const float *bt,
                          size_t out, float bt_max, float *y);
ss_status ss_linear_backward_run(ss_impl impl, const float *x, size_t rows, size_t in,
                                 const float *w, size_t out, const float *dy, float *dx, float *dw,
                                 float *db);
ss_status ss_rmsnorm_run(ss_impl impl, const float *x, size_t rows, size_t d, const float *gain,
                         double eps, float *y);
ss_status ss_rmsnorm_backward_run(ss_impl impl, const float *x, size_t rows, size_t d,
                                  const float *gain, double eps, const float *dy, float *dx,
                                  float *dgain);
ss_status ss_layernorm_run(ss_impl impl, const float *x, size_t rows, size_t d, const float *gain,
                           const float *bias, double eps, float *y);
ss_status ss_layernorm_backward_run(ss_impl impl, const float *x, size_t rows, size_t d,
                                    const float *gain, double eps, const float *dy, float *dx,
                                    float *dgain, float *dbias);
void ss_gelu_run(ss_impl impl, const float *x, size_t n, float *y);
ss_status ss_gelu_backward_run(ss_impl impl, const float *x, const float *dy, size_t n, float *dx);
/* Row p of ss_positions_sinusoidal's table (d even): the same floats. */
void ss_positions_sinusoidal_row(size_t p, size_t d, float *y);
ss_status ss_embedding_backward_run(ss_impl impl, const float *dy, const uint32_t *tokens,
                                    size_t count, size_t vocab, size_t d, float *dtable);

#endif
