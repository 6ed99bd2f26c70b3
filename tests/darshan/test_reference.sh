#!/usr/bin/env bash
# Compares `iolens darshan` with every stored reference output of every log
# listed in ../shared/data/darshan/INDEX.tsv, byte for byte:
#   <log>.parser.txt      = darshan-parser LOG
#   <log>.parser-all.txt  = darshan-parser --all --show-incomplete LOG
#   <log>.dxt-parser.txt  = darshan-dxt-parser LOG
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
  for kind in parser parser-all dxt-parser; do
    ref=$log.$kind.txt
    if [ -e "$ref" ]; then reader=(cat "$ref"); elif [ -e "$ref.gz" ]; then reader=(gzip -dc "$ref.gz"); else continue; fi
    case $kind in
      parser) opts=();;
      parser-all) opts=(--all --show-incomplete);;
      dxt-parser) opts=(--dxt);;
    esac
    # stream both sides through md5sum (outputs reach 200 MB: no temporary files)
    mine=$(set -o pipefail; "$IOLENS" darshan "${opts[@]}" "$log" 2>"$IOLENS_TMP/err" | md5sum)
    rc=$?
    want=$("${reader[@]}" | md5sum)
    # the reference's own exit code in this mode (INDEX-modes.tsv; 255: incomplete data)
    want_rc=0
    [ "$kind" = dxt-parser ] && [ -e "$D/INDEX-modes.tsv" ] &&
      want_rc=$(awk -F'\t' -v f="$rel" '$1 == f { print $5 }' "$D/INDEX-modes.tsv")
    if [ "${want_rc:-0}" -ne 0 ]; then
      [ $rc -ne 0 ] && grep -q 'incomplete data' "$IOLENS_TMP/err" && ok || fail "exit $rc (the reference fails): iolens darshan ${opts[*]} $rel"
      rc=0
    fi
    if [ $rc -ne 0 ]; then fail "exit $rc: iolens darshan ${opts[*]} $rel"; sed 's/^/  /' "$IOLENS_TMP/err" | head -3 >&2; continue; fi
    if [ "$mine" = "$want" ]; then ok
    else fail "$kind differs: $rel"; diff <("$IOLENS" darshan "${opts[@]}" "$log" 2>/dev/null) <("${reader[@]}") | head -5 >&2; fi
  done
done < <(tail -n +2 "$D/INDEX.tsv" | cut -f1)
[ "$checks" -gt 0 ] || fail "no reference output compared"
finish
