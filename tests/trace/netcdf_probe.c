/*
 * Ground-truth probe for the NetCDF wrappers: calls every data function of netCDF-C's API
 * (put and get, var/var1/vara/vars/varm, untyped and the fourteen typed forms) on a netCDF-4
 * file, the file and variable calls, and the parallel forms (nc_create_par, nc_open_par,
 * nc_var_par_access), and logs the name of each call, in order, to LOG.
 *
 *   netcdf_probe LOG DIR     (one process, or under mpirun: rank 0 writes the serial file)
 *
 * Files: DIR/serial.nc (netCDF-4: double d[4], char c[4], string s[4], int m[2][4], float
 * late[4]) and DIR/par.nc (netCDF-4 through MPI-IO: double p[4 * nprocs]).
 */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *logfp;

static void ck(int err, const char *name)
{
    fprintf(logfp, "%s\n", name);
    if (err != NC_NOERR) {
        fprintf(stderr, "netcdf_probe: %s: %s\n", name, nc_strerror(err));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}
#define CK(call, name) ck(call, name)

static double W[64], R[64];
static const char *S[64];
static int ncid;
static size_t s1[1], c4[1] = {4}, c2[1] = {2};
static ptrdiff_t st1[1] = {1}, st2[1] = {2}, im1[1] = {1};
#define B_put W
#define B_get R

/* one call of every kind (T the type's suffix, "" for the untyped form), on variable v */
#define SET(T, D, v, buf)                                                                           \
    CK(nc_##D##_var1##T(ncid, v, s1, (void *)buf), "nc_" #D "_var1" #T);                           \
    CK(nc_##D##_vara##T(ncid, v, s1, c4, (void *)buf), "nc_" #D "_vara" #T);                       \
    CK(nc_##D##_vars##T(ncid, v, s1, c2, st2, (void *)buf), "nc_" #D "_vars" #T);                  \
    CK(nc_##D##_varm##T(ncid, v, s1, c4, st1, im1, (void *)buf), "nc_" #D "_varm" #T);             \
    CK(nc_##D##_var##T(ncid, v, (void *)buf), "nc_" #D "_var" #T);
#define SET_D(T, D, v) SET(T, D, v, B_##D)
#define NUM(X, ...)                                                                                 \
    X(, __VA_ARGS__) X(_schar, __VA_ARGS__) X(_uchar, __VA_ARGS__) X(_short, __VA_ARGS__)           \
    X(_int, __VA_ARGS__) X(_long, __VA_ARGS__) X(_float, __VA_ARGS__) X(_double, __VA_ARGS__)       \
    X(_ubyte, __VA_ARGS__) X(_ushort, __VA_ARGS__) X(_uint, __VA_ARGS__) X(_longlong, __VA_ARGS__)  \
    X(_ulonglong, __VA_ARGS__)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc != 3) {
        fprintf(stderr, "usage: netcdf_probe LOG DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!(logfp = fopen(rank ? "/dev/null" : argv[1], "w")))
        return 2;
    for (int i = 0; i < 64; i++)
        S[i] = "s";
    char path[4096];
    if (rank == 0) {
        snprintf(path, sizeof path, "%s/serial.nc", argv[2]);
        int dx, dy, vd, vc, vs, vm, vl;
        CK(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid), "nc_create");
        nc_def_dim(ncid, "x", 4, &dx);
        nc_def_dim(ncid, "y", 2, &dy);
        CK(nc_def_var(ncid, "d", NC_DOUBLE, 1, &dx, &vd), "nc_def_var");
        CK(nc_def_var(ncid, "c", NC_CHAR, 1, &dx, &vc), "nc_def_var");
        CK(nc_def_var(ncid, "s", NC_STRING, 1, &dx, &vs), "nc_def_var");
        int dm[2] = {dy, dx};
        CK(nc_def_var(ncid, "m", NC_INT, 2, dm, &vm), "nc_def_var");
        CK(nc_enddef(ncid), "nc_enddef");
        NUM(SET_D, put, vd)
        SET(_text, put, vc, W)
        SET(_string, put, vs, S)
        size_t ms[2] = {0, 0}, mc[2] = {2, 4};
        CK(nc_put_vara_int(ncid, vm, ms, mc, (void *)W), "nc_put_vara_int");
        NUM(SET_D, get, vd)
        SET(_text, get, vc, R)
        char *got[64];
        SET(_string, get, vs, got)
        CK(nc_redef(ncid), "nc_redef");
        CK(nc_def_var(ncid, "late", NC_FLOAT, 1, &dx, &vl), "nc_def_var");
        CK(nc_enddef(ncid), "nc_enddef");
        CK(nc_sync(ncid), "nc_sync");
        CK(nc_close(ncid), "nc_close");
        CK(nc_open(path, NC_NOWRITE, &ncid), "nc_open");
        CK(nc_inq_varid(ncid, "d", &vd), "nc_inq_varid");
        CK(nc_get_vara_double(ncid, vd, s1, c4, R), "nc_get_vara_double");
        CK(nc_close(ncid), "nc_close");
    }
    /* parallel: each rank its 4 elements, collectively */
    snprintf(path, sizeof path, "%s/par.nc", argv[2]);
    int dp, vp;
    CK(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), "nc_create_par");
    nc_def_dim(ncid, "x", 4 * (size_t)np, &dp);
    CK(nc_def_var(ncid, "p", NC_DOUBLE, 1, &dp, &vp), "nc_def_var");
    CK(nc_enddef(ncid), "nc_enddef");
    CK(nc_var_par_access(ncid, vp, NC_COLLECTIVE), "nc_var_par_access");
    size_t ps[1] = {4 * (size_t)rank};
    CK(nc_put_vara_double(ncid, vp, ps, c4, W), "nc_put_vara_double");
    CK(nc_close(ncid), "nc_close");
    CK(nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), "nc_open_par");
    CK(nc_inq_varid(ncid, "p", &vp), "nc_inq_varid");
    CK(nc_get_vara_double(ncid, vp, ps, c4, R), "nc_get_vara_double");
    CK(nc_close(ncid), "nc_close");
    fclose(logfp);
    if (rank == 0)
        printf("netcdf_probe: %d ranks done\n", np);
    MPI_Finalize();
    return 0;
}
