#!/usr/bin/env bash
# iolens darshan --convert / --merge / --diff on the shared logs: every log converted (zlib;
# bzip2 and no compression on every fifth) reads back with the same job, names and records
# (--diff: 0 differences), and a 3.41 log's whole darshan-parser text is unchanged but for its
# compression and region sizes; modules split by --convert --modules and joined by --merge
# give the log back; --file keeps one record id; --obfuscate hides every name and the exe and
# changes nothing else; errors name the file and leave no output.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
skip_unless_data darshan/INDEX.tsv
export TZ=UTC
D=$IOLENS_SHARED_DATA/darshan
T=$IOLENS_TMP
I=$IOLENS
ndiff() { "$I" darshan --diff "$1" "$2" 2>"$T/derr" | tail -1; }

i=0
while IFS= read -r rel; do
  i=$((i + 1))
  log=$D/$rel
  comps=("")
  [ $((i % 5)) -eq 0 ] && comps=("" --bzip2 --no-compression)
  for c in "${comps[@]}"; do
    if ! "$I" darshan --convert "$log" -o "$T/c.darshan" $c 2>"$T/cerr"; then
      fail "convert $c $rel: $(head -2 "$T/cerr")"; continue
    fi
    [ "$(ndiff "$log" "$T/c.darshan")" = "# 0 differences" ] && ok || fail "convert $c $rel: records differ"
  done
  if [ "$(head -c 4 "$log")" = "3.41" ]; then
    filt() { "$I" darshan --all --show-incomplete "$1" 2>/dev/null | grep -v -e 'bytes (compressed)' -e '^# compression method'; }
    cmp -s <(filt "$log") <(filt "$T/c.darshan") && ok || fail "convert $rel: darshan-parser text changed"
  fi
done < <(shared_logs)

# a log with DXT, Lustre, MPI-IO and STDIO: split by module, merged back
big=$(find "$D" -name '*jeanbez_8_benchmark_parallel*.darshan' | head -1)
[ -n "$big" ] || fail "the DXT/Lustre benchmark log is missing"
expect_rc 0 "$I" darshan --convert "$big" --modules POSIX,DXT_POSIX -o "$T/a.darshan"
expect_rc 0 "$I" darshan --convert "$big" --modules MPI-IO,STDIO,DXT_MPIIO,LUSTRE -o "$T/b.darshan"
expect_rc 0 "$I" darshan --merge "$T/a.darshan" "$T/b.darshan" -o "$T/m.darshan"
[ "$(ndiff "$big" "$T/m.darshan")" = "# 0 differences" ] && ok || fail "split and merged log differs"
"$I" darshan --json "$T/a.darshan" >"$T/a.json"
/usr/bin/python3 - "$T/a.json" <<'EOF' && ok || fail "--modules kept other modules"
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(d["modules"]) == ["DXT_POSIX", "POSIX"], sorted(d["modules"])
EOF
# the diff of the two halves: every record of each is only in one
"$I" darshan --diff --json "$T/a.darshan" "$T/b.darshan" >"$T/d.json"
[ $? -eq 1 ] && ok || fail "--diff of two different logs does not exit 1"
"$I" darshan --diff "$T/a.darshan" "$T/a.darshan" >/dev/null && ok || fail "--diff of a log with itself does not exit 0"
/usr/bin/python3 - "$T/d.json" <<'EOF' && ok || fail "--diff --json of the halves"
import json, sys
d = json.load(open(sys.argv[1]))
rec = [x for x in d["items"] if x["what"] == "record"]
assert d["differences"] == len(d["items"]) and not d["equal"]
assert len([x for x in rec if x["only_in"] == "a"]) == 2048, len(rec)
assert len([x for x in rec if x["only_in"] == "b"]) == 3074, len(rec)
EOF
# merging a log with itself doubles its records and keeps its job
expect_rc 0 "$I" darshan --merge "$T/a.darshan" "$T/a.darshan" -o "$T/aa.darshan"
n1=$("$I" darshan "$T/a.darshan" | grep -c '^POSIX')
n2=$("$I" darshan "$T/aa.darshan" | grep -c '^POSIX')
[ "$n2" -eq $((2 * n1)) ] && ok || fail "self-merge: $n1 then $n2 POSIX lines"

