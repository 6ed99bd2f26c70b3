# Helpers for CLI tests (sourced). Each test script runs the real binary $IOLENS.
set -u
: "${IOLENS:?}" "${IOLENS_SHARED_DATA:?}" "${IOLENS_TMP:=/tmp/iolens-cli-$$}"
rm -rf "$IOLENS_TMP"; mkdir -p "$IOLENS_TMP"
trap 'rm -rf "$IOLENS_TMP"' EXIT
failures=0
checks=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { checks=$((checks + 1)); }
# expect_rc WANT CMD...: runs CMD, checks its exit code, keeps stdout/stderr in $IOLENS_TMP/out,err
expect_rc() {
  local want=$1; shift
  "$@" >"$IOLENS_TMP/out" 2>"$IOLENS_TMP/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then fail "exit $rc (want $want): $*"; sed 's/^/  stderr: /' "$IOLENS_TMP/err" | head -5 >&2; else ok; fi
}
expect_grep() { # expect_grep PATTERN FILE
  if grep -q -- "$1" "$2"; then ok; else fail "'$1' not in $2"; fi
}
skip_unless_data() { [ -e "$IOLENS_SHARED_DATA/$1" ] || { echo "SKIP: $IOLENS_SHARED_DATA/$1 missing"; exit 77; }; }
finish() {
  echo "$checks checks, $failures failures"
  [ "$failures" -eq 0 ]
  exit $?
}
