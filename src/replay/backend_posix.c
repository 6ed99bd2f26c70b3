/* POSIX and stdio replay back ends, with the POSIX hints. */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "replay/exec.h"
#include "util/error.h"

#define LUSTRE_MAGIC 0x0BD00BD0L

void rp_hint_report(struct rp_step_result *res, const char *name, const char *fmt, ...)
{
    for (size_t i = 0; i < res->nhints; i++)
        if (!strcmp(res->hints[i].name, name))
            return;
    if (res->nhints >= RP_MAX_HINTS)
        return;
    struct rp_hint_status *h = &res->hints[res->nhints++];
    snprintf(h->name, sizeof h->name, "%s", name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->status, sizeof h->status, fmt, ap);
    va_end(ap);
}

const char *rp_fs_name(int fd, int *is_lustre)
{
    struct statfs s;
    *is_lustre = 0;
    if (fstatfs(fd, &s) != 0)
        return "unknown";
    switch ((unsigned long)s.f_type) {
    case 0x01021994UL: return "tmpfs";
    case 0xEF53UL: return "ext4";
    case 0x58465342UL: return "xfs";
    case 0x9123683EUL: return "btrfs";
    case 0x794C7630UL: return "overlayfs";
    case 0x6969UL: return "nfs";
    case 0x0BD00BD0UL: *is_lustre = 1; return "lustre";
    default: return "another file system";
    }
}

/* Hints that need a Lustre client API: never silently dropped. */
static void report_lustre(struct rp_file *f, int fd)
{
    if (f->h->lustre_stripe_size < 0 && f->h->lustre_stripe_count < 0)
        return;
    int lustre;
    const char *fs = rp_fs_name(fd, &lustre);
    const char *names[2] = {"lustre_stripe_size", "lustre_stripe_count"};
    int64_t vals[2] = {f->h->lustre_stripe_size, f->h->lustre_stripe_count};
    for (int i = 0; i < 2; i++) {
        if (vals[i] < 0)
            continue;
        if (lustre)
            rp_hint_report(f->res, names[i], "not supported by this build: setting a Lustre layout needs liblustreapi");
        else
            rp_hint_report(f->res, names[i], "not applicable here: the replay root is on %s, not Lustre", fs);
    }
}

/* MPI-IO's hints on a POSIX or stdio step: said, never silently dropped. */
static void report_mpi_only(struct rp_file *f, const char *iface)
{
    const struct rp_hints *h = f->h;
    const char *const names[] = {"use_collective",     "romio_cb_read",      "romio_cb_write",  "romio_ds_read",
                                 "romio_ds_write",     "cb_buffer_size",     "cb_nodes",        "cb_block_size",
                                 "ind_rd_buffer_size", "ind_wr_buffer_size", "striping_factor", "striping_unit"};
    const int64_t v[] = {h->use_collective,     h->romio_cb_read,      h->romio_cb_write,  h->romio_ds_read,
                         h->romio_ds_write,     h->cb_buffer_size,     h->cb_nodes,        h->cb_block_size,
                         h->ind_rd_buffer_size, h->ind_wr_buffer_size, h->striping_factor, h->striping_unit};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i] >= 0)
            rp_hint_report(f->res, names[i], "not applicable here: an MPI-IO hint, and this step's interface is %s",
                           iface);
}

/* Applies the POSIX hints to an open fd (both back ends). */
static void posix_hints_after_open(struct rp_file *f, int fd, const char *iface)
{
    if (f->h->disable_readahead == 1) {
        int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
        if (f->report)
            rp_hint_report(f->res, "disable_readahead", rc == 0 ? "applied: posix_fadvise(POSIX_FADV_RANDOM)"
                                                                : "failed: posix_fadvise: %s", strerror(rc));
    }
    if (f->h->preallocate == 1 && f->write && f->extent > 0) {
        int rc = posix_fallocate(fd, 0, (off_t)f->extent);
        struct stat st;
        if (rc == 0 && fstat(fd, &st) == 0 && f->report)
            rp_hint_report(f->res, "preallocate", "applied: posix_fallocate(%lld bytes), %lld bytes allocated",
                           (long long)f->extent, (long long)st.st_blocks * 512);
        else if (f->report)
            rp_hint_report(f->res, "preallocate", "failed: posix_fallocate: %s", strerror(rc));
    } else if (f->h->preallocate == 1 && f->report) {
        rp_hint_report(f->res, "preallocate", "not applicable here: the step does not write");
    }
    if (f->report) {
        report_lustre(f, fd);
        report_mpi_only(f, iface);
    }
}

