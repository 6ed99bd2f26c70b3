/* iolens paired: the same paired statistics as whatif, for two real commands (the
 * application without and with a change). The statistics are in the library
 * (iolens/paired.h); this file runs the commands and prints. */
#define _GNU_SOURCE
#include "cli.h"
#include "opt.h"

#include "iolens/paired.h"
#include "util/jsonw.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { O_N = 1, O_WARMUP, O_METRIC, O_AUDIT, O_COVERAGE, O_JSON, O_OUTPUT };
static const cli_opt optv[] = {
    {O_OUTPUT, 'o', "output", "FILE", "write the result to FILE (-: standard output, the default)"},
    {O_JSON, 0, "json", NULL, "one JSON document with every round's times and ratio (the machine form)"},
    {O_N, 'n', NULL, "N", "rounds, 1 to 100000 (default 11)"},
    {O_WARMUP, 0, "warmup", "K", "untimed rounds first, 0 to 1000 (default 1)"},
    {O_METRIC, 0, "metric", "REGEX", "compare a number each run prints on standard output instead of its\n"
                                     "wall time (the first match; a group, if the pattern has one, is the\n"
                                     "number; ^ and $ match at each line's start and end); higher is better:\n"
                                     "the ratio is B's number / A's"},
    {O_AUDIT, 0, "audit", "CMD", "run CMD (with sh -c) after each round; a non-zero exit stops the\n"
                                 "comparison (e.g. to check that A and B wrote the same output)"},
    {O_COVERAGE, 0, "coverage", "C", "the interval's minimum coverage, between 0 and 1 (default 0.90)"},
    {0, 0, NULL, NULL, NULL},
};
static const cli_spec spec = {
    "paired", "paired [-n N] [--warmup K] [--metric REGEX] [--audit CMD] [--coverage C] [--json]\n"
              "       -- COMMAND_A [ARGS...] -- COMMAND_B [ARGS...]",
    "Runs A and B back to back N times, alternating which goes first, and reports the\n"
    "speed-up of B over A: the median of the per-round ratios (A's wall time / B's), the\n"
    "interval between the k-th smallest and the k-th largest ratio that holds the true median\n"
    "with probability at least C (order statistics: 11 rounds give the 3rd and the 9th,\n"
    "93.5%), and a verdict: faster, slower, or within noise (the interval holds 1).",
    optv,
    "The commands' standard output is discarded (read for --metric); their standard error\n"
    "is shown. A command that exits non-zero stops the comparison; its status is paired's.",
    NULL, 0};

