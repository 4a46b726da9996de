/*
 * softscope benchmark harness: one binary, built three ways (native -O3
 * -march=native; wasm without SIMD; wasm SIMD128), run by tests/bench/run.js.
 *
 * For each requested normalizer kernel (looked up in the registry; names not
 * registered are reported as skipped), each available impl and each n, it
 * times the generic entry point ss_normalize() -- the call the JS package
 * makes -- and prints one JSON object per line on stdout:
 *
 *   {"type":"meta",...}                       build and settings
 *   {"type":"time","kernel":K,"impl":I,"n":N,"ns_per_elem":median,"min":...}
 *   {"type":"accuracy","kernel":K,"impl":I,"n":65536,"max_rel_err":E,...}
 *   {"type":"skip","kernel":K,"reason":...}
 *   {"type":"error",...}                      a kernel returned an error status
 *
 * Timing: CLOCK_MONOTONIC (clock_time_get under WASI). Warm up, calibrate a
 * repetition count so one trial lasts about TRIAL_MS, run several trials and
 * report the median (and the min) of the per-call time divided by n.
 * Inputs: logits uniform in [-50, 50) from a fixed seed, the same every run.
 *
 * The pseudo-kernel "naive_c_softmax" (impl scalar) is the first-try C loop
 * (float max, expf, float sum, multiply by 1/sum): the baseline of the
 * "x times a naive scalar softmax" figures. The pseudo-kernels
 * "sparsemax@sort" and "entmax15@sort" run the same kernels with the full
 * sort threshold method (ss_sparsemax_ex / ss_entmax15_ex) instead of the
 * selection method of the registry kernels.
 *
 * --iterations: for entmax_bisect and entmax_halley, also print
 *   {"type":"iterations","kernel":K,"impl":I,"n":N,"iterations":k,"tol":t}
 * from ss_entmax_solve at the kernels' own tolerance (default alpha).
 *
 * Usage: bench [--kernels a,b|all] [--sizes 128,1024,...] [--impls scalar,simd]
 *              [--quick] [--no-naive] [--label NAME] [--verbose]
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_ref.h"
#include "softscope.h"

#define MAX_ITEMS 64
#define ACC_N ((size_t)65536)
#define ACC_FLOOR 1e-30
#define SEED 0x50F75C09Eull
#define NAIVE_NAME "naive_c_softmax"
/* The registry entmax kernels' stopping rule (see ss_entmax_solve). */
#ifndef SS_ENTMAX_TOL
#define SS_ENTMAX_TOL 1e-6
#define SS_ENTMAX_MAX_ITER 100
#endif

static const char *const default_kernels[] = {"softmax", "log_softmax",
                                              "online_softmax",
                                              "two_pass_softmax"};
static const size_t default_sizes[] = {128, 1024, 8192, 65536, 1u << 20,
                                       1u << 22};

typedef struct settings {
  double trial_ms;   /* target length of one trial */
  double warmup_ms;  /* minimum warm-up time per configuration */
  int trials;        /* trials for small n */
  int trials_large;  /* trials when one call already exceeds a trial */
  bool verbose;
} settings;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* How a target runs: the registry entry point, or a threshold method. */
typedef enum run_kind { RUN_REGISTRY, RUN_SPARSEMAX_SORT, RUN_ENTMAX15_SORT, RUN_QUANTIZE, RUN_OPTIMIZE, RUN_ATTEND } run_kind;

/* One thing to time: a registry kernel with an impl, or the naive baseline. */
typedef struct target {
  const ss_kernel_info *k; /* NULL: the naive baseline */
  ss_impl impl;
  run_kind kind;
  double params[16];
  const char *overrides; /* quantizers: "p=v+p=v" after the '@' */
} target;

/* Codes of the quantizers and the optimizers' state (allocated in main for
   the largest n). An optimizer step updates y (the weights) in place with x
   as the gradient. */
