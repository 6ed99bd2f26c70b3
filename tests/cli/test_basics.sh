# iolens help / --version / unknown commands: exit codes and messages.
. "$(dirname "$0")/lib.sh"

expect_rc 0 "$IOLENS" --version
expect_grep '^iolens [0-9]\+\.[0-9]\+\.[0-9]\+$' "$IOLENS_TMP/out"
expect_rc 0 "$IOLENS" help
expect_grep 'commands:' "$IOLENS_TMP/out"
expect_rc 2 "$IOLENS"
expect_grep 'usage: iolens' "$IOLENS_TMP/err"
expect_rc 2 "$IOLENS" no-such-command
expect_grep "iolens: error: 'no-such-command' is not an iolens command" "$IOLENS_TMP/err"
# Every listed command answers --help with exit 0 and a usage line.
for cmd in $("$IOLENS" help | awk '/^commands:/{f=1;next} f&&NF{print $1}'); do
  [ "$cmd" = help ] && continue
  expect_rc 0 "$IOLENS" "$cmd" --help
  expect_grep 'usage: iolens' "$IOLENS_TMP/out"
  expect_rc 0 "$IOLENS" help "$cmd"
done
finish
