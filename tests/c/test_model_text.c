/*
 * Text batches (ss_text_batch, core/src/model/text.c) and the grammar
 * corpus (ss_grammar_text, core/src/model/grammar.c):
 *   text: every window is a slice of the text (target = tokens shifted by
 *     one; with BOS, tokens = BOS then the target's first n-1), the offsets
 *     reach both ends of their range (0 and len - n - 1, or len - n with
 *     BOS: over 4000 windows of 8 offsets each end has probability
 *     1 - (7/8)^4000 ~ 1 of being seen) and are uniform (each of the 8
 *     offsets within 5 sd of 500), a batch is a pure function of (seed,
 *     step), its first windows independent of its size; every status;
 *   grammar: exactly len bytes (the bytes past len untouched), only letters,
 *     ' ', ',', '.', '\n', deterministic per seed and a longer text extends
 *     a shorter one, another seed another text, sentences start with a
 *     capital and end with '.', and over 1 MB the unigram character entropy
 *     is in [2.8, 3.2] nats and the conditional bigram entropy in [2.1, 2.5]
 *     (measured 3.01 and 2.31).
 */
#include <string.h>

#include "harness.h"

#define TXT 20
#define WN 12
#define WB 4000

static uint32_t X[WB * WN], Y[WB * WN], X2[WB * WN], Y2[WB * WN];

/* The offset of window e, from its target (targets are distinct slices of
   a text of distinct tokens). */
static size_t offset_of(const uint32_t *y) { return y[0]; }

TEST(text_batch_windows_are_slices) {
  uint32_t text[TXT];
  for (uint32_t i = 0; i < TXT; i++) text[i] = i; /* token = its position */
  for (int bos = 0; bos < 2; bos++) {
    const uint32_t b = bos ? TXT : SS_TEXT_NO_BOS;
    CHECK_STATUS(ss_text_batch(text, TXT, TXT + 1, b, 5, 3, WB, WN, X, Y), SS_OK);
    const size_t count = bos ? TXT - WN + 1 : TXT - WN; /* the offsets */
    size_t seen[TXT] = {0};
    for (size_t e = 0; e < WB; e++) {
      const uint32_t *x = X + e * WN, *y = Y + e * WN;
      const size_t s = bos ? offset_of(y) : x[0];
      CHECK(s < count, "bos %d window %zu: offset %zu of %zu", bos, e, s, count);
      seen[s]++;
      for (size_t j = 0; j < WN; j++) {
        CHECK(y[j] == (bos ? s + j : s + j + 1), "bos %d window %zu: target %zu", bos, e, j);
        CHECK(x[j] == (bos ? (j ? s + j - 1 : (size_t)TXT) : s + j), "bos %d window %zu: token %zu",
              bos, e, j);
      }
    }
    const double mean = (double)WB / count, sd = sqrt(mean * (1 - 1.0 / count));
    for (size_t s = 0; s < count; s++)
      CHECK(fabs(seen[s] - mean) < 5 * sd, "bos %d: offset %zu seen %zu times (mean %.0f)", bos, s,
            seen[s], mean);
    CHECK(seen[0] > 0 && seen[count - 1] > 0, "bos %d: an end of the range never drawn", bos);
  }
}

TEST(text_batch_pure_function_of_seed_and_step) {
  uint32_t text[TXT];
  for (uint32_t i = 0; i < TXT; i++) text[i] = i;
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, SS_TEXT_NO_BOS, 9, 2, 64, WN, X, Y), SS_OK);
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, SS_TEXT_NO_BOS, 9, 2, 16, WN, X2, Y2), SS_OK);
  CHECK(!memcmp(X, X2, 16 * WN * 4) && !memcmp(Y, Y2, 16 * WN * 4), "first windows depend on batch");
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, SS_TEXT_NO_BOS, 10, 2, 64, WN, X2, Y2), SS_OK);
  CHECK(memcmp(X, X2, 64 * WN * 4), "seed 10 gives seed 9's batch");
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, SS_TEXT_NO_BOS, 9, 3, 64, WN, X2, Y2), SS_OK);
  CHECK(memcmp(X, X2, 64 * WN * 4), "step 3 gives step 2's batch");
}

