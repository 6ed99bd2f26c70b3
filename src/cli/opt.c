/* The one option parser of every subcommand (opt.h). */
#include "opt.h"

#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cli_verbosity;

/* every command's own: asked for by name unless the command's table has that name */
enum { ID_HELP = -100, ID_QUIET, ID_VERBOSE };
static const cli_opt common_opts[] = {
    {ID_HELP, 'h', "help", NULL, "print this help and exit"},
    {ID_QUIET, 'q', "quiet", NULL, "no warnings and no progress on the terminal (errors are still printed)"},
    {ID_VERBOSE, 'v', "verbose", NULL, "say more of what is done"},
    {0, 0, NULL, NULL, NULL},
};

int cli_args_init(cli_args *a, const cli_spec *s, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->spec = s;
    a->argc = argc;
    a->argv = argv;
    a->i = 1;
    a->rest = -1;
    a->stop_at_operand = s->stop_at_operand;
    /* argv stays as it is (replay and whatif start themselves again with it). The operands'
     * array is held here, reachable until the next parse or the end of the program: a command's
     * early returns need not free it. */
    static char **held;
    free(held);
    held = calloc((size_t)(argc > 0 ? argc : 1) + 1, sizeof *held);
    if (!held) {
        cli_error("out of memory");
        exit(CLI_FAIL);
    }
    a->operands = held;
    return 0;
}

void cli_args_free(cli_args *a)
{
    (void)a; /* the array is the parser's own (above) */
}

/* a value given only as --name=VALUE ("[=WHEN]") */
static int is_optional(const cli_opt *o)
{
    return o->value && o->value[0] == '[' && o->value[1] == '=';
}

static const cli_opt *find_long(const cli_opt *t, const char *name, size_t n)
{
    for (; t && t->id; t++)
        if (t->lname && strlen(t->lname) == n && !strncmp(t->lname, name, n))
            return t;
    return NULL;
}

static const cli_opt *find_short(const cli_opt *t, char c)
{
    for (; t && t->id; t++)
        if (t->sname == c)
            return t;
    return NULL;
}

int cli_usage_error(const cli_spec *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("iolens: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'iolens %s --help')\n", s->cmd);
    va_end(ap);
    return CLI_OPT_ERROR;
}

/* "unknown option '--totl'; did you mean '--total'?" from the table and the common options */
static int unknown(const cli_args *a, const char *given)
{
    char opt[72];
    size_t ol = strcspn(given, "=");
    snprintf(opt, sizeof opt, "%.*s", (int)(ol < sizeof opt ? ol : sizeof opt - 1), given);
    char best[72] = "";
    size_t bd = 3; /* at most two edits away */
    const cli_opt *tables[2] = {a->spec->opts, common_opts};
    for (int k = 0; k < 2; k++)
        for (const cli_opt *o = tables[k]; o && o->id; o++) {
            char cand[72];
            if (!o->help) /* not offered */
                continue;
            for (int form = 0; form < 2; form++) {
                if (form == 0 && o->lname)
                    snprintf(cand, sizeof cand, "--%s", o->lname);
                else if (form == 1 && o->sname)
                    snprintf(cand, sizeof cand, "-%c", o->sname);
                else
                    continue;
                size_t d = cli_distance(opt, cand);
                /* "-json" is "--json" less a dash: one edit, but say the long one */
                if (d < bd || (d == bd && form == 0 && best[0] && best[1] != '-')) {
                    bd = d;
                    snprintf(best, sizeof best, "%s", cand);
                }
            }
        }
    if (best[0])
        return cli_usage_error(a->spec, "unknown option '%s'; did you mean '%s'?", opt, best);
    return cli_usage_error(a->spec, "unknown option '%s'", opt);
}

/* o was found by the name a->opt; its value from inline (after '=' or the rest of a group) or
 * the next element */
static int take(cli_args *a, const cli_opt *o, const char *inline_val)
{
    a->val = NULL;
    int optional = is_optional(o);
    if (!o->value || optional) {
        if (inline_val && !optional)
            return cli_usage_error(a->spec, "option '%s' takes no value (given '%s')", a->opt, inline_val);
        if (o->id == ID_HELP) {
            cli_help(a->spec, stdout);
            return CLI_OPT_HELP;
        }
        a->val = inline_val;
    } else if (inline_val) {
        a->val = inline_val;
    } else if (a->i < a->argc) {
        a->val = a->argv[a->i++];
    } else {
        return cli_usage_error(a->spec, "option '%s' is missing its value (%s)", a->opt, o->value);
    }
    if (o->id == ID_QUIET) {
        cli_verbosity = -1;
        return 0;
    }
    if (o->id == ID_VERBOSE) {
        cli_verbosity = cli_verbosity < 0 ? 1 : cli_verbosity + 1;
        return 0;
    }
    return o->id;
}