static int32_t *quant_codes;
static float *opt_slots;
static double opt_scalars[SS_OPT_SCALARS];

/* Attention: n x ATTN_D queries, keys and values (n = the size), softmax
   for sdpa; buffers allocated on first use for the largest n. */
#define ATTN_D 64
static float *attn_q, *attn_k, *attn_v, *attn_out, *attn_scratch;

static ss_status run_attend(const target *t, size_t n) {
  ss_attention_io io = {attn_q, attn_k, attn_v, n, n, ATTN_D, ATTN_D, 1, NULL,
                        ss_kernel_find("softmax", SS_FAMILY_NORMALIZER), NULL, 0,
                        attn_out, NULL, attn_scratch};
  return ss_attend(t->k, t->impl, &io, t->params, t->k->nparams);
}

static bool attn_alloc(size_t nmax) {
  if (attn_q) return true;
  attn_q = malloc(nmax * ATTN_D * sizeof(float)), attn_k = malloc(nmax * ATTN_D * sizeof(float));
  attn_v = malloc(nmax * ATTN_D * sizeof(float)), attn_out = malloc(nmax * ATTN_D * sizeof(float));
  attn_scratch = malloc((nmax * 4096 + 4096 * ATTN_D * 3) * sizeof(float));
  if (!attn_q || !attn_k || !attn_v || !attn_out || !attn_scratch) return false;
  uint64_t s = 0x9e3779b97f4a7c15ull;
  float *bufs[3] = {attn_q, attn_k, attn_v};
  for (int b = 0; b < 3; b++)
    for (size_t i = 0; i < nmax * ATTN_D; i++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      bufs[b][i] = (float)((double)(s >> 11) * 0x1p-53 * 2.0 - 1.0);
    }
  return true;
}

static ss_status run_once(const target *t, const float *x, size_t n, float *y) {
  if (!t->k) {
    bench_naive_softmax(x, n, y);
    return SS_OK;
  }
  switch (t->kind) {
    case RUN_SPARSEMAX_SORT:
      return ss_sparsemax_ex(t->impl, SS_THRESHOLD_SORT, x, n, y, NULL, NULL);
    case RUN_ENTMAX15_SORT:
      return ss_entmax15_ex(t->impl, SS_THRESHOLD_SORT, x, n, y, NULL, NULL);
    case RUN_QUANTIZE:
      return ss_quantize(t->k, t->impl, x, n, t->params, t->k->nparams, quant_codes, y);
    case RUN_OPTIMIZE:
      return ss_optimize(t->k, t->impl, y, x, n, t->params, t->k->nparams, opt_slots, opt_scalars);
    case RUN_ATTEND:
      return run_attend(t, n);
    default:
      return ss_normalize(t->k, t->impl, x, n, t->params, t->k->nparams, y);
  }
}

/* Resolve a benchmark name: a registry normalizer or "<kernel>@sort". */
static bool resolve(const char *name, target *t) {
  const char *at = strchr(name, '@');
  char base[64];
  const size_t len = at ? (size_t)(at - name) : strlen(name);
  if (len >= sizeof base) return false;
  memcpy(base, name, len);
  base[len] = '\0';
  t->k = ss_kernel_find(base, SS_FAMILY_QUANTIZER);
  if (!t->k && (t->k = ss_kernel_find(base, SS_FAMILY_ATTENTION))) {
    t->kind = RUN_ATTEND; /* attention on n x 64 Q, K, V: "<kernel>[@p=v+p=v]" */
    t->overrides = at ? at + 1 : NULL;
    return true;
  }
  if (!t->k && (t->k = ss_kernel_find(base, SS_FAMILY_OPTIMIZER))) {
    t->kind = RUN_OPTIMIZE; /* an optimizer step: "<kernel>[@p=v+p=v]" */
    t->overrides = at ? at + 1 : NULL;
    return true;
  }
  if (t->k) { /* a quantizer: "<kernel>[@p=v+p=v]" */
    t->kind = RUN_QUANTIZE;
    t->overrides = at ? at + 1 : NULL;
    return true;
  }
  t->k = ss_kernel_find(base, SS_FAMILY_NORMALIZER);
  if (!t->k) return false;
  t->kind = RUN_REGISTRY;
  if (at) {
    if (strcmp(at, "@sort") != 0) return false;
    if (!strcmp(base, "sparsemax")) t->kind = RUN_SPARSEMAX_SORT;
    else if (!strcmp(base, "entmax15")) t->kind = RUN_ENTMAX15_SORT;
    else return false;
  }
  return true;
}

