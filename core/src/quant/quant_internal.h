/* Pieces shared by the quantizers of this folder. */
#ifndef SS_QUANT_INTERNAL_H
#define SS_QUANT_INTERNAL_H

#include <float.h>
#include <stdbool.h>

/* A b-bit uniform grid: y = (q - z) s for integer codes q in [qlo, qhi];
   inv = 1 / s (clamped for a subnormal s). uniform.c's rule (see there):
   symmetric s = max|x| / (2^(b-1) - 1), z = 0; asymmetric over [min(mn, 0),
   max(mx, 0)] with the zero point z = round(-lo / s); s = 1 for an all-zero
   range. */
typedef struct ss_quant_grid {
  float s, inv, z, qlo, qhi;
} ss_quant_grid;

ss_quant_grid ss_uniform_grid(float mn, float mx, int bits, bool symmetric);

/* y = (q - z) s for a code q, held at +-FLT_MAX: the top code of a range
   that reaches near FLT_MAX can round past it (it stands for an x within a
   step), never +-Inf. */
static inline float ss_quant_dequant(const ss_quant_grid *g, float q) {
  const float y = (q - g->z) * g->s;
  return y > FLT_MAX ? FLT_MAX : y < -FLT_MAX ? -FLT_MAX : y;
}

#endif
