# `iolens place` and `iolens cluster` read the same series files: every layout, as a file, on
# stdin and through a FIFO (its writer there at once, or a second late), gives both commands
# the same series ids.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
T=$IOLENS_TMP

expect_rc 0 "$IOLENS" cluster --synth 24 --length 80 --seed 9 -o "$T/label.csv"
# wide with a header and no label column; headerless wide; long; Darshan heatmap_job.csv
awk -F, 'BEGIN {OFS=","} {$2 = ""; sub(/,,/, ","); print}' "$T/label.csv" > "$T/wide.csv"
tail -n +2 "$T/wide.csv" > "$T/bare.csv"
awk -F, 'NR == 1 {print "id,t,value"; next} {for (i = 2; i <= NF; i++) print $1 "," (i - 2) "," $i}' "$T/wide.csv" > "$T/long.csv"
awk -F, 'NR == 1 {print "log,module,bin_width_s,bin,read_bytes,write_bytes,active_ranks"; next}
         {for (i = 2; i <= NF; i++) printf "%s.darshan,POSIX,2,%d,%.0f,0,1\n", $1, i - 2, $i * 2 * 1048576}' \
  "$T/wide.csv" > "$T/heatmap.csv"

ids_cluster() { tail -n +2 "$T/c/assignments.csv" | cut -d, -f1 | sed 's/^"//; s/"$//' | sort; }
ids_place() { grep -o '"id":"[^"]*"' "$T/out" | sed 's/"id":"//; s/"$//' | sort; }
# feed: a writer for the FIFO; fed: it is gone (a reader that failed may never have opened it)
writer=
feed() {
  case $how in
    fifo) cat "$T/$f.csv" > "$T/ff" & writer=$! ;;
    fifo-late) sh -c 'sleep 1; exec cat "$1" > "$2"' sh "$T/$f.csv" "$T/ff" & writer=$! ;;
  esac
}
fed() { [ -n "$writer" ] || return 0; kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null; writer=; }
for f in label wide bare long heatmap; do
  want=24
  hows="file stdin fifo"
  [ "$f" = label ] && hows="$hows fifo-late"
  for how in $hows; do
    rm -rf "$T/c" "$T/ff"
    case $how in
      file) in=$T/$f.csv ;;
      stdin) in=- ;;
      fifo*) in=$T/ff; mkfifo "$T/ff" ;;
    esac
    feed
    if [ "$how" = stdin ]; then
      "$IOLENS" cluster --method kmeans --no-metrics -o "$T/c" - < "$T/$f.csv" > /dev/null 2> "$T/err"
    else
      "$IOLENS" cluster --method kmeans --no-metrics -o "$T/c" "$in" > /dev/null 2> "$T/err"
    fi || { fail "cluster $f from $how: $(cat "$T/err")"; fed; continue; }
    fed
    ids_cluster > "$T/ids_c"
    feed
    if [ "$how" = stdin ]; then
      "$IOLENS" place --schedule --policy round-robin --json --traces - < "$T/$f.csv" > "$T/out" 2> "$T/err"
    else
      "$IOLENS" place --schedule --policy round-robin --json --traces "$in" > "$T/out" 2> "$T/err"
    fi || { fail "place $f from $how: $(cat "$T/err")"; fed; continue; }
    fed
    ids_place > "$T/ids_p"
    # cluster names heatmap series <log>:<module>:read, as place's default metric does
    n=$(wc -l < "$T/ids_p")
    [ "$n" -eq "$want" ] && ok || fail "place read $n of $want series of $f from $how"
    cmp -s "$T/ids_c" "$T/ids_p" && ok || fail "cluster and place read different ids from $f ($how): $(diff "$T/ids_c" "$T/ids_p" | head -3 | tr '\n' ' ')"
  done
done
finish
