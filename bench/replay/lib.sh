# Shared by the replay benches (sourced, after `set -euo pipefail`): medians, a seeded shuffle of
# the kinds of run in a round, the data folder's file system, and fio's command line.

# median < NUMBERS: the median of the numbers on standard input, one per line ("nan" if none)
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# shuffle SEED WORD...: the words, one per line, in an order drawn from SEED. Each round of a bench
# runs its kinds of run in an order of its own: in a fixed rotation each kind always follows the
# same other kind, and inherits the state that one leaves (its page cache, its writeback).
shuffle() {
  local s=$1; shift
  printf '%s\n' "$@" | awk -v s="$s" '{a[NR - 1] = $0} END {srand(s); n = NR;
    for (i = n - 1; i > 0; i--) {j = int(rand() * (i + 1)); t = a[i]; a[i] = a[j]; a[j] = t}
    for (i = 0; i < n; i++) print a[i]}'
}

# fstype DIR: the type of the file system DIR is on (ext4, tmpfs, ...)
fstype() {
  local t
  t=$(findmnt -no FSTYPE -T "$1" 2>/dev/null | head -n 1) || true
  [ -n "$t" ] || t=$(stat -f -c %T "$1")
  echo "$t"
}

# fio_cmd DATA OPTS...: sets the array `fio` to the command line of a fio job on DATA (psync, JSON
# output). Every run is given --clocksource=clock_gettime: otherwise fio picks the processor's
# time-stamp counter or clock_gettime by a test at its start whose verdict changes between runs on
# a virtual machine, and a job that spends much of its time in fio's own loop (a metadata job)
# runs at 4,366 stats a second with one and 2,537 with the other.
fio_cmd() {
  local data=$1; shift
  fio=(fio --name=j --directory="$data" --ioengine=psync --clocksource=clock_gettime "$@" --output-format=json)
}

# fio_layout DATA OPTS...: fio's files of the job laid out anew in DATA (fio --create_only), then
# read once, untimed: a replay reads files it has just written, and a file's age changes how fast
# it reads on this machine (tmpfs, 1 GiB: laid out at the start of a bench, 13.8 GB/s; new and read
# once, 10.9).
fio_layout() {
  local data=$1; shift
  rm -f "$data"/*
  fio --name=j --directory="$data" "$@" --ioengine=psync --create_only=1 >/dev/null 2>&1
  cat "$data"/* >/dev/null
}

# hold_reporting / release_reporting: on a virtual machine with free page reporting (the balloon
# hands freed memory back to the host), page cache written into memory that was reported costs
# the host a fault per page: fio's 1 GiB on ext4 at 2.6 GB/s in some runs and 10 GB/s in others,
# whichever memory it got. hold_reporting holds freed memory back for as long and as much as the
# kernel lets it while the bench runs: page_reporting's min_free_ms (how long memory stays free
# before it is reported: 300 s here, else 60 s) and max_waiting_mib (how much may wait: 1024 here,
# and a bench that writes and removes 1 GiB files frees more than that within a minute; 1.5 GiB
# written with dd 3 s after a removal took 0.29-0.45 s, median 0.34, with 1024 and 0.28-0.39 s,
# median 0.285, raised: reporting_ab.sh). As root,
# where the kernel has the settings; release_reporting (from the EXIT trap) restores them.
REP=/sys/module/page_reporting/parameters rep_saved=()
hold_reporting() {
  local held= old v
  if [ -w "$REP/min_free_ms" ] && old=$(cat "$REP/min_free_ms"); then
    for v in 300000 60000; do echo "$v" >"$REP/min_free_ms" 2>/dev/null && { held=$v; rep_saved+=("min_free_ms=$old"); break; }; done
  fi
  if [ -n "$held" ] && [ -w "$REP/max_waiting_mib" ] && old=$(cat "$REP/max_waiting_mib"); then
    v=$(awk '/MemTotal/ {print int($2 / 1024 * 3 / 4)}' /proc/meminfo)
    [ "$v" -gt "$old" ] && echo "$v" >"$REP/max_waiting_mib" 2>/dev/null && rep_saved+=("max_waiting_mib=$old") || v=$old
    held="$((held / 1000)) s, up to $v MiB"
  fi
  if [ -n "$held" ]; then
    echo "free page reporting held back while the bench runs ($held; restored at exit)" >&2
  elif [ -e "$REP/min_free_ms" ]; then
    echo "free page reporting left as it is: new page cache may be slow in some runs" >&2
  fi
}
release_reporting() {
  local kv
  for kv in ${rep_saved[@]+"${rep_saved[@]}"}; do echo "${kv#*=}" >"$REP/${kv%%=*}" 2>/dev/null || true; done
  rep_saved=()
}
