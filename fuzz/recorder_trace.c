/*
 * Fuzz target for the Recorder reader. A trace is a directory, so the input
 * is a small container of files, read through the in-memory provider (no
 * disk): repeated { u8 name_len; name; u32 size (LE); bytes }. Every rank is
 * decoded both as recorder2text lines and as events.
 * Corpus: fuzz/corpus/recorder_trace (fuzz/make_recorder_corpus.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "iolens/recorder.h"

#define MAX_FILES 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    iolens_recorder_memfile files[MAX_FILES];
    char names[MAX_FILES][64];
    size_t n = 0, pos = 0;
    while (n < MAX_FILES && pos < size) {
        size_t nl = data[pos++];
        if (nl == 0 || nl > 63 || nl > size - pos)
            break;
        memcpy(names[n], data + pos, nl);
        names[n][nl] = '\0';
        pos += nl;
        if (size - pos < 4)
            break;
        uint32_t len = (uint32_t)data[pos] | (uint32_t)data[pos + 1] << 8 | (uint32_t)data[pos + 2] << 16 |
                       (uint32_t)data[pos + 3] << 24;
        pos += 4;
        if (len > size - pos)
            len = (uint32_t)(size - pos);
        files[n] = (iolens_recorder_memfile){names[n], data + pos, len};
        pos += len;
        n++;
    }
    iolens_recorder_options opt = {0};
    opt.max_file_bytes = 1 << 22;
    opt.max_records = 1 << 18;
    iolens_recorder *rec;
    if (iolens_recorder_read_mem(files, n, "fuzz", &rec, &opt) < 0)
        return 0;
    FILE *devnull = fopen("/dev/null", "w");
    int nranks = iolens_recorder_nranks(rec);
    for (int r = 0; r < nranks && r < 8 && devnull; r++)
        iolens_recorder_write_text(rec, r, devnull, NULL);
    if (devnull)
        fclose(devnull);
    iolens_evsource *src;
    if (iolens_recorder_evsource(rec, &src) == 0) {
        const iolens_file *ftab;
        size_t nf;
        iolens_evsource_files(src, &ftab, &nf);
        for (int r = 0; r < nranks && r < 8; r++) {
            iolens_event ev;
            while (iolens_evsource_next(src, r, &ev) == 1)
                if (ev.file >= (int64_t)nf)
                    __builtin_trap(); /* file ids must index the table */
        }
        iolens_evsource_free(src);
    }
    return 0;
}
