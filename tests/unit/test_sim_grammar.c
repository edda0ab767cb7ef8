/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated CPU's grammar (tests/sim/sim.h) is exact: every form it
 * accepts runs the CPU it names, and every other form is refused with a
 * message naming what was wrong.  A test that silently ran on another
 * CPU than it asked for would prove nothing.
 */
#include <errno.h>
#include <pthread.h>
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
#include "sim_oracle.h"

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
    accepted("cpuid=absent");
    accepted("cpuid=leaf0,rdrand=present");
    accepted("cpuid=present");
    refused("cpuid=absent,cpuid=present", "\"cpuid\" given twice");
    refused("cpuid=leaf1", "not understood");
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

    /* The file as it is, for one no kernel writes. */
    accepted("microcode-text=0x123456789");
    assert_string_equal(microcode_file(), "0x123456789");
    assert_int_equal(rdrand_hw_path_exists(MICROCODE), 1);
    accepted("microcode-text=0123456789012345678901234567890"); /* 31 */
    assert_string_equal(microcode_file(), "0123456789012345678901234567890");
    refused("microcode-text=", "microcode-text=: want 1 to 31 characters");
    refused("microcode-text=01234567890123456789012345678901",
            "want 1 to 31 characters");
    refused("microcode=1,microcode-text=x", "one of them");
    refused("microcode-text=x,microcode=1", "one of them");
}

/* cpuid=: no CPUID at all, or a leaf 0 that announces no leaf 1. */
static void test_cpuid(void **state)
{
    struct rdrand_cpuid r;

    (void)state;
    accepted("cpuid=absent");
    memset(&r, 0xA5, sizeof(r));
    assert_int_equal(rdrand_hw_cpuid(0, 0, &r), 0);
    assert_int_equal(r.eax | r.ebx | r.ecx | r.edx, 0);
    assert_int_equal(rdrand_hw_cpuid(1, 0, &r), 0);
    assert_int_equal(rdrand_hw_cpuid(0x80000000, 0, &r), 0);
    accepted("cpuid=leaf0");
    assert_int_equal(rdrand_hw_cpuid(0, 0, &r), 1);
    assert_int_equal(r.eax, 0);
    assert_memory_equal(&r.ebx, "Auth", 4);
    accepted("cpuid=leaf0,coco=tdx");
    assert_int_equal(rdrand_hw_cpuid(0, 0, &r), 1);
    assert_int_equal(r.eax, 0);
    accepted("cpuid=present");
    assert_int_equal(rdrand_hw_cpuid(0, 0, &r), 1);
    assert_true(r.eax >= 1);
    refused("cpuid=none", "not understood");
    refused("cpuid=absent,cpuid=present", "\"cpuid\" given twice");
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

/* n words drawn here, each with CF=1, into w (may be NULL: compared). */
static void draw(uint64_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int carry;
        uint64_t x = next_word(&carry);

        if (!carry)
            fail_msg("word %zu: CF=0", i + 1);
        if (w != NULL)
            w[i] = x;
    }
}

/* Executions first..first+n-1 gave w, as g says they must. */
static void same_as(const struct rdrand_test_gen *g, const char *spec,
                    const uint64_t *w, uint64_t first, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (w[i] != rdrand_test_gen_word(g, first + i))
            fail_msg("RDRAND_SIM \"%s\": execution %llu gave %016llx, not "
                     "%016llx",
                     spec, (unsigned long long)(first + i),
                     (unsigned long long)w[i],
                     (unsigned long long)rdrand_test_gen_word(g, first + i));
}

/* Accept spec, draw n words and compare them with what g says. */
static void stream_is(const char *spec, const struct rdrand_test_gen *g,
                      size_t n)
{
    uint64_t *w = calloc(n, sizeof(*w));

    assert_non_null(w);
    accepted(spec);
    draw(w, n);
    same_as(g, spec, w, 1, n);
    assert_int_equal(rdrand_sim_executions(), n);
    free(w);
}

