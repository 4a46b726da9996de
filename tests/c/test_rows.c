/*
 * The rows entry points (ss_normalize_rows, ss_measure_rows, ss_sample_rows;
 * softscope.h "Rows") against the single-vector calls, for every kernel of
 * the three families in the registry and each available impl: row r of a
 * batch is bit for bit the single call on row r (a sampler's with seed + r),
 * with strides past n whose gaps hold guard values the call must not touch,
 * rows of mixed kinds (masked, deep, ties: the exact zeros per row), and an
 * error in one row that stops the call there, names the row and leaves the
 * later rows untouched.
 */
#include <stdlib.h>
#include <string.h>

#include "family_adapter.h"
#include "registry/dispatch.h"

#define ROWS 6
#define GAP 3
#define GUARD (-7777.25f)

/* The lengths each family is run at (1, odd, a SIMD tail, a few blocks). */
static const size_t LENGTHS[] = {1, 7, 33, 130};

/* The input kind of row r: moderate kinds in turn, so rows differ in masks
   and in where exp(x - max) underflows to an exact zero. */
static int row_kind(size_t r) {
  static const int kinds[] = {CF_NORMAL, CF_MASKED, CF_DEEP, CF_TIES, CF_WIDE, CF_EQUAL};
  return kinds[r % (sizeof kinds / sizeof kinds[0])];
}

static void fill_guard(float *a, size_t len) {
  for (size_t i = 0; i < len; i++) a[i] = GUARD;
}

static bool all_guard(const float *a, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (memcmp(&a[i], &(float){GUARD}, sizeof(float)) != 0) return false;
  return true;
}

/* The gaps between the rows of a strided block (entries n .. stride-1 of
   each row) still hold the guard. */
static bool gaps_guarded(const float *a, size_t rows, size_t n, size_t stride) {
  for (size_t r = 0; r < rows; r++)
    if (!all_guard(a + r * stride + n, stride - n)) return false;
  return true;
}

/* Rows of valid input of k's kind into a strided block (gaps: guard). */
static void fill_rows(const cf_adapter *a, const ss_kernel_info *k, float *x, float *x2,
                      size_t rows, size_t n, size_t stride, uint64_t seed) {
  fill_guard(x, rows * stride);
  if (x2) fill_guard(x2, rows * stride);
  for (size_t r = 0; r < rows; r++) {
    float *const two[CF_ROWS] = {x + r * stride, x2 ? x2 + r * stride : x + r * stride, NULL};
    cf_fill_rows(a, k, two, n, row_kind(r), seed + 31 * r);
  }
}

/* A rows call's status s and bad_row against the first failing single
   call's (want, want_bad; SS_OK and SS_NO_ROW when none failed), and a NaN
   put in row poison_row (>= 0) reported there. Reports and returns false. */
static bool verdict(const ss_kernel_info *k, ss_impl im, size_t n, ss_status s, size_t bad, ss_status want,
                    size_t want_bad, long poison_row) {
  if (s != want || bad != want_bad) {
    ss_test_fail(__FILE__, __LINE__, "%s impl %d n %zu: status %s bad_row %zu, want %s row %zu", k->name, (int)im,
                 n, ss_status_name(s), bad, ss_status_name(want), want_bad);
    return false;
  }
  if (poison_row >= 0 && (s != SS_ERR_NAN || bad != (size_t)poison_row)) {
    ss_test_fail(__FILE__, __LINE__, "%s n %zu: a NaN in row %ld gave %s at row %zu", k->name, n, poison_row,
                 ss_status_name(s), bad);
    return false;
  }
  return true;
}

/* ---- normalizers ----------------------------------------------------------- */

/* The batch of k at length n (impl im) against `rows` single calls: each
   row bit for bit; the first failing single row is the batch's status and
   bad_row; later rows and every gap untouched. `poison_row` >= 0 puts a NaN
   into that row first; shift (NULL: none) is added to row r's logits. */
