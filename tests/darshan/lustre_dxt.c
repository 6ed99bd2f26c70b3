/* Writes a log through iolens_darshan_write with one file on Lustre, laid out in two components
 * (bytes 0..4 MiB: 1 MiB stripes over OSTs 10, 11; from 4 MiB to the end: 2 MiB stripes over
 * 20, 21, 22), and DXT_POSIX segments that stay in one stripe, cross stripes, cross the
 * components, and cover more stripes than a component has: the cases of darshan-dxt-parser's
 * OST column.  lustre_dxt OUT.darshan */
#include <stdio.h>
#include <string.h>

#include "iolens/darshan.h"

#define MiB (1024 * 1024LL)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: lustre_dxt OUT.darshan\n");
        return 2;
    }
    iolens_darshan_job job;
    memset(&job, 0, sizeof job);
    job.nprocs = 1;
    job.start_time_sec = 1733000000;
    job.end_time_sec = 1733000010;
    job.exe = "lustre_dxt";
    iolens_darshan_mount mnt = {"/lus", "lustre"};
    uint64_t id = 77;
    const char *name = "/lus/f";

    iolens_darshan_lustre_comp comps[2];
    memset(comps, 0, sizeof comps);
    comps[0] = (iolens_darshan_lustre_comp){MiB, 2, 0, 0, 0, 4 * MiB, 0, ""};
    comps[1] = (iolens_darshan_lustre_comp){2 * MiB, 3, 0, 0, 4 * MiB, -1, 0, ""};
    int64_t osts[5] = {10, 11, 20, 21, 22};
    iolens_darshan_record lr;
    memset(&lr, 0, sizeof lr);
    lr.module = IOLENS_DARSHAN_LUSTRE;
    lr.id = id;
    lr.rank = -1;
    lr.lustre.num_comps = 2;
    lr.lustre.num_stripes = 5;
    lr.lustre.comps = comps;
    lr.lustre.osts = osts;

    iolens_darshan_dxt_seg segs[] = {
        {0, 4096, 0.1, 0.2, 7},                 /* inside stripe 0 */
        {MiB - 10, 20, 0.2, 0.3, 7},            /* crosses stripes 0 and 1 */
        {3 * MiB, 2 * MiB, 0.3, 0.4, 7},        /* crosses into component 2 */
        {0, 16 * MiB, 0.4, 0.5, 7},             /* more stripes than either component has */
        {9 * MiB, 10, 0.5, 0.6, 12345678},      /* component 2, third stripe */
    };
    iolens_darshan_record dr;
    memset(&dr, 0, sizeof dr);
    dr.module = IOLENS_DARSHAN_DXT_POSIX;
    dr.id = id;
    dr.rank = 0;
    snprintf(dr.dxt.hostname, sizeof dr.dxt.hostname, "node1");
    dr.dxt.write_count = 5;
    dr.dxt.segs = segs;
    dr.dxt.has_pthread_id = 1;

    const iolens_darshan_record *lp = &lr, *dp = &dr;
    iolens_darshan_image img;
    memset(&img, 0, sizeof img);
    img.job = &job;
    img.mounts = &mnt;
    img.nmounts = 1;
    img.name_ids = &id;
    img.names = &name;
    img.nnames = 1;
    img.records[IOLENS_DARSHAN_LUSTRE] = &lp;
    img.nrecords[IOLENS_DARSHAN_LUSTRE] = 1;
    img.records[IOLENS_DARSHAN_DXT_POSIX] = &dp;
    img.nrecords[IOLENS_DARSHAN_DXT_POSIX] = 1;
    if (iolens_darshan_write(&img, argv[1]) < 0) {
        fprintf(stderr, "lustre_dxt: %s\n", iolens_error_last());
        return 1;
    }
    return 0;
}
