/* Internal pieces of iolens batch shared by its files. */
#ifndef IOLENS_BATCH_INTERNAL_H
#define IOLENS_BATCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The logs of a run: one buffer of NUL-terminated paths. */
struct iol_batch_list {
    char *buf;
    size_t len, bufcap;
    size_t *off;
    size_t n, cap;
};
int iol_batch_list_read(const char *dir, struct iol_batch_list *l);
void iol_batch_list_free(struct iol_batch_list *l);
/* Marks in done[] (one byte per log: 1 ok, 2 error) the logs of every manifest of dir;
 * *ndone gets their number. */
int iol_batch_read_manifests(const char *dir, unsigned char *done, size_t n, uint64_t *ndone);
/* The CSV header of task t (0 summary, 1 features, 2 detect, 3 heatmap). */
void iol_batch_csv_header(FILE *f, int task);

#endif