static bool normalize_rows_case(const ss_kernel_info *k, ss_impl im, size_t n, size_t rows,
                                long poison_row, const float *shift) {
  const size_t xs = n + GAP, ys = n + 2 * GAP;
  float *x = malloc(rows * xs * sizeof(float)), *y = malloc(rows * ys * sizeof(float));
  float *one = malloc(n * sizeof(float));
  double p[CF_MAX_PARAMS];
  cf_defaults(k, n, p);
  fill_rows(&cf_normalizer_adapter, k, x, NULL, rows, n, xs, 1000 + n);
  for (size_t r = 0; shift && r < rows; r++)
    for (size_t i = 0; i < n; i++) x[r * xs + i] += shift[r];
  if (poison_row >= 0) x[poison_row * xs + n / 2] = NAN;
  fill_guard(y, rows * ys);
  size_t bad = 0;
  const ss_status s = ss_normalize_rows(k, im, x, rows, n, xs, p, k->nparams, y, ys, &bad);
  bool ok = true;
  ss_status want = SS_OK;
  size_t want_bad = SS_NO_ROW;
  for (size_t r = 0; r < rows && ok; r++) {
    const ss_status s1 = ss_normalize(k, im, x + r * xs, n, p, k->nparams, one);
    if (s1 != SS_OK) {
      want = s1, want_bad = r;
      /* later rows: untouched */
      for (size_t q = r + 1; q < rows && ok; q++)
        if (!all_guard(y + q * ys, n)) {
          ss_test_fail(__FILE__, __LINE__, "%s impl %d n %zu: row %zu after the failing row %zu was written",
                       k->name, (int)im, n, q, r);
          ok = false;
        }
      break;
    }
    if (memcmp(one, y + r * ys, n * sizeof(float)) != 0) {
      ss_test_fail(__FILE__, __LINE__, "%s impl %d n %zu: row %zu differs from the single call",
                   k->name, (int)im, n, r);
      ok = false;
    }
    /* masks per row: a masked logit is +0 in a probability output */
    for (size_t i = 0; ok && k->output != SS_OUTPUT_LOG_PROBS && i < n; i++)
      if (x[r * xs + i] == -INFINITY && !(y[r * ys + i] == 0.0f && !signbit(y[r * ys + i]))) {
        ss_test_fail(__FILE__, __LINE__, "%s n %zu: row %zu entry %zu is masked but y = %g", k->name, n, r, i,
                     (double)y[r * ys + i]);
        ok = false;
      }
    size_t at;
    if (ok && k->output != SS_OUTPUT_LOG_PROBS && !cf_no_subnormal(y + r * ys, n, &at)) {
      ss_test_fail(__FILE__, __LINE__, "%s n %zu: row %zu entry %zu is subnormal", k->name, n, r, at);
      ok = false;
    }
  }
  ss_test_count(1);
  ok = ok && verdict(k, im, n, s, bad, want, want_bad, poison_row);
  if (ok && (!gaps_guarded(y, rows, n, ys) || !gaps_guarded(x, rows, n, xs))) {
    ss_test_fail(__FILE__, __LINE__, "%s impl %d n %zu: a gap between rows was written", k->name, (int)im, n);
    ok = false;
  }
  free(x), free(y), free(one);
  return ok;
}

static bool normalize_case(const ss_kernel_info *k, ss_impl im, size_t n, long poison_row) {
  return normalize_rows_case(k, im, n, ROWS, poison_row, NULL);
}

/* One rows case: kernel k, impl im, length n, a NaN in row poison_row (< 0: none). */
typedef bool (*row_case_fn)(const ss_kernel_info *k, ss_impl im, size_t n, long poison_row);

/* fn over every kernel of the family, each available impl, each length of
   ns (without a NaN), or at n = 33 with a NaN in rows 0, step, 2 step, ...
   (step > 0). Returns the kernels run, 0 after a failure. */
static size_t each_case(ss_family family, row_case_fn fn, long step) {
  size_t kernels = 0;
  CF_FOR_EACH_KERNEL(k, family) {
    kernels++;
    for (int im = 0; im < SS_IMPL_COUNT; im++) {
      if (!ss_impl_available((ss_impl)im)) continue;
      if (step > 0) {
        for (long r = 0; r < ROWS; r += step)
          if (!fn(k, (ss_impl)im, 33, r)) return 0;
      } else {
        for (size_t t = 0; t < sizeof LENGTHS / sizeof LENGTHS[0]; t++)
          if (!fn(k, (ss_impl)im, LENGTHS[t], -1)) return 0;
      }
    }
  }
  return kernels;
}

