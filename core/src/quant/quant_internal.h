/* Pieces shared by the quantizers of this folder. */
#ifndef SS_QUANT_INTERNAL_H
#define SS_QUANT_INTERNAL_H

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

#endif
