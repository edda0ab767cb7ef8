/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated CPU's grammar (tests/sim/sim.h) is exact: every form it
 * accepts runs the CPU it names, and every other form is refused with a
 * message naming what was wrong.  A test that silently ran on another
 * CPU than it asked for would prove nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

/* fail-while=PATH: CF=0 exactly while the file is there. */
static void test_fail_while(void **state)
{
    char spec[300], path[256], too_long[300];
    int carry;

    (void)state;
    snprintf(path, sizeof(path), "%s/broken", dir);
    snprintf(spec, sizeof(spec), "fail-while=%s", path);
    accepted(spec);
    (void)next_word(&carry);
    assert_int_equal(carry, 1);
    words_file("broken", "");
    for (int i = 0; i < 3; i++) {
        assert_int_equal(next_word(&carry), 0);
        assert_int_equal(carry, 0);
    }
    assert_int_equal(unlink(path), 0);
    (void)next_word(&carry);
    assert_int_equal(carry, 1);
    refused("fail-while=relative", "fail-while=relative: want an absolute");
    refused("fail-while=", "fail-while=: want an absolute");
    memset(too_long, 'a', sizeof(too_long));
    memcpy(too_long, "fail-while=/", 12);
    too_long[sizeof(too_long) - 1] = '\0';
    refused(too_long, "under 256 bytes");
    refused("fail-while=/a,fail-while=/b", "\"fail-while\" given twice");
}

/*
 * One word drawn in a fork()ed child, next to the parent's next word:
 * stream=shared, the CPU's next two words (distinct, and neither drawn
 * before); stream=process, the same word twice (the child replays).
 */
