/* SPDX-License-Identifier: Apache-2.0 */
/*
 * provider/cpu_info.c: family, model and stepping decoded by each
 * vendor's rules from real CPUs' signatures, the kernel's microcode file
 * taken only in the kernel's own format, and both read through the hw
 * seam from the simulated CPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpu_info.h"
#include "fake_core.h"

#define AMD "AuthenticAMD"
#define INTEL "GenuineIntel"

/*
 * CPUID leaf 1 EAX as real CPUs report it (/proc/cpuinfo, the vendors'
 * revision guides), and synthetic ones where only one rule applies.
 */
static void test_decode(void **state)
{
    static const struct {
        const char *vendor;
        uint32_t eax;
        unsigned int family, model, stepping;
    } cpus[] = {
        {AMD, 0x00A10F11, 0x19, 0x11, 1},   /* EPYC 9004, Zen 4 */
        {AMD, 0x00B00F21, 0x1A, 0x02, 1},   /* EPYC 9005, Zen 5 */
        {AMD, 0x00A20F10, 0x19, 0x21, 0},   /* Ryzen 5000, Zen 3 */
        {AMD, 0x00870F10, 0x17, 0x71, 0},   /* Ryzen 3000, Zen 2 */
        {AMD, 0x00800F12, 0x17, 0x01, 2},   /* EPYC 7001, Zen 1 */
        {AMD, 0x00600F20, 0x15, 0x02, 0},   /* Piledriver */
        {AMD, 0x00730F01, 0x16, 0x30, 1},   /* Puma */
        {AMD, 0x00000F4A, 0x0F, 0x04, 10},  /* K8: extended family 0 */
        {AMD, 0x00100F22, 0x10, 0x02, 2},   /* K10 */
        {AMD, 0x0FFF0FFF, 0x10E, 0xFF, 15}, /* every field at its top */
        /* AMD takes the extended model from family 0Fh on only. */
        {AMD, 0x00010662, 0x06, 0x06, 2},
        {"HygonGenuine", 0x00010662, 0x06, 0x06, 2},
        {"HygonGenuine", 0x00900F02, 0x18, 0x00, 2}, /* Dhyana */
        {INTEL, 0x000806F8, 0x06, 0x8F, 8},          /* Sapphire Rapids */
        {INTEL, 0x000306A9, 0x06, 0x3A, 9},          /* Ivy Bridge */
        {INTEL, 0x000A0671, 0x06, 0xA7, 1},          /* Rocket Lake */
        {INTEL, 0x00000F41, 0x0F, 0x04, 1},          /* Prescott */
        {INTEL, 0x00000543, 0x05, 0x04, 3},          /* Pentium */
        /* Intel takes the extended model in families 6 and 0Fh only. */
        {INTEL, 0x00010662, 0x06, 0x16, 2},
        {INTEL, 0x00010543, 0x05, 0x04, 3},
        {INTEL, 0x00010743, 0x07, 0x04, 3},
        {INTEL, 0x00110F43, 0x10, 0x14, 3},
        /* Reserved and type bits change nothing. */
        {INTEL, 0xF000F6F8 | 0x80000, 0x06, 0x8F, 8},
        {AMD, 0xF000F000 | 0x00A10F11, 0x19, 0x11, 1},
        /* Another vendor: Intel's rules. */
        {"CentaurHauls", 0x000106F2, 0x06, 0x1F, 2},
        {"", 0x00010662, 0x06, 0x16, 2},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
        unsigned int family = ~0u, model = ~0u, stepping = ~0u;

        rdrand_cpu_decode_signature(cpus[i].vendor, cpus[i].eax, &family,
                                    &model, &stepping);
        if (family != cpus[i].family || model != cpus[i].model
            || stepping != cpus[i].stepping)
            fail_msg("%s %08x: family %x model %x stepping %u, want %x %x %u",
                     cpus[i].vendor, cpus[i].eax, family, model, stepping,
                     cpus[i].family, cpus[i].model, cpus[i].stepping);
    }
}

