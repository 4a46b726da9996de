/*
 * Writing the registry JSON (registry/json.c), and the hook through which a
 * family writes its own part of it: a family defines an ss_json_section
 * ss_json_<name> (e.g. core/src/optim/registry_json.c) and adds one line to
 * registry/json_sections.h. The registry then writes it without naming any
 * family's functions.
 */
#ifndef SS_REGISTRY_JSON_H
#define SS_REGISTRY_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "softscope.h"

/* The output: at most cap - 1 bytes go to buf (may be NULL); len counts
   every byte, so a too-small buffer still learns the length needed. */
typedef struct ss_json {
  char *buf;
  size_t cap, len;
} ss_json;

void ss_json_raw(ss_json *b, const char *s);  /* s as it is (JSON syntax) */
void ss_json_rawn(ss_json *b, const char *s, size_t n); /* its first n bytes */
void ss_json_str(ss_json *b, const char *s);  /* s as a JSON string */
/* v as a JSON number in the shortest form that round-trips; null when v is
   not finite. */
void ss_json_num(ss_json *b, double v);

/* A family's part of the registry JSON: "key":[item 0, ..., item count-1],
   item(b, i) writing one value. An enum section (is_enum: the names of a C
   enum of softscope.h, name i for value i) goes into "enums", every other
   one to the top level after "kernels". */
typedef struct ss_json_section {
  const char *key;
  bool is_enum;
  size_t (*count)(void);
  void (*item)(ss_json *b, size_t i);
} ss_json_section;

#define SS_JSON_SECTION(name) extern const ss_json_section ss_json_##name;
#include "registry/json_sections.h"
#undef SS_JSON_SECTION

#endif
