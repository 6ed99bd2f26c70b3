/* Public entry points of the Recorder reader: opening and freeing. */
#include <errno.h>
#include <sys/stat.h>
#include "recorder/rec_internal.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

static int finish_open(iolens_recorder *rec, iolens_recorder **out)
{
    int rc = rec_read_trace(rec);
    if (rc < 0) {
        iolens_recorder_free(rec);
        return rc;
    }
    *out = rec;
    return 0;
}

static iolens_recorder *new_reader(const char *label, const iolens_recorder_options *opt)
{
    iolens_recorder *rec = calloc(1, sizeof *rec);
    if (!rec)
        return NULL;
    if (opt)
        rec->opt = *opt;
    if (!rec->opt.max_file_bytes)
        rec->opt.max_file_bytes = (uint64_t)1 << 30;
    if (!rec->opt.max_records)
        rec->opt.max_records = (uint64_t)1 << 32;
    rec->prov.max_bytes = rec->opt.max_file_bytes;
    rec->prov.label = strdup(label ? label : "(memory)");
    if (!rec->prov.label) {
        free(rec);
        return NULL;
    }
    return rec;
}

int iolens_recorder_read(const char *dir, iolens_recorder **out, const iolens_recorder_options *opt)
{
    *out = NULL;
    if (!dir)
        return iol_err(IOLENS_EINVAL, "no trace directory given");
    struct stat st;
    if (stat(dir, &st) != 0)
        return iol_err(IOLENS_EIO, "cannot open '%s': %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return iol_err(IOLENS_EFORMAT, "cannot read '%s': not a Recorder trace (a Recorder trace is a directory)", dir);
    iolens_recorder *rec = new_reader(dir, opt);
    if (!rec)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    rec->prov.dir = rec->prov.label;
    return finish_open(rec, out);
}

int iolens_recorder_read_mem(const iolens_recorder_memfile *files, size_t n, const char *label,
                             iolens_recorder **out, const iolens_recorder_options *opt)
{
    *out = NULL;
    iolens_recorder *rec = new_reader(label, opt);
    if (!rec)
        return iol_err(IOLENS_ENOMEM, "out of memory");
    rec->prov.mem = files;
    rec->prov.nmem = n;
    return finish_open(rec, out);
}

void iolens_recorder_free(iolens_recorder *rec)
{
    if (!rec)
        return;
    rec_cursors_free(rec);
    free(rec->cursors);
    for (uint32_t k = 0; rec->csts && k < rec->ncsts; k++) {
        for (uint32_t i = 0; i < rec->csts[k].n; i++) {
            free(rec->csts[k].sigs[i].args);
            free(rec->csts[k].sigs[i].strings);
        }
        free(rec->csts[k].sigs);
    }
    free(rec->csts);
    for (uint32_t g = 0; rec->grammars && g < rec->ngrammars; g++) {
        for (uint32_t i = 0; i < rec->grammars[g].nrules; i++)
            free(rec->grammars[g].rules[i].syms);
        free(rec->grammars[g].rules);
    }
    free(rec->grammars);
    free(rec->funcs);
    free(rec->funcs_blob);
    free(rec->func_class);
    free(rec->ug);
    rec_file_release(&rec->ts);
    free(rec->ts_off);
    free(rec->ts_len);
    free(rec->pat_funcs);
    free(rec->subrank);
    free(rec->files);
    iol_strindex_free(&rec->fhash);
    rec_provider_release(&rec->prov);
    free(rec);
}

int iolens_recorder_nranks(const iolens_recorder *rec) { return rec->nranks; }
const char *iolens_recorder_version(const iolens_recorder *rec) { return rec->version; }
int64_t iolens_recorder_record_count(const iolens_recorder *rec, int rank)
{
    if (rank < 0 || rank >= rec->nranks)
        return iol_err(IOLENS_EINVAL, "rank %d out of range (the trace has %d ranks)", rank, rec->nranks);
    return (int64_t)rec->grammars[rec->ug[rank]].count;
}
