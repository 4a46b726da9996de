/*
 * A tiny test harness shared by every C test file. The same binary runs
 * natively (gcc + ASan/UBSan) and as wasm under Node (scalar and SIMD
 * builds). Tests register themselves through a constructor, so adding a test
 * file needs no list anywhere.
 *
 *   TEST(name) { ... CHECK(cond, "fmt", ...); ... }
 *   SKIP("why")   -- ends the test as skipped (e.g. SIMD in the scalar build)
 */
#ifndef SS_TEST_HARNESS_H
#define SS_TEST_HARNESS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "softscope.h"

typedef void (*ss_test_fn)(void);
void ss_test_register(const char *name, const char *file, ss_test_fn fn);
void ss_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ss_test_skip(const char *why);
/* Checks made by the running test: every CHECK / CHECK_STATUS evaluated
   counts one; helpers that report through ss_test_fail count theirs with
   ss_test_count. The harness prints each test's count and the totals per
   test-name prefix, so a restructured test can be compared with the old. */
extern unsigned long ss_test_checks;
static inline void ss_test_count(unsigned long n) { ss_test_checks += n; }

#define TEST(name)                                                  \
  static void test_##name(void);                                    \
  __attribute__((constructor)) static void register_##name(void) {  \
    ss_test_register(#name, __FILE__, test_##name);                 \
  }                                                                 \
  static void test_##name(void)

/* On failure: record the message and leave the test. */
#define CHECK(cond, ...)                                 \
  do {                                                   \
    ss_test_checks++;                                    \
    if (!(cond)) {                                       \
      ss_test_fail(__FILE__, __LINE__, __VA_ARGS__);     \
      return;                                            \
    }                                                    \
  } while (0)

/* Status equality with both names in the message. */
#define CHECK_STATUS(got, want)                                              \
  do {                                                                       \
    ss_status got_ = (got), want_ = (want);                                  \
    ss_test_checks++;                                                        \
    if (got_ != want_) {                                                     \
      ss_test_fail(__FILE__, __LINE__, "%s: got status %d (%s), want %d (%s)", \
                   #got, (int)got_, ss_status_str(got_), (int)want_,         \
                   ss_status_str(want_));                                    \
      return;                                                                \
    }                                                                        \
  } while (0)

/* Table-driven tests: one test per row of `table` (an array of `type`, whose
   first member is `const char *name`), named <row name>_<prop>, so each
   kernel of a table keeps its own test names and counts:
     ROW_TEST(SPARSE_KERNELS, sparse_kernel, all_equal) { ... T->name ... }
   In the body T points at the row; CHECK leaves the row's test. */
typedef void (*ss_row_test_fn)(const void *row);
void ss_test_register_rows(const char *prop, const char *file, ss_row_test_fn fn,
                           const void *rows, size_t stride, size_t count);
#define ROW_TEST(table, type, prop)                                                    \
  static void row_test_##prop(const type *T);                                          \
  static void row_call_##prop(const void *row) { row_test_##prop((const type *)row); } \
  __attribute__((constructor)) static void register_rows_##prop(void) {                \
    ss_test_register_rows(#prop, __FILE__, row_call_##prop, (table),                   \
                          sizeof(table)[0], sizeof(table) / sizeof(table)[0]);         \
  }                                                                                    \
  static void row_test_##prop(const type *T)

#define SKIP(why)       \
  do {                  \
    ss_test_skip(why);  \
    return;             \
  } while (0)

/* The implementations to run a property test over in this build. */
#define FOR_EACH_IMPL(impl)                                         \
  for (ss_impl impl = SS_IMPL_SCALAR; impl < SS_IMPL_COUNT;         \
       impl = (ss_impl)(impl + 1))                                  \
    if (ss_impl_available(impl))

/* Deterministic RNG for test data (splitmix64). */
typedef struct { uint64_t s; } ss_rng;
static inline uint64_t ss_rng_u64(ss_rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/* Uniform in [0, 1). */
static inline double ss_rng_unif(ss_rng *r) {
  return (double)(ss_rng_u64(r) >> 11) * 0x1.0p-53;
}
/* Uniform in [lo, hi). */
static inline float ss_rng_range(ss_rng *r, float lo, float hi) {
  return (float)(lo + (hi - lo) * ss_rng_unif(r));
}
/* Standard normal (Box-Muller). */
static inline double ss_rng_normal(ss_rng *r) {
  double u = ss_rng_unif(r), v = ss_rng_unif(r);
  if (u < 1e-300) u = 1e-300;
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Distance in units in the last place between two finite floats. */
uint32_t ss_ulp_diff(float a, float b);

/* Allocation that aborts the run on failure; freed when the test ends
   (ss_test_free frees early). */
void *ss_test_alloc(size_t bytes);
void ss_test_free(void *p);

#endif
