/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer: the simulated CPU's grammar (tests/sim/sim.h).  First byte
 * even: the rest is an RDRAND_SIM spec (without words=, which could name
 * any file); an accepted one runs the CPU it names (aesni=), and a spec
 * of the items that give the words (value=, cycle=, every=, clean=) is
 * compared with an independent reading of their grammar: the verdicts
 * must agree, and an accepted one gives the words sim.h says.  Odd: the
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
#include "sim_oracle.h"

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

/* The words value=, cycle=, every= and clean= give (0: not given). */
/* 1..max digits of base 10 or 16, the value fitting 64 bits. */
static int number(const char *s, size_t len, unsigned base, size_t max,
                  uint64_t *out)
{
    *out = 0;
    if (len == 0 || len > max)
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned d;

        if (s[i] >= '0' && s[i] <= '9')
            d = (unsigned)(s[i] - '0');
        else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
            d = (unsigned)(s[i] - 'a' + 10);
        else if (base == 16 && s[i] >= 'A' && s[i] <= 'F')
            d = (unsigned)(s[i] - 'A' + 10);
        else
            return 0;
        if (*out > (UINT64_MAX - d) / base)
            return 0;
        *out = *out * base + d;
    }
    return 1;
}

/* One item of the four, key and value as given; 0: malformed. */
static int gen_item(const char *key, size_t klen, const char *v, size_t vlen,
                    struct rdrand_test_gen *g)
{
    const char *colon = memchr(v, ':', vlen);

    if (klen == 5 && memcmp(key, "value", 5) == 0)
        return g->value = number(v, vlen, 16, 16, &g->hex);
    if (klen == 5 && memcmp(key, "cycle", 5) == 0)
        return number(v, vlen, 10, 10, &g->cycle) && g->cycle >= 1
               && g->cycle <= (uint64_t)1 << 32;
    if (klen == 5 && memcmp(key, "clean", 5) == 0)
        return number(v, vlen, 10, 20, &g->clean) && g->clean != 0;
    /* every=N:HEX */
    return colon != NULL && number(v, (size_t)(colon - v), 10, 20, &g->every)
           && g->every != 0
           && number(colon + 1, vlen - (size_t)(colon - v) - 1, 16, 16,
                     &g->hex);
}

/*
 * The verdict sim.h gives a spec of these four items only: 1 accepted
 * (g filled), 0 refused, -1 the spec has another key (no verdict here).
 * Every item key=value, none empty, each key once, at most one of
 * value=, cycle=, every=, and clean= only with one of them.
 */
static int expected_gen(const char *spec, struct rdrand_test_gen *g)
{
    static const char *const keys[] = {"value", "cycle", "every", "clean"};
    int seen[4] = {0}, ok = 1, other = 0;
    const char *item = spec;

    memset(g, 0, sizeof(*g));
    if (*spec == '\0')
        return 1;
    for (;;) {
        size_t len = strcspn(item, ","), klen = strcspn(item, "=,");
        size_t k = 0;

        if (len == 0 || klen == len)
            return 0; /* an empty item, or no '=': whatever the key */
        while (
            k < 4
            && !(strlen(keys[k]) == klen && memcmp(item, keys[k], klen) == 0))
            k++;
        if (k == 4)
            other = 1;
        else if (seen[k]++)
            ok = 0;
        else
            ok = ok && gen_item(item, klen, item + klen + 1, len - klen - 1, g);
        if (item[len] == '\0')
            break;
        item += len + 1;
    }
    if (other)
        return -1;
    if (seen[0] + seen[1] + seen[2] > 1
        || (seen[3] && !seen[0] && !seen[1] && !seen[2]))
        return 0;
    return ok;
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
            struct rdrand_test_gen g;
            int expect = expected_gen(spec, &g);
            int accepted = rdrand_sim_configure(spec, err, sizeof(err));

            if (expect >= 0 && accepted != expect)
                abort(); /* the parser and the grammar disagree */
            for (uint64_t n = 1; expect == 1 && n <= 256; n++) {
                uint64_t w;

                if (rdrand_hw_rdrand64(&w) != 1
                    || w != rdrand_test_gen_word(&g, n))
                    abort(); /* not the words sim.h says */
            }
            if (expect == 1 && !rdrand_sim_configure(spec, err, sizeof(err)))
                abort(); /* again, for the checks below */
            if (accepted) {
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
