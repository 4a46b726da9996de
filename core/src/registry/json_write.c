/* The registry JSON writer's primitives (registry/json.h): raw text,
   strings, numbers. Used by registry/json.c and by the families' sections
   (json_sections.h), which json.c lists: kept apart from json.c so neither
   calls back into the other. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry/json.h"

void ss_json_rawn(ss_json *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++, b->len++)
    if (b->buf && b->len + 1 < b->cap) b->buf[b->len] = s[i];
}
void ss_json_raw(ss_json *b, const char *s) { ss_json_rawn(b, s, strlen(s)); }

void ss_json_str(ss_json *b, const char *s) {
  ss_json_raw(b, "\"");
  for (; s && *s; s++) {
    const char c = *s;
    if (c == '"' || c == '\\') {
      const char esc[2] = {'\\', c};
      ss_json_rawn(b, esc, 2);
    } else if ((unsigned char)c < 0x20) {
      ss_json_raw(b, c == '\n' ? "\\n" : " ");
    } else {
      ss_json_rawn(b, &c, 1);
    }
  }
  ss_json_raw(b, "\"");
}

/* Doubles as JSON numbers, in the shortest form that round-trips;
   infinities (never in ranges here) become null. */
void ss_json_num(ss_json *b, double v) {
  if (!isfinite(v)) {
    ss_json_raw(b, "null");
    return;
  }
  char tmp[40];
  int n = 0;
  for (int prec = 1; prec <= 17; prec++) {
    n = snprintf(tmp, sizeof tmp, "%.*g", prec, v);
    if (strtod(tmp, NULL) == v) break;
  }
  ss_json_rawn(b, tmp, (size_t)n);
}
