/*
 * Bigram-Backcopy (ss_task_batch, core/src/model/task_bigram_backcopy.c),
 * checked from the tokens:
 *   - every sequence starts with BOS = V, all tokens are below V + 1, BOS
 *     appears only there, and target = tokens shifted by one;
 *   - the first token is a non-trigger; after every trigger the next token
 *     is the token before it (every occurrence), which is never BOS or a
 *     trigger;
 *   - the other transitions follow the table: the next-token counts of the
 *     two most frequent source tokens against the table's rows, recomputed
 *     here from the documented formula (Philox of the table seed, three
 *     floor squarings, + 1), by a chi-square test (bins of expected count
 *     < 5 pooled) at significance 1e-4: chi2 below the 1 - 1e-4 quantile
 *     (Wilson-Hilferty, z = 3.719), fixed seed;
 *   - the shape, the limits (V <= 1024, 1 <= keys < V) and the optional
 *     tokens_b / feature (zeros).
 */
#include <string.h>

#include "common/rng.h"
#include "harness.h"
#include "model/tasks.h"

#define BB_V 64
#define BB_K 3
#define BB_B 1000
#define BB_N 64

static uint32_t A[BB_B * BB_N], T[BB_B * BB_N], Bt[BB_B * BB_N];
static float F[BB_B * BB_N];

/* The table's weight w(x, y), from the formula in the file's comment. */
static uint32_t weight(uint32_t x, uint32_t y) {
  uint32_t w[4];
  ss_philox_block(SS_TASK_BB_TABLE_SEED, x, y / 8, w);
  const uint32_t word = w[(y % 8) / 2], u = y % 2 ? word >> 16 : word & 0xffffu;
  const uint32_t u2 = (u * u) >> 16, u4 = (u2 * u2) >> 16;
  return ((u4 * u4) >> 16) + 1;
}

TEST(task_bigram_backcopy_sequences) {
  const ss_task task = {SS_TASK_BIGRAM_BACKCOPY, BB_V, BB_K};
  ss_task_shape sh;
  CHECK_STATUS(ss_task_shape_of(&task, &sh), SS_OK);
  CHECK(sh.vocab_a == BB_V + 1 && sh.vocab_b == 0 && sh.classes == BB_V + 1 && sh.feature == 0 &&
            sh.loss_at == SS_LOSS_AT_EVERY && sh.min_n == 2,
        "shape %u %u %u %u %u %u", sh.vocab_a, sh.vocab_b, sh.classes, sh.feature, sh.loss_at,
        sh.min_n);
  memset(Bt, 0xff, sizeof Bt), memset(F, 0xff, sizeof F);
  CHECK_STATUS(ss_task_batch(&task, 7, 1, BB_B, BB_N, A, Bt, F, T), SS_OK);
  size_t triggers = 0;
  for (size_t e = 0; e < BB_B; e++) {
    const uint32_t *a = A + e * BB_N, *t = T + e * BB_N;
    CHECK(a[0] == BB_V && t[0] >= BB_K && t[0] < BB_V, "example %zu: BOS %u, first %u", e, a[0], t[0]);
    for (size_t j = 0; j < BB_N; j++) {
      CHECK(Bt[e * BB_N + j] == 0 && F[e * BB_N + j] == 0.0f, "example %zu: b / f not zero", e);
      CHECK(t[j] < BB_V && (j == 0 || a[j] < BB_V), "example %zu pos %zu: token %u", e, j, a[j]);
      if (j + 1 < BB_N) CHECK(a[j + 1] == t[j], "example %zu pos %zu: target not shifted", e, j);
      if (j >= 1 && a[j] < BB_K) {
        triggers++;
        CHECK(t[j] == a[j - 1], "example %zu pos %zu: after trigger %u came %u, before it %u", e,
              j, a[j], t[j], a[j - 1]);
        CHECK(a[j - 1] >= BB_K && a[j - 1] < BB_V, "example %zu pos %zu: before trigger %u", e, j,
              a[j - 1]);
      }
    }
  }
  /* ~ keys / V of the positions at uniform-ish rows; at least 1% */
  CHECK(triggers > BB_B * BB_N / 100, "only %zu triggers", triggers);
}

