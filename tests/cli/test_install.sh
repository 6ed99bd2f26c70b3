# The installed copy runs without its source or build tree: `cmake --install` into a scratch
# prefix; no source or build path in an installed program or library; the installed programs find
# their models, sweeps and shim below the prefix (run from /, IOLENS_* unset); `train` refuses to
# overwrite the models iolens uses.
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
: "${IOLENS_BUILD_DIR:?}"
T=$IOLENS_TMP P=$IOLENS_TMP/prefix
rm -rf "$P"
expect_rc 0 cmake --install "$IOLENS_BUILD_DIR" --prefix "$P" --strip
for f in "$P"/bin/* "$P"/lib/*.so "$P"/lib/*.so.*; do
  [ -L "$f" ] && continue
  # a sanitizer build names its source files in its instrumentation: nothing to check there
  if strings -a "$f" | grep -q '__asan_init\|__ubsan_handle'; then echo "skip: $f is a sanitizer build"; continue; fi
  if strings -a "$f" | grep -F -e "$IOLENS_SOURCE_DIR" -e "$IOLENS_BUILD_DIR" >"$T/paths"; then
    fail "$f names the source or build tree: $(head -2 "$T/paths" | tr '\n' ' ')"
  else ok; fi
done
for d in share/iolens/models/meta.json share/iolens/data/suite share/iolens/sweeps include/iolens/iolens.h \
         share/doc/iolens/README.md lib/libiolens_shim.so; do
  [ -e "$P/$d" ] && ok || fail "not installed: $d"
done
# manual pages (one per command, from its --help) that render without warnings and name no
# build path; bash completion of commands and of a command's options
for c in iolens iolens-detect iolens-replay iolens-darshan; do
  m=$P/share/man/man1/$c.1
  [ -f "$m" ] && ok || fail "no manual page $c.1"
  grep -F -e "$IOLENS_SOURCE_DIR" -e "$IOLENS_BUILD_DIR" "$m" && fail "$c.1 names the source or build tree" || ok
  if command -v groff >/dev/null; then
    groff -man -ww -z "$m" 2>"$T/groff" && [ ! -s "$T/groff" ] && ok || fail "$c.1: $(head -3 "$T/groff")"
  fi
done
grep -q 'iolens\\-whatif' "$P/share/man/man1/iolens.1" && ok || fail "iolens.1 does not list whatif"
comp=$P/share/bash-completion/completions/iolens
[ -f "$comp" ] && ok || fail "no bash completion installed"
complete_words() { bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _iolens; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"; }
complete_words "$P/bin/iolens" de >"$T/comp" 2>&1
grep -qx detect "$T/comp" && ok || fail "completion of 'de': $(tr '\n' ' ' <"$T/comp")"
complete_words "$P/bin/iolens" detect --js >"$T/comp" 2>&1
grep -qx -- --json "$T/comp" && ok || fail "completion of 'detect --js': $(tr '\n' ' ' <"$T/comp")"
run() { (cd / && env -u IOLENS_SHARED_DATA -u IOLENS_SOURCE_DIR -u IOLENS_MODELS -u IOLENS_SHIM "$@"); }
L=$IOLENS_SHARED_DATA/darshan/generated/converted_3.0.0_to_3.41.darshan
if [ -f "$L" ]; then
  expect_rc 0 run "$P/bin/iolens" detect --json "$L"
  expect_grep '"probabilities"' "$IOLENS_TMP/out"
fi
mkdir -p "$T/w"
expect_rc 0 run "$P/bin/iolens" trace -o "$T/dd.trace" -- dd if=/dev/zero of="$T/w/x" bs=4k count=64 status=none
expect_rc 0 run "$P/bin/iolens" whatif "$T/dd.trace" --dry-run --json
expect_grep '"detection"' "$IOLENS_TMP/out"
expect_rc 0 run "$P/bin/iolens" corpus --help
expect_grep "The installed sweeps: $P/share/iolens/sweeps" "$IOLENS_TMP/out"
# the models iolens uses are not overwritten by a bare train
expect_rc 1 run "$P/bin/iolens" train -o "$P/share/iolens/models"
expect_grep "holds the models iolens uses" "$IOLENS_TMP/err"
# the C library for other programs: the shared library and its pkg-config file; a program built
# with `pkg-config --cflags --libs iolens` against the installed copy reads a log
[ -e "$P/lib/libiolens.so.0" ] && [ -e "$P/lib/pkgconfig/iolens.pc" ] && ok || fail "no shared library or iolens.pc"
cat >"$T/uselib.c" <<'CEOF'
#include <stdio.h>
#include <iolens/darshan.h>
int main(int argc, char **argv)
{
    iolens_darshan_data *d;
    if (argc != 2 || iolens_darshan_load(argv[1], 1, NULL, NULL, &d) < 0) {
        fprintf(stderr, "%s\n", iolens_error_last());
        return 1;
    }
    printf("%s %lld %zu\n", iolens_version(), (long long)iolens_darshan_job_get(iolens_darshan_data_log(d))->nprocs,
           iolens_darshan_data_count(d, IOLENS_DARSHAN_POSIX));
    iolens_darshan_data_free(d);
    return 0;
}
CEOF
flags=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs iolens)
case $flags in *"-I$P/"*"-L$P/"*"-liolens"*) ok ;; *) fail "pkg-config --cflags --libs iolens: '$flags' (not below $P)" ;; esac
# a sanitizer build's library needs its runtime loaded first: no plain program or Python can load it
san=0
strings -a "$P/lib/libiolens.so.0" | grep -q '__asan_init\|__ubsan_handle' && san=1
if [ -f "$L" ] && [ $san = 0 ]; then
  expect_rc 0 cc -std=c17 -o "$T/uselib" "$T/uselib.c" $flags
  expect_rc 0 env LD_LIBRARY_PATH="$P/lib" "$T/uselib" "$L"
  want=$("$P/bin/iolens" darshan "$L" | awk '/^# nprocs:/ {n=$3} /^POSIX\t/ {r[$3]=1} END {print n}')
  read -r ver np nrec <"$IOLENS_TMP/out"
  [ "$np" = "$want" ] && [ "$ver" = "$("$P/bin/iolens" --version | awk '{print $2}')" ] && ok \
    || fail "the library program read '$ver $np $nrec' (want version of iolens --version, nprocs $want)"
  # it exports the public API only
  nm -D --defined-only "$P/lib/libiolens.so.0" | awk '$2 == "T" {print $3}' | grep -v '^iolens_' >"$T/syms"
  [ ! -s "$T/syms" ] && ok || fail "libiolens.so exports more than iolens_*: $(head -3 "$T/syms" | tr '\n' ' ')"
fi
# the Python package, installed beside the library, finds it from there
if [ -f "$L" ] && [ $san = 0 ]; then
  expect_rc 0 run env -u IOLENS_LIB PYTHONPATH="$P/lib/python3/dist-packages" /usr/bin/python3 -c \
    'import sys, iolens; d = iolens.open(sys.argv[1]); print(d.job["nprocs"], iolens.version(), iolens.__file__)' "$L"
  read -r np ver file <"$IOLENS_TMP/out"
  [ "$np" = "$want" ] && case $file in "$P"/*) true ;; *) false ;; esac && ok \
    || fail "installed Python package: '$np $ver $file' (want nprocs $want, a file below $P)"
fi
# a missing share folder is named in the error
expect_rc 1 env IOLENS_SHARE=/nonexistent "$P/bin/iolens" detect "${L:-/dev/null}"
expect_grep "cannot read the models in '/nonexistent/models'" "$IOLENS_TMP/err"
finish