static void child_and_parent(uint64_t *child, uint64_t *parent)
{
    int fds[2], status, carry;
    pid_t pid;

    assert_int_equal(pipe(fds), 0);
    assert_true((pid = fork()) >= 0);
    if (pid == 0) {
        uint64_t w = next_word(&carry);

        _exit(write(fds[1], &w, sizeof(w)) == sizeof(w) && carry ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(read(fds[0], child, sizeof(*child)), sizeof(*child));
    close(fds[0]);
    close(fds[1]);
    *parent = next_word(&carry);
    assert_int_equal(carry, 1);
}

static void test_stream(void **state)
{
    uint64_t first[3], child, parent;
    int carry;

    (void)state;
    accepted("stream=shared");
    for (int i = 0; i < 3; i++)
        first[i] = next_word(&carry);
    child_and_parent(&child, &parent);
    assert_int_not_equal(child, parent);
    for (int i = 0; i < 3; i++) {
        assert_int_not_equal(child, first[i]);
        assert_int_not_equal(parent, first[i]);
    }
    /* The child's execution counted here too: one CPU. */
    assert_int_equal(rdrand_sim_executions(), 5);

    accepted("stream=process");
    (void)next_word(&carry);
    child_and_parent(&child, &parent);
    assert_int_equal(child, parent);
    assert_int_equal(rdrand_sim_executions(), 2);

    /* fail-from= counts the tree's executions under stream=shared. */
    accepted("stream=shared,fail-from=4");
    (void)next_word(&carry);
    assert_int_equal(carry, 1);
    child_and_parent(&child, &parent); /* executions 2 (child), 3 */
    (void)next_word(&carry);
    assert_int_equal(carry, 0);

    refused("stream=both", "\"stream=both\" is not understood");
    refused("stream=", "\"stream=\" is not understood");
    refused("stream=shared,stream=process", "\"stream\" given twice");
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

/* What leaf 0 and leaf 1 say: "<vendor> <leaf 1 EAX>". */
static const char *cpuid_says(void)
{
    static char says[32];
    struct rdrand_cpuid leaf0, leaf1;
    char vendor[13];

    assert_int_equal(rdrand_hw_cpuid(0, 0, &leaf0), 1);
    assert_int_equal(rdrand_hw_cpuid(1, 0, &leaf1), 1);
    memcpy(vendor, &leaf0.ebx, 4);
    memcpy(vendor + 4, &leaf0.edx, 4);
    memcpy(vendor + 8, &leaf0.ecx, 4);
    vendor[12] = '\0';
    snprintf(says, sizeof(says), "%s %08x", vendor, leaf1.eax);
    return says;
}

/*
 * cpu= sets the vendor and the signature as the vendors' manuals encode
 * it (the expected EAX values are real CPUs' where there is one); only
 * the forms sim.h states are accepted.
 */
static void test_cpu(void **state)
{
    static const struct {
        const char *spec, *says;
    } cpus[] = {
        {"", "AuthenticAMD 00a10f11"},                /* the default: Zen 4 */
        {"coco=tdx", "GenuineIntel 000806f8"},        /* Sapphire Rapids */
        {"coco=epyc-host", "AuthenticAMD 00a00f11"},  /* its own leaf 1 */
        {"cpu=amd:17:71:0", "AuthenticAMD 00870f10"}, /* Matisse */
        {"cpu=amd:15:2:0", "AuthenticAMD 00600f20"},  /* Bulldozer */
        {"cpu=amd:16:30:1", "AuthenticAMD 00730f01"}, /* Puma */
        {"cpu=amd:1A:2:1", "AuthenticAMD 00b00f21"},  /* Turin */
        {"cpu=amd:F:4:a", "AuthenticAMD 00000f4a"},   /* K8 */
        {"cpu=amd:6:6:2", "AuthenticAMD 00000662"},   /* K7 */
        {"cpu=amd:10E:FF:F", "AuthenticAMD 0fff0fff"},
        {"cpu=amd:0:0:0", "AuthenticAMD 00000000"},
        {"cpu=intel:6:8f:8", "GenuineIntel 000806f8"},
        {"cpu=intel:6:3A:9", "GenuineIntel 000306a9"}, /* Ivy Bridge */
        {"cpu=intel:5:4:3", "GenuineIntel 00000543"},
        {"cpu=intel:F:4:1", "GenuineIntel 00000f41"}, /* Prescott */
        {"cpu=intel:6:10:0", "GenuineIntel 00010600"},
        /* cpu= wins over the platform's vendor and signature. */
        {"coco=tdx,cpu=amd:19:11:1", "AuthenticAMD 00a10f11"},
        {"cpu=intel:6:8F:8,coco=epyc-host", "GenuineIntel 000806f8"},
    };
    struct rdrand_cpuid leaf0;

    (void)state;
    for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
        accepted(cpus[i].spec);
        if (strcmp(cpuid_says(), cpus[i].says) != 0)
            fail_msg("RDRAND_SIM \"%s\": CPUID says \"%s\", not \"%s\"",
                     cpus[i].spec, cpuid_says(), cpus[i].says);
    }
    /* The platform's maximum leaf stays: cpu= is the vendor only. */
    accepted("coco=tdx,cpu=amd:19:11:1");
    assert_int_equal(rdrand_hw_cpuid(0, 0, &leaf0), 1);
    assert_int_equal(leaf0.eax, 0x23);

    refused("cpu=", "cpu=: want VENDOR:FAMILY:MODEL:STEPPING");
    refused("cpu=amd", "cpu=amd: want");
    refused("cpu=amd:17:71", "cpu=amd:17:71: want");
    refused("cpu=amd:17:71:0:0", "cpu=amd:17:71:0:0: want");
    refused("cpu=amd:17:71:0:", "cpu=amd:17:71:0:: want");
    refused("cpu=arm:17:71:0", "cpu=arm:17:71:0: want");
    refused("cpu=AMD:17:71:0", "cpu=AMD:17:71:0: want");
    refused("cpu=amd::71:0", "cpu=amd::71:0: want");
    refused("cpu=amd:17::0", "cpu=amd:17::0: want");
    refused("cpu=amd:17:71:", "cpu=amd:17:71:: want");
    refused("cpu=amd:0x17:71:0", "cpu=amd:0x17:71:0: want");
    refused("cpu=amd:17h:71:0", "cpu=amd:17h:71:0: want");
    refused("cpu=amd:10F:0:0", "cpu=amd:10F:0:0: want"); /* > 0Fh + FFh */
    refused("cpu=amd:0017:0:0", "cpu=amd:0017:0:0: want");
    refused("cpu=amd:17:100:0", "cpu=amd:17:100:0: want");
    refused("cpu=amd:17:71:10", "cpu=amd:17:71:10: want");
    refused("cpu=amd:17:-1:0", "cpu=amd:17:-1:0: want");
    refused("cpu=amd:17: 71:0", "cpu=amd:17: 71:0: want");
    refused("cpu=amd:17:71:0000000000000000000000000000000",
            "cpu=amd:17:71:0000000000000000000000000000000: want");
    /* No extended model to hold the high nibble. */
    refused("cpu=amd:6:10:0", "cpu=amd:6:10:0: model 10 needs a family");
    refused("cpu=amd:E:FF:0", "cpu=amd:E:FF:0: model FF needs a family");
    refused("cpu=intel:5:10:0", "cpu=intel:5:10:0: model 10 needs a family");
    refused("cpu=intel:7:10:0", "cpu=intel:7:10:0: model 10 needs a family");
    refused("cpu=amd:17:71:0,cpu=amd:17:71:0", "\"cpu\" given twice");
    /* A refused spec keeps the CPU it found. */
    accepted("cpu=amd:17:71:0");
    refused("cpu=intel:6:8F:8,microcode=x", "microcode=x");
    assert_string_equal(cpuid_says(), "AuthenticAMD 00870f10");
}

#define MICROCODE "/sys/devices/system/cpu/cpu0/microcode/version"

/* The microcode file's whole content, or NULL where it cannot be read. */
static const char *microcode_file(void)
{
    static char text[64];
    ssize_t n = rdrand_hw_read_file(MICROCODE, text, sizeof(text) - 1, 0);

    if (n < 0) {
        assert_int_not_equal(rdrand_hw_path_exists(MICROCODE), 1);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

/* microcode= writes the kernel's file; without it there is none. */
static void test_microcode(void **state)
{
    (void)state;
    accepted("");
    assert_null(microcode_file());
    assert_int_equal(rdrand_hw_path_exists(MICROCODE), 0);
    accepted("microcode=a201016");
    assert_string_equal(microcode_file(), "0xa201016\n");
    assert_int_equal(rdrand_hw_path_exists(MICROCODE), 1);
    accepted("microcode=0A201016,cpu=amd:19:21:0");
    assert_string_equal(microcode_file(), "0xa201016\n");
    accepted("microcode=FFFFFFFF");
    assert_string_equal(microcode_file(), "0xffffffff\n");
    accepted("microcode=0");
    assert_string_equal(microcode_file(), "0x0\n");
    /* A container that hides /sys hides it too; a chroot has no /sys. */
    accepted("microcode=a201016,coco=masked");
    assert_null(microcode_file());
    assert_int_equal(rdrand_hw_path_exists(MICROCODE), -1);
    accepted("microcode=a201016,coco=unmounted");
    assert_null(microcode_file());

    refused("microcode=", "microcode=: want 1 to 8 hex digits");
    refused("microcode=0xa201016", "microcode=0xa201016: want 1 to 8 hex");
    refused("microcode=123456789", "microcode=123456789: want 1 to 8 hex");
    refused("microcode=-1", "microcode=-1: want");
    refused("microcode=+1", "microcode=+1: want");
    refused("microcode=a20101g", "microcode=a20101g: want");
    refused("microcode=a201016 ", "microcode=a201016 : want");
    refused("microcode=1,microcode=2", "\"microcode\" given twice");
}

/*
 * The OS's getrandom (os-*=): known bytes, the k-th read failing with
 * the errno asked for, a short read by one byte; reads counted from 1.
 */
static void test_os(void **state)
{
    unsigned char buf[64];
    uint64_t zero = 0;

    (void)state;
    accepted("os-value=a5,os-fail-at=2,os-short-at=3,os-errno=ENOSYS");
    assert_int_equal(rdrand_hw_getrandom(buf, sizeof(buf)), 64);
    for (size_t i = 0; i < sizeof(buf); i++)
        assert_int_equal(buf[i], 0xa5);
    errno = 0;
    assert_int_equal(rdrand_hw_getrandom(buf, sizeof(buf)), -1);
    assert_int_equal(errno, ENOSYS);
    assert_int_equal(rdrand_hw_getrandom(buf, sizeof(buf)), 63);
    assert_int_equal(rdrand_hw_getrandom(buf, sizeof(buf)), 64);
    assert_int_equal(rdrand_sim_os_reads(), 4);
    accepted("os-fail-from=2");
    assert_int_equal(rdrand_hw_getrandom(buf, sizeof(buf)), 64);
    assert_int_equal(rdrand_sim_os_reads(), 1);
    for (int i = 0; i < 3; i++) {
        errno = 0;
        assert_int_equal(rdrand_hw_getrandom(buf, sizeof(buf)), -1);
        assert_int_equal(errno, EAGAIN); /* the default */
    }
    /* Without os-value, the real getrandom: not all zero, not repeated. */
    accepted("");
    memset(buf, 0, sizeof(buf));
    assert_int_equal(rdrand_hw_getrandom(buf, 32), 32);
    assert_int_equal(rdrand_hw_getrandom(buf + 32, 32), 32);
    assert_memory_not_equal(buf, buf + 32, 32);
    assert_memory_not_equal(buf, &zero, sizeof(zero));

    accepted("os-value=count");
    assert_int_equal(rdrand_hw_getrandom(buf, 3), 3);
    assert_int_equal(rdrand_hw_getrandom(buf + 3, 2), 2);
    for (int i = 0; i < 5; i++)
        assert_int_equal(buf[i], i);
    refused("os-value=", "os-value=: want 1 or 2 hex digits");
    refused("os-value=counts", "os-value=counts: want");
    refused("os-value=100", "os-value=100: want 1 or 2 hex digits");
    refused("os-value=0x1", "os-value=0x1: want");
    refused("os-fail-at=0", "os-fail-at=0: must be nonzero");
    refused("os-short-at=-1", "\"os-short-at=-1\" is not understood");
    refused("os-errno=EIO", "os-errno=EIO: want EAGAIN, ENOSYS, EPERM");
    refused("os-errno=eagain", "os-errno=eagain: want");
    refused("os-fail-at=1,os-fail-at=2", "\"os-fail-at\" given twice");
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
        cmocka_unit_test(test_value),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_fail_while),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_items),
        cmocka_unit_test(test_aesni),
        cmocka_unit_test(test_cpu),
        cmocka_unit_test(test_microcode),
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_os),
        cmocka_unit_test(test_refusal_keeps_cpu),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