TEST(rows_normalizers_equal_single_calls) {
  const size_t kernels = each_case(SS_FAMILY_NORMALIZER, normalize_case, 0);
  CHECK(kernels >= 10, "SS_FAMILY_NORMALIZER: %zu kernels ran", kernels);
}

TEST(rows_normalizers_error_names_the_row) {
  const size_t kernels = each_case(SS_FAMILY_NORMALIZER, normalize_case, 2);
  CHECK(kernels >= 10, "SS_FAMILY_NORMALIZER: %zu kernels ran", kernels);
}

/* A kernel may run a batch's rows two at a time (ss_normalize_pair_fn:
   softmax), each row still bit for bit its single call: an odd count
   leaves the last row alone; a row whose max lies far outside the fast
   exp's range ([-266, 354], common/exp_simd.h) sends its pair one row at a
   time; a NaN in either row of a pair stops the call at that row. */
TEST(rows_normalizers_pairs_and_their_fallbacks) {
  static const float shift[] = {0.0f, 1000.0f, 0.0f, -1000.0f, 0.0f};
  static const size_t ns[] = {7, 64};
  static const long poison[] = {-1, 0, 1, 3};
  const size_t rows = sizeof shift / sizeof shift[0];
  CF_FOR_EACH_KERNEL(k, SS_FAMILY_NORMALIZER) {
    for (int im = 0; im < SS_IMPL_COUNT; im++) {
      if (!ss_impl_available((ss_impl)im)) continue;
      for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++)
        for (size_t q = 0; q < sizeof poison / sizeof poison[0]; q++)
          if (!normalize_rows_case(k, (ss_impl)im, ns[t], rows, poison[q], shift)) return;
    }
  }
}

/* The first kernel of a family in the registry (with input `input`, or any
   when input < 0): the tests name no kernel. */
static const ss_kernel_info *first_of(ss_family family, int input) {
  for (size_t i = 0; i < ss_kernel_count(); i++) {
    const ss_kernel_info *k = ss_kernel_at(i);
    if (k->family == family && (input < 0 || (int)k->input == input)) return k;
  }
  return NULL;
}

/* A row that is all -Inf is that row's status (the single call's, not
   SS_OK: SS_ERR_ALL_MASKED); the rows before it are written, the rows after
   it untouched. */
TEST(rows_normalize_all_masked_row) {
  enum { R = 4, N = 5 };
  CF_FOR_EACH_KERNEL(k, SS_FAMILY_NORMALIZER) {
    float x[R * N], y[R * N], one[N];
    for (size_t i = 0; i < R * N; i++) x[i] = (float)(i % 3);
    for (size_t i = 0; i < N; i++) x[2 * N + i] = -INFINITY;
    fill_guard(y, R * N);
    double p[CF_MAX_PARAMS];
    cf_defaults(k, N, p);
    size_t bad = 0;
    const ss_status want = ss_normalize(k, ss_impl_default(), x + 2 * N, N, p, k->nparams, one);
    CHECK(want != SS_OK, "%s: an all -Inf row gives SS_OK", k->name);
    CHECK_STATUS(ss_normalize_rows(k, ss_impl_default(), x, R, N, N, p, k->nparams, y, N, &bad), want);
    CHECK(bad == 2, "%s: bad_row %zu, want 2", k->name, bad);
    CHECK(!all_guard(y, N) && !all_guard(y + N, N), "%s: rows 0, 1 not written", k->name);
    CHECK(all_guard(y + 3 * N, N), "%s: row 3 written after the failing row 2", k->name);
  }
}

/* What is checked once, before any row: rows, strides, the last row's
   address, the arguments; bad_row is SS_NO_ROW then (and on success). */
