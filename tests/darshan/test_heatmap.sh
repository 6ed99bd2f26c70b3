#!/usr/bin/env bash
# `iolens darshan --heatmap` equals ../shared/data/timeseries/heatmap_job.csv for
# every log of that file present under ../shared/data/darshan/public (the CSV
# names a log "<dir>/<file>.darshan"; the shared copy is "<dir>__<file>.darshan").
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data timeseries/heatmap_job.csv
E=$IOLENS_SHARED_DATA/timeseries/heatmap_job.csv
P=$IOLENS_SHARED_DATA/darshan/public
covered=0
# the expected rows of each log, split once
mkdir -p "$IOLENS_TMP/want.d"
awk -F, -v d="$IOLENS_TMP/want.d" 'NR > 1 { f = $1; gsub("/", "__", f); print > (d "/" f) }' "$E"
for l in $(tail -n +2 "$E" | cut -d, -f1 | sort -u); do
  f=$P/${l/\//__}
  [ -f "$f" ] || continue
  covered=$((covered + 1))
  b=$(basename "$f")
  sed "s#^$l,#$b,#" "$IOLENS_TMP/want.d/$b" >"$IOLENS_TMP/want"
  expect_rc 0 "$IOLENS" darshan --heatmap "$f"
  head -1 "$IOLENS_TMP/out" | grep -qx 'log,module,bin_width_s,bin,read_bytes,write_bytes,active_ranks' && ok || fail "header of $l"
  if tail -n +2 "$IOLENS_TMP/out" | cmp -s - "$IOLENS_TMP/want"; then ok; else fail "--heatmap differs for $l"; fi
done
# 27 of the 42 logs of heatmap_job.csv are in the shared set
[ "$covered" -eq 27 ] && ok || fail "covered $covered logs, want 27"
# a log without HEATMAP: the header alone
expect_rc 0 "$IOLENS" darshan --heatmap "$P/release_logs__mpi-io-test-x86_64-3.1.0.darshan"
[ "$(wc -l <"$IOLENS_TMP/out")" -eq 1 ] && ok || fail "non-heatmap log printed rows"
finish