# --file: one record id
id=$("$I" darshan "$big" | awk -F'\t' '$1 == "POSIX" {print $3; exit}')
expect_rc 0 "$I" darshan --convert "$big" --file "$id" -o "$T/f.darshan"
"$I" darshan "$T/f.darshan" | awk -F'\t' '/^[A-Z]/ && $3 != "'"$id"'" {bad=1} END {exit bad}' && ok || fail "--file kept other ids"
[ "$("$I" darshan "$T/f.darshan" | grep -c "^POSIX.*POSIX_OPENS")" -eq "$("$I" darshan "$big" | grep -c "^POSIX"$'\t'"[0-9-]*"$'\t'"$id"$'\t'"POSIX_OPENS")" ] && ok || fail "--file lost records"

# --obfuscate: names, exe, uid and job id hashed; the counters untouched
expect_rc 0 "$I" darshan --convert "$big" --obfuscate --key 7 -o "$T/o.darshan"
"$I" darshan "$T/o.darshan" >"$T/o.txt"
grep -q 'benchmark' "$T/o.txt" && fail "an original name is left" || ok
grep -q '^# exe: [0-9]*$' "$T/o.txt" && ok || fail "exe not a hash: $(grep '^# exe' "$T/o.txt")"
"$I" darshan --diff --json "$big" "$T/o.darshan" >"$T/o.json"
/usr/bin/python3 - "$T/o.json" <<'EOF' && ok || fail "--obfuscate changed more than names and the job"
import json, sys
d = json.load(open(sys.argv[1]))
kinds = {x["what"] for x in d["items"]}
assert kinds <= {"job", "name"}, kinds
assert {x["field"] for x in d["items"] if x["what"] == "job"} == {"exe", "uid", "jobid"}
EOF
"$I" darshan --convert "$big" --obfuscate --key 7 -o "$T/o2.darshan"
cmp -s "$T/o.darshan" "$T/o2.darshan" && ok || fail "the same key gave another log"
"$I" darshan --convert "$big" --obfuscate-names --key 8 -o "$T/o3.darshan"
[ "$(ndiff "$T/o.darshan" "$T/o3.darshan")" != "# 0 differences" ] && ok || fail "another key gave the same names"
# names on a known mount keep its mount point
awk -F'\t' '/^POSIX/ && $7 != "UNKNOWN" && index($6, $7 "/") != 1 {bad=1} END {exit bad}' "$T/o.txt" && ok || fail "obfuscated names lost their mount point"
# the metadata: reset, then annotated
expect_rc 0 "$I" darshan --convert "$big" --reset-metadata --annotate "$(printf 'site=here\tcase=1')" -o "$T/md.darshan"
"$I" darshan "$T/md.darshan" | grep '^# metadata' >"$T/md.txt"
[ "$(cat "$T/md.txt")" = "$(printf '# metadata: site = here\n# metadata: case = 1')" ] && ok || fail "metadata: $(cat "$T/md.txt")"
# in place
cp "$T/a.darshan" "$T/p.darshan"
expect_rc 0 "$I" darshan --convert "$T/p.darshan" --bzip2 -o "$T/p.darshan"
[ "$(ndiff "$T/a.darshan" "$T/p.darshan")" = "# 0 differences" ] && ok || fail "convert in place"
"$I" darshan "$T/p.darshan" | grep -q '^# compression method: BZIP2' && ok || fail "in place: not bzip2"

# a log without module data ends as darshan-parser ends it
expect_rc 0 "$I" darshan --convert "$big" --modules H5F -o "$T/e.darshan"
for mode in --base --total; do
  [ "$("$I" darshan $mode "$T/e.darshan" | tail -2)" = "$(printf '\n# no module data available.')" ] && ok || fail "$mode of an empty log"
