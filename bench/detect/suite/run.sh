#!/usr/bin/env bash
# Runs the real-program detection suite (suite.tsv) under `iolens trace` and writes its labelled
# rows in the layout of a local corpus, so `iolens train --suite DIR` and `iolens eval --suite DIR`
# read them:
#
#   bench/detect/suite/run.sh [-o DIR] [--only REGEX] [--repeat N] [--scratch DIR] [--keep] [--no-rows]
#
#   DIR/features.csv  the model features of each run's trace, then _benchmark (the program),
#                     _scenario (<name>_r<repeat>), _config (<name>), _variant, _seed, _ranks
#   DIR/labels.csv    the labels of suite.tsv, in the layout of dev_labels.csv
#   DIR/manifest.csv  name, program, repeat, status, seconds, nprocs, trace bytes, labels, rule
#
# --no-rows leaves out features.csv (and the nprocs of labels.csv and manifest.csv, 0 there):
# for a caller that reads the kept traces itself (check.sh).
# Data goes to a folder on disk (default below $TMPDIR or /tmp; Darshan's exclusions, which the
# features follow, drop /dev/shm), removed after each run unless --keep. Needs fio, tar, dd,
# mpirun and /usr/bin/python3 with mpi4py and h5py (scripts/install-deps.sh installs them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
IOLENS=${IOLENS:-$src/build/iolens}
out=suite only=. repeat=1 scratch=${TMPDIR:-/tmp} keep=0 rows=1
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --scratch) scratch=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --no-rows) rows=0; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
case $(cd "$scratch" && pwd) in
  /dev/*|/proc/*|/sys/*|/etc/*|/usr/*|/var/*) echo "run.sh: scratch '$scratch' is under a path Darshan leaves out" >&2; exit 2 ;;
esac
[ -x "$IOLENS" ] || { echo "run.sh: no iolens at $IOLENS (build first, or set IOLENS)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
PY=/usr/bin/python3
labels_all=(access_granularity metadata_intensity parallelism_efficiency access_pattern interface_choice file_strategy throughput_utilization healthy)
mkdir -p "$out"
work=$(mktemp -d "$scratch/iolens-suite.XXXXXX")
trap 'rm -rf "$work"' EXIT
fhead=$("$IOLENS" features --csv /dev/null 2>/dev/null | head -1 || true)
: >"$out/features.csv.tmp"; : >"$out/labels.csv.tmp"
echo "name,program,repeat,status,seconds,nprocs,trace_bytes,labels,rule" >"$out/manifest.csv"
total=$(grep -v '^#' "$here/suite.tsv" | awk -F'\t' -v re="$only" 'NF>=8 && $1 ~ re' | wc -l)
total=$((total * repeat)); done_=0 failed=0 job=0
subst() { local s=$1; s=${s//\{dir\}/$2}; s=${s//\{py\}/$PY}; s=${s//\{suite\}/$here}; printf '%s' "$s"; }
while IFS=$'\t' read -r name program ranks labels launch setup command rule; do
  case $name in ''|'#'*) continue ;; esac
  [[ $name =~ $only ]] || continue
  for r in $(seq 1 "$repeat"); do
    job=$((job + 1)); done_=$((done_ + 1))
    d=$work/$name.$r; mkdir -p "$d/data"; T=$d/run.trace
    [ -t 2 ] && printf '\r[%d/%d] %-40s' "$done_" "$total" "$name" >&2
    status=ok
    if [ "$setup" != - ] && ! eval "$(subst "$setup" "$d/data")" </dev/null >/dev/null 2>"$d/setup.err"; then status=setup-failed; fi
    t0=$(date +%s%N)
    eval "set -- $(subst "$command" "$d/data")"
    if [ $status = ok ]; then
      if [ "$launch" = mpi ]; then
        mpirun --oversubscribe -np "$ranks" "$IOLENS" trace -o "$T" -- "$@" </dev/null >/dev/null 2>"$d/run.err" || status=failed
      else
        "$IOLENS" trace -o "$T" -- "$@" </dev/null >/dev/null 2>"$d/run.err" || status=failed
      fi
    fi
    ms=$((($(date +%s%N) - t0) / 1000000)); secs=$((ms / 1000)).$(printf '%03d' $((ms % 1000)))
    np=0 tb=0
    if [ $status = ok ] && [ $rows = 0 ]; then
      tb=$(stat -c %s "$T")
      lrow="$job,$program,${name}_r$r,0,1,configuration"
      for l in "${labels_all[@]}"; do
        case "+$labels+" in *"+$l+"*) lrow+=",1" ;; *) lrow+=",0" ;; esac
      done
      echo "$lrow" >>"$out/labels.csv.tmp"
    elif [ $status = ok ] && row=$("$IOLENS" features --csv "$T" 2>"$d/features.err" | sed -n 2p) && [ -n "$row" ]; then
      [ -n "$fhead" ] || fhead=$("$IOLENS" features --csv "$T" | head -1)
      np=$(printf '%s' "$row" | cut -d, -f2)
      tb=$(stat -c %s "$T")
      printf '%s,%s,%s_r%d,%s,%d,%d,%s\n' "$(printf '%s' "$row" | cut -d, -f2-)" "$program" "$name" "$r" "$name" "$r" "$r" "$np" >>"$out/features.csv.tmp"
      lrow="$job,$program,${name}_r$r,$np,1,configuration"
      for l in "${labels_all[@]}"; do
        case "+$labels+" in *"+$l+"*) lrow+=",1" ;; *) lrow+=",0" ;; esac
      done
      echo "$lrow" >>"$out/labels.csv.tmp"
    else
      [ $status = ok ] && status=features-failed
      failed=$((failed + 1))
      echo "run.sh: $name (repeat $r) $status; its folder: $d" >&2
      tail -3 "$d"/*.err >&2 || true
      keep=1
    fi
    echo "$name,$program,$r,$status,$secs,$np,$tb,$labels,\"${rule//\"/\'}\"" >>"$out/manifest.csv"
    [ $keep = 1 ] || rm -rf "$d"
  done
done <"$here/suite.tsv"
[ -t 2 ] && printf '\n' >&2
{ printf '%s,_benchmark,_scenario,_config,_variant,_seed,_ranks\n' "$(printf '%s' "$fhead" | cut -d, -f2-)"; cat "$out/features.csv.tmp"; } >"$out/features.csv"
{ echo "job_id,benchmark,scenario,n_ranks,n_darshan_files,label_source,$(IFS=,; echo "${labels_all[*]}")"; cat "$out/labels.csv.tmp"; } >"$out/labels.csv"
rm -f "$out/features.csv.tmp" "$out/labels.csv.tmp"
[ $keep = 1 ] && trap - EXIT && echo "run.sh: run folders kept in $work" >&2
echo "run.sh: $((done_ - failed)) of $done_ runs -> $out ($failed failed)"
[ $failed -eq 0 ]
