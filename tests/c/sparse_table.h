/*
 * The table of the sparse threshold kernels (sparsemax, 1.5-entmax): one
 * row a kernel with its float64 reference and model and the bounds it is
 * held to. test_sparse_table.c runs every shared property once per row;
 * the per-kernel files (test_sparsemax.c, test_entmax15.c) take their
 * row's bounds from here (sparse_row) for what only they test.
 */
#ifndef SS_TEST_SPARSE_TABLE_H
#define SS_TEST_SPARSE_TABLE_H

#include <string.h>

#include "sparse_testing.h"

/* A row with entries exactly at tau (p = 0 on the boundary: zero, and not
   in the support), its output and support size, worked out by hand. */
typedef struct sparse_tie {
  float x[4];
  size_t n;
  float y[4];
  size_t k;
} sparse_tie;

typedef struct sparse_kernel {
  const char *name;       /* the registry's name (and the tests' prefix) */
  bool entmax;            /* sp_ref's float64 reference: entmax15 or sparsemax */
  sp_ex_fn ex;            /* ss_<kernel>_ex: every impl and method */
  ss_status (*direct)(const float *, size_t, float *); /* ss_<kernel>: the default call */
  ss_sparse_kind kind;    /* the threshold search's kernel kind */
  st_model64 model;       /* float64 model for the finite differences */
  sp_bounds bounds;       /* vs the float64 reference */
  double slope;           /* z = slope x; tau of a single entry: z - 1 */
  float equal_x;          /* the value of the all-equal rows */
  uint32_t equal_ulps;    /* their bound vs 1/n */
  double fd_clear;        /* finite differences: every z this far from tau */
  float fd_range;         /* x uniform in +-fd_range (also for the direct calls) */
  const sparse_tie *ties; /* rows with entries at tau, and how many */
  size_t nties;
  struct {
    uint64_t ref, orders, large, fd_x, fd_g, direct;
  } seed;                 /* per kernel, so the rows see different data */
} sparse_kernel;

#define SPARSE_SUM 0x1p-22
#define SPARSE_WORK 8.0

/* sparsemax: [1, 0] has tau = 0; [3, 2, 2, 1] has K = 1 (1 + 2*2 > 3 + 2
   fails by equality), tau = 2, so both 2s sit on tau. */
static const sparse_tie SPARSEMAX_TIES[] = {
    {{1, 0}, 2, {1, 0}, 1},
    {{3, 2, 2, 1}, 4, {1, 0, 0, 0}, 1},
    {{1, 1, 0}, 3, {0.5f, 0.5f, 0}, 2},
    {{0, 0.5f, 0.5f, -0.5f}, 4, {0, 0.5f, 0.5f, 0}, 2},
    {{2, 2, 2, 1}, 4, {1.0f / 3, 1.0f / 3, 1.0f / 3, 0}, 3},
};

/* 1.5-entmax: [4, 2] has z gaps (0, 1) and sum (z_j - z_2)^2 = 1, not < 1,
   so y = [1, 0]; [2, 2, 0]: the 0 has excess 2 >= 1, the tied pair gets 1/2
   each; [6, 6, 4, 4]: excess at 4 is 2 -> [1/2, 1/2, 0, 0]. */
static const sparse_tie ENTMAX15_TIES[] = {
    {{4, 2}, 2, {1, 0}, 1},
    {{2, 2, 0}, 3, {0.5f, 0.5f, 0}, 2},
    {{6, 4, 6, 4}, 4, {0.5f, 0, 0.5f, 0}, 2},
    {{1, -1, -5}, 3, {1, 0, 0}, 1},
};

#define SPARSE_TIES(t) (t), sizeof(t) / sizeof(t)[0]

static const sparse_kernel SPARSE_KERNELS[] = {
    {"sparsemax", false, ss_sparsemax_ex, ss_sparsemax, SS_SPARSE_SPARSEMAX, sp_model_sparsemax,
     {0x1p-23, 0.0, 1e-14, SPARSE_SUM}, 1.0, -3.75f, 0, 1e-4, 1.0f, SPARSE_TIES(SPARSEMAX_TIES),
     {1000, 77, 2020, 900, 950, 15}},
    {"entmax15", true, ss_entmax15_ex, ss_entmax15, SS_SPARSE_ENTMAX15, sp_model_entmax15,
     {0x1p-23, 1e-13, 1e-30, SPARSE_SUM}, 0.5, 7.5f, 1, 1e-3, 2.0f, SPARSE_TIES(ENTMAX15_TIES),
     {2000, 88, 3030, 600, 650, 16}},
};

static inline const ss_kernel_info *sparse_kernel_of(const sparse_kernel *T) {
  return ss_kernel_find(T->name, SS_FAMILY_NORMALIZER);
}

/* The row of the kernel named `name` (NULL if none). */
static inline const sparse_kernel *sparse_row(const char *name) {
  for (size_t i = 0; i < sizeof SPARSE_KERNELS / sizeof SPARSE_KERNELS[0]; i++)
    if (!strcmp(SPARSE_KERNELS[i].name, name)) return &SPARSE_KERNELS[i];
  return NULL;
}

/* One row of x against the row's float64 reference (sp_check_ref). */
static inline double sparse_check_ref(const sparse_kernel *T, const float *x, size_t n,
                                      const char *what) {
  return sp_check_ref(T->entmax, &T->bounds, x, n, what);
}

#endif
