#!/usr/bin/env bash
# Compares `iolens darshan` with every stored reference output of every log
# listed in ../shared/data/darshan/INDEX.tsv, byte for byte:
#   <log>.parser.txt      = darshan-parser LOG
#   <log>.parser-all.txt  = darshan-parser --all --show-incomplete LOG
#   <log>.dxt-parser.txt  = darshan-dxt-parser LOG
#   <log>.parser-{total,perf,file}.txt = darshan-parser --total / --perf / --file LOG
#     (the pairs in known_mode_diffs.tsv must still differ; every other pair must be equal)
# (".gz" variants are decompressed). The references were made with TZ=UTC
# (the *_asci lines are local time, as in darshan-parser), so TZ=UTC here.
# Usage: test_reference.sh [SHARD NSHARDS]  (logs are split across shards)
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data darshan/INDEX.tsv
shard=${1:-0}; nshards=${2:-1}
export TZ=UTC
D=$IOLENS_SHARED_DATA/darshan
i=0
while IFS= read -r rel; do
  i=$((i + 1))
  [ $(( i % nshards )) -eq "$shard" ] || continue
  log=$D/$rel
  for kind in parser parser-all dxt-parser parser-total parser-perf parser-file; do
    ref=$log.$kind.txt
    if [ -e "$ref" ]; then reader=(cat "$ref"); elif [ -e "$ref.gz" ]; then reader=(gzip -dc "$ref.gz"); else continue; fi
    case $kind in
      parser) opts=();;
      parser-all) opts=(--all --show-incomplete);;
      dxt-parser) opts=(--dxt);;
      parser-total) opts=(--total);;
      parser-perf) opts=(--perf);;
      parser-file) opts=(--file);;
    esac
    # stream both sides through md5sum (outputs reach 200 MB: no temporary files)
    mine=$(set -o pipefail; "$IOLENS" darshan "${opts[@]}" "$log" 2>"$IOLENS_TMP/err" | md5sum)
    rc=$?
    want=$("${reader[@]}" | md5sum)
    # the reference's own exit code in this mode (INDEX-modes.tsv; 255: incomplete data)
    want_rc=0
    col=; case $kind in dxt-parser) col=5;; parser-total) col=2;; parser-perf) col=3;; parser-file) col=4;; esac
    [ -n "$col" ] && [ -e "$D/INDEX-modes.tsv" ] &&
      want_rc=$(awk -F'\t' -v f="$rel" -v c="$col" '$1 == f { print $c }' "$D/INDEX-modes.tsv")
    if [ "${want_rc:-0}" -ne 0 ]; then
      [ $rc -ne 0 ] && grep -q 'incomplete data' "$IOLENS_TMP/err" && ok || fail "exit $rc (the reference fails): iolens darshan ${opts[*]} $rel"
      rc=0
    fi
    if [ $rc -ne 0 ]; then fail "exit $rc: iolens darshan ${opts[*]} $rel"; sed 's/^/  /' "$IOLENS_TMP/err" | head -3 >&2; continue; fi
    known=$(awk -F'\t' -v m="${kind#parser-}" -v f="$rel" '!/^#/ && $1 == m && $2 == f { print $3 }' \
      "$IOLENS_SOURCE_DIR/tests/darshan/known_mode_diffs.tsv")
    if [ -n "$known" ]; then
      [ "$mine" != "$want" ] && ok || fail "$kind now equals the reference: remove '$rel' from known_mode_diffs.tsv"
    elif [ "$mine" = "$want" ]; then ok
    else fail "$kind differs: $rel"; diff <("$IOLENS" darshan "${opts[@]}" "$log" 2>/dev/null) <("${reader[@]}") | head -5 >&2; fi
  done
done < <(shared_logs)
[ "$checks" -gt 0 ] || fail "no reference output compared"
finish
