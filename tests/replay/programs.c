/* Small real programs for tests/replay/test_replay_programs.sh:
 *   programs lines IN OUT    fgets(buf, 4096) over a text file, fprintf of each line to OUT
 *   programs fsync DIR N     N writes of 4 KiB to DIR/f, an fsync after each */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "lines")) {
        FILE *in = fopen(argv[2], "r"), *out = fopen(argv[3], "w");
        if (!in || !out)
            return 1;
        char buf[4096];
        long n = 0;
        while (fgets(buf, sizeof buf, in))
            fprintf(out, "%ld %s", ++n, buf);
        fclose(in);
        return fclose(out) != 0;
    }
    if (argc == 4 && !strcmp(argv[1], "fsync")) {
        char p[4096];
        snprintf(p, sizeof p, "%s/f", argv[2]);
        int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0)
            return 1;
        char b[4096];
        memset(b, 'f', sizeof b);
        for (int i = 0, n = atoi(argv[3]); i < n; i++)
            if (write(fd, b, sizeof b) != (ssize_t)sizeof b || fsync(fd) != 0)
                return 1;
        return close(fd) != 0;
    }
    return 2;
}