TEST(task_bigram_backcopy_follows_the_table) {
  const ss_task task = {SS_TASK_BIGRAM_BACKCOPY, BB_V, BB_K};
  CHECK_STATUS(ss_task_batch(&task, 11, 0, BB_B, BB_N, A, NULL, NULL, T), SS_OK);
  static uint32_t counts[BB_V][BB_V];
  memset(counts, 0, sizeof counts);
  uint32_t from[BB_V] = {0};
  for (size_t i = 0; i < BB_B * BB_N; i++)
    if (i % BB_N && A[i] >= BB_K) counts[A[i]][T[i]]++, from[A[i]]++;
  for (int pass = 0; pass < 2; pass++) {
    uint32_t x = BB_K; /* the most frequent source (then the second) */
    for (uint32_t y = BB_K; y < BB_V; y++)
      if (from[y] > from[x]) x = y;
    const double total = from[x];
    double row = 0, chi2 = 0, pool_e = 0, pool_o = 0;
    for (uint32_t y = 0; y < BB_V; y++) row += weight(x, y);
    unsigned bins = 0;
    for (uint32_t y = 0; y < BB_V; y++) {
      const double e = total * weight(x, y) / row;
      if (e < 5) {
        pool_e += e, pool_o += counts[x][y];
        continue;
      }
      chi2 += (counts[x][y] - e) * (counts[x][y] - e) / e, bins++;
    }
    if (pool_e > 0) chi2 += (pool_o - pool_e) * (pool_o - pool_e) / pool_e, bins++;
    const double df = bins - 1, h = 2.0 / (9.0 * df);
    const double crit = df * pow(1.0 - h + 3.719 * sqrt(h), 3);
    CHECK(total > 1000 && chi2 < crit, "source %u (%.0f transitions): chi2 %.2f, df %.0f, crit %.2f",
          x, total, chi2, df, crit);
    from[x] = 0;
  }
}

TEST(task_bigram_backcopy_limits) {
  const ss_task big = {SS_TASK_BIGRAM_BACKCOPY, SS_TASK_BB_MAX_VALUES + 1, 3},
                most = {SS_TASK_BIGRAM_BACKCOPY, SS_TASK_BB_MAX_VALUES, 3},
                no_keys = {SS_TASK_BIGRAM_BACKCOPY, 8, 0}, all_keys = {SS_TASK_BIGRAM_BACKCOPY, 8, 8},
                one = {SS_TASK_BIGRAM_BACKCOPY, 1, 0}, two = {SS_TASK_BIGRAM_BACKCOPY, 2, 1};
  ss_task_shape sh;
  CHECK_STATUS(ss_task_shape_of(&big, &sh), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_shape_of(&no_keys, &sh), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_shape_of(&all_keys, &sh), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_shape_of(&one, &sh), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_batch(&big, 1, 0, 2, 8, A, NULL, NULL, T), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_batch(&two, 1, 0, 2, 1, A, NULL, NULL, T), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_task_batch(&most, 1, 0, 4, 64, A, NULL, NULL, T), SS_OK);
  for (size_t i = 0; i < 4 * 64; i++) CHECK(T[i] < SS_TASK_BB_MAX_VALUES, "V 1024: token %u", T[i]);
  CHECK_STATUS(ss_task_batch(&two, 1, 0, 50, 16, A, NULL, NULL, T), SS_OK);
  for (size_t i = 0; i < 50 * 16; i++)
    CHECK(A[i] <= 2 && T[i] < 2 && (i % 16 == 0) == (A[i] == 2), "V 2: position %zu token %u", i, A[i]);
}