/* "bits=4+group=32": set those registry parameters of a quantizer. */
static bool apply_overrides(target *t) {
  char buf[128];
  if (strlen(t->overrides) >= sizeof buf) return false;
  strcpy(buf, t->overrides);
  for (char *kv = strtok(buf, "+"); kv; kv = strtok(NULL, "+")) {
    char *eq = strchr(kv, '=');
    if (!eq) return false;
    *eq = '\0';
    size_t p = 0;
    while (p < t->k->nparams && strcmp(t->k->params[p].name, kv)) p++;
    if (p == t->k->nparams) return false;
    t->params[p] = strtod(eq + 1, NULL);
  }
  return true;
}

/* Iteration counts of the two alpha-entmax solvers at their own tolerance. */
static void iterations(const target *t, const char *name, const char *impl,
                       const float *x, size_t n, float *y) {
  ss_entmax_solver solver;
  if (!strcmp(name, "entmax_bisect")) solver = SS_ENTMAX_BISECT;
  else if (!strcmp(name, "entmax_halley")) solver = SS_ENTMAX_HALLEY;
  else return;
  unsigned it = 0;
  double tau;
  if (ss_entmax_solve(t->impl, solver, x, n, t->params[0], SS_ENTMAX_TOL,
                      SS_ENTMAX_MAX_ITER, y, &tau, &it) != SS_OK)
    return;
  printf("{\"type\":\"iterations\",\"kernel\":\"%s\",\"impl\":\"%s\",\"n\":%zu,"
         "\"iterations\":%u,\"tol\":%g,\"alpha\":%g}\n",
         name, impl, n, it, SS_ENTMAX_TOL, t->params[0]);
  fflush(stdout);
}

/* Returns false (after printing an error line) if the kernel fails. */
static bool time_target(const target *t, const char *name, const char *impl,
                        const float *x, size_t n, float *y,
                        const settings *st) {
  /* Warm up: at least warmup_ms and several calls, so that V8 has tiered the
     wasm up from Liftoff to TurboFan and the caches hold what fits. */
  const double t0 = now_ns();
  int calls = 0;
  do {
    ss_status s = run_once(t, x, n, y);
    if (s != SS_OK) {
      printf("{\"type\":\"error\",\"kernel\":\"%s\",\"impl\":\"%s\",\"n\":%zu,"
             "\"status\":%d,\"message\":\"%s\"}\n",
             name, impl, n, (int)s, ss_status_str(s));
      return false;
    }
    calls++;
  } while (calls < 3 || now_ns() - t0 < st->warmup_ms * 1e6);

  /* Calibrate: double the repetitions until a batch lasts a tenth of a trial
     (or one call already exceeds a trial). */
  const double trial_ns = st->trial_ms * 1e6;
  double one;
  for (long r = 1;; r *= 2) {
    const double a = now_ns();
    for (long i = 0; i < r; i++) run_once(t, x, n, y);
    const double el = now_ns() - a;
    one = el / (double)r;
    if (el >= 0.1 * trial_ns || r >= (1L << 24)) break;
  }
  if (one < 1.0) one = 1.0;
  long reps = (long)(trial_ns / one);
  if (reps < 1) reps = 1;
  const int trials = one > trial_ns ? st->trials_large : st->trials;
  double per[64];
  for (int tr = 0; tr < trials; tr++) {
    const double a = now_ns();
    for (long r = 0; r < reps; r++) run_once(t, x, n, y);
    per[tr] = (now_ns() - a) / (double)reps / (double)n;
  }
  qsort(per, (size_t)trials, sizeof per[0], cmp_double);
  const double median = trials % 2 ? per[trials / 2]
                                   : 0.5 * (per[trials / 2 - 1] + per[trials / 2]);
  printf("{\"type\":\"time\",\"kernel\":\"%s\",\"impl\":\"%s\",\"n\":%zu,"
         "\"ns_per_elem\":%.6g,\"min\":%.6g,\"max\":%.6g,\"reps\":%ld,"
         "\"trials\":%d}\n",
         name, impl, n, median, per[0], per[trials - 1], reps, trials);
  fflush(stdout);
  if (st->verbose)
    fprintf(stderr, "  %-18s %-6s n=%-8zu %8.3f ns/elem\n", name, impl, n,
            median);
  return true;
}

