/*
 * Generic machinery over the declarative option tables of config.h: one
 * table drives parsing (with JSON-path error messages), defaults, the JSON
 * Schema and serialisation, so the four can never disagree.
 */
#include "replay/config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define RP_PATH_MAX 512

static int64_t *i64_at(void *dst, const struct rp_opt *o) { return (int64_t *)((char *)dst + o->off); }
static int *int_at(void *dst, const struct rp_opt *o) { return (int *)((char *)dst + o->off); }
static double *dbl_at(void *dst, const struct rp_opt *o) { return (double *)((char *)dst + o->off); }
static char **str_at(void *dst, const struct rp_opt *o) { return (char **)((char *)dst + o->off); }
static void **ptr_at(void *dst, const struct rp_opt *o) { return (void **)((char *)dst + o->off); }
static size_t *cnt_at(void *dst, const struct rp_opt *o) { return (size_t *)((char *)dst + o->count_off); }

int rp_parse_size(const char *s, int64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    while (*end == ' ')
        end++;
    unsigned long long mul = 1;
    char u = (char)tolower((unsigned char)*end);
    if (u) {
        switch (u) {
        case 'k': mul = 1ULL << 10; break;
        case 'm': mul = 1ULL << 20; break;
        case 'g': mul = 1ULL << 30; break;
        case 't': mul = 1ULL << 40; break;
        case 'b': mul = 1; break;
        default: return -1;
        }
        end++;
        /* "k", "kb", "kib", "b" */
        if (u != 'b' && (*end == 'i' || *end == 'I'))
            end++;
        if (u != 'b' && (*end == 'b' || *end == 'B'))
            end++;
        if (*end)
            return -1;
    }
    if (v > (unsigned long long)INT64_MAX / mul)
        return -1;
    *out = (int64_t)(v * mul);
    return 0;
}

void rp_table_defaults(const struct rp_table *t, void *dst)
{
    for (const struct rp_opt *o = t->opts; o->name; o++) {
        switch (o->type) {
        case RP_OPT_INT:
        case RP_OPT_SIZE: {
            int64_t v = -1;
            if (o->def && o->type == RP_OPT_SIZE)
                rp_parse_size(o->def, &v);
            else if (o->def)
                v = strtoll(o->def, NULL, 10);
            *i64_at(dst, o) = v;
            break;
        }
        case RP_OPT_DOUBLE:
            *dbl_at(dst, o) = o->def ? strtod(o->def, NULL) : -1.0;
            break;
        case RP_OPT_BOOL:
            *int_at(dst, o) = o->def ? !strcmp(o->def, "true") : -1;
            break;
        case RP_OPT_ENUM: {
            int v = -1;
            for (int i = 0; o->def && o->choices[i]; i++)
                if (!strcmp(o->choices[i], o->def))
                    v = i;
            *int_at(dst, o) = v;
            break;
        }
        case RP_OPT_OBJ:
            rp_table_defaults(o->sub, (char *)dst + o->off);
            break;
        default:
            break; /* strings and arrays stay NULL/0 */
        }
    }
}

