/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated CPU's grammar (tests/sim/sim.h) is exact: every form it
 * accepts runs the CPU it names, and every other form is refused with a
 * message naming what was wrong.  A test that silently ran on another
 * CPU than it asked for would prove nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hw.h"
#include "sim.h"

static char dir[] = "/tmp/rdrand-sim-grammar-XXXXXX";

/* Write text to a file in the test's directory; returns its path. */
static const char *words_file(const char *name, const char *text)
{
    static char path[256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_non_null(f = fopen(path, "w"));
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
    return path;
}

static void refused(const char *spec, const char *says)
{
    char err[256];

    if (rdrand_sim_configure(spec, err, sizeof(err)))
        fail_msg("RDRAND_SIM \"%s\" was accepted", spec);
    if (strstr(err, says) == NULL)
        fail_msg("RDRAND_SIM \"%s\": \"%s\" does not say \"%s\"", spec, err,
                 says);
}

static void refused_words(const char *text, const char *says)
{
    char spec[300];

    snprintf(spec, sizeof(spec), "words=%s", words_file("w", text));
    refused(spec, says);
}

static uint64_t next_word(int *carry)
{
    uint64_t w;

    *carry = rdrand_hw_rdrand64(&w);
    return w;
}

static void accepted(const char *spec)
{
    char err[256];

    if (!rdrand_sim_configure(spec, err, sizeof(err)))
        fail_msg("RDRAND_SIM \"%s\" refused: %s", spec, err);
}

static void test_value(void **state)
{
    int carry;

    (void)state;
    accepted("value=1234");
    assert_int_equal(next_word(&carry), 0x1234);
    assert_int_equal(carry, 1);
    accepted("value=FFFFFFFFFFFFFFFF");
    assert_int_equal(next_word(&carry), UINT64_MAX);
    refused("value=0x1234", "value=0x1234");
    refused("value=", "not understood");
    refused("value=12345678123456781", "not understood"); /* 17 digits */
    refused("value=-1", "not understood");
    refused("value= 12", "not understood");
    refused("value=12 ", "not understood");
    refused("value=12g", "not understood");
}

static void test_counts(void **state)
{
    (void)state;
    accepted("fail-at=3,fail-from=10");
    refused("fail-at=0", "fail-at=0: must be nonzero");
    refused("fail-from=0", "fail-from=0: must be nonzero");
    refused("fail-at=+3", "not understood");
    refused("fail-at=0x3", "not understood");
    refused("fail-from=", "not understood");
    refused("fail-from=99999999999999999999", "not understood"); /* > 2^64 */
}

static void test_items(void **state)
{
    (void)state;
    accepted("");
    accepted("rdrand=absent");
    refused("rdrand=absent,rdrand=present", "\"rdrand\" given twice");
    refused("value=1,fail-at=2,value=3", "\"value\" given twice");
    refused("coco=none,coco=tdx", "\"coco\" given twice");
    refused("rdrand=present,", "empty item");
    refused(",rdrand=present", "empty item");
    refused("rdrand=present,,fail-at=1", "empty item");
    refused("rdrand", "want key=value");
    refused("rdrand=maybe", "not understood");
    refused("speed=fast", "not understood");
    refused("coco=martian", "want one of");
    accepted("aesni=absent,rdrand=present");
    refused("aesni=absent,aesni=present", "\"aesni\" given twice");
    refused("aesni=no", "not understood");
    refused("aesni=Absent", "not understood");
    refused("aesni=", "not understood");
}

/* CPUID leaf 1 ECX bit 25 says what aesni= says, default present. */
static void test_aesni(void **state)
{
    static const struct {
        const char *spec;
        unsigned int aesni, rdrand;
    } cpus[] = {
        {"", 1, 1},
        {"aesni=absent", 0, 1},
        {"aesni=absent,coco=tdx", 0, 1},
        {"aesni=present,rdrand=absent", 1, 0},
    };
    struct rdrand_cpuid leaf1;

    (void)state;
    for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
        accepted(cpus[i].spec);
        assert_int_equal(rdrand_hw_cpuid(1, 0, &leaf1), 1);
        assert_int_equal(leaf1.ecx >> 25 & 1, cpus[i].aesni);
        assert_int_equal(leaf1.ecx >> 30 & 1, cpus[i].rdrand);
    }
}

static void test_words(void **state)
{
    char spec[300];
    int carry;

    (void)state;
    snprintf(spec, sizeof(spec), "words=%s",
             words_file("ok", "# a comment\n0123456789abcdef\n\n"
                              "FEDCBA9876543210 fail\n1111111111111111"));
    accepted(spec);
    assert_int_equal(next_word(&carry), 0x0123456789abcdefULL);
    assert_int_equal(carry, 1);
    next_word(&carry);
    assert_int_equal(carry, 0);
    assert_int_equal(next_word(&carry), 0x1111111111111111ULL);
    assert_int_equal(next_word(&carry), 0x0123456789abcdefULL); /* loops */

    refused_words("0123456789abcdeffail\n", "line 1: want exactly 16 hex");
    refused_words("0123456789abcdef\tfail\n", "line 1");
    refused_words("0123456789abcdef  fail\n", "line 1");
    refused_words("0123456789abcdef \n", "line 1");
    refused_words("0123456789abcdef\t\n", "line 1");
    refused_words("0123456789abcdef\r\n", "line 1");
    refused_words("0123456789abcdef fail \n", "line 1");
    refused_words("0123456789abcdef FAIL\n", "line 1");
    refused_words("0123456789abcde\n", "line 1");
    refused_words("0123456789abcdef0\n", "line 1");
    refused_words(" 0123456789abcdef\n", "line 1");
    refused_words("0x23456789abcdef\n", "line 1");
    refused_words("0123456789abcdef\n0123456789abcdex\n", "line 2");
    refused_words("# only a comment\n\n", "no words");
    {
        static const char nul[] = "0123456789abcdef\n#\0x";
        FILE *f;

        snprintf(spec, sizeof(spec), "words=%s", words_file("w", ""));
        assert_non_null(f = fopen(spec + 6, "w"));
        assert_int_equal(fwrite(nul, 1, sizeof(nul) - 1, f), sizeof(nul) - 1);
        assert_int_equal(fclose(f), 0);
        refused(spec, "line 2: a NUL byte");
    }
    refused_words("", "no words");
    snprintf(spec, sizeof(spec), "words=%s", dir);
    refused(spec, "not a regular file");
    snprintf(spec, sizeof(spec), "words=%s/missing", dir);
    refused(spec, "No such file");
    /* value= and words= both give the words: refused, in either order. */
    snprintf(spec, sizeof(spec), "value=2a,words=%s",
             words_file("ok", "0123456789abcdef\n"));
    refused(spec, "value= and words= both give the words");
    snprintf(spec, sizeof(spec), "words=%s,value=2a",
             words_file("ok", "0123456789abcdef\n"));
    refused(spec, "value= and words= both give the words");
}

/* A refused spec leaves the previous CPU in place. */
static void test_refusal_keeps_cpu(void **state)
{
    int carry;

    (void)state;
    accepted("value=42");
    refused("value=0x43", "not understood");
    assert_int_equal(next_word(&carry), 0x42);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    char path[300];

    (void)state;
    snprintf(path, sizeof(path), "%s/w", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/ok", dir);
    unlink(path);
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value), cmocka_unit_test(test_counts),
        cmocka_unit_test(test_items), cmocka_unit_test(test_aesni),
        cmocka_unit_test(test_words), cmocka_unit_test(test_refusal_keeps_cpu),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