/* Which float64 reference a kernel is compared against: 0 softmax,
   1 log-softmax, -1 none (a different function, or it takes parameters). */
static int reference_kind(const target *t) {
  if (!t->k) return 0;
  if (t->k->nparams != 0 || t->kind != RUN_REGISTRY) return -1;
  const char *nm = t->k->name;
  if (!strcmp(nm, "softmax") || !strcmp(nm, "online_softmax") ||
      !strcmp(nm, "two_pass_softmax"))
    return 0;
  if (!strcmp(nm, "log_softmax")) return 1;
  return -1;
}

static void accuracy(const target *t, const char *name, const char *impl,
                     const float *x, float *y, double *ref64) {
  const int kind = reference_kind(t);
  if (kind < 0) return;
  if (run_once(t, x, ACC_N, y) != SS_OK) return; /* reported by the timing */
  bench_ref_softmax64(x, ACC_N, kind, ref64);
  size_t at = 0;
  const double e = bench_max_rel_err(y, ref64, ACC_N, kind, ACC_FLOOR, &at);
  printf("{\"type\":\"accuracy\",\"kernel\":\"%s\",\"impl\":\"%s\",\"n\":%zu,"
         "\"max_rel_err\":%.4g,\"at\":%zu,\"x_at\":%.9g,\"metric\":\"%s\","
         "\"floor\":%g}\n",
         name, impl, ACC_N, isinf(e) ? 1e308 : e, at, (double)x[at],
         kind ? "abs err of log p (= rel err of p)" : "rel err of p", ACC_FLOOR);
  fflush(stdout);
}

/* Split a comma list in place into at most max items. */
static size_t split_list(char *s, char **out, size_t max) {
  size_t k = 0;
  for (char *tok = strtok(s, ","); tok && k < max; tok = strtok(NULL, ","))
    if (*tok) out[k++] = tok;
  return k;
}

static void usage(void) {
  fprintf(stderr,
          "usage: bench [--kernels a,b|all] [--sizes n1,n2,...] "
          "[--impls scalar,simd] [--quick] [--no-naive] [--iterations] "
          "[--label NAME] [--verbose]\n");
}

