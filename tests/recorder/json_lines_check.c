/* Test helper: every stdin line is a JSON object with the event fields of
 * `iolens view --json`; prints the number of lines, exits 1 on the first bad one. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    static const char *const keys[] = {"rank", "tstart", "tend", "func", "layer", "op", "file", "offset", "size",
                                       "args"};
    char *line = NULL;
    size_t cap = 0;
    long n = 0;
    while (getline(&line, &cap, stdin) > 0) {
        json_error_t err;
        json_t *o = json_loads(line, 0, &err);
        n++;
        int ok = o && json_is_object(o);
        for (size_t k = 0; ok && k < sizeof keys / sizeof keys[0]; k++)
            ok = json_object_get(o, keys[k]) != NULL;
        json_decref(o);
        if (!ok) {
            fprintf(stderr, "line %ld is not an event object: %s", n, line);
            free(line);
            return 1;
        }
    }
    free(line);
    printf("%ld\n", n);
    return n > 0 ? 0 : 1;
}
