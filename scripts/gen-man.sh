#!/usr/bin/env bash
# Writes the manual pages of iolens from the program's own help: iolens.1 (the command list) and
# iolens-<command>.1 for each command, from its --help (one layout for every command: usage
# lines, what it does, "options:" with one entry each, then the rest), as SYNOPSIS, DESCRIPTION
# and OPTIONS. The build runs it after linking; the pages are installed in share/man/man1.
#
#   scripts/gen-man.sh IOLENS OUTDIR [BUILD_SHARE INSTALL_SHARE]
#
# BUILD_SHARE, where the built program finds its data, is written as INSTALL_SHARE, where the
# installed one does, so the pages describe the installed program.
set -euo pipefail
I=$1 out=$2 from=${3:-} to=${4:-}
mkdir -p "$out"
version=$("$I" --version | awk '{print $2}')
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y-%m-%d)
# roff-safe text: backslashes doubled, a leading . or ' escaped, build paths made install paths
esc() {
  if [ -n "$from" ]; then sed "s|$from|$to|g"; else cat; fi | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}
# the command list once: "name<TAB>summary" lines
list=$("$I" help | awk '/^commands:/ {f = 1; next} f && NF && $1 != "help" {n = $1; sub(/^[ \t]*[^ \t]+[ \t]+/, ""); print n "\t" $0}')
commands=$(printf '%s\n' "$list" | cut -f1)
{
  echo ".TH IOLENS 1 \"$date\" \"iolens $version\" \"User Commands\""
  echo ".SH NAME"
  echo "iolens \\- record, diagnose, classify and replay the I/O of HPC applications"
  echo ".SH SYNOPSIS"
  echo ".B iolens"
  echo ".I command"
  echo "[options] [args]"
  echo ".br"
  echo ".B iolens"
  echo ".I command"
  echo ".B \\-\\-help"
  echo ".SH COMMANDS"
  printf '%s\n' "$list" | while IFS=$'\t' read -r name rest; do
    echo ".TP"
    echo ".BR iolens\\-$name (1)"
    printf '%s\n' "$rest" | esc
  done
  echo ".SH SEE ALSO"
  for c in $commands; do printf '.BR iolens\\-%s (1)\n' "$c"; done | sed '$!s/$/,/'
} >"$out/iolens.1"
for c in $commands; do
  help=$("$I" "$c" --help)
  summary=$(printf '%s\n' "$list" | awk -F'\t' -v c="$c" '$1 == c {print $2; exit}')
  {
    echo ".TH IOLENS-${c^^} 1 \"$date\" \"iolens $version\" \"User Commands\""
    echo ".SH NAME"
    printf 'iolens\\-%s \\- %s\n' "$c" "$(printf '%s' "$summary" | esc)"
    printf '%s\n' "$help" | esc | awk '
      /^usage: iolens / { st = "syn"; print ".SH SYNOPSIS"; print ".nf"; sub(/^usage: /, ""); print; next }
      st == "syn" && /^      / { sub(/^ +/, ""); print; next }
      st == "syn" && /^$/ { print ".fi"; print ".SH DESCRIPTION"; st = "about"; next }
      st == "about" && /^options:$/ { print ".SH OPTIONS"; st = "opts"; next }
      st == "about" { print ($0 == "" ? ".PP" : $0); next }
      st == "opts" && (/^  -/ || /^      -/) {
        line = $0; sub(/^ +/, "", line)
        k = index(line, "  ")
        head = k ? substr(line, 1, k - 1) : line; text = k ? substr(line, k) : ""
        sub(/^ +/, "", text); gsub(/-/, "\\-", head)
        print ".TP"; print ".B " head; if (text != "") print text; next
      }
      st == "opts" && /^     / { sub(/^ +/, ""); print; next }
      st == "opts" && /^$/ { st = "more"; print ".PP"; next }
      st == "more" { print ($0 == "" ? ".PP" : $0); next }
      { print }'
    echo ".SH SEE ALSO"
    echo ".BR iolens (1)"
  } >"$out/iolens-$c.1"
done