static int open_fd(struct rp_file *f, int extra)
{
    /* the file exists (the replay created it): O_CREAT only gives a writer the flags and mode
     * an application's open has (IOR: O_RDWR | O_CREAT, 0644) */
    int flags = (f->write ? O_RDWR | O_CREAT : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC | extra;
    /* in its folder resolved beneath the root (named to the tracer, so that the replay's own
     * trace names the file as the application's did) */
    rp_file_as(f, "open"); /* (an application's open: traced as one) */
    return openat(f->dirfd, f->base, flags, 0644);
}

static int posix_open(struct rp_file *f)
{
    f->direct = 0;
    if (f->h->use_direct == 1) {
        if (!f->direct_ok) {
            if (f->report)
                rp_hint_report(f->res, "use_direct",
                               "not applicable here: transfers or offsets are not multiples of 4096 bytes");
        } else {
            f->fd = open_fd(f, O_DIRECT);
            if (f->fd >= 0) {
                int fl = fcntl(f->fd, F_GETFL);
                f->direct = fl >= 0 && (fl & O_DIRECT);
                if (f->report)
                    rp_hint_report(f->res, "use_direct", f->direct ? "applied: O_DIRECT set on the descriptor "
                                                                     "(F_GETFL 0%o)"
                                                                   : "failed: F_GETFL 0%o lacks O_DIRECT", fl);
                goto opened;
            }
            if (errno != EINVAL)
                return iol_err(IOLENS_EIO, "cannot open '%s': %s", f->full, strerror(errno));
            if (f->report)
                rp_hint_report(f->res, "use_direct", "not applicable here: the file system refuses O_DIRECT");
        }
    }
    f->fd = open_fd(f, 0);
    if (f->fd < 0)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", f->full, strerror(errno));
opened:
    posix_hints_after_open(f, f->fd, "posix");
    return 0;
}

/* write() at the file position (posix_xfer's parameter `write` hides the function) */
static ssize_t write_at_pos(int fd, const void *buf, size_t n)
{
    return write(fd, buf, n);
}

static int posix_xfer(struct rp_file *f, int write, void *buf, size_t n, int64_t off, int collective)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k;
        if (f->seek) { /* IOR's POSIX back end: lseek64() to the offset, then write()/read() */
            if (done == 0 && lseek(f->fd, (off_t)off, SEEK_SET) < 0)
                return iol_err(IOLENS_EIO, "cannot seek '%s' to byte %lld: %s", f->full, (long long)off,
                               strerror(errno));
            k = write ? write_at_pos(f->fd, (char *)buf + done, n - done) : read(f->fd, (char *)buf + done, n - done);
        } else {
            k = write ? pwrite(f->fd, (char *)buf + done, n - done, (off_t)(off + (int64_t)done))
                      : pread(f->fd, (char *)buf + done, n - done, (off_t)(off + (int64_t)done));
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return iol_err(IOLENS_EIO, "cannot %s '%s' at byte %lld: %s", write ? "write" : "read", f->full,
                           (long long)(off + (int64_t)done), strerror(errno));
        if (k == 0)
            return iol_err(IOLENS_EIO, "cannot read '%s': end of file at byte %lld", f->full,
                           (long long)(off + (int64_t)done));
        done += (size_t)k;
    }
    return 0;
}

static int posix_sync(struct rp_file *f)
{
    return fsync(f->fd) == 0 ? 0 : iol_err(IOLENS_EIO, "cannot fsync '%s': %s", f->full, strerror(errno));
}

static int posix_close(struct rp_file *f)
{
    int rc = close(f->fd);
    f->fd = -1;
    return rc == 0 ? 0 : iol_err(IOLENS_EIO, "cannot close '%s': %s", f->full, strerror(errno));
}

const struct rp_backend_ops rp_backend_posix = {RP_BACKEND_VERSION, "posix", posix_open, posix_xfer, posix_sync,
                                                posix_close};

/* ---- stdio ---- */

static int stdio_open(struct rp_file *f)
{
    if (f->h->use_direct == 1 && f->report)
        rp_hint_report(f->res, "use_direct", "not applicable here: stdio buffers in user space (use posix)");
    f->fd = open_fd(f, 0);
    if (f->fd < 0)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", f->full, strerror(errno));
    posix_hints_after_open(f, f->fd, "stdio");
    f->fp = fdopen(f->fd, f->write ? "r+" : "r");
    if (!f->fp) {
        close(f->fd);
        return iol_err(IOLENS_EIO, "cannot open '%s' as a stream: %s", f->full, strerror(errno));
    }
    return 0;
}

static int stdio_xfer(struct rp_file *f, int write, void *buf, size_t n, int64_t off, int collective)
{
    if (ftello(f->fp) != off && fseeko(f->fp, (off_t)off, SEEK_SET) != 0)
        return iol_err(IOLENS_EIO, "cannot seek '%s' to byte %lld: %s", f->full, (long long)off, strerror(errno));
    size_t k = write ? fwrite(buf, 1, n, f->fp) : fread(buf, 1, n, f->fp);
    if (k != n)
        return iol_err(IOLENS_EIO, "cannot %s '%s' at byte %lld: %s", write ? "write" : "read", f->full,
                       (long long)off, ferror(f->fp) ? strerror(errno) : "end of file");
    return 0;
}

static int stdio_sync(struct rp_file *f)
{
    if (fflush(f->fp) != 0 || fsync(fileno(f->fp)) != 0)
        return iol_err(IOLENS_EIO, "cannot flush '%s': %s", f->full, strerror(errno));
    return 0;
}

static int stdio_close(struct rp_file *f)
{
    int rc = fclose(f->fp);
    f->fp = NULL;
    f->fd = -1;
    return rc == 0 ? 0 : iol_err(IOLENS_EIO, "cannot close '%s': %s", f->full, strerror(errno));
}

const struct rp_backend_ops rp_backend_stdio = {RP_BACKEND_VERSION, "stdio", stdio_open, stdio_xfer, stdio_sync,
                                                stdio_close};
