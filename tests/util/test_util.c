/* Unit tests of src/util: error convention, buffers, JSON writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/iolens.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/jsonw.h"

static void test_error_message(void **state)
{
    (void)state;
    iolens_error_clear();
    assert_int_equal(iolens_error_last_code(), IOLENS_OK);
    assert_string_equal(iolens_error_last(), "");
    int rc = iol_err(IOLENS_EFORMAT, "truncated name region at byte %d", 1832);
    assert_int_equal(rc, IOLENS_EFORMAT);
    assert_int_equal(iolens_error_last_code(), IOLENS_EFORMAT);
    assert_string_equal(iolens_error_last(), "truncated name region at byte 1832");
    iol_err_prefix(IOLENS_EFORMAT, "cannot read '%s'", "x.darshan");
    assert_string_equal(iolens_error_last(), "cannot read 'x.darshan': truncated name region at byte 1832");
    assert_string_equal(iolens_error_name(IOLENS_ENOMEM), "out of memory");
}

static void test_buf(void **state)
{
    (void)state;
    iol_buf b = IOL_BUF_INIT;
    for (int i = 0; i < 1000; i++)
        assert_int_equal(iol_buf_printf(&b, "%d,", i), 0);
    assert_int_equal(strncmp(b.data, "0,1,2,", 6), 0);
    assert_int_equal(b.data[b.len], '\0');
    size_t len;
    char *p = iol_buf_detach(&b, &len);
    assert_non_null(p);
    assert_int_equal(strlen(p), len);
    assert_null(b.data);
    free(p);
    iol_buf_release(&b);
}

static void test_read_file_limit(void **state)
{
    (void)state;
    char path[] = "/tmp/iolens-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i < 1000; i++)
        fputs("0123456789", f);
    fclose(f);
    iol_buf b = IOL_BUF_INIT;
    assert_int_equal(iol_read_file(path, 100, &b), IOLENS_ENOMEM);
    assert_non_null(strstr(iolens_error_last(), "limit"));
    iol_buf_release(&b);
    assert_int_equal(iol_read_file(path, 1 << 20, &b), 0);
    assert_int_equal(b.len, 10000);
    iol_buf_release(&b);
    assert_int_equal(iol_read_file("/nonexistent/x", 100, &b), IOLENS_EIO);
    assert_non_null(strstr(iolens_error_last(), "/nonexistent/x"));
    remove(path);
}

/* The writer's output must be valid JSON that jansson reads back. */
static void test_jsonw_roundtrip(void **state)
{
    (void)state;
    char *text = NULL;
    size_t size = 0;
    for (int pretty = 0; pretty < 2; pretty++) {
        FILE *mem = open_memstream(&text, &size);
        iol_jsonw w;
        iol_jsonw_init(&w, mem, pretty);
        iol_jsonw_obj_begin(&w);
        iol_jsonw_key(&w, "name");
        iol_jsonw_str(&w, "a\"b\\c\n\x01");
        iol_jsonw_key(&w, "list");
        iol_jsonw_arr_begin(&w);
        iol_jsonw_int(&w, -1);
        iol_jsonw_uint(&w, UINT64_C(9223372036854775807)); /* jansson caps at INT64_MAX */
        iol_jsonw_double(&w, 0.1);
        iol_jsonw_double(&w, 1.0 / 0.0);
        iol_jsonw_bool(&w, 1);
        iol_jsonw_arr_end(&w);
        iol_jsonw_key(&w, "empty");
        iol_jsonw_obj_begin(&w);
        iol_jsonw_obj_end(&w);
        iol_jsonw_obj_end(&w);
        iol_jsonw_finish(&w);
        fclose(mem);
        json_error_t err;
        json_t *root = json_loads(text, 0, &err);
        assert_non_null(root);
        assert_string_equal(json_string_value(json_object_get(root, "name")), "a\"b\\c\n\x01");
        json_t *list = json_object_get(root, "list");
        assert_int_equal(json_array_size(list), 5);
        assert_int_equal(json_integer_value(json_array_get(list, 0)), -1);
        assert_true(json_real_value(json_array_get(list, 2)) == 0.1);
        assert_true(json_is_null(json_array_get(list, 3)));
        assert_true(json_is_true(json_array_get(list, 4)));
        assert_int_equal(json_object_size(json_object_get(root, "empty")), 0);
        json_decref(root);
        free(text);
        text = NULL;
    }
}

/* iol_fmt_f6 against snprintf("%f"): random bit patterns, exact halves (k/128: k * 7812.5 of a
 * millionth), neighbours of millionths, integers up to and beyond its exact range, signs, zeros,
 * subnormals, NaN and infinities. */
static void fmt_f6_check(double v)
{
    char a[400], b[400];
    snprintf(a, sizeof a, "%f", v);
    size_t n = iol_fmt_f6(b, sizeof b, v);
    if (strcmp(a, b) || n != strlen(a))
        fail_msg("%%f of %a: snprintf '%s', iol_fmt_f6 '%s'", v, a, b);
}

static void test_fmt_f6(void **state)
{
    (void)state;
    static const double fixed[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-6, 5e-7, 4.9999999e-7, 1e-300,
                                   4.9e-324, 123456.789, 1e15, 9007199254740993.0, 1e30, 3e32,
                                   -3e32, 1e300, 0.1, 0.2, 0.3};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        fmt_f6_check(fixed[i]);
    fmt_f6_check(INFINITY);
    fmt_f6_check(-INFINITY);
    fmt_f6_check(NAN);
    for (int k = -30000; k <= 30000; k++) {
        fmt_f6_check(k / 128.0);
        fmt_f6_check(k / 1048576.0);
        double m = k * 1e-6;
        fmt_f6_check(m);
        fmt_f6_check(nextafter(m, 1e9));
        fmt_f6_check(nextafter(m, -1e9));
    }
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        memcpy(&v, &x, sizeof v);
        fmt_f6_check(v);
        /* values of the size Darshan counters hold: seconds, timestamps, bytes */
        fmt_f6_check((double)(x >> 11) / (double)(1ull << (x % 60)));
    }
}

/* iol_fmt_double: reads back as the same double, and no form with fewer digits does. */
static void test_fmt_double(void **state)
{
    (void)state;
    char b[40], c[400];
    iol_fmt_double(b, sizeof b, 0.1);
    assert_string_equal(b, "0.1");
    iol_fmt_double(b, sizeof b, 7.0000000000000007e-05);
    assert_string_equal(b, "7.000000000000001e-05");
    uint64_t x = 1234567;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        memcpy(&v, &x, sizeof v);
        if (!isfinite(v))
            continue;
        iol_fmt_double(b, sizeof b, v);
        assert_true(strtod(b, NULL) == v);
        int digits = 0, lead = 1; /* significant digits: leading zeros do not count */
        for (const char *p = b; *p && *p != 'e'; p++)
            if (*p >= '1' && *p <= '9')
                digits++, lead = 0;
            else if (*p == '0' && !lead)
                digits++;
        if (digits > 15) {
            snprintf(c, sizeof c, "%.*g", digits - 1, v);
            assert_false(strtod(c, NULL) == v);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_message),
        cmocka_unit_test(test_buf),
        cmocka_unit_test(test_read_file_limit),
        cmocka_unit_test(test_jsonw_roundtrip),
        cmocka_unit_test(test_fmt_f6),
        cmocka_unit_test(test_fmt_double),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