/* Each new item, accepted and refused; every refusal says why. */
static void test_generated_grammar(void **state)
{
    char spec[300];

    (void)state;
    accepted("cycle=1");
    accepted("cycle=4294967296");
    accepted("cycle=0000000064");
    accepted("every=1:4");
    accepted("every=64:FFFFFFFFFFFFFFFF");
    accepted("every=18446744073709551615:0");
    accepted("clean=1,value=4");
    accepted("clean=18446744073709551615,cycle=2");
    accepted("stream=shared,clean=3,every=2:a,fail-at=5");
    snprintf(spec, sizeof(spec), "clean=5,words=%s",
             words_file("ok", "0123456789abcdef\n"));
    accepted(spec);

    refused("cycle=0", "cycle=0: want the period, decimal digits, 1 to "
                       "4294967296 (2^32)");
    refused("cycle=4294967297", "cycle=4294967297: want the period");
    refused("cycle=", "cycle=: want the period");
    refused("cycle=0x10", "cycle=0x10: want the period");
    refused("cycle=-1", "cycle=-1: want the period");
    refused("cycle=+1", "cycle=+1: want the period");
    refused("cycle= 1", "cycle= 1: want the period");
    refused("cycle=1 ", "cycle=1 : want the period");
    refused("cycle=12345678901", "cycle=12345678901: want the period");
    refused("cycle=2^24", "cycle=2^24: want the period");

    refused("every=", "every=: want N:HEX, every N-th word (N decimal "
                      "digits, from 1) the word HEX (1 to 16 hex digits, "
                      "no 0x)");
    refused("every=64", "every=64: want N:HEX");
    refused("every=0:4", "every=0:4: want N:HEX");
    refused("every=64:", "every=64:: want N:HEX");
    refused("every=:4", "every=:4: want N:HEX");
    refused("every=64:0x4", "every=64:0x4: want N:HEX");
    refused("every=64:12345678123456781", "every=64:12345678123456781: want");
    refused("every=64:4:5", "every=64:4:5: want N:HEX");
    refused("every=+64:4", "every=+64:4: want N:HEX");
    refused("every=64 :4", "every=64 :4: want N:HEX");
    refused("every=0x40:4", "every=0x40:4: want N:HEX");
    refused("every=99999999999999999999:4", /* > 2^64 */
            "every=99999999999999999999:4: want N:HEX");
    refused("every=123456789012345678901234:4", "every=1234567890123456789012"
                                                "34:4: want N:HEX");

    refused("clean=0", "clean=0: must be nonzero (without clean= the defect "
                       "starts at the first word)");
    refused("clean=", "clean=: want the number of good words before the "
                      "defect, decimal digits, from 1");
    refused("clean=1e6", "clean=1e6: want the number of good words");
    refused("clean=-1", "clean=-1: want the number of good words");
    refused("clean=99999999999999999999", "clean=99999999999999999999: want");
    /* clean= alone would be the default stream under another name. */
    refused("clean=100", "clean=100: the good words before a defect, and no "
                         "defect: add value=, words=, cycle= or every=");
    refused("stream=shared,clean=100", "clean=100: the good words before a "
                                       "defect, and no defect");

    /* One item gives the words. */
    refused("cycle=5,value=4", "value= and cycle= both give the words: use "
                               "one");
    refused("value=4,cycle=5", "value= and cycle= both give the words");
    refused("every=2:4,cycle=5", "cycle= and every= both give the words");
    refused("value=4,every=1:4", "value= and every= both give the words");
    refused("clean=9,every=1:4,value=4,cycle=3",
            "value= and cycle= both give the words");
    snprintf(spec, sizeof(spec), "cycle=5,words=%s",
             words_file("ok", "0123456789abcdef\n"));
    refused(spec, "words= and cycle= both give the words");
    snprintf(spec, sizeof(spec), "words=%s,every=3:4",
             words_file("ok", "0123456789abcdef\n"));
    refused(spec, "words= and every= both give the words");
    refused("cycle=5,cycle=6", "\"cycle\" given twice");
    refused("every=5:1,every=6:1", "\"every\" given twice");
    refused("clean=5,cycle=3,clean=6", "\"clean\" given twice");
    refused("Cycle=5", "\"Cycle=5\" is not understood");

    /* A refused spec keeps the CPU it found. */
    accepted("value=42");
    refused("clean=3,cycle=0", "cycle=0: want");
    refused("clean=3", "no defect");
    draw(NULL, 5);
    {
        int carry;

        assert_int_equal(next_word(&carry), 0x42);
    }
}

/*
 * The streams are what sim.h says, word for word: the good words are the
 * default stream's; a cycle repeats its P words, new ones, from the word
 * after the clean ones; every N-th word is the constant, the others good.
 */