TEST(text_batch_statuses) {
  uint32_t text[TXT];
  for (uint32_t i = 0; i < TXT; i++) text[i] = i;
  const uint32_t no = SS_TEXT_NO_BOS;
  CHECK_STATUS(ss_text_batch(NULL, TXT, TXT, no, 1, 0, 2, 4, X, Y), SS_ERR_NULL);
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, no, 1, 0, 2, 4, NULL, Y), SS_ERR_NULL);
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, no, 1, 0, 2, 4, X, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, no, 1, 0, 0, 4, X, Y), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, no, 1, 0, 2, 0, X, Y), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, no, 1, 0, 1, SS_MODEL_MAX_N + 1, X, Y),
               SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, no, 1, 0, SS_MAX_N / 4 + 1, 4, X, Y), SS_ERR_PARAM_RANGE);
  /* one window: len >= n + 1 without BOS, len >= n with it */
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, no, 1, 0, 2, TXT, X, Y), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, no, 1, 0, 2, TXT - 1, X, Y), SS_OK);
  CHECK(X[0] == 0 && Y[TXT - 2] == TXT - 1, "the one window without BOS");
  CHECK_STATUS(ss_text_batch(text, TXT, TXT + 1, TXT, 1, 0, 2, TXT + 1, X, Y), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_text_batch(text, TXT, TXT + 1, TXT, 1, 0, 2, TXT, X, Y), SS_OK);
  CHECK(X[0] == TXT && X[1] == 0 && Y[TXT - 1] == TXT - 1, "the one window with BOS");
  CHECK_STATUS(ss_text_batch(text, TXT, TXT - 1, no, 1, 0, 2, 4, X, Y), SS_ERR_DOMAIN);
  CHECK_STATUS(ss_text_batch(text, TXT, TXT, TXT, 1, 0, 2, 4, X, Y), SS_ERR_DOMAIN);
}

#define GMB (1u << 20)
static char G[GMB + 16], G2[GMB + 16];

static void entropies(const char *t, size_t n, double *h1, double *h2) {
  static double c2[128][128];
  double c1[128] = {0};
  memset(c2, 0, sizeof c2);
  for (size_t i = 0; i < n; i++) {
    c1[(unsigned char)t[i]]++;
    if (i) c2[(unsigned char)t[i - 1]][(unsigned char)t[i]]++;
  }
  *h1 = 0, *h2 = 0;
  for (int a = 0; a < 128; a++) {
    if (c1[a]) *h1 -= c1[a] / n * log(c1[a] / n);
    double row = 0;
    for (int b = 0; b < 128; b++) row += c2[a][b];
    for (int b = 0; b < 128; b++)
      if (c2[a][b]) *h2 -= c2[a][b] / (n - 1) * log(c2[a][b] / row);
  }
}

TEST(grammar_text_bytes_and_structure) {
  memset(G, '#', sizeof G);
  CHECK_STATUS(ss_grammar_text(1, G, GMB), SS_OK);
  for (size_t i = GMB; i < sizeof G; i++) CHECK(G[i] == '#', "byte %zu past len written", i);
  size_t sentences = 0;
  bool start = true; /* at a sentence's start */
  for (size_t i = 0; i < GMB; i++) {
    const char c = G[i];
    const bool lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z';
    CHECK(lower || upper || c == ' ' || c == ',' || c == '.' || c == '\n', "byte %zu: %d", i, c);
    if (start && c != ' ' && c != '\n') {
      CHECK(upper, "sentence at byte %zu starts with '%c'", i, c);
      start = false;
    }
    if (c == '.') {
      sentences++, start = true;
      CHECK(i + 1 == GMB || G[i + 1] == ' ' || G[i + 1] == '\n', "'.' at %zu inside a sentence", i);
      CHECK(i > 0 && ((G[i - 1] >= 'a' && G[i - 1] <= 'z') || (G[i - 1] >= 'A' && G[i - 1] <= 'Z')),
            "'.' at %zu after a non-letter", i);
    }
    if (c == '\n') CHECK(i > 0 && G[i - 1] == '.', "paragraph break at %zu not after '.'", i);
  }
  /* every sentence ends with '.': the text is whole sentences up to its cut */
  size_t last = GMB;
  while (last > 0 && G[last - 1] != '.') last--;
  for (size_t i = last; i < GMB; i++) CHECK(G[i] != '.', "tail");
  CHECK(sentences > GMB / 200, "%zu sentences in 1 MB", sentences);
  double h1, h2;
  entropies(G, GMB, &h1, &h2);
  CHECK(h1 > 2.8 && h1 < 3.2 && h2 > 2.1 && h2 < 2.5, "entropies %.4f, %.4f nats", h1, h2);
}

TEST(grammar_text_deterministic_per_seed) {
  CHECK_STATUS(ss_grammar_text(3, G, 100000), SS_OK);
  CHECK_STATUS(ss_grammar_text(3, G2, 100000), SS_OK);
  CHECK(!memcmp(G, G2, 100000), "seed 3 twice: different texts");
  CHECK_STATUS(ss_grammar_text(3, G2, 777), SS_OK);
  CHECK(!memcmp(G, G2, 777), "a shorter text is not a prefix of a longer one");
  CHECK_STATUS(ss_grammar_text(4, G2, 100000), SS_OK);
  CHECK(memcmp(G, G2, 100000), "seed 4 gives seed 3's text");
  CHECK_STATUS(ss_grammar_text(3, G2, 1), SS_OK);
  CHECK(G2[0] == G[0] && G[0] >= 'A' && G[0] <= 'Z', "one byte: the capital");
  CHECK_STATUS(ss_grammar_text(3, NULL, 10), SS_ERR_NULL);
  CHECK_STATUS(ss_grammar_text(3, G2, 0), SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_grammar_text(3, G2, SS_MAX_N + 1), SS_ERR_PARAM_RANGE);
}