TEST(rows_argument_checks) {
  const ss_kernel_info *k = first_of(SS_FAMILY_NORMALIZER, -1);
  CHECK(k != NULL, "no normalizer in the registry");
  float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];
  double p[CF_MAX_PARAMS];
  cf_defaults(k, 4, p);
  const ss_impl im = ss_impl_default();
  size_t bad = 0;
  CHECK_STATUS(ss_normalize_rows(k, im, x, 0, 4, 4, p, k->nparams, y, 4, &bad), SS_ERR_EMPTY);
  CHECK(bad == SS_NO_ROW, "bad_row %zu on rows = 0", bad);
  CHECK_STATUS(ss_normalize_rows(k, im, x, 2, 4, 3, p, k->nparams, y, 4, &bad), SS_ERR_LENGTH);
  CHECK_STATUS(ss_normalize_rows(k, im, x, 2, 4, 4, p, k->nparams, y, 3, &bad), SS_ERR_LENGTH);
  CHECK_STATUS(ss_normalize_rows(k, im, x, 2, 0, 4, p, k->nparams, y, 4, &bad), SS_ERR_EMPTY);
  CHECK_STATUS(ss_normalize_rows(k, im, x, SIZE_MAX / 2, 4, 4, p, k->nparams, y, 4, &bad),
               SS_ERR_TOO_LARGE);
  CHECK_STATUS(ss_normalize_rows(k, im, NULL, 2, 4, 4, p, k->nparams, y, 4, &bad), SS_ERR_NULL);
  CHECK_STATUS(ss_normalize_rows(k, im, x, 2, 4, 4, p, k->nparams + 1, y, 4, &bad),
               SS_ERR_PARAM_COUNT);
  CHECK(bad == SS_NO_ROW, "bad_row %zu on an argument's error", bad);
  CHECK_STATUS(ss_normalize_rows(k, im, x, 2, 4, 4, p, k->nparams, y, 4, &bad), SS_OK);
  CHECK(bad == SS_NO_ROW, "bad_row %zu on success", bad);
  CHECK_STATUS(ss_normalize_rows(k, im, x, 2, 4, 4, p, k->nparams, y, 4, NULL), SS_OK);
  double out[2];
  CHECK_STATUS(ss_measure_rows(k, im, x, NULL, 2, 4, 4, 4, p, k->nparams, out, &bad), SS_ERR_FAMILY);
  const ss_kernel_info *m = first_of(SS_FAMILY_MEASURE, SS_INPUT_PROBS_PAIR);
  CHECK(m != NULL, "no measure of two vectors in the registry");
  cf_defaults(m, 4, p);
  CHECK_STATUS(ss_measure_rows(m, im, x, NULL, 2, 4, 4, 4, p, m->nparams, out, &bad), SS_ERR_NULL);
  CHECK_STATUS(ss_measure_rows(m, im, x, x, 2, 4, 4, 3, p, m->nparams, out, &bad), SS_ERR_LENGTH);
  const ss_kernel_info *sm = first_of(SS_FAMILY_SAMPLER, -1);
  CHECK(sm != NULL, "no sampler in the registry");
  cf_defaults(sm, 4, p);
  CHECK_STATUS(ss_sample_rows(sm, im, x, 2, 4, 4, p, sm->nparams, y, 3, NULL, NULL, &bad), SS_ERR_LENGTH);
  CHECK_STATUS(ss_sample_rows(sm, im, x, 2, 4, 4, p, sm->nparams, NULL, 4, NULL, NULL, &bad), SS_ERR_NULL);
}

/* ---- measures ----------------------------------------------------------- */