/* the rest of argv, from element k, are operands */
static void rest_operands(cli_args *a, int k)
{
    a->rest = a->noperands;
    for (; k < a->argc; k++)
        a->operands[a->noperands++] = a->argv[k];
    a->i = a->argc;
}

int cli_next(cli_args *a)
{
    if (!a->started) {
        a->started = 1;
        /* -h or --help anywhere before "--" is the help, even where an option's value would be
         * (`darshan --from --help`); not where the first operand starts a program's own */
        for (int k = 1; !a->stop_at_operand && k < a->argc && strcmp(a->argv[k], "--"); k++)
            if (!strcmp(a->argv[k], "--help") || !strcmp(a->argv[k], "-h")) {
                cli_help(a->spec, stdout);
                return CLI_OPT_HELP;
            }
    }
    for (;;) {
        if (a->group && *a->group) { /* -qv: the next letter */
            char c = *a->group++;
            const cli_opt *o = find_short(a->spec->opts, c);
            if (!o)
                o = find_short(common_opts, c);
            snprintf(a->opt, sizeof a->opt, "-%c", c);
            if (!o)
                return unknown(a, a->opt);
            const char *inl = NULL;
            if (o->value && !is_optional(o) && *a->group) { /* -ofile */
                inl = a->group;
                a->group = NULL;
            }
            int id = take(a, o, inl);
            if (id != 0)
                return id;
            continue;
        }
        a->group = NULL;
        if (a->i >= a->argc) {
            a->operands[a->noperands] = NULL; /* a consumed slot, or argv's own end */
            return CLI_OPT_END;
        }
        char *s = a->argv[a->i];
        if (!strcmp(s, "--")) {
            rest_operands(a, a->i + 1);
            a->operands[a->noperands] = NULL;
            return CLI_OPT_END;
        }
        if (s[0] != '-' || s[1] == '\0') { /* an operand ("-" too) */
            if (a->stop_at_operand) {
                rest_operands(a, a->i);
                a->operands[a->noperands] = NULL;
                return CLI_OPT_END;
            }
            a->operands[a->noperands++] = s;
            a->i++;
            continue;
        }
        a->i++;
        if (s[1] == '-') {
            const char *name = s + 2, *eq = strchr(name, '=');
            size_t n = eq ? (size_t)(eq - name) : strlen(name);
            const cli_opt *o = find_long(a->spec->opts, name, n);
            if (!o)
                o = find_long(common_opts, name, n);
            snprintf(a->opt, sizeof a->opt, "--%.*s", (int)(n < 64 ? n : 64), name);
            if (!o)
                return unknown(a, s);
            int id = take(a, o, eq ? eq + 1 : NULL);
            if (id != 0)
                return id;
            continue;
        }
        a->group = s + 1;
    }
}

/* ---- help ---- */

static void opt_head(const cli_opt *o, char *buf, size_t n)
{
    int k = 0;
    if (o->sname && o->lname)
        k = snprintf(buf, n, "-%c, --%s", o->sname, o->lname);
    else if (o->sname)
        k = snprintf(buf, n, "-%c", o->sname);
    else
        k = snprintf(buf, n, "    --%s", o->lname ? o->lname : "");
    if (o->value && k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, "%s%s", is_optional(o) ? "" : " ", o->value);
}

static void print_opts(const cli_opt *t, int width, FILE *out)
{
    for (const cli_opt *o = t; o && o->id; o++) {
        char head[128];
        if (!o->help) /* an option that is only refused with a reason */
            continue;
        opt_head(o, head, sizeof head);
        const char *h = o->help;
        int hl = (int)strlen(head);
        if (hl > width) {
            fprintf(out, "  %s\n%*s", head, width + 4, "");
        } else {
            fprintf(out, "  %-*s  ", width, head);
        }
        for (const char *p = h; *p; p++) {
            fputc(*p, out);
            if (*p == '\n' && p[1])
                fprintf(out, "%*s", width + 4, "");
        }
        fputc('\n', out);
    }
}

