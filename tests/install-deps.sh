#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, if missing.
# Runs as root (CI and this workplace) or through sudo.
set -euo pipefail
need=()
command -v emcc >/dev/null || need+=(emscripten)
[ -f /usr/include/simde/wasm/simd128.h ] || need+=(libsimde-dev)
command -v wasm-objdump >/dev/null || need+=(wabt)
# the relaxed-SIMD wasm build: clang-19 + wasm-ld-19 and a libc (wasi-libc,
# compiler-rt's builtins for wasm32); clang 14 for its plain files
command -v clang-19 >/dev/null || need+=(clang-19)
command -v clang-14 >/dev/null || need+=(clang-14)
command -v wasm-ld-19 >/dev/null || need+=(lld-19)
[ -f /usr/lib/wasm32-wasi/libc.a ] || need+=(wasi-libc)
[ -f /usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a ] || need+=(libclang-rt-19-dev-wasm32)
command -v chromium >/dev/null || need+=(chromium)
command -v gcc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
command -v node >/dev/null || need+=(nodejs npm)
# libFuzzer (tests/fuzz): clang and its runtimes (the fuzzer, ASan, UBSan)
command -v clang >/dev/null || need+=(clang)
compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null ||
  need+=(libclang-rt-14-dev)
# real hosts of the widget (tests/browser/hosts.test.js): a MkDocs Material
# site and a notebook exported by nbconvert, Debian's packages (Debian's
# python3: a python3 earlier in PATH, e.g. pyenv's, does not see them)
[ -x /usr/bin/mkdocs ] || need+=(mkdocs)
# (Debian's mkdocs-material is a theme folder of mkdocs, not a python module)
[ -f /usr/share/mkdocs/themes/material/mkdocs_theme.yml ] || need+=(mkdocs-material)
/usr/bin/python3 -c 'import nbconvert' 2>/dev/null || need+=(python3-nbconvert)
# `make bench` and `make bench-check` only (`tests/install-deps.sh bench`):
# PyTorch, the training step's peer (tests/bench/torch_step.py), Debian's
# python3-torch 1.13 for Debian's python3. Heavy, so not in `make test`'s
# path: python3-torch, libtorch1.13, libtorch-test and libdnnl2 alone are
# ~51 MB to download and ~268 MB installed, and libtorch1.13 pulls in
# OpenCV and FFmpeg libraries on a machine without them.
# It is built with BLAS_INFO=generic: it calls whatever libblas.so.3 the
# alternatives point to, which with libblas3 alone is netlib's reference
# BLAS (5-15x slower than a real one). libopenblas0-pthread (~6 MB
# installed) registers OpenBLAS's libblas.so.3 at priority 100 over the
# reference's 10, so the alternatives' auto mode picks it; the peer runs it
# on one thread (tests/bench/torch-peer.js) and reports what it mapped.
if [ "${1:-}" = bench ]; then
  /usr/bin/python3 -c 'import torch' 2>/dev/null || need+=(python3-torch)
  [ -f /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3 ] || need+=(libopenblas0-pthread)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
