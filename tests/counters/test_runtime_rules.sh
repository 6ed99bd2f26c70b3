#!/usr/bin/env bash
# Counters the Darshan runtime's own rules decide, on small programs whose every expected figure
# below is what the Darshan runtime (built from its source, non-MPI, its defaults) wrote for the
# same program:
#  - offsets: the runtime keeps one per record (0 at open, a seek's result, the end of the last
#    transfer, pread and pwrite included) and gives it to read, write, readv and writev, so a
#    pread between two writes moves it (SEQ, CONSEC, strides, FILE_NOT_ALIGNED follow);
#  - the four common access sizes and strides, updated online at every access;
#  - STDIO: a read or write counts only when it moved something by the call's own measure (no
#    fgets NULL, fgetc EOF, fread 0, fscanf matching nothing; fscanf's end of input counts),
#    ftell is no seek, and offsets are the runtime's own; putw and getw count a word (getw at
#    the end of the file too), fsetpos a seek, fgetpos nothing;
#  - rename: counted on a file with a record, its target getting RENAME_TARGETS and
#    RENAMED_FROM (the source's record id);
#  - an MPI rank (the runtime built with MPI, 2 ranks): only the calls between MPI_Init's return
#    and MPI_Finalize count, and a descriptor opened before MPI_Init counts for nothing after;
#  - MPI-IO opens: independent on a communicator of one process, hints counted (a PnetCDF
#    program; PNETCDF_FILE and PNETCDF_VAR as the runtime's PnetCDF module counts them).
. "$IOLENS_SOURCE_DIR/tests/cli/lib.sh"
command -v "${CC:-cc}" >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
W=$IOLENS_TMP/rules
mkdir -p "$W/d"
cat >"$W/mix.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    static char buf[1 << 20];
    char p[512], q[512], r[512];
    snprintf(p, sizeof p, "%s/a.dat", argv[1]);
    snprintf(q, sizeof q, "%s/b.dat", argv[1]);
    snprintf(r, sizeof r, "%s/c.dat", argv[1]);
    int fd = open(p, O_CREAT | O_RDWR | O_TRUNC, 0640);
    for (int i = 0; i < 50; i++)
        if (pwrite(fd, buf, 4096, (off_t)i << 20) != 4096) return 1;
    lseek(fd, 0, SEEK_SET);
    for (int i = 0; i < 20; i++)
        if (write(fd, buf, 100 + i) < 0) return 1;
    for (int i = 0; i < 30; i++)
        if (pread(fd, buf, 8192, (off_t)((i * 7919) % 50) << 20) < 0) return 1;
    struct iovec iov[2] = {{buf, 1000}, {buf + 1000, 3000}};
    if (writev(fd, iov, 2) < 0 || readv(fd, iov, 2) < 0) return 1;
    int d = dup(fd);
    if (write(d, buf, 333) != 333) return 1;
    close(d);
    fsync(fd);
    fdatasync(fd);
    close(fd);
    FILE *f = fopen(q, "w+");
    for (int i = 0; i < 100; i++)
        fwrite(buf, 1, 10 + i, f);
    fseek(f, 500, SEEK_SET);
    if (fread(buf, 1, 1234, f) != 1234) return 1;
    fprintf(f, "hello %d\n", 5);
    fputs("abc\n", f);
    fputc('x', f);
    rewind(f);
    fgetc(f);
    ftell(f);
    fflush(f);
    fclose(f);
    f = fopen(r, "w");
    fputs("12 34\nabc\n", f);
    fclose(f);
    f = fopen(r, "r");
    int a, b;
    if (fscanf(f, "%d %d", &a, &b) != 2) return 1; /* counted: 5 bytes */
    if (fscanf(f, "%d", &a) != 0) return 1;        /* nothing matched: not counted */
    while (fgets(buf, sizeof buf, f)) {            /* "abc\n", then NULL (not counted) */
    }
    fgetc(f);                                      /* EOF: not counted */
    if (fread(buf, 1, 10, f) != 0) return 1;       /* 0: not counted */
    if (fscanf(f, "%d", &a) != EOF) return 1;      /* end of input: counted, 0 bytes */
    fclose(f);
    return 0;
}
C
cat >"$W/rn.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    char a[512], b[512], c[512];
    snprintf(a, sizeof a, "%s/ckpt.tmp", argv[1]);
    snprintf(b, sizeof b, "%s/ckpt", argv[1]);
    snprintf(c, sizeof c, "%s/ckpt.old", argv[1]);
    for (int i = 0; i < 2; i++) {
        int fd = open(a, O_CREAT | O_WRONLY | O_TRUNC, 0600);
        if (fd < 0 || write(fd, "data", 4) != 4) return 1;
        close(fd);
        if (i && rename(b, c)) return 1;
        if (rename(a, b)) return 1;
    }
    FILE *f = fopen(c, "r");
    fclose(f);
    return rename(c, a);
}
C
cat >"$W/pos.c" <<'C'
#define _LARGEFILE64_SOURCE
#include <stdio.h>
int _IO_getc(FILE *); /* glibc's older names of getc and putc (binaries built before 2.28) */
int _IO_putc(int, FILE *);
int main(int argc, char **argv)
{
    char p[512];
    snprintf(p, sizeof p, "%s/w.dat", argv[1]);
    FILE *f = fopen(p, "w+");
    if (!f) return 1;
    for (int i = 0; i < 100; i++)
        if (putw(i * 7, f)) return 1;
    fpos_t mark, start;
    if (fgetpos(f, &mark)) return 1; /* not counted: 400 */
    for (int i = 0; i < 10; i++)
        _IO_putc('a' + i, f);
    rewind(f);
    fgetpos(f, &start);
    long sum = 0;
    for (int i = 0; i < 50; i++)
        sum += getw(f);
    fsetpos(f, &mark); /* a seek to 400 */
    int n = 0;
    while (_IO_getc(f) != EOF) /* 10 counted, EOF not */
        n++;
    fpos64_t s64;
    fsetpos(f, &start);
    fgetpos64(f, &s64);
    fsetpos64(f, &s64);
    sum += getw(f);
    fseek(f, 0, SEEK_END);
    if (getw(f) != EOF) return 1; /* end of file, no error: counted (4 bytes) */
    fclose(f);
    return sum == 8575 && n == 10 ? 0 : 1;
}
C
for p in mix rn pos; do
  "${CC:-cc}" -O1 -U_FORTIFY_SOURCE -o "$W/$p" "$W/$p.c" || { fail "cc $p failed"; finish; }
  rm -rf "$W/d"/*
  expect_rc 0 "$IOLENS" trace -o "$W/$p.trace" -- "$W/$p" "$W/d"
  expect_rc 0 "$IOLENS" darshan --from "$W/$p.trace" -o "$W/$p.darshan" --all-paths
  expect_rc 0 "$IOLENS" darshan "$W/$p.darshan"
  cp "$IOLENS_TMP/out" "$W/$p.txt"
done
# want MODULE FILE LOG "NAME=VALUE ..." (counter names without the module's prefix)
want() {
  local m=$1 file=$2 log=$3 kv pre=$1
  [ "$m" = MPI-IO ] && pre=MPIIO
  for kv in $4; do
    local got
    got=$(awk -F'\t' -v m="$m" -v k="${pre}_${kv%%=*}" -v p="$W/d/$file" '$1 == m && $4 == k && $6 == p { print $5 }' "$W/$log.txt" | head -1)
    [ "$got" = "${kv#*=}" ] && ok || fail "$file: ${pre}_${kv%%=*} '$got', want ${kv#*=}"
  done
}
want POSIX a.dat mix "OPENS=2 DUPS=1 READS=31 WRITES=72 SEEKS=1 FSYNCS=1 FDSYNCS=1 MODE=416 BYTES_READ=245664
  BYTES_WRITTEN=211323 MAX_BYTE_READ=51384319 MAX_BYTE_WRITTEN=51384319 CONSEC_WRITES=19 SEQ_READS=19 SEQ_WRITES=70
  RW_SWITCHES=4 FILE_NOT_ALIGNED=21 SIZE_READ_1K_10K=31 SIZE_WRITE_0_100=1 SIZE_WRITE_100_1K=20 SIZE_WRITE_1K_10K=51
  STRIDE1_STRIDE=1044480 STRIDE2_STRIDE=19914752 STRIDE3_STRIDE=4000 STRIDE4_STRIDE=1054578 STRIDE1_COUNT=49
  STRIDE2_COUNT=18 STRIDE3_COUNT=2 STRIDE4_COUNT=1 ACCESS1_ACCESS=4096 ACCESS2_ACCESS=8192 ACCESS3_ACCESS=4000
  ACCESS4_ACCESS=333 ACCESS1_COUNT=51 ACCESS2_COUNT=29 ACCESS3_COUNT=2 ACCESS4_COUNT=1"
want STDIO b.dat mix "OPENS=1 READS=2 WRITES=103 SEEKS=2 FLUSHES=1 BYTES_WRITTEN=5963 BYTES_READ=1235 MAX_BYTE_READ=1733
  MAX_BYTE_WRITTEN=5949"
want STDIO c.dat mix "OPENS=2 READS=3 WRITES=1 BYTES_WRITTEN=10 BYTES_READ=9 MAX_BYTE_READ=8 MAX_BYTE_WRITTEN=9"
# putw, getw, _IO_putc, _IO_getc, fsetpos(64) as seeks, fgetpos(64) not counted; the last
# getw's offset is the end of the file fseek(SEEK_END) found (MAX_BYTE_READ 413)
want STDIO w.dat pos "OPENS=1 READS=62 WRITES=110 SEEKS=5 FLUSHES=0 BYTES_WRITTEN=410 BYTES_READ=218
  MAX_BYTE_READ=413 MAX_BYTE_WRITTEN=409"
expect_rc 0 "$IOLENS" trace --print "$W/pos.trace"
for f in putw getw fsetpos fsetpos64 fgetpos fgetpos64; do
  grep -q " $f(\"$W/d/w.dat\"" "$IOLENS_TMP/out" && ok || fail "$f not recorded under its name"
done
grep -q "fseek(\"$W/d/w.dat\", fd=[0-9]*, off=0, whence=2, at=410)" "$IOLENS_TMP/out" && ok ||
  fail "fseek(SEEK_END) without the position after it"
want POSIX ckpt.tmp rn "OPENS=2 WRITES=2 RENAME_SOURCES=2 RENAME_TARGETS=1"
want POSIX ckpt rn "RENAME_SOURCES=1 RENAME_TARGETS=2"
want POSIX ckpt.old rn "RENAME_SOURCES=1 RENAME_TARGETS=1"
# RENAMED_FROM: the record id of the first rename's source (ckpt.old, a rename's target, has a
# record: its own rename at the end counts, whatever stdio did with it in between)
id() { awk -F'\t' -v p="$W/d/$1" '$1 == "POSIX" && $6 == p { print $3; exit }' "$W/rn.txt"; }
want POSIX ckpt rn "RENAMED_FROM=$(id ckpt.tmp)"
want POSIX ckpt.old rn "RENAMED_FROM=$(id ckpt)"
want POSIX ckpt.tmp rn "RENAMED_FROM=$(id ckpt.old)"

if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  cat >"$W/win.c" <<'C'
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    char p[512];
    snprintf(p, sizeof p, "%s/before", argv[1]);
    int early = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644); /* before MPI_Init */
    if (write(early, "x", 1) != 1) return 1;
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (write(early, "yy", 2) != 2) return 1; /* its descriptor, after */
    snprintf(p, sizeof p, "%s/inside.%d", argv[1], rank);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i < 10; i++)
        if (write(fd, "0123456789", 10) != 10) return 1;
    close(fd);
    MPI_Finalize();
    snprintf(p, sizeof p, "%s/after.%d", argv[1], rank);
    fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (write(fd, "z", 1) != 1) return 1;
    close(fd);
    close(early);
    return 0;
}
C
  if mpicc -O1 -o "$W/win" "$W/win.c" 2>"$W/mpicc.log"; then
    rm -rf "$W/d"/*
    expect_rc 0 timeout 300 mpirun --oversubscribe -np 2 "$IOLENS" trace -o "$W/win.trace" -- "$W/win" "$W/d"
    expect_rc 0 "$IOLENS" darshan --from "$W/win.trace" -o "$W/win.darshan" --all-paths
    expect_rc 0 "$IOLENS" darshan "$W/win.darshan"
    cp "$IOLENS_TMP/out" "$W/win.txt"
    for r in 0 1; do
      want POSIX inside.$r win "OPENS=1 WRITES=10 BYTES_WRITTEN=100 CONSEC_WRITES=9 SEQ_WRITES=9"
    done
    if grep -qP "^POSIX\t.*\t\Q$W/d/\E(before|after\.[01])\t" "$W/win.txt"; then
      fail "a record of a file written before MPI_Init or after MPI_Finalize"; else ok; fi
  else
    echo "SKIP (MPI part): mpicc failed: $(head -3 "$W/mpicc.log")"
  fi
  # PnetCDF on 2 ranks (the runtime with its PnetCDF module): its independent mode opens the file
  # on MPI_COMM_SELF (independent opens), every open passes hints
  cat >"$W/pnc.c" <<'C'
#include <mpi.h>
#include <pnetcdf.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, nc, d0, d1, v, w;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER, MPI_INFO_NULL, &nc) != NC_NOERR) return 1;
    ncmpi_def_dim(nc, "y", 8 * size, &d0);
    ncmpi_def_dim(nc, "x", 100, &d1);
    int dims[2] = {d0, d1};
    ncmpi_def_var(nc, "v", NC_INT, 2, dims, &v);
    ncmpi_def_var(nc, "w", NC_DOUBLE, 1, &d1, &w);
    ncmpi_enddef(nc);
    int buf[800];
    double dw[100];
    for (int i = 0; i < 800; i++) buf[i] = i;
    for (int i = 0; i < 100; i++) dw[i] = i;
    MPI_Offset st[2] = {8 * rank, 0}, ct[2] = {8, 100};
    for (int k = 0; k < 3; k++)
        ncmpi_put_vara_int_all(nc, v, st, ct, buf);
    MPI_Offset s1 = 0, c1 = 50, str = 2;
    ncmpi_begin_indep_data(nc);
    if (rank == 0) ncmpi_put_vars_double(nc, w, &s1, &c1, &str, dw);
    ncmpi_end_indep_data(nc);
    ncmpi_get_vara_int_all(nc, v, st, ct, buf);
    ncmpi_close(nc);
    MPI_Finalize();
    return 0;
}
C
  if mpicc -O1 -o "$W/pnc" "$W/pnc.c" -lpnetcdf 2>"$W/mpicc.log"; then
    rm -rf "$W/d"/*
    expect_rc 0 timeout 300 mpirun --oversubscribe -np 2 "$IOLENS" trace -o "$W/pnc.trace" -- "$W/pnc" "$W/d/pnc.nc"
    expect_rc 0 "$IOLENS" darshan --from "$W/pnc.trace" -o "$W/pnc.darshan" --all-paths
    expect_rc 0 "$IOLENS" darshan "$W/pnc.darshan"
    cp "$IOLENS_TMP/out" "$W/pnc.txt"
    want MPI-IO pnc.nc pnc "INDEP_OPENS=2 COLL_OPENS=2 HINTS=2 INDEP_WRITES=2 COLL_READS=2 COLL_WRITES=6 VIEWS=9
      MODE=9 BYTES_READ=6400 BYTES_WRITTEN=19732 RW_SWITCHES=2 SIZE_READ_AGG_1K_10K=2 SIZE_WRITE_AGG_100_1K=2
      SIZE_WRITE_AGG_1K_10K=6 ACCESS1_ACCESS=3200 ACCESS2_ACCESS=400 ACCESS3_ACCESS=132 ACCESS1_COUNT=8
      ACCESS2_COUNT=1 ACCESS3_COUNT=1"
    want PNETCDF_FILE pnc.nc pnc "CREATES=2 BYTES_READ=6400 BYTES_WRITTEN=19732"
    want PNETCDF_VAR pnc.nc:v pnc "OPENS=2 COLL_READS=2 COLL_WRITES=6 BYTES_READ=6400 BYTES_WRITTEN=19200 RW_SWITCHES=2
      PUT_VARA=6 GET_VARA=2 ACCESS1_ACCESS=3200 ACCESS1_LENGTH_D1=8 ACCESS1_LENGTH_D2=100 ACCESS1_COUNT=8 NDIMS=2
      NPOINTS=1600 DATATYPE_SIZE=4"
    want PNETCDF_VAR pnc.nc:w pnc "OPENS=2 INDEP_WRITES=1 BYTES_WRITTEN=400 PUT_VARS=1 ACCESS1_ACCESS=400
      ACCESS1_LENGTH_D1=50 ACCESS1_STRIDE_D1=2 ACCESS1_COUNT=1 NDIMS=1 NPOINTS=100 DATATYPE_SIZE=8"
  else
    echo "SKIP (PnetCDF part): mpicc -lpnetcdf failed: $(head -3 "$W/mpicc.log")"
  fi
fi
finish
