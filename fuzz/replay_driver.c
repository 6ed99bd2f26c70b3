/*
 * Plain driver for fuzz targets: runs LLVMFuzzerTestOneInput on every file
 * given (or every file of the given folders), so the test suite replays the
 * corpora without libFuzzer. Exits non-zero if a folder is empty or missing.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* A target may count the inputs that get past its format's header: then most of the
 * corpus must, or the corpus has gone stale (a format change) and tests only the header. */
extern long iolens_fuzz_passed __attribute__((weak));

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open '%s'\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    size_t got = n > 0 ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    LLVMFuzzerTestOneInput(buf, got);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "cannot stat '%s'\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad += run_file(argv[i]);
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            bad += run_file(path);
            files++;
        }
        if (d)
            closedir(d);
    }
    printf("replayed %d inputs\n", files);
    if (&iolens_fuzz_passed && files > 0) {
        printf("%ld of %d inputs passed the format's header\n", iolens_fuzz_passed, files);
        if (iolens_fuzz_passed * 2 < files) {
            fprintf(stderr, "most of the corpus is rejected at the header: regenerate it (see the target's comment)\n");
            return 1;
        }
    }
    return (files == 0 || bad) ? 1 : 0;
}