done
# modules marked incomplete but without records: the banner and the incomplete-data error
part=$D/public/partial_data_dxt__partial_data_dxt.darshan
if [ -e "$part" ]; then
  expect_rc 0 "$I" darshan --convert "$part" --file 1 -o "$T/pe.darshan"
  expect_rc 1 "$I" darshan "$T/pe.darshan"
  expect_grep "DXT_POSIX module contains incomplete data" "$T/err"
  expect_rc 0 "$I" darshan --show-incomplete "$T/pe.darshan"
  expect_grep "^# DXT_POSIX module data" "$T/out"
  expect_grep "WARNING.*DXT_MPIIO module contains incomplete" "$T/out"
  [ "$(tail -1 "$T/out")" = "# no module data available." ] && ok || fail "incomplete empty log: $(tail -1 "$T/out")"

  # darshan-parser's --all includes --show-incomplete
  expect_rc 0 "$I" darshan --all "$T/pe.darshan"
  expect_grep "WARNING.*DXT_POSIX module contains incomplete" "$T/out"
  expect_grep "^# DXT_POSIX module: 0 bytes (compressed), ver=0" "$T/out"
fi

# the exe as darshan-util reads it: from a 4096-byte job buffer, up to a line break found there
"$I" trace -o "$T/dd.iot" -- dd if=/dev/zero of="$T/dd.out" bs=4k count=3 2>/dev/null
for n in 100 5000; do
  exe=$(head -c $n /dev/zero | tr '\0' a)
  "$I" darshan --from "$T/dd.iot" --exe "$exe" -o "$T/x$n.darshan" 2>/dev/null
  line=$("$I" darshan "$T/x$n.darshan" | grep '^# exe:')
  want="# exe: $exe"; [ $n -gt 3000 ] && want="# exe: "
  [ "$line" = "$want" ] && ok || fail "exe of $n characters printed as ${#line} characters"
  "$I" darshan --json "$T/x$n.darshan" | grep -q "\"exe\":\"a\{100,\}" && ok || fail "the library lost the exe of $n characters"
done
# DXT: a small pthread id right-aligned in four columns after the segment, as darshan-dxt-parser
"$I" darshan --dxt "$T/x100.darshan" | grep '^ X_POSIX' >"$T/dxt.txt"
[ -s "$T/dxt.txt" ] && awk '{ if (substr($0, length($0) - 6) != "      0" && $NF ~ /^[0-9]$/) bad = 1 } END { exit bad }' "$T/dxt.txt" && ok || fail "DXT thread column: $(head -1 "$T/dxt.txt")"

# the OST column of DXT segments that cross stripes and Lustre components (the expected lines
# are darshan-dxt-parser's own output for this log)
if [ -n "${LUSTRE_DXT:-}" ]; then
  expect_rc 0 "$LUSTRE_DXT" "$T/ld.darshan"
  "$I" darshan --dxt "$T/ld.darshan" | grep '^ X_POSIX' >"$T/ld.txt"
  cat >"$T/ld.want" <<'EOF'
 X_POSIX       0  write        0               0            4096      0.1000      0.2000   [10]      7
 X_POSIX       0  write        1         1048566              20      0.2000      0.3000   [10] [11]      7
 X_POSIX       0  write        2         3145728         2097152      0.3000      0.4000   [11] [20]      7
 X_POSIX       0  write        3               0        16777216      0.4000      0.5000   [10] [11] [20]      7
 X_POSIX       0  write        4         9437184              10      0.5000      0.6000   [22]   12345678
EOF
  cmp -s "$T/ld.txt" "$T/ld.want" && ok || { fail "DXT OST column"; diff "$T/ld.txt" "$T/ld.want" >&2; }
  "$I" darshan --dxt "$T/ld.darshan" | grep -q 'Component 2\] stripe_ext: 4194304 - EOF, stripe_size: 2097152, stripe_count: 3, OSTs: 20 21 22$' && ok || fail "DXT Lustre components"
fi

# PNETCDF_FILE records of module version 1 (3.00/3.10-era layout), up-converted as darshan-util
# does; the expected lines are darshan-parser's for this log
/usr/bin/python3 "$IOLENS_SOURCE_DIR/tests/darshan/mk_old_records.py" "$T/pv1.darshan" pnetcdf1
expect_rc 0 "$I" darshan "$T/pv1.darshan"
grep -q '^# PNETCDF_FILE module: [0-9]* bytes (compressed), ver=1$' "$IOLENS_TMP/out" && ok || fail "PNETCDF_FILE v1 region line"
for want in '# WARNING: PnetCDF file module log format version 1 does not support the following counters:' \
    '# - PNETCDF_FILE_F_OPEN_END_TIMESTAMP' \
    "PNETCDF_FILE	-1	11	PNETCDF_FILE_OPENS	3	/home/u/a.nc	/home	nfs" \
    "PNETCDF_FILE	-1	11	PNETCDF_FILE_F_CLOSE_START_TIMESTAMP	-1.000000	/home/u/a.nc	/home	nfs" \
    "PNETCDF_FILE	-1	11	PNETCDF_FILE_F_CLOSE_END_TIMESTAMP	9.250000	/home/u/a.nc	/home	nfs" \
    "PNETCDF_FILE	1	12	PNETCDF_FILE_F_OPEN_START_TIMESTAMP	1.125000	/scratch/b.nc	UNKNOWN	UNKNOWN" \
    '# metadata: h = romio_no_indep_rw=true;cb_nodes=4'; do
  grep -qxF -- "$want" "$IOLENS_TMP/out" && ok || fail "PNETCDF_FILE v1: no line '$want'"
