# docs/cli.md's conventions, each checked against every command `iolens help` lists: the help,
# unknown and misspelt options, a missing value, --name=VALUE, -q/-v, "--" ending the options,
# -o/--output and --json, and the exit codes.
. "$(dirname "$0")/lib.sh"
T=$IOLENS_TMP
cmds=$("$IOLENS" help | awk '/^commands:/{f=1;next} f&&NF&&$1!="help"{print $1}')
[ -n "$cmds" ] && ok || fail "iolens help lists no command"
# the commands with a machine form (one JSON document, or JSON Lines for a stream of events)
json_cmds=" trace view convert darshan features detect advise cluster place paired report replay whatif eval "
for c in $cmds; do
  # help: exit 0, on stdout, nothing on stderr; usage, options and the common -h -q -v
  expect_rc 0 "$IOLENS" "$c" --help
  [ -s "$T/err" ] && fail "$c --help wrote to stderr: $(head -1 "$T/err")" || ok
  head -1 "$T/out" | grep -q "^usage: iolens $c" && ok || fail "$c --help: first line is not 'usage: iolens $c'"
  cp "$T/out" "$T/help.$c"
  for o in '^options:$' '^  -h, --help ' '^  -q, --quiet ' '^  -v, --verbose ' '^  -o, --output '; do
    grep -q -- "$o" "$T/help.$c" && ok || fail "$c --help has no line /$o/"
  done
  case $json_cmds in *" $c "*) grep -q -- '^      --json ' "$T/help.$c" && ok || fail "$c --help has no --json" ;; esac
  # (a sanitizer build leaves out these four of every command: each is one more pass through the
  # same table of options as --help)
  if [ -z "${IOLENS_SANITIZED:-}" ]; then
    expect_rc 0 "$IOLENS" "$c" -h
    cmp -s "$T/out" "$T/help.$c" && ok || fail "$c -h differs from $c --help"
    # the help wins wherever it stands, even where a value would be (not for trace: after the
    # first operand come the traced program's own options)
    if [ "$c" != trace ]; then
      expect_rc 0 "$IOLENS" "$c" some-input --help
      cmp -s "$T/out" "$T/help.$c" && ok || fail "$c INPUT --help is not the help"
    fi
    # -q and -v are every command's
    expect_rc 0 "$IOLENS" "$c" -q --help
    expect_rc 0 "$IOLENS" "$c" -v --help
  fi
  # an unknown option: exit 2 and one error line that names it and the help
  expect_rc 2 "$IOLENS" "$c" --no-such-option-here x
  head -1 "$T/err" | grep -q "^iolens: error: unknown option '--no-such-option-here' (see 'iolens $c --help')$" && ok ||
    fail "$c: unknown option: $(head -1 "$T/err")"
  [ -s "$T/out" ] && fail "$c: an unknown option wrote to stdout" || ok
  # a misspelt option: the nearest one of the help (its first long option of 6+ letters, less
  # its third letter)
  long=$(grep -o -- '--[a-z][a-z0-9-]\{5,\}' "$T/help.$c" | grep -v -- '--help\|--quiet\|--verbose' | head -1)
  if [ -n "$long" ]; then
    typo="--${long:2:2}${long:5}"
    expect_rc 2 "$IOLENS" "$c" "$typo" x
    grep -q -- "did you mean '$long'" "$T/err" && ok || fail "$c $typo: no 'did you mean $long': $(head -1 "$T/err")"
  fi
  # an option that takes a value, given last without it: says so, exit 2
  vopt=$(grep -o -- '^  \(-., \)\{0,1\}--[a-z-]* [A-Z]' "$T/help.$c" | grep -o -- '--[a-z-]*' | head -1)
  if [ -n "$vopt" ]; then
    expect_rc 2 "$IOLENS" "$c" "$vopt"
    grep -q -- "option '$vopt' is missing its value" "$T/err" && ok || fail "$c $vopt: $(head -1 "$T/err")"
    # --name=VALUE is --name VALUE: a wrong value gets the same answer either way (a value that
    # is wrong for every option: a device as a file, a word as a number)
    "$IOLENS" "$c" "$vopt" /dev/null/x x >"$T/o1" 2>"$T/e1"; r1=$?
    "$IOLENS" "$c" "$vopt=/dev/null/x" x >"$T/o2" 2>"$T/e2"; r2=$?
    [ "$r1" = "$r2" ] && cmp -s "$T/e1" "$T/e2" && ok || fail "$c $vopt V and $vopt=V differ: $r1 $r2: $(head -1 "$T/e1") / $(head -1 "$T/e2")"
  fi
  # a flag given a value
  expect_rc 2 "$IOLENS" "$c" --help=x
  # "--" ends the options: what follows is an operand, even --help (not for trace and paired,
  # where it starts a program)
  case $c in trace|paired) ;; *)
    "$IOLENS" "$c" -- --help >"$T/out" 2>"$T/err"; rc=$?
    [ "$rc" != 0 ] && ! grep -q '^usage:' "$T/out" && ok || fail "$c -- --help printed the help (exit $rc)" ;;
  esac
done
# a misspelt command
expect_rc 2 "$IOLENS" detcet
expect_grep "did you mean 'detect'" "$T/err"
# the same option in either place, before or after the input, and as --name=VALUE
L=$IOLENS_SHARED_DATA/darshan/generated/small_writes_4proc_dxt_heatmap.darshan
if [ -f "$L" ]; then
  "$IOLENS" detect --tau 0.5 --json "$L" >"$T/a" 2>/dev/null
  "$IOLENS" detect "$L" --json --tau=0.5 >"$T/b" 2>/dev/null
  cmp -s "$T/a" "$T/b" && ok || fail "detect: options after the input or as --tau=0.5 changed the result"
  "$IOLENS" darshan -o - --total "$L" >"$T/a"; "$IOLENS" darshan "$L" --output=- --total >"$T/b"
  cmp -s "$T/a" "$T/b" && ok || fail "darshan -o - / --output=-"
  # -q: no warnings (a log with a partial module warns)
  expect_rc 0 "$IOLENS" features -q "$L"
  [ -s "$T/err" ] && fail "features -q wrote to stderr: $(head -1 "$T/err")" || ok
fi
# grouped short flags and -oFILE
expect_rc 0 "$IOLENS" trace -qo"$T/g.trace" -- true
[ -s "$T/g.trace" ] && ok || fail "trace -qoFILE wrote no trace"
finish