static void test_generated_words(void **state)
{
    enum { N = 5000 };
    static uint64_t plain[N], w[N];
    char spec[300];
    int carry;

    (void)state;
    /* The default stream is the good words (whose reference is ours). */
    accepted("");
    draw(plain, N);
    for (size_t i = 0; i < N; i++)
        assert_true(plain[i] == rdrand_test_splitmix_at(i + 1));

    stream_is("cycle=1", &(struct rdrand_test_gen){.cycle = 1}, 100);
    stream_is("cycle=7", &(struct rdrand_test_gen){.cycle = 7}, N);
    stream_is("clean=100,cycle=7",
              &(struct rdrand_test_gen){.clean = 100, .cycle = 7}, N);
    stream_is("clean=1000,cycle=1000",
              &(struct rdrand_test_gen){.clean = 1000, .cycle = 1000}, N);
    stream_is("every=1:4", &(struct rdrand_test_gen){.every = 1, .hex = 4},
              100);
    stream_is("every=64:4", &(struct rdrand_test_gen){.every = 64, .hex = 4},
              N);
    stream_is("clean=100,every=1000:243F6A8885A308D3",
              &(struct rdrand_test_gen){
                  .clean = 100, .every = 1000, .hex = 0x243f6a8885a308d3ULL},
              N);
    stream_is("clean=100,value=4",
              &(struct rdrand_test_gen){.clean = 100, .value = 1, .hex = 4},
              1000);

    /* The same stream, looked at directly. */
    accepted("clean=100,cycle=7");
    draw(w, 200);
    assert_memory_equal(w, plain, 100 * sizeof(w[0])); /* the clean words */
    for (size_t i = 100; i < 107; i++) {               /* the cycle's: new */
        for (size_t j = 0; j < i; j++)
            assert_true(w[i] != w[j]);
    }
    for (size_t i = 107; i < 200; i++) /* and repeated with period 7 */
        assert_true(w[i] == w[i - 7]);
    accepted("clean=50,every=64:4");
    draw(w, 3000);
    for (size_t i = 0; i < 3000; i++) {
        int constant = i >= 50 && (i + 1 - 50) % 64 == 0;

        if (constant ? w[i] != 4 : w[i] != plain[i])
            fail_msg("every=64:4, word %zu: %016llx", i + 1,
                     (unsigned long long)w[i]);
    }

    /* clean= before words=: the file from its first line. */
    snprintf(spec, sizeof(spec), "clean=3,words=%s",
             words_file("ok", "0123456789abcdef\n"
                              "fedcba9876543210 fail\n"));
    accepted(spec);
    draw(w, 3);
    assert_memory_equal(w, plain, 3 * sizeof(w[0]));
    assert_int_equal(next_word(&carry), 0x0123456789abcdefULL);
    assert_int_equal(carry, 1);
    assert_int_equal(next_word(&carry), 0);
    assert_int_equal(carry, 0);
    assert_int_equal(next_word(&carry), 0x0123456789abcdefULL);

    /* A failing execution's word is never given: the stream keeps its
     * count. */
    accepted("clean=2,cycle=3,fail-at=4");
    draw(w, 3);
    (void)next_word(&carry);
    assert_int_equal(carry, 0);
    draw(w + 3, 3);
    same_as(&(struct rdrand_test_gen){.clean = 2, .cycle = 3}, "fail-at=4", w,
            1, 3);
    same_as(&(struct rdrand_test_gen){.clean = 2, .cycle = 3}, "fail-at=4",
            w + 3, 5, 3);
}

/*
 * The long cycles the defect matrix uses, 2^20 and 2^24 words after
 * 20,000 clean ones: every word as sim.h says, the P words of the first
 * period all distinct (2^20: sorted), and the period P, not a divisor of
 * it: the word P/2 later differs, the word P later is the same.
 */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static void test_generated_long_cycles(void **state)
{
    static const uint64_t periods[] = {(uint64_t)1 << 20, (uint64_t)1 << 24};
    const uint64_t clean = 20000;

    (void)state;
    for (size_t p = 0; p < sizeof(periods) / sizeof(periods[0]); p++) {
        const uint64_t period = periods[p];
        const struct rdrand_test_gen g = {.clean = clean, .cycle = period};
        uint64_t *first = NULL, start = 0, half = 0, again = 0;
        char spec[64];

        snprintf(spec, sizeof(spec), "clean=%llu,cycle=%llu",
                 (unsigned long long)clean, (unsigned long long)period);
        accepted(spec);
        if (period <= (uint64_t)1 << 20)
            assert_non_null(first = malloc(period * sizeof(*first)));
        for (uint64_t n = 1; n <= clean + period + 1000; n++) {
            uint64_t x;
            int carry = rdrand_hw_rdrand64(&x);

            if (!carry || x != rdrand_test_gen_word(&g, n))
                fail_msg("%s: execution %llu gave %016llx", spec,
                         (unsigned long long)n, (unsigned long long)x);
            if (n == clean + 1)
                start = x;
            else if (n == clean + 1 + period / 2)
                half = x;
            else if (n == clean + 1 + period)
                again = x;
            if (first != NULL && n > clean && n <= clean + period)
                first[n - clean - 1] = x;
        }
        assert_true(start != half);
        assert_true(start == again);
        if (first != NULL) {
            qsort(first, period, sizeof(*first), cmp_u64);
            for (uint64_t i = 1; i < period; i++)
                assert_true(first[i] != first[i - 1]);
            free(first);
        }
    }
}

