#!/usr/bin/env bash
# The workloads that produced the real Darshan logs of
# ../shared/data/darshan/generated (workloads/small_writes.c, large_seq.c, run as
# in workloads/run_all.sh: 4 ranks, data dir as argv[1]) are traced by iolens;
# the counters computed from the trace are compared with the real log's:
#  - every counter that does not depend on timing is equal, for every POSIX,
#    MPI-IO and STDIO record of the data files (paths compared relative to the
#    data dir; per-rank and reduced records);
#    not compared: *_F_* times, FASTEST/SLOWEST rank and bytes and MAX_*_TIME_SIZE
#    (they depend on which call was slowest), and POSIX_STATS of the MPI-IO
#    shared file (the tracer sees ROMIO's lstat inside MPI_File_open, which the
#    Darshan runtime did not count);
#  - timers and timestamps are consistent: every record with bytes has a positive
#    read/write time, start <= end timestamps, all within the run time (+1 ms);
#  - heatmap byte totals equal the byte counters of each API.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data darshan/generated/workloads/small_writes.c
command -v mpicc >/dev/null && command -v mpirun >/dev/null || { echo "SKIP: mpicc/mpirun not found"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TZ=UTC
G=$IOLENS_SHARED_DATA/darshan/generated
W=$(mktemp -d /dev/shm/iolens-wl.XXXXXX)
trap 'rm -rf "$W"' EXIT

# records of data files: "module rank counter value relpath", non-timing counters only
norm() { # norm TEXT DATADIR
  grep -P '^(POSIX|MPI-IO|STDIO)\t' "$1" |
    awk -F'\t' -v d="$2/" '{p=$6; if (index(p, d) == 1) print $1, $2, $4, $5, substr(p, length(d) + 1)}' |
    grep -v -E '_F_|FASTEST|SLOWEST|_MAX_(READ|WRITE)_TIME_SIZE' |
    grep -v -E '^POSIX -1 POSIX_STATS [0-9]+ [a-z_]+\.mpiio\.shared$' | sort
}

for wl in small_writes large_seq; do
  mkdir -p "$W/$wl/data"
  if ! mpicc -O2 -o "$W/$wl/$wl" "$G/workloads/$wl.c" 2>"$W/$wl/cc.log"; then
    fail "$wl: mpicc failed: $(cat "$W/$wl/cc.log")"; continue
  fi
  (cd "$W/$wl" && timeout 300 mpirun --oversubscribe --allow-run-as-root -np 4 \
      "$IOLENS" trace -o "$W/$wl/t.trace" -- "./$wl" "$W/$wl/data") >"$W/$wl/run.log" 2>&1 ||
    { fail "$wl: traced run failed: $(tail -5 "$W/$wl/run.log")"; continue; }
  rm -rf "$W/$wl/data"/* # the data (up to 512 MiB) is not needed any more
  expect_rc 0 "$IOLENS" darshan --from "$W/$wl/t.trace" -o "$W/$wl/t.darshan" --all-paths --exe "./$wl $W/$wl/data"
  expect_rc 0 "$IOLENS" darshan "$W/$wl/t.darshan"
  cp "$IOLENS_TMP/out" "$W/$wl/ours.txt"
  "$IOLENS" darshan --show-incomplete "$G/${wl}_4proc_dxt_heatmap.darshan" >"$W/$wl/real.txt"
  norm "$W/$wl/ours.txt" "$W/$wl/data" >"$W/$wl/o"
  norm "$W/$wl/real.txt" /scratch/bench/data >"$W/$wl/r"
  n=$(wc -l <"$W/$wl/r")
  if [ "$n" -gt 300 ] && cmp -s "$W/$wl/r" "$W/$wl/o"; then ok; echo "$wl: $n non-timing counters equal"; else
    fail "$wl: non-timing counters differ ($n in the real log): $(diff "$W/$wl/r" "$W/$wl/o" | head -20)"; fi
  # timers and timestamps
  rt=$(grep '^# run time:' "$W/$wl/ours.txt" | awk '{print $4}')
  bad=$(grep -P '^(POSIX|MPI-IO|STDIO)\t' "$W/$wl/ours.txt" | awk -F'\t' -v rt="$rt" '
    { k=$1 " " $2 " " $3; v[k, $4] = $5; keys[k] = $1 }
    END { for (k in keys) { m = keys[k] == "MPI-IO" ? "MPIIO" : keys[k]
            for (io = 0; io < 2; io++) { d = io ? "WRITE" : "READ"; b = io ? "BYTES_WRITTEN" : "BYTES_READ"
              if (v[k, m "_" b] > 0 && !(v[k, m "_F_" d "_TIME"] > 0)) print k, d, "time"
              s = v[k, m "_F_" d "_START_TIMESTAMP"]; e = v[k, m "_F_" d "_END_TIMESTAMP"]
              if (v[k, m "_" b] > 0 && (s > e || e > rt + 0.001)) print k, d, "timestamps", s, e, rt } } }')
  if [ -z "$bad" ]; then ok; else fail "$wl: inconsistent timers: $bad"; fi
  # heatmap byte totals equal the byte counters
  for api in POSIX MPIIO STDIO; do
    mod=$api; [ $api = MPIIO ] && mod=MPI-IO
    h=$(grep -P "^HEATMAP\t.*\theatmap:$api\t" "$W/$wl/ours.txt" | awk -F'\t' '$4 ~ /_BIN_/ {s += $5} END {printf "%d", s}')
    b=$(grep -P "^$mod\t" "$W/$wl/ours.txt" | awk -F'\t' '$4 ~ /_BYTES_(READ|WRITTEN)$/ {s += $5} END {printf "%d", s}')
    if [ "$h" = "$b" ]; then ok; else fail "$wl: heatmap:$api holds $h bytes, the counters $b"; fi
  done
done
finish