void rp_table_release(const struct rp_table *t, void *dst)
{
    if (!dst)
        return;
    for (const struct rp_opt *o = t->opts; o->name; o++) {
        switch (o->type) {
        case RP_OPT_STR:
            free(*str_at(dst, o));
            *str_at(dst, o) = NULL;
            break;
        case RP_OPT_PATHS: {
            char **v = *ptr_at(dst, o);
            for (size_t i = 0; v && i < *cnt_at(dst, o); i++)
                free(v[i]);
            free(v);
            *ptr_at(dst, o) = NULL;
            *cnt_at(dst, o) = 0;
            break;
        }
        case RP_OPT_DOUBLES:
            free(*ptr_at(dst, o));
            *ptr_at(dst, o) = NULL;
            *cnt_at(dst, o) = 0;
            break;
        case RP_OPT_OBJ:
            rp_table_release(o->sub, (char *)dst + o->off);
            break;
        case RP_OPT_OBJS: {
            char *v = *ptr_at(dst, o);
            for (size_t i = 0; v && i < *cnt_at(dst, o); i++)
                rp_table_release(o->sub, v + i * o->sub->elem_size);
            free(v);
            *ptr_at(dst, o) = NULL;
            *cnt_at(dst, o) = 0;
            break;
        }
        default:
            break;
        }
    }
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

#define PERR(...) iol_err(IOLENS_EFORMAT, __VA_ARGS__)

/* A ".." may not climb above the replay root (it names the folder above by name, as the replay
 * takes it: iol_replay_rel_path). */
static int check_path(const char *source, const char *path, const char *p, size_t len)
{
    if (len == 0 || len >= 4096 || strlen(p) != len)
        return PERR("'%s': %s: a path must be 1 to 4095 characters without NUL bytes", source, path);
    const char *c = p;
    size_t depth = 0;
    while (*c) {
        while (*c == '/')
            c++;
        const char *e = c;
        while (*e && *e != '/')
            e++;
        if (e - c == 2 && c[0] == '.' && c[1] == '.') {
            if (!depth)
                return PERR("'%s': %s: path '%s' escapes the replay root ('..' above it is refused)", source,
                            path, p);
            depth--;
        } else if (e > c && !(e - c == 1 && c[0] == '.')) {
            depth++;
        }
        c = e;
    }
    return 0;
}

static int parse_value(const struct rp_opt *o, json_t *v, void *dst, const char *path, const char *source);

int rp_table_parse(const struct rp_table *t, json_t *obj, void *dst, const char *path, const char *source)
{
    char sub[RP_PATH_MAX];
    if (!json_is_object(obj))
        return PERR("'%s': %s: must be an object, got %s", source, *path ? path : "(top level)", json_kind(obj));
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        if (key[0] == '_')
            continue; /* "_comment" keys are free text */
        const struct rp_opt *o = t->opts;
        while (o->name && strcmp(o->name, key))
            o++;
        snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", key);
        if (!o->name)
            return PERR("'%s': %s: unknown key", source, sub);
        int rc = parse_value(o, v, dst, sub, source);
        if (rc < 0)
            return rc;
    }
    for (const struct rp_opt *o = t->opts; o->name; o++)
        if (o->required && !json_object_get(obj, o->name))
            return PERR("'%s': %s%s%s: required key missing", source, path, *path ? "." : "", o->name);
    return 0;
}

static int get_number(const struct rp_opt *o, json_t *v, double *out, const char *path, const char *source)
{
    if (!json_is_number(v))
        return PERR("'%s': %s: must be a number, got %s", source, path, json_kind(v));
    *out = json_number_value(v);
    if (!isfinite(*out))
        return PERR("'%s': %s: must be finite", source, path);
    return 0;
}

