/* A C program using softscope: softmax of a few logits, its entropy, and the
   same through the registry. Build and run: make example  (or see README). */
#include <math.h>
#include <stdio.h>

#include "softscope.h"

int main(void) {
  const float logits[] = {2.0f, 1.0f, 0.1f, -INFINITY /* masked */};
  const size_t n = sizeof logits / sizeof logits[0];
  float p[4];

  ss_status s = ss_softmax(logits, n, p);
  if (s != SS_OK) {
    fprintf(stderr, "softmax: %s\n", ss_status_str(s));
    return 1;
  }
  printf("softmax (%s):", ss_impl_name(ss_impl_default()));
  for (size_t i = 0; i < n; i++) printf(" %.6f", p[i]);
  printf("\n");

  /* Any kernel by name, with its parameters in registry order. */
  const ss_kernel_info *k = ss_kernel_find("softmax_temperature", SS_FAMILY_NORMALIZER);
  const double temperature = 0.5;
  if (k && ss_normalize(k, ss_impl_default(), logits, n, &temperature, 1, p) == SS_OK) {
    printf("softmax_temperature T=0.5:");
    for (size_t i = 0; i < n; i++) printf(" %.6f", p[i]);
    printf("\n");
  }

  /* Errors are statuses with a message, never a crash. */
  const float bad[] = {1.0f, NAN};
  s = ss_softmax(bad, 2, p);
  printf("softmax([1, NaN]) -> %s\n", ss_status_str(s));

  printf("%zu kernels registered:", ss_kernel_count());
  for (size_t i = 0; i < ss_kernel_count(); i++) printf(" %s", ss_kernel_at(i)->name);
  printf("\n");
  return 0;
}