int main(int argc, char **argv) {
  settings st = {.trial_ms = 25, .warmup_ms = 20, .trials = 7,
                 .trials_large = 5, .verbose = false};
  const char *kernel_names[MAX_ITEMS];
  size_t nk = 0;
  size_t sizes[MAX_ITEMS];
  size_t ns = 0;
  bool want_impl[SS_IMPL_COUNT] = {true, true};
  bool naive = true, quick = false, want_iterations = false;
  const char *label = "";
  char *items[MAX_ITEMS];

  for (int a = 1; a < argc; a++) {
    const char *arg = argv[a];
    const bool has_val = a + 1 < argc;
    if (!strcmp(arg, "--quick")) {
      quick = true;
    } else if (!strcmp(arg, "--no-naive")) {
      naive = false;
    } else if (!strcmp(arg, "--iterations")) {
      want_iterations = true;
    } else if (!strcmp(arg, "--verbose")) {
      st.verbose = true;
    } else if (!strcmp(arg, "--label") && has_val) {
      label = argv[++a];
    } else if (!strcmp(arg, "--kernels") && has_val) {
      /* "all" (anywhere in the list) = every registered normalizer */
      const size_t c = split_list(argv[++a], items, MAX_ITEMS);
      for (size_t i = 0; i < c && nk < MAX_ITEMS; i++) {
        if (strcmp(items[i], "all") != 0) {
          kernel_names[nk++] = items[i];
          continue;
        }
        for (size_t j = 0; j < ss_kernel_count() && nk < MAX_ITEMS; j++)
          if (ss_kernel_at(j)->family == SS_FAMILY_NORMALIZER)
            kernel_names[nk++] = ss_kernel_at(j)->name;
      }
    } else if (!strcmp(arg, "--sizes") && has_val) {
      const size_t c = split_list(argv[++a], items, MAX_ITEMS);
      for (size_t i = 0; i < c; i++) {
        char *end;
        const unsigned long long v = strtoull(items[i], &end, 10);
        if (*end || v == 0 || v > SS_MAX_N) {
          fprintf(stderr, "bench: bad size \"%s\" (1..%zu)\n", items[i],
                  (size_t)SS_MAX_N);
          return 2;
        }
        sizes[ns++] = (size_t)v;
      }
    } else if (!strcmp(arg, "--impls") && has_val) {
      want_impl[SS_IMPL_SCALAR] = want_impl[SS_IMPL_SIMD] = false;
      const size_t c = split_list(argv[++a], items, MAX_ITEMS);
      for (size_t i = 0; i < c; i++) {
        if (!strcmp(items[i], "scalar")) want_impl[SS_IMPL_SCALAR] = true;
        else if (!strcmp(items[i], "simd")) want_impl[SS_IMPL_SIMD] = true;
        else {
          fprintf(stderr, "bench: unknown impl \"%s\"\n", items[i]);
          return 2;
        }
      }
    } else {
      usage();
      return 2;
    }
  }
  if (quick) {
    st.trial_ms = 5;
    st.warmup_ms = 10;
    st.trials = 3;
    st.trials_large = 1;
  }
  if (nk == 0)
    for (size_t i = 0; i < sizeof default_kernels / sizeof *default_kernels; i++)
      kernel_names[nk++] = default_kernels[i];
  if (ns == 0)
    for (size_t i = 0; i < sizeof default_sizes / sizeof *default_sizes; i++)
      sizes[ns++] = default_sizes[i];

  size_t nmax = ACC_N;
  for (size_t i = 0; i < ns; i++)
    if (sizes[i] > nmax) nmax = sizes[i];
  float *x = malloc(nmax * sizeof *x);
  float *y = malloc(nmax * sizeof *y);
  double *ref64 = malloc(ACC_N * sizeof *ref64);
  if (!x || !y || !ref64) {
    fprintf(stderr, "bench: out of memory for n = %zu\n", nmax);
    return 1;
  }
  bench_fill_uniform(x, nmax, SEED, -50.0f, 50.0f);
  float *xq = malloc(nmax * sizeof *xq);
  quant_codes = malloc(nmax * sizeof *quant_codes);
  opt_slots = malloc(3 * nmax * sizeof *opt_slots);
  if (!xq || !quant_codes) {
    fprintf(stderr, "bench: out of memory for n = %zu\n", nmax);
    return 1;
  }
  for (size_t i = 0; i < nmax; i++) xq[i] = fabsf(x[i]) / 50.0f;

#if defined(__wasm__)
  const char *platform = "wasm";
#else
  const char *platform = "native";
#endif
  printf("{\"type\":\"meta\",\"label\":\"%s\",\"platform\":\"%s\","
         "\"simd_compiled\":%s,\"version\":\"%s\",\"quick\":%s,"
         "\"trial_ms\":%g,\"trials\":%d,\"seed\":%llu,"
         "\"input\":\"uniform [-50, 50)\"}\n",
         label, platform, ss_impl_available(SS_IMPL_SIMD) ? "true" : "false",
         SS_VERSION, quick ? "true" : "false", st.trial_ms, st.trials,
         (unsigned long long)SEED);

  bool failed = false;
  for (size_t ki = 0; ki <= nk; ki++) {
    target t = {0};
    const char *name;
    if (ki == nk) { /* the naive baseline runs last */
      if (!naive) break;
      name = NAIVE_NAME;
    } else {
      name = kernel_names[ki];
      if (!resolve(name, &t)) {
        printf("{\"type\":\"skip\",\"kernel\":\"%s\",\"reason\":\"%s\"}\n", name,
               ss_kernel_find(name, SS_FAMILY_COUNT)
                   ? "not a normalizer"
                   : "not registered in this build");
        continue;
      }
      for (size_t p = 0; p < t.k->nparams && p < 16; p++)
        t.params[p] = t.k->params[p].def;
      if (t.overrides && !apply_overrides(&t)) {
        printf("{\"type\":\"skip\",\"kernel\":\"%s\",\"reason\":\"bad parameters\"}\n", name);
        continue;
      }
    }
    for (int im = 0; im < SS_IMPL_COUNT; im++) {
      const ss_impl impl = (ss_impl)im;
      if (!t.k && impl != SS_IMPL_SCALAR) continue;
      if (t.k && !want_impl[impl]) continue;
      if (t.k && (!ss_impl_available(impl) ||
                  !(t.kind == RUN_QUANTIZE   ? t.k->quantize[impl] != NULL
                    : t.kind == RUN_OPTIMIZE ? t.k->step[impl] != NULL
                    : t.kind == RUN_ATTEND   ? t.k->attend[impl] != NULL
                                             : t.k->normalize[impl] != NULL))) {
        printf("{\"type\":\"skip\",\"kernel\":\"%s\",\"impl\":\"%s\","
               "\"reason\":\"impl not compiled in\"}\n",
               name, ss_impl_name(impl));
        continue;
      }
      t.impl = impl;
      const char *iname = t.k ? ss_impl_name(impl) : "scalar";
      /* Quantizers read |x| / 50 in [0, 1): in every quantizer's domain
         (pow2 and log_quant take values >= 0). */
      const float *in = t.kind == RUN_QUANTIZE ? xq : x;
      for (size_t si = 0; si < ns; si++) {
        if (t.kind == RUN_ATTEND && !attn_alloc(nmax)) {
          printf("{\"type\":\"error\",\"kernel\":\"%s\",\"message\":\"out of memory\"}\n", name);
          failed = true;
          break;
        }
        if (t.kind == RUN_OPTIMIZE) { /* fresh weights (|x| / 50) and state per size */
          memcpy(y, xq, sizes[si] * sizeof *y);
          memset(opt_slots, 0, 3 * sizes[si] * sizeof *opt_slots);
          memset(opt_scalars, 0, sizeof opt_scalars);
        }
        if (!time_target(&t, name, iname, t.kind == RUN_OPTIMIZE ? x : in, sizes[si], y, &st)) {
          failed = true;
          break;
        }
      }
      accuracy(&t, name, iname, x, y, ref64);
      if (want_iterations)
        for (size_t si = 0; si < ns; si++) iterations(&t, name, iname, x, sizes[si], y);
    }
  }
  free(x);
  free(xq);
  free(quant_codes);
  free(opt_slots);
  free(attn_q), free(attn_k), free(attn_v), free(attn_out), free(attn_scratch);
  free(y);
  free(ref64);
  return failed ? 1 : 0;
}
