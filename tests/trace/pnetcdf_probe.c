/*
 * Ground-truth probe for the PnetCDF wrappers: calls every data function of the API (every
 * kind, the flexible and the twelve typed forms, blocking independent and collective,
 * non-blocking iput/iget/bput) and the file and variable calls the shim records, and logs the
 * name of each call, in order, to LOG (the trace must show exactly these). Each rank works on
 * its own 4 elements of the variables; the counts of every call are fixed (the test computes
 * the expected Darshan counters from them by hand).
 *
 *   pnetcdf_probe LOG DIR     (under mpirun, any number of ranks up to 4)
 *
 * Files: DIR/probe.nc (x = 4 * nprocs; double d[x], char c[x], int m[2][x], float late[x])
 * and DIR/rec.nc (a record variable double r[t][4], one record per rank).
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *logfp;

static void ck(int err, const char *name)
{
    fprintf(logfp, "%s\n", name);
    if (err != NC_NOERR) {
        fprintf(stderr, "pnetcdf_probe: %s: %s\n", name, ncmpi_strerror(err));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}
#define CK(call, name) ck(call, name)

static double W[64]; /* what every write writes: zeroes, enough for any access here */
static double R[64][64]; /* where each read of a non-blocking batch lands (its own row) */
static int nget;
#define B_put W
#define B_get R[0]
#define B_iput W
#define B_bput W
#define B_iget R[nget++ % 64]
static int ncid, nreq, reqs[512], sts[512];
static MPI_Offset s1[1], c4[1] = {4}, c2[1] = {2}, st1[1] = {1}, st2[1] = {2}, im1[1] = {1};
static MPI_Offset n0[1], n1[1], nc[1] = {2};
static MPI_Offset *starts[2] = {n0, n1}, *counts[2] = {nc, nc};

