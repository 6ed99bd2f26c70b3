# The README's main job, without its set-up: the bundled example program traced, its Darshan
# log written and reported, diagnosed (its two problems found), and both changes measured.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
: "${IOLENS_BUILD_DIR:?}"
expect_rc 0 env TMPDIR="$IOLENS_TMP" IOLENS_BUILD="$IOLENS_BUILD_DIR" \
  "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0" bash "$IOLENS_SOURCE_DIR/scripts/main.sh" --skip-setup
expect_grep 'smallio: wrote and read 8388608 bytes' "$IOLENS_TMP/out"
expect_grep 'POSIX   opens=2 reads=2049 writes=2048 seeks=0 stats=0 fsyncs=2048' "$IOLENS_TMP/out"
expect_grep 'detected (tau 0.30): access_granularity;throughput_utilization' "$IOLENS_TMP/out"
# both changes measured with a verdict (which one depends on the file system: an fsync on tmpfs
# does nothing)
expect_grep '^access_granularity .*x \[.*\] (.*%) \(faster\|slower\|within noise\|unreliable\)$' "$IOLENS_TMP/out"
expect_grep '^throughput_utilization .*x \[.*\] (.*%) \(faster\|slower\|within noise\|unreliable\)$' "$IOLENS_TMP/out"
[ -z "$(ls -A "$IOLENS_TMP" | grep iolens-main)" ] && ok || fail "main.sh left its scratch folder"
finish
