/* Prints the registry as JSON (ss_registry_json): the source of the
   generated wasm/dist/registry.js and registry.d.ts (scripts/gen-registry.js),
   so that no JavaScript file copies a C enum or a kernel list. */
#include <stdio.h>
#include <stdlib.h>

#include "softscope.h"

int main(void) {
  size_t len = 0;
  ss_registry_json(NULL, 0, &len);
  char *buf = malloc(len + 1);
  if (!buf || ss_registry_json(buf, len + 1, &len) != SS_OK) return 1;
  fwrite(buf, 1, len, stdout);
  free(buf);
  return 0;
}