/* one call of every kind, typed (T the type's suffix, "" for none), blocking (M "" or _all) */
#define SET_T(T, D, M, v)                                                                           \
    CK(ncmpi_##D##_var1##T##M(ncid, v, s1, (void *)B_##D), "ncmpi_" #D "_var1" #T #M);                 \
    CK(ncmpi_##D##_vara##T##M(ncid, v, s1, c4, (void *)B_##D), "ncmpi_" #D "_vara" #T #M);             \
    CK(ncmpi_##D##_vars##T##M(ncid, v, s1, c2, st2, (void *)B_##D), "ncmpi_" #D "_vars" #T #M);        \
    CK(ncmpi_##D##_varm##T##M(ncid, v, s1, c4, st1, im1, (void *)B_##D), "ncmpi_" #D "_varm" #T #M);   \
    CK(ncmpi_##D##_varn##T##M(ncid, v, 2, starts, counts, (void *)B_##D), "ncmpi_" #D "_varn" #T #M);  \
    CK(ncmpi_##D##_var##T##M(ncid, v, (void *)B_##D), "ncmpi_" #D "_var" #T #M);
/* the same through the flexible API (a count of MPI_DOUBLE) */
#define SET_F(D, M, v, x)                                                                           \
    CK(ncmpi_##D##_var1##M(ncid, v, s1, (void *)B_##D, 1, MPI_DOUBLE), "ncmpi_" #D "_var1" #M);        \
    CK(ncmpi_##D##_vara##M(ncid, v, s1, c4, (void *)B_##D, 4, MPI_DOUBLE), "ncmpi_" #D "_vara" #M);    \
    CK(ncmpi_##D##_vars##M(ncid, v, s1, c2, st2, (void *)B_##D, 2, MPI_DOUBLE), "ncmpi_" #D "_vars" #M); \
    CK(ncmpi_##D##_varm##M(ncid, v, s1, c4, st1, im1, (void *)B_##D, 4, MPI_DOUBLE), "ncmpi_" #D "_varm" #M); \
    CK(ncmpi_##D##_varn##M(ncid, v, 2, starts, counts, (void *)B_##D, 4, MPI_DOUBLE), "ncmpi_" #D "_varn" #M); \
    CK(ncmpi_##D##_var##M(ncid, v, (void *)B_##D, x, MPI_DOUBLE), "ncmpi_" #D "_var" #M);
/* non-blocking (D iput, iget or bput): typed, then flexible */
#define SET_NT(T, D, v)                                                                             \
    CK(ncmpi_##D##_var1##T(ncid, v, s1, (void *)B_##D, &reqs[nreq++]), "ncmpi_" #D "_var1" #T); AFTER_##D;        \
    CK(ncmpi_##D##_vara##T(ncid, v, s1, c4, (void *)B_##D, &reqs[nreq++]), "ncmpi_" #D "_vara" #T); AFTER_##D;    \
    CK(ncmpi_##D##_vars##T(ncid, v, s1, c2, st2, (void *)B_##D, &reqs[nreq++]), "ncmpi_" #D "_vars" #T); AFTER_##D; \
    CK(ncmpi_##D##_varm##T(ncid, v, s1, c4, st1, im1, (void *)B_##D, &reqs[nreq++]), "ncmpi_" #D "_varm" #T); AFTER_##D; \
    CK(ncmpi_##D##_varn##T(ncid, v, 2, starts, counts, (void *)B_##D, &reqs[nreq++]), "ncmpi_" #D "_varn" #T); AFTER_##D; \
    CK(ncmpi_##D##_var##T(ncid, v, (void *)B_##D, &reqs[nreq++]), "ncmpi_" #D "_var" #T); AFTER_##D;
#define SET_NF(D, v, x)                                                                             \
    CK(ncmpi_##D##_var1(ncid, v, s1, (void *)B_##D, 1, MPI_DOUBLE, &reqs[nreq++]), "ncmpi_" #D "_var1"); AFTER_##D; \
    CK(ncmpi_##D##_vara(ncid, v, s1, c4, (void *)B_##D, 4, MPI_DOUBLE, &reqs[nreq++]), "ncmpi_" #D "_vara"); AFTER_##D; \
    CK(ncmpi_##D##_vars(ncid, v, s1, c2, st2, (void *)B_##D, 2, MPI_DOUBLE, &reqs[nreq++]), "ncmpi_" #D "_vars"); AFTER_##D; \
    CK(ncmpi_##D##_varm(ncid, v, s1, c4, st1, im1, (void *)B_##D, 4, MPI_DOUBLE, &reqs[nreq++]), "ncmpi_" #D "_varm"); AFTER_##D; \
    CK(ncmpi_##D##_varn(ncid, v, 2, starts, counts, (void *)B_##D, 4, MPI_DOUBLE, &reqs[nreq++]), "ncmpi_" #D "_varn"); AFTER_##D; \
    CK(ncmpi_##D##_var(ncid, v, (void *)B_##D, x, MPI_DOUBLE, &reqs[nreq++]), "ncmpi_" #D "_var"); AFTER_##D;

/* a read is completed on its own (PnetCDF 1.12 fails batches of reads that convert types) */
#define AFTER_iput
#define AFTER_bput
#define AFTER_iget CK(ncmpi_wait_all(ncid, nreq, reqs, sts), "ncmpi_wait_all"), nreq = 0

/* the eleven numeric types (text goes to the char variable) */
#define NUM(X, ...)                                                                                 \
    X(_schar, __VA_ARGS__) X(_uchar, __VA_ARGS__) X(_short, __VA_ARGS__) X(_ushort, __VA_ARGS__)    \
    X(_int, __VA_ARGS__) X(_uint, __VA_ARGS__) X(_long, __VA_ARGS__) X(_float, __VA_ARGS__)         \
    X(_double, __VA_ARGS__) X(_longlong, __VA_ARGS__) X(_ulonglong, __VA_ARGS__)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc != 3 || np > 4) {
        fprintf(stderr, "usage: pnetcdf_probe LOG DIR (1 to 4 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096];
    if (!(logfp = fopen(rank ? "/dev/null" : argv[1], "w")))
        return 2;
    s1[0] = n0[0] = 4 * rank;
    n1[0] = 4 * rank + 2;
    MPI_Offset x = 4 * np;

    snprintf(path, sizeof path, "%s/probe.nc", argv[2]);
    int dx, dy, vd, vc, vm, vl;
    CK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid), "ncmpi_create");
    ncmpi_def_dim(ncid, "x", x, &dx);
    ncmpi_def_dim(ncid, "y", 2, &dy);
    CK(ncmpi_def_var(ncid, "d", NC_DOUBLE, 1, &dx, &vd), "ncmpi_def_var");
    CK(ncmpi_def_var(ncid, "c", NC_CHAR, 1, &dx, &vc), "ncmpi_def_var");
    int dm[2] = {dy, dx};
    CK(ncmpi_def_var(ncid, "m", NC_INT, 2, dm, &vm), "ncmpi_def_var");
    CK(ncmpi_enddef(ncid), "ncmpi_enddef");

    /* collective: writes, then reads */
    NUM(SET_T, put, _all, vd)
    SET_F(put, _all, vd, x)
    SET_T(_text, put, _all, vc)
    CK(ncmpi_put_vard_all(ncid, vd, MPI_DOUBLE, W, 1, MPI_DOUBLE), "ncmpi_put_vard_all");
    MPI_Offset ms[2] = {0, 4 * rank}, mc[2] = {2, 4};
    CK(ncmpi_put_vara_int_all(ncid, vm, ms, mc, (void *)W), "ncmpi_put_vara_int_all");
    NUM(SET_T, get, _all, vd)
    SET_F(get, _all, vd, x)
    SET_T(_text, get, _all, vc)
    CK(ncmpi_get_vard_all(ncid, vd, MPI_DOUBLE, R[0], 1, MPI_DOUBLE), "ncmpi_get_vard_all");

    /* independent */
    CK(ncmpi_begin_indep_data(ncid), "ncmpi_begin_indep_data");
    NUM(SET_T, put, , vd)
    SET_F(put, , vd, x)
    SET_T(_text, put, , vc)
    CK(ncmpi_put_vard(ncid, vd, MPI_DOUBLE, W, 1, MPI_DOUBLE), "ncmpi_put_vard");
    NUM(SET_T, get, , vd)
    SET_F(get, , vd, x)
    SET_T(_text, get, , vc)
    CK(ncmpi_get_vard(ncid, vd, MPI_DOUBLE, R[0], 1, MPI_DOUBLE), "ncmpi_get_vard");
    CK(ncmpi_end_indep_data(ncid), "ncmpi_end_indep_data");

    /* non-blocking: iput, iget, bput, completed together */
    ncmpi_buffer_attach(ncid, 1 << 16);
    NUM(SET_NT, iput, vd)
    SET_NF(iput, vd, x)
    SET_NT(_text, iput, vc)
    NUM(SET_NT, bput, vd)
    SET_NF(bput, vd, x)
    SET_NT(_text, bput, vc)
    CK(ncmpi_wait_all(ncid, nreq, reqs, sts), "ncmpi_wait_all");
    nreq = 0;
    NUM(SET_NT, iget, vd)
    SET_NF(iget, vd, x)
    SET_NT(_text, iget, vc)
    ncmpi_buffer_detach(ncid);
    /* one more, completed independently */
    CK(ncmpi_iput_var1_double(ncid, vd, s1, W, &reqs[0]), "ncmpi_iput_var1_double");
    CK(ncmpi_begin_indep_data(ncid), "ncmpi_begin_indep_data");
    CK(ncmpi_wait(ncid, 1, reqs, sts), "ncmpi_wait");
    CK(ncmpi_end_indep_data(ncid), "ncmpi_end_indep_data");

    /* a variable added later; the file made durable */
    CK(ncmpi_redef(ncid), "ncmpi_redef");
    CK(ncmpi_def_var(ncid, "late", NC_FLOAT, 1, &dx, &vl), "ncmpi_def_var");
    CK(ncmpi_enddef(ncid), "ncmpi_enddef");
    CK(ncmpi_sync(ncid), "ncmpi_sync");
    CK(ncmpi_close(ncid), "ncmpi_close");

    /* read back through a variable looked up by name */
    CK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid), "ncmpi_open");
    CK(ncmpi_inq_varid(ncid, "d", &vd), "ncmpi_inq_varid");
    CK(ncmpi_get_vara_double_all(ncid, vd, s1, c4, R[0]), "ncmpi_get_vara_double_all");
    CK(ncmpi_close(ncid), "ncmpi_close");

    /* a record variable: one record per rank, then the whole variable */
    snprintf(path, sizeof path, "%s/rec.nc", argv[2]);
    int dt, dr, vr;
    CK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid), "ncmpi_create");
    ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dt);
    ncmpi_def_dim(ncid, "x", 4, &dr);
    int rd[2] = {dt, dr};
    CK(ncmpi_def_var(ncid, "r", NC_DOUBLE, 2, rd, &vr), "ncmpi_def_var");
    CK(ncmpi_enddef(ncid), "ncmpi_enddef");
    MPI_Offset rs[2] = {rank, 0}, rc[2] = {1, 4};
    CK(ncmpi_put_vara_double_all(ncid, vr, rs, rc, W), "ncmpi_put_vara_double_all");
    CK(ncmpi_put_var_double_all(ncid, vr, W), "ncmpi_put_var_double_all");
    CK(ncmpi_close(ncid), "ncmpi_close");

    fclose(logfp);
    if (rank == 0)
        printf("pnetcdf_probe: %d ranks done\n", np);
    MPI_Finalize();
    return 0;
}
