/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer: the simulated CPU's grammar (tests/sim/sim.h).  First byte
 * even: the rest is an RDRAND_SIM spec (without words=, which could name
 * any file); an accepted one runs the CPU it names (aesni=).  Odd: the
 * rest is a words file, and the parser's verdict is compared with an
 * independent reading of the grammar: the two must agree on every input,
 * and an accepted file replays exactly its words.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw.h"
#include "sim.h"

#define MAX_WORDS 4096

static char path[] = "/tmp/rdrand-fuzz-words-XXXXXX";
static char words_spec[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    int fd = mkstemp(path);

    (void)argc, (void)argv;
    if (fd < 0)
        abort();
    close(fd);
    snprintf(words_spec, sizeof(words_spec), "words=%s", path);
    return 0;
}

static int hexdigit(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
           || (c >= 'A' && c <= 'F');
}

/*
 * The grammar, read independently: lines end at '\n' (the last may not),
 * no NUL; empty and '#' lines skipped; every
 * other line exactly 16 hex digits, optionally then " fail".
 */
static size_t expected_words(const uint8_t *d, size_t n, uint64_t *value,
                             int *carry)
{
    size_t count = 0, start = 0;

    while (start < n) {
        size_t end = start, len;

        while (end < n && d[end] != '\n')
            end++;
        len = end - start;
        if (memchr(d + start, '\0', len) != NULL)
            return 0;
        if (len != 0 && d[start] != '#') {
            if (len != 16
                && !(len == 21 && memcmp(d + start + 16, " fail", 5) == 0))
                return 0;
            for (size_t i = 0; i < 16; i++)
                if (!hexdigit(d[start + i]))
                    return 0;
            if (count < MAX_WORDS) {
                char hex[17];

                memcpy(hex, d + start, 16);
                hex[16] = '\0';
                value[count] = strtoull(hex, NULL, 16);
                carry[count] = len == 16;
            }
            count++;
        }
        start = end + 1;
    }
    return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint64_t value[MAX_WORDS];
    static int carry[MAX_WORDS];
    char err[256];

    if (size < 1)
        return 0;
    if ((data[0] & 1) == 0) {
        char *spec = malloc(size);

        if (spec == NULL)
            abort();
        memcpy(spec, data + 1, size - 1);
        spec[size - 1] = '\0';
        /*
         * From a known CPU: an accepted spec starts a fresh count of
         * executions; a refused one says why (a NUL-terminated message;
         * it quotes the spec, newlines included) and leaves the known
         * CPU in place.
         */
        if (!rdrand_sim_configure("value=2a", err, sizeof(err)))
            abort();
        if (strstr(spec, "words") == NULL) {
            if (rdrand_sim_configure(spec, err, sizeof(err))) {
                struct rdrand_cpuid leaf1;

                if (rdrand_sim_executions() != 0)
                    abort();
                /* AES-NI as aesni= said, present unless absent. */
                if (!rdrand_hw_cpuid(1, 0, &leaf1)
                    || (leaf1.ecx >> 25 & 1)
                           != (strstr(spec, "aesni=absent") == NULL))
                    abort();
            } else {
                uint64_t w = 0;

                if (err[0] == '\0' || memchr(err, '\0', sizeof(err)) == NULL)
                    abort(); /* a refusal must say why */
                if (rdrand_hw_rdrand64(&w) != 1 || w != 0x2a)
                    abort(); /* a refusal must change nothing */
            }
        }
        free(spec);
    } else {
        FILE *f = fopen(path, "w");
        size_t expect = expected_words(data + 1, size - 1, value, carry);
        int accepted;

        if (f == NULL || fwrite(data + 1, 1, size - 1, f) != size - 1
            || fclose(f) != 0)
            abort();
        accepted = rdrand_sim_configure(words_spec, err, sizeof(err));
        if (accepted != (expect != 0))
            abort(); /* the parser and the grammar disagree */
        for (size_t i = 0; accepted && i < expect && i < MAX_WORDS; i++) {
            uint64_t w;
            int cf = rdrand_hw_rdrand64(&w);

            if (cf != carry[i] || w != (cf ? value[i] : 0))
                abort(); /* replayed something other than the file */
        }
    }
    return 0;
}
