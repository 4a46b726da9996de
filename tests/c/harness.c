#include "harness.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TESTS 1024

typedef struct {
  const char *name, *file;
  ss_test_fn fn;
  ss_row_test_fn row_fn; /* ROW_TEST: fn(row) instead */
  const void *row;
} test_entry;

static test_entry tests[MAX_TESTS];
static size_t ntests;
/* State of the running test (the harness is single-threaded). */
static int cur_failed, cur_skipped;
unsigned long ss_test_checks;

void ss_test_register(const char *name, const char *file, ss_test_fn fn) {
  if (ntests < MAX_TESTS) tests[ntests++] = (test_entry){name, file, fn, NULL, NULL};
}

/* The names of ROW_TEST tests, "<row name>_<prop>", live here. */
static char row_names[1 << 15];
static size_t row_names_used;

void ss_test_register_rows(const char *prop, const char *file, ss_row_test_fn fn,
                           const void *rows, size_t stride, size_t count) {
  for (size_t r = 0; r < count && ntests < MAX_TESTS; r++) {
    const void *row = (const char *)rows + r * stride;
    const char *rname;
    memcpy(&rname, row, sizeof rname); /* the row's first member */
    char *name = row_names + row_names_used;
    const int len = snprintf(name, sizeof row_names - row_names_used, "%s_%s", rname, prop);
    if (len < 0 || (size_t)len >= sizeof row_names - row_names_used) {
      printf("out of room for test names at %s_%s\n", rname, prop);
      exit(3);
    }
    row_names_used += (size_t)len + 1;
    tests[ntests++] = (test_entry){name, file, NULL, fn, row};
  }
}

void ss_test_fail(const char *file, int line, const char *fmt, ...) {
  cur_failed = 1;
  const char *base = strrchr(file, '/');
  printf("    %s:%d: ", base ? base + 1 : file, line);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

void ss_test_skip(const char *why) {
  cur_skipped = 1;
  printf("    skipped: %s\n", why);
}

uint32_t ss_ulp_diff(float a, float b) {
  if (a == b) return 0;
  int32_t ia, ib;
  memcpy(&ia, &a, 4);
  memcpy(&ib, &b, 4);
  /* Map to a monotonic integer line. */
  if (ia < 0) ia = (int32_t)(0x80000000u - (uint32_t)ia);
  if (ib < 0) ib = (int32_t)(0x80000000u - (uint32_t)ib);
  int64_t d = (int64_t)ia - (int64_t)ib;
  return (uint32_t)(d < 0 ? -d : d);
}

/* Test allocations live until the end of the test that made them, so a CHECK
   that leaves a test early leaks nothing (LeakSanitizer runs natively). */
#define MAX_ALLOCS 4096
static void *allocs[MAX_ALLOCS];
static size_t nallocs;

void *ss_test_alloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p || nallocs == MAX_ALLOCS) {
    printf("out of test memory allocating %zu bytes\n", bytes);
    exit(3);
  }
  allocs[nallocs++] = p;
  return p;
}

void ss_test_free(void *p) {
  for (size_t i = 0; i < nallocs; i++)
    if (allocs[i] == p) {
      free(p);
      allocs[i] = allocs[--nallocs];
      return;
    }
}

static void free_all(void) {
  while (nallocs) free(allocs[--nallocs]);
}

/* Checks per test-name prefix: the name up to its first '_' (two words for
   the conformance testers: conformance_<family>). */
#define MAX_PREFIXES 256
static struct { char name[48]; unsigned long checks; size_t tests; } prefixes[MAX_PREFIXES];
static size_t nprefixes;

static void count_prefix(const char *test, unsigned long checks) {
  char name[48];
  size_t len = strcspn(test, "_");
  if (!strncmp(test, "conformance_", 12)) len = 12 + strcspn(test + 12, "_");
  if (len >= sizeof name) len = sizeof name - 1;
  memcpy(name, test, len);
  name[len] = 0;
  size_t i = 0;
  while (i < nprefixes && strcmp(prefixes[i].name, name)) i++;
  if (i == nprefixes) {
    if (nprefixes == MAX_PREFIXES) return;
    memcpy(prefixes[nprefixes++].name, name, len + 1);
  }
  prefixes[i].checks += checks;
  prefixes[i].tests++;
}

static int by_file_then_name(const void *a, const void *b) {
  const test_entry *x = a, *y = b;
  int c = strcmp(x->file, y->file);
  return c ? c : strcmp(x->name, y->name);
}

/* Usage: tests [suite-label] [name-substring | -name-substring]
   (a leading '-' runs every test whose name does not contain the rest) */
int main(int argc, char **argv) {
  const char *label = argc > 1 ? argv[1] : "c";
  const char *filter = argc > 2 ? argv[2] : NULL;
  qsort(tests, ntests, sizeof tests[0], by_file_then_name);
  int passed = 0, failed = 0, skipped = 0;
  printf("# %s: impl_default=%s simd=%s\n", label,
         ss_impl_name(ss_impl_default()),
         ss_impl_available(SS_IMPL_SIMD) ? "yes" : "no");
  for (size_t i = 0; i < ntests; i++) {
    if (filter && (filter[0] == '-' ? strstr(tests[i].name, filter + 1) != NULL : !strstr(tests[i].name, filter)))
      continue;
    cur_failed = cur_skipped = 0;
    ss_test_checks = 0;
    if (tests[i].row_fn)
      tests[i].row_fn(tests[i].row);
    else
      tests[i].fn();
    free_all();
    const char *base = strrchr(tests[i].file, '/');
    base = base ? base + 1 : tests[i].file;
    if (cur_failed) {
      failed++;
      printf("FAIL %s/%s\n", base, tests[i].name);
    } else if (cur_skipped) {
      skipped++;
      printf("skip %s/%s\n", base, tests[i].name);
    } else {
      passed++;
      printf("ok   %s/%s (%lu checks)\n", base, tests[i].name, ss_test_checks);
    }
    count_prefix(tests[i].name, ss_test_checks);
    fflush(stdout);
  }
  unsigned long total = 0;
  for (size_t i = 0; i < nprefixes; i++) {
    printf("checks %s: %lu in %zu tests\n", prefixes[i].name, prefixes[i].checks, prefixes[i].tests);
    total += prefixes[i].checks;
  }
  printf("checks total: %lu\n", total);
  printf("suite %s: %d passed, %d failed, %d skipped\n", label, passed, failed,
         skipped);
  return failed ? 1 : 0;
}