static bool measure_case(const ss_kernel_info *k, ss_impl im, size_t n, long poison_row) {
  const bool pair = k->input == SS_INPUT_PROBS_PAIR;
  const size_t ps = n + GAP, qs = n + 2 * GAP;
  const size_t stride = qs; /* both blocks laid out at the larger stride, then repacked */
  float *p = malloc(ROWS * stride * sizeof(float)), *q = malloc(ROWS * stride * sizeof(float));
  float *pp = malloc(ROWS * ps * sizeof(float)), *qq = malloc(ROWS * qs * sizeof(float));
  double par[CF_MAX_PARAMS], out[ROWS + 2];
  cf_defaults(k, n, par);
  fill_rows(&cf_measure_adapter, k, p, q, ROWS, n, stride, 2000 + n);
  fill_guard(pp, ROWS * ps), fill_guard(qq, ROWS * qs);
  for (size_t r = 0; r < ROWS; r++) {
    memcpy(pp + r * ps, p + r * stride, n * sizeof(float));
    memcpy(qq + r * qs, q + r * stride, n * sizeof(float));
  }
  if (poison_row >= 0) pp[poison_row * ps + n / 2] = NAN;
  for (size_t r = 0; r < ROWS + 2; r++) out[r] = -99.5;
  size_t bad = 0;
  const ss_status s = ss_measure_rows(k, im, pp + 0, pair ? qq : NULL, ROWS, n, ps, qs, par, k->nparams,
                                      out + 1, &bad);
  bool ok = true;
  ss_status want = SS_OK;
  size_t want_bad = SS_NO_ROW, upto = ROWS;
  for (size_t r = 0; r < ROWS && ok; r++) {
    double v = -1;
    const ss_status s1 = ss_measure(k, im, pp + r * ps, pair ? qq + r * qs : NULL, n, par, k->nparams, &v);
    if (s1 != SS_OK) {
      want = s1, want_bad = r, upto = r;
      break;
    }
    if (memcmp(&v, &out[1 + r], sizeof v) != 0) {
      ss_test_fail(__FILE__, __LINE__, "%s impl %d n %zu: row %zu gives %.17g, the single call %.17g", k->name,
                   (int)im, n, r, out[1 + r], v);
      ok = false;
    }
  }
  ss_test_count(1);
  for (size_t r = upto; ok && r < ROWS; r++)
    if (out[1 + r] != -99.5) {
      ss_test_fail(__FILE__, __LINE__, "%s n %zu: out[%zu] written at or after the failing row %zu", k->name, n,
                   r, upto);
      ok = false;
    }
  if (ok && (out[0] != -99.5 || out[ROWS + 1] != -99.5)) {
    ss_test_fail(__FILE__, __LINE__, "%s n %zu: a value written outside out[0 .. rows)", k->name, n);
    ok = false;
  }
  ok = ok && verdict(k, im, n, s, bad, want, want_bad, poison_row);
  if (ok && (!gaps_guarded(pp, ROWS, n, ps) || !gaps_guarded(qq, ROWS, n, qs))) {
    ss_test_fail(__FILE__, __LINE__, "%s n %zu: a gap of the inputs was written", k->name, n);
    ok = false;
  }
  free(p), free(q), free(pp), free(qq);
  return ok;
}

TEST(rows_measures_equal_single_calls) {
  const size_t kernels = each_case(SS_FAMILY_MEASURE, measure_case, 0);
  CHECK(kernels >= 5, "SS_FAMILY_MEASURE: %zu kernels ran", kernels);
}

TEST(rows_measures_error_names_the_row) {
  const size_t kernels = each_case(SS_FAMILY_MEASURE, measure_case, 2);
  CHECK(kernels >= 5, "SS_FAMILY_MEASURE: %zu kernels ran", kernels);
}

/* ---- samplers ----------------------------------------------------------- */

#define DRAWS 3
#define SEED 4242

