#!/bin/sh
# Every C and C++ file of the repository is as clang-format lays it out (.clang-format), with
# clang-format 14, Debian 12's: another major version may lay out the same code differently, so
# it skips rather than fails there.
#
#   tests/lint/check_format.sh SOURCE_DIR   exit 0 pass, 1 fail, 77 skip
set -eu
cd "$1"
command -v clang-format >/dev/null 2>&1 || { echo "SKIP: clang-format is not installed"; exit 77; }
major=$(clang-format --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
[ "$major" = 14 ] || { echo "SKIP: clang-format $major; the layout is clang-format 14's"; exit 77; }
command -v git >/dev/null 2>&1 && [ -d .git ] || { echo "SKIP: not a git checkout"; exit 77; }
files=$(git ls-files '*.c' '*.cc' '*.h')
# shellcheck disable=SC2086
if ! clang-format --dry-run --Werror $files; then
  echo "FAIL: run clang-format -i on the files above" >&2
  exit 1
fi
echo "$(echo "$files" | wc -l) files formatted"