done

# H5F records of versions 1 and 2, big-endian too (darshan-parser's lines for these logs)
/usr/bin/python3 "$IOLENS_SOURCE_DIR/tests/darshan/mk_old_records.py" "$T/h1.darshan" h5f1 big
expect_rc 0 "$I" darshan "$T/h1.darshan"
"$I" darshan "$T/h1.darshan" | grep "^H5F	-1	11	" >"$T/h1.txt"
printf '%s\n' "H5F	-1	11	H5F_OPENS	4	/home/u/a.nc	/home	nfs" \
  "H5F	-1	11	H5F_FLUSHES	-1	/home/u/a.nc	/home	nfs" \
  "H5F	-1	11	H5F_USE_MPIIO	-1	/home/u/a.nc	/home	nfs" \
  "H5F	-1	11	H5F_F_OPEN_START_TIMESTAMP	0.500000	/home/u/a.nc	/home	nfs" \
  "H5F	-1	11	H5F_F_CLOSE_START_TIMESTAMP	-1.000000	/home/u/a.nc	/home	nfs" \
  "H5F	-1	11	H5F_F_OPEN_END_TIMESTAMP	-1.000000	/home/u/a.nc	/home	nfs" \
  "H5F	-1	11	H5F_F_CLOSE_END_TIMESTAMP	9.250000	/home/u/a.nc	/home	nfs" \
  "H5F	-1	11	H5F_F_META_TIME	-1.000000	/home/u/a.nc	/home	nfs" >"$T/h1.want"
cmp -s "$T/h1.txt" "$T/h1.want" && ok || { fail "H5F v1 big-endian records"; diff "$T/h1.txt" "$T/h1.want" >&2; }
"$I" darshan "$T/h1.darshan" | grep -q '^# - H5F_F_OPEN_END_TIMESTAMP$' && ok || fail "H5F v1 description"
/usr/bin/python3 "$IOLENS_SOURCE_DIR/tests/darshan/mk_old_records.py" "$T/h2.darshan" h5f2
"$I" darshan "$T/h2.darshan" | grep -q "^H5F	1	12	H5F_F_OPEN_END_TIMESTAMP	1.500000	/scratch/b.nc	UNKNOWN	UNKNOWN$" && ok || fail "H5F v2 records"
"$I" darshan "$T/h2.darshan" | grep -q '^# WARNING: H5F module log format version 1' && fail "H5F v2 has the v1 warning" || ok

# errors: a truncated log, an id with two names, usage
head -c 3000 "$big" >"$T/trunc.darshan"
expect_rc 1 "$I" darshan --convert "$T/trunc.darshan" -o "$T/x.darshan"
expect_grep "trunc.darshan" "$T/err"
[ ! -e "$T/x.darshan" ] && ok || fail "a failed convert left its output"
expect_rc 1 "$I" darshan --merge "$big" "$T/o.darshan" -o "$T/x.darshan"
expect_grep "record id" "$T/err"
[ ! -e "$T/x.darshan" ] && ok || fail "a failed merge left its output"
expect_rc 2 "$I" darshan --convert "$big"
expect_grep "error:" "$T/err"
expect_rc 2 "$I" darshan --diff "$big"
expect_rc 2 "$I" darshan --convert "$big" --modules NOPE -o "$T/x.darshan"
expect_grep "unknown module" "$T/err"
expect_rc 0 "$I" darshan --convert --help
expect_grep "obfuscate" "$T/out"
finish
