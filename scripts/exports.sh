#!/bin/sh
# The wasm builds' exports, one a line: malloc and free (the JS loader's
# heap) and every function core/include/softscope.h declares, so that the
# header is the one list of the C API (the Makefile links with these;
# tests/build-checks.sh checks each build exports exactly them). A
# declaration is a line that starts with its return type and names ss_*(.
set -eu
printf 'malloc\nfree\n'
sed -nE 's/^(const |unsigned |struct )*[a-z_0-9]+[ *]+(ss_[a-z0-9_]+)\(.*/\2/p' \
  "${1:-$(dirname "$0")/../core/include/softscope.h}"