static bool sample_case(const ss_kernel_info *k, ss_impl im, size_t n, long poison_row) {
  const size_t xs = n + GAP, ps = n + 2 * GAP;
  float *x = malloc(ROWS * xs * sizeof(float)), *probs = malloc(ROWS * ps * sizeof(float));
  /* one guard draw / sample block past the last row */
  float *samples = malloc((ROWS + 1) * DRAWS * n * sizeof(float));
  uint32_t idx[(ROWS + 1) * DRAWS];
  float *p1 = malloc(n * sizeof(float)), *s1 = malloc(DRAWS * n * sizeof(float));
  uint32_t i1[DRAWS];
  double par[CF_MAX_PARAMS], row_par[CF_MAX_PARAMS];
  cf_defaults(k, n, par);
  const long di = cf_param_index(k, "draws"), si = cf_param_index(k, "seed");
  if (di >= 0) par[di] = DRAWS;
  if (si >= 0) par[si] = SEED;
  const size_t draws = di >= 0 ? DRAWS : 0;
  fill_rows(&cf_sampler_adapter, k, x, NULL, ROWS, n, xs, 3000 + n);
  if (poison_row >= 0) x[poison_row * xs + n / 2] = NAN;
  fill_guard(probs, ROWS * ps), fill_guard(samples, (ROWS + 1) * DRAWS * n);
  for (size_t i = 0; i < (ROWS + 1) * DRAWS; i++) idx[i] = 0xdeadbeefu;
  size_t bad = 0;
  const ss_status s = ss_sample_rows(k, im, x, ROWS, n, xs, par, k->nparams, probs, ps, idx, samples, &bad);
  bool ok = true;
  ss_status want = SS_OK;
  size_t want_bad = SS_NO_ROW, upto = ROWS;
  const bool indexed = k->draws != SS_DRAW_VECTOR, vectors = k->draws != SS_DRAW_INDEX;
  for (size_t r = 0; r < ROWS && ok; r++) {
    memcpy(row_par, par, sizeof par);
    if (si >= 0) row_par[si] = SEED + (double)r;
    const ss_status st = ss_sample(k, im, x + r * xs, n, row_par, k->nparams, p1, i1, s1);
    if (st != SS_OK) {
      want = st, want_bad = r, upto = r;
      break;
    }
    if (memcmp(p1, probs + r * ps, n * sizeof(float)) != 0 ||
        (indexed && memcmp(i1, idx + r * draws, draws * sizeof(uint32_t)) != 0) ||
        (vectors && memcmp(s1, samples + r * draws * n, draws * n * sizeof(float)) != 0)) {
      ss_test_fail(__FILE__, __LINE__, "%s impl %d n %zu: row %zu differs from the single call with seed %d + %zu",
                   k->name, (int)im, n, r, SEED, r);
      ok = false;
    }
  }
  ss_test_count(1);
  ok = ok && verdict(k, im, n, s, bad, want, want_bad, poison_row);
  for (size_t r = upto + 1; ok && r < ROWS; r++)
    if (!all_guard(probs + r * ps, n)) {
      ss_test_fail(__FILE__, __LINE__, "%s n %zu: probs of row %zu written after the failing row %zu", k->name,
                   n, r, upto);
      ok = false;
    }
  const size_t done = upto == ROWS ? ROWS : upto + 1;
  if (ok && (!gaps_guarded(probs, ROWS, n, ps) || !all_guard(samples + done * DRAWS * n, (ROWS + 1 - done) * DRAWS * n) ||
             (!indexed && idx[0] != 0xdeadbeefu) || idx[ROWS * DRAWS] != 0xdeadbeefu || (!vectors && !all_guard(samples, DRAWS * n)))) {
    ss_test_fail(__FILE__, __LINE__, "%s impl %d n %zu: written outside the rows' outputs", k->name, (int)im, n);
    ok = false;
  }
  free(x), free(probs), free(samples), free(p1), free(s1);
  return ok;
}

TEST(rows_samplers_equal_single_calls_with_seed_plus_row) {
  CF_FOR_EACH_KERNEL(k, SS_FAMILY_SAMPLER) {
    CHECK(k->nparams <= SS_ROW_PARAMS_MAX, "%s has %zu parameters; ss_sample_rows copies %d", k->name,
          k->nparams, SS_ROW_PARAMS_MAX);
    CHECK(cf_param_index(k, "seed") >= 0, "%s has no seed: its rows would draw alike", k->name);
  }
  const size_t kernels = each_case(SS_FAMILY_SAMPLER, sample_case, 0);
  CHECK(kernels >= 5, "SS_FAMILY_SAMPLER: %zu kernels ran", kernels);
}

TEST(rows_samplers_error_names_the_row) {
  const size_t kernels = each_case(SS_FAMILY_SAMPLER, sample_case, 3);
  CHECK(kernels >= 5, "SS_FAMILY_SAMPLER: %zu kernels ran", kernels);
}

/* Row r's seed is seed + r: the last row's must stay within the seed's
   range (2^53), checked before any row runs. */
TEST(rows_sample_seed_range) {
  CF_FOR_EACH_KERNEL(k, SS_FAMILY_SAMPLER) {
    const long si = cf_param_index(k, "seed");
    if (si < 0) continue;
    float x[12] = {1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}, probs[12];
    double par[CF_MAX_PARAMS];
    cf_defaults(k, 4, par);
    par[si] = 0x1p53 - 1;
    size_t bad = 0;
    CHECK_STATUS(ss_sample_rows(k, SS_IMPL_SCALAR, x, 2, 4, 4, par, k->nparams, probs, 4, NULL, NULL, &bad),
                 SS_OK);
    CHECK_STATUS(ss_sample_rows(k, SS_IMPL_SCALAR, x, 3, 4, 4, par, k->nparams, probs, 4, NULL, NULL, &bad),
                 SS_ERR_PARAM_RANGE);
    CHECK(bad == SS_NO_ROW, "%s: bad_row %zu on the seed's range", k->name, bad);
  }
}