static int parse_value(const struct rp_opt *o, json_t *v, void *dst, const char *path, const char *source)
{
    char sub[RP_PATH_MAX];
    switch (o->type) {
    case RP_OPT_INT:
    case RP_OPT_SIZE: {
        int64_t x;
        if (json_is_integer(v)) {
            x = (int64_t)json_integer_value(v);
        } else if (o->type == RP_OPT_SIZE && json_is_string(v)) {
            if (rp_parse_size(json_string_value(v), &x) < 0)
                return PERR("'%s': %s: '%s' is not a size (use bytes or a k/m/g/t suffix)", source, path,
                            json_string_value(v));
        } else {
            return PERR("'%s': %s: must be %s, got %s", source, path,
                        o->type == RP_OPT_SIZE ? "a size (integer or \"4k\")" : "an integer", json_kind(v));
        }
        if ((double)x < o->min || (double)x > o->max)
            return PERR("'%s': %s: must be between %.0f and %.0f, got %" PRId64, source, path, o->min, o->max, x);
        *i64_at(dst, o) = x;
        return 0;
    }
    case RP_OPT_DOUBLE: {
        double x;
        int rc = get_number(o, v, &x, path, source);
        if (rc < 0)
            return rc;
        if (x < o->min || x > o->max)
            return PERR("'%s': %s: must be between %g and %g, got %g", source, path, o->min, o->max, x);
        *dbl_at(dst, o) = x;
        return 0;
    }
    case RP_OPT_BOOL:
        if (json_is_boolean(v))
            *int_at(dst, o) = json_is_true(v);
        else if (json_is_integer(v) && json_integer_value(v) >= 0 && (double)json_integer_value(v) <= o->max)
            *int_at(dst, o) = (int)json_integer_value(v); /* FBench writes "use_direct": 0; a count when max > 1 */
        else if (o->max > 1)
            return PERR("'%s': %s: must be true/false or a count from 0 to %.0f, got %s", source, path, o->max,
                        json_is_integer(v) ? "an integer out of range" : json_kind(v));
        else
            return PERR("'%s': %s: must be true/false (or 0/1), got %s", source, path, json_kind(v));
        return 0;
    case RP_OPT_ENUM: {
        if (!json_is_string(v))
            return PERR("'%s': %s: must be a string, got %s", source, path, json_kind(v));
        const char *s = json_string_value(v);
        for (int i = 0; o->choices[i]; i++)
            if (!strcmp(o->choices[i], s)) {
                *int_at(dst, o) = i;
                return 0;
            }
        char list[256] = "";
        for (int i = 0; o->choices[i]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", o->choices[i]);
        return PERR("'%s': %s: '%.64s' is not one of: %s", source, path, s, list);
    }
    case RP_OPT_STR: {
        if (!json_is_string(v))
            return PERR("'%s': %s: must be a string, got %s", source, path, json_kind(v));
        if (json_string_length(v) > 4096)
            return PERR("'%s': %s: longer than 4096 characters", source, path);
        char *s = strdup(json_string_value(v));
        if (!s)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        free(*str_at(dst, o));
        *str_at(dst, o) = s;
        return 0;
    }
    case RP_OPT_PATHS: {
        if (json_is_string(v)) { /* FBench's single "file_name" form */
            json_t *a = json_array();
            json_array_append(a, v);
            int rc = parse_value(o, a, dst, path, source);
            json_decref(a);
            return rc;
        }
        if (!json_is_array(v))
            return PERR("'%s': %s: must be an array of paths, got %s", source, path, json_kind(v));
        size_t n = json_array_size(v);
        if (n == 0 || (double)n > o->max)
            return PERR("'%s': %s: must list 1 to %.0f paths, got %zu", source, path, o->max, n);
        if (*ptr_at(dst, o))
            return PERR("'%s': %s: given twice", source, path);
        char **list = calloc(n, sizeof *list);
        if (!list)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        *ptr_at(dst, o) = list;
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_array_get(v, i);
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            if (!json_is_string(e))
                return PERR("'%s': %s: must be a string, got %s", source, sub, json_kind(e));
            int rc = check_path(source, sub, json_string_value(e), json_string_length(e));
            if (rc < 0)
                return rc;
            if (!(list[i] = strdup(json_string_value(e))))
                return iol_err(IOLENS_ENOMEM, "out of memory");
            *cnt_at(dst, o) = i + 1;
        }
        return 0;
    }
    case RP_OPT_DOUBLES: {
        if (!json_is_array(v))
            return PERR("'%s': %s: must be an array of numbers, got %s", source, path, json_kind(v));
        size_t n = json_array_size(v);
        if ((double)n > o->max)
            return PERR("'%s': %s: at most %.0f values, got %zu", source, path, o->max, n);
        double *d = calloc(n ? n : 1, sizeof *d);
        if (!d)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        free(*ptr_at(dst, o));
        *ptr_at(dst, o) = d;
        *cnt_at(dst, o) = n;
        for (size_t i = 0; i < n; i++) {
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            int rc = get_number(o, json_array_get(v, i), &d[i], sub, source);
            if (rc < 0)
                return rc;
            if (d[i] <= 0 || d[i] > 1000)
                return PERR("'%s': %s: must be > 0 and <= 1000, got %g", source, sub, d[i]);
        }
        return 0;
    }
    case RP_OPT_OBJ:
        return rp_table_parse(o->sub, v, (char *)dst + o->off, path, source);
    case RP_OPT_OBJS: {
        if (!json_is_array(v))
            return PERR("'%s': %s: must be an array of objects, got %s", source, path, json_kind(v));
        size_t n = json_array_size(v);
        if ((double)n > o->max)
            return PERR("'%s': %s: at most %.0f entries, got %zu", source, path, o->max, n);
        if (*ptr_at(dst, o))
            return PERR("'%s': %s: given twice", source, path);
        char *arr = calloc(n ? n : 1, o->sub->elem_size);
        if (!arr)
            return iol_err(IOLENS_ENOMEM, "out of memory");
        *ptr_at(dst, o) = arr;
        for (size_t i = 0; i < n; i++) {
            void *e = arr + i * o->sub->elem_size;
            rp_table_defaults(o->sub, e);
            *cnt_at(dst, o) = i + 1;
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            int rc = rp_table_parse(o->sub, json_array_get(v, i), e, sub, source);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    }
    return PERR("'%s': %s: internal: unknown option type", source, path);
}

/* ---- JSON Schema ---- */

static json_t *opt_schema(const struct rp_opt *o)
{
    json_t *s = json_object();
    switch (o->type) {
    case RP_OPT_INT:
        json_object_set_new(s, "type", json_string("integer"));
        json_object_set_new(s, "minimum", json_integer((json_int_t)o->min));
        json_object_set_new(s, "maximum", json_integer((json_int_t)o->max));
        break;
    case RP_OPT_SIZE: {
        json_t *num = json_pack("{s:s, s:I, s:I}", "type", "integer", "minimum", (json_int_t)o->min, "maximum",
                                (json_int_t)o->max);
        json_t *str = json_pack("{s:s, s:s}", "type", "string", "pattern",
                                "^[0-9]+ *([kKmMgGtT][iI]?[bB]?|[bB])?$");
        json_object_set_new(s, "oneOf", json_pack("[o, o]", num, str));
        break;
    }
    case RP_OPT_DOUBLE:
        json_object_set_new(s, "type", json_string("number"));
        json_object_set_new(s, "minimum", json_real(o->min));
        json_object_set_new(s, "maximum", json_real(o->max));
        break;
    case RP_OPT_BOOL:
        json_object_set_new(s, "type", json_pack("[s, s]", "boolean", "integer"));
        if (o->max > 1) { /* true/false or a count */
            json_object_set_new(s, "minimum", json_integer(0));
            json_object_set_new(s, "maximum", json_integer((json_int_t)o->max));
        } else {
            json_object_set_new(s, "enum", json_pack("[b, b, i, i]", 1, 0, 0, 1));
        }
        break;
    case RP_OPT_ENUM: {
        json_t *e = json_array();
        for (int i = 0; o->choices[i]; i++)
            json_array_append_new(e, json_string(o->choices[i]));
        json_object_set_new(s, "enum", e);
        break;
    }
    case RP_OPT_STR:
        json_object_set_new(s, "type", json_string("string"));
        break;
    case RP_OPT_PATHS: {
        json_t *item = json_pack("{s:s, s:i, s:{s:s}}", "type", "string", "minLength", 1, "not", "pattern",
                                 "(^|/)\\.\\.(/|$)");
        json_object_set_new(s, "type", json_pack("[s, s]", "array", "string"));
        json_object_set_new(s, "items", item);
        json_object_set_new(s, "minItems", json_integer(1));
        json_object_set_new(s, "maxItems", json_integer((json_int_t)o->max));
        break;
    }
    case RP_OPT_DOUBLES:
        json_object_set_new(s, "type", json_string("array"));
        json_object_set_new(s, "items", json_pack("{s:s, s:i, s:i}", "type", "number", "exclusiveMinimum", 0,
                                                  "maximum", 1000));
        json_object_set_new(s, "maxItems", json_integer((json_int_t)o->max));
        break;
    case RP_OPT_OBJ:
        json_decref(s);
        s = rp_table_schema(o->sub);
        break;
    case RP_OPT_OBJS:
        json_object_set_new(s, "type", json_string("array"));
        json_object_set_new(s, "items", rp_table_schema(o->sub));
        json_object_set_new(s, "maxItems", json_integer((json_int_t)o->max));
        break;
    }
    json_object_set_new(s, "description", json_string(o->help));
    if (o->def)
        json_object_set_new(s, "default", json_string(o->def));
    return s;
}

json_t *rp_table_schema(const struct rp_table *t)
{
    json_t *props = json_object(), *req = json_array();
    for (const struct rp_opt *o = t->opts; o->name; o++) {
        json_object_set_new(props, o->name, opt_schema(o));
        if (o->required)
            json_array_append_new(req, json_string(o->name));
    }
    json_t *s = json_pack("{s:s, s:s, s:o, s:{s:{}}, s:b}", "title", t->name, "type", "object", "properties",
                          props, "patternProperties", "^_", "additionalProperties", 0);
    if (json_array_size(req))
        json_object_set_new(s, "required", req);
    else
        json_decref(req);
    return s;
}

/* ---- serialisation ---- */

json_t *rp_table_to_json(const struct rp_table *t, const void *src)
{
    void *dst = (void *)(uintptr_t)src; /* the accessors are shared with the parser */
    json_t *obj = json_object();
    /* defaults of this table, to leave out what was not changed */
    void *defs = calloc(1, t->elem_size);
    if (defs)
        rp_table_defaults(t, defs);
    for (const struct rp_opt *o = t->opts; o->name; o++) {
        json_t *v = NULL;
        int alias = 0;
        for (const struct rp_opt *p = t->opts; p < o; p++)
            alias |= p->off == o->off;
        if (alias)
            continue; /* e.g. file_name, FBench's spelling of file_names */
        if (defs && !o->required) {
            if ((o->type == RP_OPT_INT || o->type == RP_OPT_SIZE) && *i64_at(dst, o) == *i64_at(defs, o))
                continue;
            if ((o->type == RP_OPT_BOOL || o->type == RP_OPT_ENUM) && *int_at(dst, o) == *int_at(defs, o))
                continue;
            if (o->type == RP_OPT_DOUBLE && *dbl_at(dst, o) == *dbl_at(defs, o))
                continue;
        }
        switch (o->type) {
        case RP_OPT_INT:
        case RP_OPT_SIZE:
            if (*i64_at(dst, o) >= 0)
                v = json_integer(*i64_at(dst, o));
            break;
        case RP_OPT_DOUBLE:
            if (*dbl_at(dst, o) >= 0)
                v = json_real(*dbl_at(dst, o));
            break;
        case RP_OPT_BOOL:
            if (*int_at(dst, o) > 1)
                v = json_integer(*int_at(dst, o)); /* a count */
            else if (*int_at(dst, o) >= 0)
                v = json_boolean(*int_at(dst, o));
            break;
        case RP_OPT_ENUM:
            if (*int_at(dst, o) >= 0)
                v = json_string(o->choices[*int_at(dst, o)]);
            break;
        case RP_OPT_STR:
            if (*str_at(dst, o))
                v = json_string(*str_at(dst, o));
            break;
        case RP_OPT_PATHS: {
            char **p = *ptr_at(dst, o);
            if (!p)
                break;
            v = json_array();
            for (size_t i = 0; i < *cnt_at(dst, o); i++)
                json_array_append_new(v, json_string(p[i]));
            break;
        }
        case RP_OPT_DOUBLES: {
            double *d = *ptr_at(dst, o);
            if (!d || !*cnt_at(dst, o))
                break;
            v = json_array();
            for (size_t i = 0; i < *cnt_at(dst, o); i++)
                json_array_append_new(v, json_real(d[i]));
            break;
        }
        case RP_OPT_OBJ:
            v = rp_table_to_json(o->sub, (char *)dst + o->off);
            if (json_object_size(v) == 0) {
                json_decref(v);
                v = NULL;
            }
            break;
        case RP_OPT_OBJS: {
            char *a = *ptr_at(dst, o);
            if (!a)
                break;
            v = json_array();
            for (size_t i = 0; i < *cnt_at(dst, o); i++)
                json_array_append_new(v, rp_table_to_json(o->sub, a + i * o->sub->elem_size));
            break;
        }
        }
        if (v)
            json_object_set_new(obj, o->name, v);
    }
    free(defs);
    return obj;
}
