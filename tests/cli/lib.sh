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
# shared_logs: the logs of the shared data's INDEX.tsv (paths relative to its darshan folder);
# with IOLENS_TEST_SAMPLE=N (a sanitizer build sets it) every Nth of them and the first of each
# format version, byte order and compression
shared_logs() {
  tail -n +2 "$IOLENS_SHARED_DATA/darshan/INDEX.tsv" | awk -F'\t' -v n="${IOLENS_TEST_SAMPLE:-1}" \
    '{ k = $4 FS $5 FS $6 } n <= 1 || NR % n == 1 || !(k in seen) { print $1 } { seen[k] = 1 }'
}
skip_unless_data() { [ -e "$IOLENS_SHARED_DATA/$1" ] || { echo "SKIP: $IOLENS_SHARED_DATA/$1 missing"; exit 77; }; }
finish() {
  echo "$checks checks, $failures failures"
  [ "$failures" -eq 0 ]
  exit $?
}
