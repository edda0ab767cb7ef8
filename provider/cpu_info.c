/* SPDX-License-Identifier: Apache-2.0 */
#include "cpu_info.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hw.h"

/* AMD's rule, which Hygon's Zen-derived CPUs follow. */
static int cpu_amd_rules(const char *vendor)
{
    return strcmp(vendor, "AuthenticAMD") == 0
           || strcmp(vendor, "HygonGenuine") == 0;
}

void rdrand_cpu_decode_signature(const char *vendor, uint32_t eax,
                                 unsigned int *family, unsigned int *model,
                                 unsigned int *stepping)
{
    unsigned int base_family = eax >> 8 & 0xF;

    *family = base_family;
    if (base_family == 0xF)
        *family += eax >> 20 & 0xFF;
    *model = eax >> 4 & 0xF;
    if (base_family == 0xF || (base_family == 6 && !cpu_amd_rules(vendor)))
        *model |= (eax >> 16 & 0xF) << 4;
    *stepping = eax & 0xF;
}

static int cpu_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int rdrand_cpu_parse_microcode(const char *text, size_t len, uint32_t *rev)
{
    uint32_t v = 0;

    if (len > 0 && text[len - 1] == '\n')
        len--;
    /* "0x" and 1 to 8 digits: a 32-bit revision, as the kernel prints it. */
    if (len < 3 || len > 10 || text[0] != '0' || text[1] != 'x')
        return 0;
    for (size_t i = 2; i < len; i++) {
        int d = cpu_hex_digit(text[i]);

        if (d < 0)
            return 0;
        v = v << 4 | (uint32_t)d;
    }
    *rev = v;
    return 1;
}

static void cpu_gather_microcode(struct rdrand_cpu_info *out)
{
    char text[32];
    ssize_t n =
        rdrand_hw_read_file(RDRAND_CPU_MICROCODE_PATH, text, sizeof(text), 0);

    /* The kernel's format is 12 bytes at most: more is refused whole. */
    if (n <= 0 || !rdrand_cpu_parse_microcode(text, (size_t)n, &out->microcode))
        return;
    out->have_microcode = 1;
    snprintf(out->microcode_text, sizeof(out->microcode_text), "0x%" PRIx32,
             out->microcode);
}

void rdrand_cpu_info_gather(struct rdrand_cpu_info *out)
{
    struct rdrand_cpuid leaf0, leaf1;

    memset(out, 0, sizeof(*out));
    if (rdrand_hw_cpuid(0, 0, &leaf0)) {
        memcpy(out->vendor, &leaf0.ebx, 4);
        memcpy(out->vendor + 4, &leaf0.edx, 4);
        memcpy(out->vendor + 8, &leaf0.ecx, 4);
        /* Leaf 1 answers where leaf 0 did (hw.h: CPUID, or none). */
        if (leaf0.eax >= 1) {
            rdrand_hw_cpuid(1, 0, &leaf1);
            out->have_signature = 1;
            rdrand_cpu_decode_signature(out->vendor, leaf1.eax, &out->family,
                                        &out->model, &out->stepping);
        }
    }
    cpu_gather_microcode(out);
}
