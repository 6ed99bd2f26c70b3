/* Fuzz target: a file told apart by content (binary Darshan log or darshan-parser text) ->
 * detect input (iolens_detect_read_log) -> 157 features + file evidence. The readers take
 * paths, so the input is written to a scratch file first. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "iolens/detect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/iolens_fuzz_detect_darshan_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    size_t off = 0;
    while (off < size) {
        ssize_t n = write(fd, data + off, size - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(fd);
    iolens_detect_input *in = NULL;
    if (off == size && iolens_detect_read_log(&in, path, NULL, NULL) == 0) {
        double x[IOLENS_DETECT_NFEATURES];
        iolens_detect_file files[4];
        (void)iolens_detect_input_features(in, x);
        (void)iolens_detect_input_top_files(in, files, 4);
    }
    iolens_detect_input_free(in);
    unlink(path);
    return 0;
}