/* n words drawn in a fork()ed child, sent back to the parent. */
static void child_draws(uint64_t *w, size_t n)
{
    int fds[2], status;
    size_t got = 0;
    pid_t pid;

    assert_int_equal(pipe(fds), 0);
    assert_true((pid = fork()) >= 0);
    if (pid == 0) {
        uint64_t x;
        int ok = 1;

        close(fds[0]);
        for (size_t i = 0; ok && i < n; i++)
            ok = rdrand_hw_rdrand64(&x) == 1
                 && write(fds[1], &x, sizeof(x)) == sizeof(x);
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    while (got < n * sizeof(*w)) {
        ssize_t r = read(fds[0], (char *)w + got, n * sizeof(*w) - got);

        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(got, n * sizeof(*w));
}

/*
 * stream=shared: the parent draws 5 words, a child 40, the parent 40
 * more, a second child 40: together executions 1 to 125 of the stream,
 * in order, as one process would draw them.  stream=process: the child
 * draws the parent's next words again.
 */
static void test_generated_fork(void **state)
{
    static const struct {
        const char *spec;
        struct rdrand_test_gen g;
    } streams[] = {
        {"stream=shared,clean=10,cycle=7", {.clean = 10, .cycle = 7}},
        {"stream=shared,clean=10,every=3:4",
         {.clean = 10, .every = 3, .hex = 4}},
        {"stream=shared,every=64:243F6A8885A308D3",
         {.every = 64, .hex = 0x243f6a8885a308d3ULL}},
        {"stream=shared,clean=20,value=4", {.clean = 20, .value = 1, .hex = 4}},
    };
    uint64_t w[125], child[40], parent[40];

    (void)state;
    for (size_t s = 0; s < sizeof(streams) / sizeof(streams[0]); s++) {
        accepted(streams[s].spec);
        draw(w, 5);
        child_draws(w + 5, 40);
        draw(w + 45, 40);
        child_draws(w + 85, 40);
        same_as(&streams[s].g, streams[s].spec, w, 1, 125);
        assert_int_equal(rdrand_sim_executions(), 125);
    }
    accepted("stream=process,clean=10,cycle=7");
    draw(w, 5);
    child_draws(child, 40);
    draw(parent, 40);
    assert_memory_equal(child, parent, sizeof(child));
    same_as(&(struct rdrand_test_gen){.clean = 10, .cycle = 7},
            "stream=process", parent, 6, 40);
    assert_int_equal(rdrand_sim_executions(), 45);
}

/*
 * Threads draw one stream: 4 threads of 20,000 words each take
 * executions 1 to 80,000 between them, each exactly once.
 */
#define THREADS 4
#define PER_THREAD 20000

static void *thread_draws(void *arg)
{
    uint64_t *w = arg;

    for (size_t i = 0; i < PER_THREAD; i++)
        if (rdrand_hw_rdrand64(&w[i]) != 1)
            return NULL;
    return arg;
}

static void test_generated_threads(void **state)
{
    static const struct {
        const char *spec;
        struct rdrand_test_gen g;
    } streams[] = {
        {"clean=100,every=64:4", {.clean = 100, .every = 64, .hex = 4}},
        {"clean=100,cycle=1000", {.clean = 100, .cycle = 1000}},
    };
    static uint64_t got[THREADS * PER_THREAD], want[THREADS * PER_THREAD];
    pthread_t t[THREADS];

    (void)state;
    for (size_t s = 0; s < sizeof(streams) / sizeof(streams[0]); s++) {
        accepted(streams[s].spec);
        for (size_t i = 0; i < THREADS; i++)
            assert_int_equal(
                pthread_create(&t[i], NULL, thread_draws, got + i * PER_THREAD),
                0);
        for (size_t i = 0; i < THREADS; i++) {
            void *ret;

            assert_int_equal(pthread_join(t[i], &ret), 0);
            assert_non_null(ret);
        }
        assert_int_equal(rdrand_sim_executions(), THREADS * PER_THREAD);
        for (size_t i = 0; i < THREADS * PER_THREAD; i++)
            want[i] = rdrand_test_gen_word(&streams[s].g, i + 1);
        qsort(got, THREADS * PER_THREAD, sizeof(got[0]), cmp_u64);
        qsort(want, THREADS * PER_THREAD, sizeof(want[0]), cmp_u64);
        assert_memory_equal(got, want, sizeof(got));
    }
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
        cmocka_unit_test(test_cpuid),
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_os),
        cmocka_unit_test(test_refusal_keeps_cpu),
        cmocka_unit_test(test_generated_grammar),
        cmocka_unit_test(test_generated_words),
        cmocka_unit_test(test_generated_long_cycles),
        cmocka_unit_test(test_generated_fork),
        cmocka_unit_test(test_generated_threads),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
