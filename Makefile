# softscope — one Makefile for the C library, the wasm builds, the JS package,
# the playground, the tests and the benchmarks.
#
#   make play    install what is missing, build, serve the playground
#   make build   the static site: the playground and the embed bundle in one folder
#   make dist    the widget for any static host: build/dist/softscope-embed-VERSION.tar.gz
#   make test    install what is missing, build, run every suite
#   make docs    the docs site (build/docs/): docs/ plus pages generated from the registry
#   make bench   benchmarks (wasm relaxed / SIMD / scalar, peers, plain JS)
#   make bench-check  a quick benchmark run's ratios against the baseline
#   make bench-browser  the softmax, rows, top-p and training tables in Chromium, next to tfjs and ort-web,
#                       and the default experiment's time to 95 %
#   make native  C library + native test and bench binaries
#   make wasm    wasm/dist/softscope-{simd,scalar,relaxed}.wasm and the wasm tests
SHELL := /bin/bash
.DEFAULT_GOAL := all

B ?= build
CORE_SRC := $(sort $(wildcard core/src/*/*.c))
TEST_SRC := $(sort $(wildcard tests/c/*.c))
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))

CSTD := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN := -Wall -Wextra -Wshadow -Wno-unused-function
INC := -Icore/include -Icore/src -Itests/c

# Native: the same SIMD code through SIMDe. Auto-vectorization is off so the
# scalar reference stays scalar and "simd" means our intrinsics.
NATIVE_CC := gcc
NATIVE_TEST_FLAGS := $(CSTD) $(WARN) $(INC) -O1 -g -fno-omit-frame-pointer \
  -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-tree-vectorize
NATIVE_FAST_FLAGS := $(CSTD) $(WARN) $(INC) -O3 -march=native -fno-tree-vectorize
NATIVE_PLAIN_FLAGS := $(CSTD) $(WARN) $(INC) -O1 -g -fno-tree-vectorize

# Wasm: emcc 3.1.6; its JS step needs Debian's node modules. Auto-vectorization
# is off in both builds: "scalar" is the plain reference, "simd" our intrinsics.
EMCC := NODE_PATH=/usr/share/nodejs emcc
WASM_CFLAGS := $(CSTD) $(WARN) $(INC) -O3
WASM_LINK := -O3 -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH=1 \
  -sINITIAL_MEMORY=16MB -sMAXIMUM_MEMORY=2GB -sTOTAL_STACK=1MB
WASM_SIMD := -msimd128 -fno-vectorize -fno-slp-vectorize
WASM_SCALAR := -fno-vectorize -fno-slp-vectorize
# Exported C API: every function softscope.h declares, and malloc / free
# (scripts/exports.sh; tests/build-checks.sh checks the builds export them).
WASM_EXPORTS := $(shell sh scripts/exports.sh)
EXPORTS_SRC := core/include/softscope.h scripts/exports.sh
WASM_LIB_FLAGS := --no-entry --profiling-funcs $(foreach f,$(WASM_EXPORTS),-Wl,--export=$(f))

# libFuzzer targets (tests/fuzz): clang 14 with the fuzzer, ASan and UBSan
# runtimes; the core compiled with the same sanitizers (SIMD through SIMDe).
FUZZ_CC := clang
FUZZ_FLAGS := $(CSTD) $(WARN) $(INC) -O1 -g -fno-omit-frame-pointer \
  -fsanitize=address,undefined -fno-sanitize-recover=all -fno-vectorize -fno-slp-vectorize
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRC))
FUZZ_SECONDS ?= 180

# Relaxed SIMD, a third wasm build: Debian's clang-19 and wasm-ld-19 with
# Debian's wasi-libc. Compiled and linked as two steps, never through the
# clang driver's link step, which would run Debian's old wasm-opt (it cannot
# parse relaxed ops). Only the files whose kernels state a relaxed error
# bound (RELAXED_SRC; they ask for relaxed_madd through common/simd.h) go
# through clang-19 -mrelaxed-simd; every other file through Debian's clang 14
# -msimd128, the compiler emcc uses: clang-19 turns each and/andnot with a
# compare mask into v128.bitselect, which V8 runs as three instructions, and
# the plain kernels ran up to 19% slower (sparsemax) than in the simd build.
# -ffp-contract=off: no multiply-add is fused behind the code's back. The
# same API is exported as by the emcc builds; libc is a WASI "reactor"
# (_initialize runs the constructors), the C tests a WASI command. The
# package's module drops wasi-libc's DWARF (--strip-debug: 140 kB of the
# download; the name section stays, as in the emcc builds' --profiling-funcs).
RELAXED_CC := clang-19
PLAIN_CC := clang-14
RELAXED_LD := wasm-ld-19
WASI_LIB := /usr/lib/wasm32-wasi
RELAXED_SRC := $(wildcard core/src/softmax/*.c) core/src/common/softmax_row.c core/src/model/linear.c
WASI_CFLAGS := $(CSTD) $(WARN) $(INC) -O3 --target=wasm32-wasi --sysroot=/usr \
  -msimd128 -fno-vectorize -fno-slp-vectorize -ffp-contract=off -DSS_BUILD_RELAXED
RELAXED_LINK := -L$(WASI_LIB) -z stack-size=1048576 --initial-memory=16777216 \
  --max-memory=2147483648
# (expanded when a link runs: after tests/install-deps.sh installed clang-19)
RELAXED_LIBS = -lc -lm $(shell $(RELAXED_CC) --target=wasm32-wasi -print-libgcc-file-name)

NODE := node --no-warnings
DIST ?= wasm/dist
WASM_BUILDS := $(DIST)/softscope-relaxed.wasm $(DIST)/softscope-simd.wasm $(DIST)/softscope-scalar.wasm
VERSION := $(shell node -p "require('./package.json').version" 2>/dev/null)

.PHONY: all deps example native valgrind wasm test test-c-native test-c-wasm test-js test-browser \
        play bench bench-check bench-browser web embed build dist docs-example docs mkdocs-example notebook-example \
        screenshots clean fuzz fuzz-build

all: native wasm

# ---- dependencies (fresh Debian machine) ---------------------------------
deps: $(B)/.apt-ok node_modules/.npm-ok

$(B)/.apt-ok: tests/install-deps.sh
	@bash tests/install-deps.sh
	@mkdir -p $(B) && touch $@

node_modules/.npm-ok: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# ---- objects ----------------------------------------------------------------
# Every configuration compiles each C file once into build/obj/<config>/ (with
# its header dependencies, -MMD), so an edit rebuilds only what it touches;
# `make test` builds with one job per core.
NPROC := $(shell nproc 2>/dev/null || echo 2)
objs = $(patsubst %.c,$(B)/obj/$(1)/%.o,$(2))
-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)

$(B)/obj/asan/%.o: %.c | $(B)/.apt-ok
	@mkdir -p $(@D)
	$(NATIVE_CC) $(NATIVE_TEST_FLAGS) -MMD -MP -c $< -o $@
$(B)/obj/fast/%.o: %.c | $(B)/.apt-ok
	@mkdir -p $(@D)
	$(NATIVE_CC) $(NATIVE_FAST_FLAGS) -MMD -MP -c $< -o $@
$(B)/obj/plain/%.o: %.c | $(B)/.apt-ok
	@mkdir -p $(@D)
	$(NATIVE_CC) $(NATIVE_PLAIN_FLAGS) -MMD -MP -c $< -o $@
$(B)/obj/fuzz/%.o: %.c | $(B)/.apt-ok
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
$(B)/obj/wasm-simd/%.o: %.c | $(B)/.apt-ok
	@mkdir -p $(@D)
	$(EMCC) $(WASM_CFLAGS) $(WASM_SIMD) -MMD -MP -c $< -o $@
$(B)/obj/wasm-scalar/%.o: %.c | $(B)/.apt-ok
	@mkdir -p $(@D)
	$(EMCC) $(WASM_CFLAGS) $(WASM_SCALAR) -MMD -MP -c $< -o $@
$(B)/obj/wasm-relaxed/%.o: %.c | $(B)/.apt-ok
	@mkdir -p $(@D)
	$(if $(filter $<,$(RELAXED_SRC)),$(RELAXED_CC) $(WASI_CFLAGS) -mrelaxed-simd,$(PLAIN_CC) $(WASI_CFLAGS)) -MMD -MP -c $< -o $@

# ---- native --------------------------------------------------------------
native: $(B)/native/tests $(B)/native/bench $(B)/native/example $(B)/native/train

$(B)/native/tests: $(call objs,asan,$(CORE_SRC) $(TEST_SRC))
	@mkdir -p $(@D)
	$(NATIVE_CC) $(NATIVE_TEST_FLAGS) $^ -lm -o $@

$(B)/native/bench: $(call objs,fast,$(CORE_SRC) $(BENCH_SRC))
	@mkdir -p $(@D)
	$(NATIVE_CC) $(NATIVE_FAST_FLAGS) $^ -lm -o $@

$(B)/native/example: $(call objs,fast,$(CORE_SRC) examples/softmax.c)
	@mkdir -p $(@D)
	$(NATIVE_CC) $(NATIVE_FAST_FLAGS) $^ -lm -o $@

$(B)/native/train: $(call objs,fast,$(CORE_SRC) examples/train.c)
	@mkdir -p $(@D)
	$(NATIVE_CC) $(NATIVE_FAST_FLAGS) $^ -lm -o $@

example: $(B)/native/example $(B)/native/train
	$(B)/native/example
	$(B)/native/train

# ---- fuzzing ---------------------------------------------------------------
# One libFuzzer target per family. `make fuzz` runs each for FUZZ_SECONDS
# (new inputs go to build/fuzz/work/, the committed corpus is read-only);
# `make test` runs each for a few seconds over tests/fuzz/corpus/.
fuzz-build: $(FUZZ_TARGETS)
# the objects of the pattern rule below are kept (incremental rebuilds)
.SECONDARY: $(call objs,fuzz,$(CORE_SRC) $(FUZZ_SRC))

$(B)/fuzz/fuzz_%: $(call objs,fuzz,$(CORE_SRC) tests/fuzz/fuzz_%.c)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $^ -lm -o $@

fuzz: fuzz-build
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS)

# ---- wasm ----------------------------------------------------------------
wasm: $(DIST)/softscope-simd.wasm $(DIST)/softscope-scalar.wasm $(DIST)/softscope-relaxed.wasm $(DIST)/registry.js \
      $(B)/wasm/tests-simd.wasm $(B)/wasm/tests-scalar.wasm $(B)/wasm/tests-relaxed.wasm

# The registry as the package reads it statically (enums, statuses, kernel
# name types), generated from the C registry itself.
$(B)/native/registry-json: $(call objs,fast,$(CORE_SRC) scripts/registry-json.c)
	@mkdir -p $(@D)
	$(NATIVE_CC) $(NATIVE_FAST_FLAGS) $^ -lm -o $@

$(DIST)/registry.js: $(B)/native/registry-json scripts/gen-registry.js
	@mkdir -p $(@D)
	$(B)/native/registry-json > $(B)/registry.json
	node scripts/gen-registry.js $(B)/registry.json $(DIST)

$(DIST)/softscope-simd.wasm: $(call objs,wasm-simd,$(CORE_SRC)) Makefile $(EXPORTS_SRC)
	@mkdir -p $(@D)
	$(EMCC) $(WASM_LINK) $(WASM_LIB_FLAGS) $(filter %.o,$^) -o $@

$(DIST)/softscope-scalar.wasm: $(call objs,wasm-scalar,$(CORE_SRC)) Makefile $(EXPORTS_SRC)
	@mkdir -p $(@D)
	$(EMCC) $(WASM_LINK) $(WASM_LIB_FLAGS) $(filter %.o,$^) -o $@

$(DIST)/softscope-relaxed.wasm: $(call objs,wasm-relaxed,$(CORE_SRC)) Makefile $(EXPORTS_SRC)
	@mkdir -p $(@D)
	$(RELAXED_LD) --no-entry --strip-debug $(RELAXED_LINK) $(WASI_LIB)/crt1-reactor.o $(filter %.o,$^) \
	  $(RELAXED_LIBS) $(foreach f,$(WASM_EXPORTS),--export=$(f)) -o $@

$(B)/wasm/tests-simd.wasm: $(call objs,wasm-simd,$(CORE_SRC) $(TEST_SRC))
	@mkdir -p $(@D)
	$(EMCC) $(WASM_LINK) $^ -o $@
$(B)/wasm/tests-scalar.wasm: $(call objs,wasm-scalar,$(CORE_SRC) $(TEST_SRC))
	@mkdir -p $(@D)
	$(EMCC) $(WASM_LINK) $^ -o $@

$(B)/wasm/tests-relaxed.wasm: $(call objs,wasm-relaxed,$(CORE_SRC) $(TEST_SRC))
	@mkdir -p $(@D)
	$(RELAXED_LD) $(RELAXED_LINK) $(WASI_LIB)/crt1-command.o $^ $(RELAXED_LIBS) -o $@

# ---- tests ---------------------------------------------------------------
# Each suite prints "suite NAME: P passed, F failed, S skipped"; the summary
# script adds them up and prints the closing "N passed, N failed" line.
test: deps
	$(MAKE) -j$(NPROC) native wasm fuzz-build
	@mkdir -p $(B)/logs
	$(MAKE) -j$(NPROC) build dist docs-example docs mkdocs-example notebook-example
	@bash tests/run-all.sh

test-c-native: $(B)/native/tests
	$(B)/native/tests native-asan

# The same C suite without sanitizers, under valgrind's memcheck (slow; not
# part of `make test`): catches uninitialised reads the sanitizers miss.
# By default every test but the conformance testers (their ~10^5 calls each
# take hours under memcheck; ~15 min for the rest on one core);
# VALGRIND_FILTER= runs them all, VALGRIND_FILTER=name one subset.
VALGRIND_FILTER ?= -conformance
$(B)/native/tests-plain: $(call objs,plain,$(CORE_SRC) $(TEST_SRC))
	@mkdir -p $(@D)
	$(NATIVE_CC) $(NATIVE_PLAIN_FLAGS) $^ -lm -o $@

valgrind: $(B)/native/tests-plain
	valgrind --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite -q $(B)/native/tests-plain native-valgrind $(VALGRIND_FILTER)

test-c-wasm: $(B)/wasm/tests-simd.wasm $(B)/wasm/tests-scalar.wasm $(B)/wasm/tests-relaxed.wasm
	$(NODE) tests/support/run-wasi.js $(B)/wasm/tests-scalar.wasm wasm-scalar
	$(NODE) tests/support/run-wasi.js $(B)/wasm/tests-simd.wasm wasm-simd
	$(NODE) --experimental-wasm-relaxed-simd tests/support/run-wasi.js $(B)/wasm/tests-relaxed.wasm wasm-relaxed

test-js: deps wasm
	npx vitest run --config tests/js/vitest.config.js

test-browser: deps wasm web
	npx vitest run --config tests/browser/vitest.config.js

# ---- playground, embed bundle, site ----------------------------------------------
# The playground (web/dist/) loads the three wasm builds from web/dist/
# (web/shared-wasm.js), one copy each, shared with the site's widgets.
web: deps wasm
	npx vite build web --logLevel warn
	cp $(WASM_BUILDS) web/dist/

# softscope/embed: the <softscope-widget> bundle (wasm/dist/embed/), which
# loads the package's wasm builds, one folder up (wasm/dist/*.wasm)
embed: deps wasm
	npx vite build --config web/vite.embed.config.js

# copy-embed DIR: the widget as a folder of its own, DIR/embed/ (embed.js and
# its chunks) next to DIR/softscope-*.wasm, the package's layout by which
# embed.js finds the wasm.
copy-embed = rm -rf $(1)/embed && mkdir -p $(1)/embed && cp -r wasm/dist/embed/. $(1)/embed/ && \
  rm -f $(1)/embed/embed-manifest.json && cp $(WASM_BUILDS) $(1)/

# The static site: the playground (web/dist) with the embed bundle in
# web/dist/embed/, one folder that works from any static server, also from a
# subfolder (every path is relative).
build: web embed
	$(call copy-embed,web/dist)
	@echo "site: web/dist/ (playground: index.html, widget: embed/embed.js)"

# The widget for any static host, versioned: softscope-embed-VERSION/ (embed/
# and the three wasm builds) in build/dist/softscope-embed-VERSION.tar.gz.
# Unpack it on the server; pages load softscope-embed-VERSION/embed/embed.js.
DIST_NAME := softscope-embed-$(VERSION)
dist: embed
	rm -rf $(B)/dist/$(DIST_NAME) && mkdir -p $(B)/dist/$(DIST_NAME)
	$(call copy-embed,$(B)/dist/$(DIST_NAME))
	cp LICENSE $(B)/dist/$(DIST_NAME)/
	tar czf $(B)/dist/$(DIST_NAME).tar.gz -C $(B)/dist $(DIST_NAME)
	@echo "dist: $(B)/dist/$(DIST_NAME).tar.gz (load $(DIST_NAME)/embed/embed.js)"

# Screenshots of the three hosts of the widget: build/screenshots/*.png
screenshots: embed docs-example
	node scripts/screenshot-hosts.js

# The VitePress docs example, built against the embed bundle.
docs-example: embed
	rm -rf examples/docs/public/softscope && mkdir -p examples/docs/public/softscope
	$(call copy-embed,examples/docs/public/softscope)
	mkdir -p $(B)/logs
	npx vitepress build examples/docs > $(B)/logs/docs-example.log 2>&1 || (cat $(B)/logs/docs-example.log; exit 1)

# The docs site: docs/ (guides, config, theme) copied to $(B)/docs-src/ with
# the pages generated from the registry JSON, the views, the committed bench
# run, the CLI's --help, index.d.ts and softscope.h (scripts/gen-docs.js;
# nothing generated is committed), the widget bundle in its public/softscope/,
# then built by VitePress into $(B)/docs/.
DOCS_SRC := $(B)/docs-src
docs: embed $(B)/native/registry-json
	$(B)/native/registry-json > $(B)/registry.json
	node scripts/gen-docs.js --registry $(B)/registry.json --out $(DOCS_SRC) --results experiments,language
	mkdir -p $(DOCS_SRC)/public/softscope $(DOCS_SRC)/public/bench $(DOCS_SRC)/public/results
	# the Experiments page's widget draws a run trained here (the default state; quantised by rounding only: ~5 s)
	node wasm/cli/main.js train --quantizers uniform --json > $(DOCS_SRC)/public/results/experiments.json
	# and the Language page's: a short run of the default shape (200 steps, quantised by rounding only: ~15 s)
	node wasm/cli/main.js train language --steps 200 --quantizers uniform --json > $(DOCS_SRC)/public/results/language.json
	$(call copy-embed,$(DOCS_SRC)/public/softscope)
	cp tests/bench/results/*.svg $(DOCS_SRC)/public/bench/
	mkdir -p $(B)/logs
	npx vitepress build $(DOCS_SRC) > $(B)/logs/docs.log 2>&1 || (cat $(B)/logs/docs.log; exit 1)
	@echo "docs: $(B)/docs/ (node scripts/static-server.js $(B)/docs)"

# Two more hosts of the widget, built by their own tools for the browser
# tests: a MkDocs Material site (MkDocs 1.4, Debian's: the embed script is a
# module, added by a theme override, examples/mkdocs/overrides/main.html) and
# a notebook exported by nbconvert (examples/notebook/widgets.ipynb), each
# with the widget folder next to its pages.
HOSTS := $(B)/hosts
mkdocs-example: embed
	rm -rf $(HOSTS)/mkdocs-src $(HOSTS)/mkdocs && mkdir -p $(HOSTS)
	cp -r examples/mkdocs $(HOSTS)/mkdocs-src
	$(call copy-embed,$(HOSTS)/mkdocs-src/docs/softscope)
	/usr/bin/mkdocs build -q -f $(HOSTS)/mkdocs-src/mkdocs.yml -d $(abspath $(HOSTS)/mkdocs)

notebook-example: embed
	rm -rf $(HOSTS)/notebook && mkdir -p $(HOSTS)/notebook
	/usr/bin/python3 -m nbconvert --log-level=WARN --to html --output-dir $(HOSTS)/notebook examples/notebook/widgets.ipynb
	$(call copy-embed,$(HOSTS)/notebook/softscope)

# The built site, served on 127.0.0.1 (PORT, default 5173). For live
# reloading while editing: npx vite web
play: build
	node scripts/static-server.js web/dist $${PORT:-5173}

# ---- benchmarks ----------------------------------------------------------
# One registry-driven harness: every family, softscope's three wasm builds,
# the peers (devDependencies), plain JS and memcpy side by side in one Node
# process; tables on stdout (also $(B)/bench/bench.txt), JSON and SVG per
# family in $(B)/bench. `node tests/bench/readme-tables.js` then rewrites the
# README's benchmark sections from the JSON. bench-check: a quick run's
# ratios against tests/bench/baseline.json (not part of `make test`).
BENCH_WASM := $(WASM_BUILDS)

bench: deps $(B)/.apt-bench-ok $(BENCH_WASM)
	@mkdir -p $(B)/bench
	set -o pipefail; $(NODE) tests/bench/bench.js | tee $(B)/bench/bench.txt

# PyTorch for the training step's peer (tests/install-deps.sh: why not in
# `make test`). A failed install does not stop the bench: the training row
# then says PyTorch was not measured.
$(B)/.apt-bench-ok: tests/install-deps.sh
	@(bash tests/install-deps.sh bench && mkdir -p $(B) && touch $@) || echo "bench: python3-torch not installed (the training row will say so)"

bench-check: deps $(B)/.apt-bench-ok $(BENCH_WASM)
	$(NODE) tests/bench/bench-check.js

# The softmax, log-softmax, rows, top-p and training-step tables in Chromium
# (one page, softscope's builds next to tfjs-backend-wasm and onnxruntime-web),
# by the same harness, then the Experiments view's default state trained to
# 95 % in a fresh load of the page (issue 27); tables on stdout, JSON and text
# in $(B)/bench/browser.
bench-browser: deps $(BENCH_WASM)
	$(NODE) tests/bench/bench-browser.js

clean:
	rm -rf $(B) $(DIST) web/dist examples/docs/.vitepress/dist examples/docs/.vitepress/cache examples/docs/public/softscope