void cli_help(const cli_spec *s, FILE *out)
{
    const char *u = s->usage ? s->usage : s->cmd;
    for (int first = 1; *u; first = 0) {
        size_t n = strcspn(u, "\n");
        fprintf(out, "%s iolens %.*s\n", first ? "usage:" : "      ", (int)n, u);
        u += n;
        if (*u)
            u++;
    }
    if (s->about)
        fprintf(out, "\n%s\n", s->about);
    int width = 0;
    const cli_opt *tables[2] = {s->opts, common_opts};
    for (int k = 0; k < 2; k++)
        for (const cli_opt *o = tables[k]; o && o->id; o++) {
            char head[128];
            opt_head(o, head, sizeof head);
            int hl = (int)strlen(head);
            if (hl <= 26 && hl > width)
                width = hl;
        }
    fputs("\noptions:\n", out);
    print_opts(s->opts, width, out);
    for (const cli_opt *o = common_opts; o->id; o++) /* the command's own table may have them */
        if (!(o->lname && find_long(s->opts, o->lname, strlen(o->lname))) && !find_short(s->opts, o->sname)) {
            cli_opt one[2] = {*o, {0, 0, NULL, NULL, NULL}};
            print_opts(one, width, out);
        }
    if (s->more)
        fprintf(out, "\n%s%s", s->more, s->more[0] && s->more[strlen(s->more) - 1] != '\n' ? "\n" : "");
    if (s->more_fn)
        s->more_fn(out);
}

/* ---- values ---- */

int cli_val_long(const cli_args *a, long min, long max, long *out)
{
    const char *v = a->val ? a->val : "";
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < min || x > max)
        return cli_usage_error(a->spec, "%s wants an integer from %ld to %ld, not '%s'", a->opt, min, max, v);
    *out = x;
    return 0;
}

int cli_val_double(const cli_args *a, double min, double max, double *out)
{
    const char *v = a->val ? a->val : "";
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!*v || *end || errno || !isfinite(x) || x < min || x > max)
        return cli_usage_error(a->spec, "%s wants a number from %g to %g, not '%s'", a->opt, min, max, v);
    *out = x;
    return 0;
}

int cli_val_size(const cli_args *a, long long min, long long max, long long *out)
{
    const char *v = a->val ? a->val : "";
    char *end;
    errno = 0;
    unsigned long long x = isdigit((unsigned char)*v) ? strtoull(v, &end, 10) : 0;
    int bad = !isdigit((unsigned char)*v) || errno;
    if (!bad) {
        unsigned long long mul = 1;
        switch (tolower((unsigned char)*end)) {
        case 'k': mul = 1ULL << 10; break;
        case 'm': mul = 1ULL << 20; break;
        case 'g': mul = 1ULL << 30; break;
        case 't': mul = 1ULL << 40; break;
        case '\0': break;
        default: bad = 1;
        }
        if (*end && !bad) {
            end++;
            if (*end == 'i' || *end == 'I')
                end++;
            if (*end == 'b' || *end == 'B')
                end++;
            bad = *end != '\0';
        }
        if (!bad && x > (unsigned long long)max / mul)
            bad = 1;
        x *= mul;
    }
    if (bad || (long long)x < min || (long long)x > max)
        return cli_usage_error(a->spec, "%s wants a size from %lld to %lld bytes (e.g. 4096, 64k, 1MiB), not '%s'",
                               a->opt, min, max, v);
    *out = (long long)x;
    return 0;
}

int cli_val_choice(const cli_args *a, const char *const *choices, int *out)
{
    const char *v = a->val ? a->val : "";
    const char *best = NULL;
    size_t bd = 3;
    for (int i = 0; choices[i]; i++) {
        if (!strcmp(choices[i], v)) {
            *out = i;
            return 0;
        }
        size_t d = cli_distance(v, choices[i]);
        if (d < bd) {
            bd = d;
            best = choices[i];
        }
    }
    char list[512];
    size_t k = 0;
    for (int i = 0; choices[i] && k < sizeof list; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? (choices[i + 1] ? ", " : " or ") : "", choices[i]);
    if (best)
        return cli_usage_error(a->spec, "%s wants %s, not '%s'; did you mean '%s'?", a->opt, list, v, best);
    return cli_usage_error(a->spec, "%s wants %s, not '%s'", a->opt, list, v);
}

int cli_want_operands(const cli_args *a, int min, int max, const char *what)
{
    int n = a->noperands;
    if (n < min && n == 0)
        return cli_usage_error(a->spec, "no %s given", what);
    if (n < min)
        return cli_usage_error(a->spec, "%d %s wanted, %d given", min, what, n);
    if (max >= 0 && n > max) {
        if (max == 0)
            return cli_usage_error(a->spec, "unexpected argument '%s'", a->operands[0]);
        if (max == min)
            return cli_usage_error(a->spec, "%d %s wanted, %d given ('%s' is one too many)", max, what, n,
                                   a->operands[max]);
        return cli_usage_error(a->spec, "at most %d %s wanted, %d given", max, what, n);
    }
    return 0;
}

int cli_args_exit(cli_args *a, int id)
{
    cli_args_free(a);
    return id == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
}