/* The kernel's "0x%x\n" and nothing else. */
static void test_parse_microcode(void **state)
{
    static const struct {
        const char *text;
        size_t len; /* 0: strlen */
        int ok;
        uint32_t rev;
    } files[] = {
        {"0xa201016\n", 0, 1, 0xa201016},
        {"0xa201016", 0, 1, 0xa201016}, /* the newline is optional */
        {"0x0\n", 0, 1, 0},
        {"0x1\n", 0, 1, 1},
        {"0xffffffff\n", 0, 1, 0xffffffff},
        {"0xFFFFFFFF\n", 0, 1, 0xffffffff},
        {"0x0b00215a\n", 0, 1, 0x0b00215a},
        {"", 0, 0, 0},
        {"\n", 0, 0, 0},
        {"0x\n", 0, 0, 0},
        {"0x", 0, 0, 0},
        {"0\n", 0, 0, 0},
        {"a201016\n", 0, 0, 0},
        {"0Xa201016\n", 0, 0, 0},
        {"00xa201016\n", 0, 0, 0},
        {" 0xa201016\n", 0, 0, 0},
        {"0x a201016\n", 0, 0, 0},
        {"0xa201016 \n", 0, 0, 0},
        {"0xa201016\n\n", 0, 0, 0},
        {"0xa201016\r\n", 0, 0, 0},
        {"0xa201016\nx", 0, 0, 0},
        {"0x100000000\n", 0, 0, 0}, /* 33 bits */
        {"0x123456789\n", 0, 0, 0},
        {"0x-1\n", 0, 0, 0},
        {"-0x1\n", 0, 0, 0},
        {"+0x1\n", 0, 0, 0},
        {"0xg\n", 0, 0, 0},
        {"0xa20101g\n", 0, 0, 0},
        {"0x12\0\n", 6, 0, 0}, /* a NUL inside */
        {"0x1\0", 4, 0, 0},
        {"microcode\t: 0xa201016\n", 0, 0, 0}, /* /proc/cpuinfo's line */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        size_t len = files[i].len ? files[i].len : strlen(files[i].text);
        uint32_t rev = 0x5a5a5a5a;
        int ok = rdrand_cpu_parse_microcode(files[i].text, len, &rev);

        if (ok != files[i].ok || (ok && rev != files[i].rev))
            fail_msg("file %zu \"%s\": %d 0x%x, want %d 0x%x", i, files[i].text,
                     ok, rev, files[i].ok, files[i].rev);
        if (!ok && rev != 0x5a5a5a5a)
            fail_msg("file %zu: refused, yet the revision was written", i);
    }
}

/* Through the seam: what the simulated CPU and its files say. */
static void test_gather(void **state)
{
    static const struct {
        const char *spec, *vendor;
        unsigned int family, model, stepping;
        const char *microcode; /* "": none */
    } cpus[] = {
        {"", AMD, 0x19, 0x11, 1, ""},
        {"cpu=amd:17:71:0,microcode=8701013", AMD, 0x17, 0x71, 0, "0x8701013"},
        {"cpu=amd:15:2:0", AMD, 0x15, 0x02, 0, ""},
        {"cpu=intel:6:8F:8,microcode=2b000603", INTEL, 0x06, 0x8F, 8,
         "0x2b000603"},
        {"coco=tdx", INTEL, 0x06, 0x8F, 8, ""},
        {"microcode=0", AMD, 0x19, 0x11, 1, "0x0"},
        {"microcode=FFFFFFFF", AMD, 0x19, 0x11, 1, "0xffffffff"},
        {"microcode=0a201016", AMD, 0x19, 0x11, 1, "0xa201016"},
        /* /sys hidden by a container, or absent in a chroot. */
        {"microcode=a201016,coco=masked", AMD, 0x19, 0x11, 1, ""},
        {"microcode=a201016,coco=unmounted", AMD, 0x19, 0x11, 1, ""},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
        struct rdrand_cpu_info cpu;

        sim_or_fail(cpus[i].spec);
        memset(&cpu, 0xA5, sizeof(cpu));
        rdrand_cpu_info_gather(&cpu);
        assert_string_equal(cpu.vendor, cpus[i].vendor);
        assert_int_equal(cpu.have_signature, 1);
        assert_int_equal(cpu.family, cpus[i].family);
        assert_int_equal(cpu.model, cpus[i].model);
        assert_int_equal(cpu.stepping, cpus[i].stepping);
        assert_string_equal(cpu.microcode_text, cpus[i].microcode);
        assert_int_equal(cpu.have_microcode, cpus[i].microcode[0] != '\0');
        if (cpu.have_microcode)
            assert_int_equal(cpu.microcode,
                             strtoul(cpus[i].microcode + 2, NULL, 16));
        else
            assert_int_equal(cpu.microcode, 0);
    }
}

/*
 * No CPUID (another architecture's build), or a leaf 0 that announces no
 * leaf 1: no vendor or no signature, all zero.  A microcode file the
 * kernel never writes is refused whole.
 */
static void test_gather_edges(void **state)
{
    static const struct {
        const char *spec, *vendor;
        int have_signature, have_microcode;
    } cpus[] = {
        {"cpuid=absent", "", 0, 0},
        {"cpuid=absent,microcode=8701013", "", 0, 1},
        {"cpuid=leaf0", AMD, 0, 0},
        {"cpuid=leaf0,cpu=intel:6:8F:8", INTEL, 0, 0},
        {"microcode-text=0x123456789", AMD, 1, 0}, /* 33 bits */
        {"microcode-text=a201016", AMD, 1, 0},     /* no 0x */
        {"microcode-text=0x1", AMD, 1, 1},         /* no newline: taken */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
        struct rdrand_cpu_info cpu;

        sim_or_fail(cpus[i].spec);
        memset(&cpu, 0xA5, sizeof(cpu));
        rdrand_cpu_info_gather(&cpu);
        assert_string_equal(cpu.vendor, cpus[i].vendor);
        assert_int_equal(cpu.have_signature, cpus[i].have_signature);
        if (!cpu.have_signature) {
            assert_int_equal(cpu.family, 0);
            assert_int_equal(cpu.model, 0);
            assert_int_equal(cpu.stepping, 0);
        }
        assert_int_equal(cpu.have_microcode, cpus[i].have_microcode);
        if (!cpu.have_microcode) {
            assert_string_equal(cpu.microcode_text, "");
            assert_int_equal(cpu.microcode, 0);
        }
    }
    sim_or_fail("");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_parse_microcode),
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_gather_edges),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
