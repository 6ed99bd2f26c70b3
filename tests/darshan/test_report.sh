#!/usr/bin/env bash
# `iolens darshan --report`: the human job summary on real logs.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data darshan/INDEX.tsv
D=$IOLENS_SHARED_DATA/darshan
G=$D/generated/small_writes_4proc_dxt_heatmap.darshan

expect_rc 0 "$IOLENS" darshan --report "$G"
R=$IOLENS_TMP/out
expect_grep "executable   ./small_writes /scratch/bench/data" "$R"
expect_grep "processes    4" "$R"
expect_grep "run time     1.2443 s" "$R"   # darshan-parser: "# run time: 1.2443"
# POSIX: 14 records; bytes = the parser's --total (1424000 read = 1.36 MiB, 29182392 written = 27.83 MiB)
expect_grep "  POSIX        14     1.36 MiB    27.83 MiB" "$R"
expect_grep "POSIX   opens=20 reads=6000 writes=28001" "$R"
expect_grep "Top files by bytes moved (POSIX)" "$R"
expect_grep "/scratch/bench/data/small.mpiio.shared           4 1000.00 KiB    3.91 MiB" "$R"
expect_grep "Shared files: slowest and fastest rank" "$R"
if grep -q "Warnings" "$R"; then fail "warnings on a complete log"; else ok; fi
# partial (DXT ran out of memory) and unknown-module logs warn
expect_rc 0 "$IOLENS" darshan --report "$D/public/partial_data_dxt__partial_data_dxt.darshan"
expect_grep "! DXT_POSIX data is incomplete" "$IOLENS_TMP/out"
expect_rc 0 "$IOLENS" darshan --report "$D/public/release_logs__mpi-io-test-x86_64-3.4.1.darshan"
expect_grep "! no log utility handlers defined for module APMPI" "$IOLENS_TMP/out"
expect_rc 0 "$IOLENS" darshan --report "$D/public/release_logs__mpi-io-test-x86_64-3.2.0.darshan"
expect_grep "! logs of runtime 3.2.0" "$IOLENS_TMP/out"
# one log of each format/byte order/compression, plus H5/Lustre/DAOS/heatmap logs: exit 0, module table
for f in "$D"/generated/*.darshan "$D"/public/release_logs__mpi-io-test-ppc64-3.0.0.darshan \
         "$D"/public/release_logs__mpi-io-test-ppc64-3.1.0.darshan "$D"/public/release_logs__mpi-io-test-x86_64-3.1.0.darshan \
         "$D"/public/apmpi_apxc__mpi-io-test.darshan "$D"/public/ecpam-21-materials__*h5-block-coll_*.darshan \
         "$D"/public/ior_daos__*.darshan "$D"/public/e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only.darshan; do
  expect_rc 0 "$IOLENS" darshan --report "$f"
  expect_grep "^I/O by module" "$IOLENS_TMP/out"
done
# a truncated log: a clear error
head -c 2000 "$G" >"$IOLENS_TMP/t.darshan"
expect_rc 1 "$IOLENS" darshan --report "$IOLENS_TMP/t.darshan"
expect_grep "iolens: error: cannot read '$IOLENS_TMP/t.darshan'" "$IOLENS_TMP/err"
finish