struct run {
    char **argv;
    double seconds;
    double metric;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs argv, timing it; with re, reads its output (at most 1 MiB kept) and parses the metric. */
static int run_once(struct run *r, const regex_t *re, const char *name)
{
    int fds[2] = {-1, -1};
    if (re && pipe(fds)) {
        cli_error("cannot make a pipe: %s", strerror(errno));
        return -1;
    }
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        cli_error("cannot start '%s': %s", r->argv[0], strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int out = re ? fds[1] : open("/dev/null", O_WRONLY);
        if (out >= 0)
            dup2(out, 1);
        if (re) {
            close(fds[0]);
            close(fds[1]);
        }
        execvp(r->argv[0], r->argv);
        fprintf(stderr, "iolens: error: cannot run '%s': %s\n", r->argv[0], strerror(errno));
        _exit(127);
    }
    char *buf = NULL;
    size_t len = 0;
    if (re) {
        close(fds[1]);
        buf = malloc((1u << 20) + 1);
        char chunk[65536];
        ssize_t k;
        while ((k = read(fds[0], chunk, sizeof chunk)) != 0) {
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0)
                break;
            if (buf && len + (size_t)k <= (1u << 20)) {
                memcpy(buf + len, chunk, (size_t)k);
                len += (size_t)k;
            }
        }
        close(fds[0]);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    r->seconds = now() - t0;
    if (!WIFEXITED(st) || WEXITSTATUS(st)) {
        cli_error("command %s ('%s') %s %d: stopping", name, r->argv[0], WIFEXITED(st) ? "exited with" : "was killed by signal",
                  WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        free(buf);
        return -1;
    }
    if (re) {
        if (!buf) {
            cli_error("out of memory");
            return -1;
        }
        buf[len] = 0;
        regmatch_t m[2];
        if (regexec(re, buf, 2, m, 0)) {
            cli_error("command %s ('%s') printed nothing that matches --metric", name, r->argv[0]);
            free(buf);
            return -1;
        }
        regmatch_t use = m[1].rm_so >= 0 ? m[1] : m[0];
        char num[64];
        size_t n = (size_t)(use.rm_eo - use.rm_so);
        snprintf(num, sizeof num, "%.*s", (int)(n < sizeof num ? n : sizeof num - 1), buf + use.rm_so);
        char *end;
        r->metric = strtod(num, &end);
        free(buf);
        if (end == num || !(r->metric > 0) || !isfinite(r->metric)) {
            cli_error("command %s ('%s'): --metric matched '%s', not a positive number", name, r->argv[0], num);
            return -1;
        }
    }
    return 0;
}

int cmd_paired(int argc, char **argv)
{
    long rounds = 11, warmup = 1;
    double coverage = 0.90;
    const char *metric = NULL, *audit = NULL;
    int json = 0;
    const char *output = NULL;
    cli_args p;
    cli_args_init(&p, &spec, argc, argv);
    int id;
    while ((id = cli_next(&p)) > 0) {
        switch (id) {
        case O_JSON: json = 1; break;
        case O_OUTPUT: output = p.val; break;
        case O_N:
            if (cli_val_long(&p, 1, 100000, &rounds) < 0)
                return CLI_USAGE;
            break;
        case O_WARMUP:
            if (cli_val_long(&p, 0, 1000, &warmup) < 0)
                return CLI_USAGE;
            break;
        case O_COVERAGE:
            if (cli_val_double(&p, 1e-9, 1 - 1e-9, &coverage) < 0)
                return CLI_USAGE;
            break;
        case O_METRIC: metric = p.val; break;
        case O_AUDIT: audit = p.val; break;
        }
    }
    if (id < 0)
        return cli_args_exit(&p, id);
    /* -- A ... -- B ... */
    char **a = NULL, **b = NULL;
    if (p.rest == 0 && p.noperands > 0) {
        a = p.operands;
        for (int j = 0; j < p.noperands; j++)
            if (!strcmp(p.operands[j], "--")) {
                p.operands[j] = NULL; /* ends A's argument list */
                b = &p.operands[j + 1];
                break;
            }
    }
    if (p.rest != 0 && p.noperands > 0)
        return cli_usage_error(&spec, "unexpected argument '%s' before '--'", p.operands[0]), CLI_USAGE;
    if (!a || !a[0] || !b || !b[0])
        return cli_usage_error(&spec, "two commands are needed: -- COMMAND_A ... -- COMMAND_B ..."), CLI_USAGE;
    if (output && cli_output_to(output) < 0)
        return CLI_FAIL;
    regex_t re;
    if (metric && regcomp(&re, metric, REG_EXTENDED | REG_NEWLINE)) {
        cli_error("--metric '%s' is not an extended regular expression", metric);
        return CLI_USAGE;
    }
    double *ta = calloc((size_t)rounds, sizeof *ta), *tb = calloc((size_t)rounds, sizeof *tb);
    double *ratio = calloc((size_t)rounds, sizeof *ratio);
    int rc = CLI_FAIL;
    if (!ta || !tb || !ratio) {
        cli_error("out of memory");
        goto out;
    }
    struct run ra = {a, 0, 0}, rb = {b, 0, 0};
    int tty = isatty(2);
    for (long r = -warmup; r < rounds; r++) {
        if (tty)
            fprintf(stderr, "\riolens paired: %s %ld/%ld", r < 0 ? "warm-up" : "round", r < 0 ? r + warmup + 1 : r + 1,
                    r < 0 ? warmup : rounds);
        int b_first = r >= 0 && (r % 2); /* alternate the order: neither always runs on a warm cache */
        struct run *first = b_first ? &rb : &ra, *second = b_first ? &ra : &rb;
        if (run_once(first, metric ? &re : NULL, first == &ra ? "A" : "B") < 0 ||
            run_once(second, metric ? &re : NULL, second == &ra ? "A" : "B") < 0)
            goto out;
        if (audit) {
            int st = system(audit);
            if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
                cli_error("the audit command failed after %s %ld: stopping", r < 0 ? "warm-up round" : "round",
                          r < 0 ? r + warmup + 1 : r + 1);
                goto out;
            }
        }
        if (r < 0)
            continue;
        ta[r] = metric ? ra.metric : ra.seconds;
        tb[r] = metric ? rb.metric : rb.seconds;
        ratio[r] = metric ? tb[r] / ta[r] : (tb[r] > 0 ? ta[r] / tb[r] : 0);
    }
    if (tty)
        fprintf(stderr, "\r%60s\r", "");
    iolens_paired_summary s;
    if (iolens_paired_summarize(ratio, (size_t)rounds, coverage, &s) < 0) {
        cli_lib_error();
        goto out;
    }
    if (json) {
        iol_jsonw w;
        iol_jsonw_init(&w, stdout, 1);
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "measure");
        iol_jsonw_str(&w, metric ? "metric" : "seconds");
        iol_jsonw_key(&w, "rounds");
        iol_jsonw_int(&w, rounds);
        iol_jsonw_key(&w, "warmup");
        iol_jsonw_int(&w, warmup);
        const char *keys[3] = {"a", "b", "ratios"};
        const double *vals[3] = {ta, tb, ratio};
        for (int k = 0; k < 3; k++) {
            iol_jsonw_key(&w, keys[k]);
            iol_jsonw_arr_begin(&w);
            for (long r = 0; r < rounds; r++)
                iol_jsonw_double(&w, vals[k][r]);
            iol_jsonw_arr_end(&w);
        }
        iol_jsonw_key(&w, "median");
        iol_jsonw_double(&w, s.median);
        iol_jsonw_key(&w, "interval");
        iol_jsonw_arr_begin(&w);
        iol_jsonw_double(&w, s.lo);
        iol_jsonw_double(&w, s.hi);
        iol_jsonw_arr_end(&w);
        iol_jsonw_key(&w, "k");
        iol_jsonw_int(&w, (int64_t)s.k);
        iol_jsonw_key(&w, "coverage");
        iol_jsonw_double(&w, s.coverage);
        iol_jsonw_key(&w, "verdict");
        iol_jsonw_str(&w, iolens_paired_verdict_name(s.verdict));
        iol_jsonw_obj_end(&w);
        iol_jsonw_finish(&w);
    } else {
        const char *what = metric ? "B's number / A's" : "A's time / B's";
        printf("speed-up of B over A (%s), median of %ld rounds: %.4g\n", what, rounds, s.median);
        if (s.k)
            printf("interval: [%.4g, %.4g] (ratios %zu and %zu of %ld, sorted: %.1f%% coverage)\n", s.lo, s.hi, s.k,
                   (size_t)rounds + 1 - s.k, rounds, 100 * s.coverage);
        else
            printf("interval: none (%ld rounds are too few for %.0f%% coverage; -n 5 or more)\n", rounds,
                   100 * coverage);
        printf("verdict: %s\n", iolens_paired_verdict_name(s.verdict));
    }
    rc = CLI_OK;
out:
    if (metric)
        regfree(&re);
    free(ta);
    free(tb);
    free(ratio);
    return rc;
}
