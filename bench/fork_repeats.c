/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fork_repeats: issue 31's first finding, measured with the project's own
 * simulated CPU.  A server that forks a child per request: the parent
 * loads rdrand-sim.so from a configuration and draws once (seeded, as a
 * server is at startup); each child asks RAND_bytes for N bytes (its
 * DRBGs reseed after the fork, from the provider) and sends them back.
 * The CPU is RDRAND_SIM=stream=shared,words=FILE: the words a child
 * draws are the CPU's next ones, as on real hardware, and FILE is 64
 * clean words then a cycle of P words, 600,000 words long.  Or, given
 * DEFECT, an RDRAND_SIM item that gives the words (value=4, a constant
 * every N-th word every=N:HEX, cycle=P), the simulated CPU generates
 * them after as many clean words as the parent's startup executes (its
 * load and first seed, counted in a probe child: a constant there would
 * stop the parent), so that the first child's first word is the
 * defect's first: RDRAND_SIM=stream=shared,clean=C,DEFECT.
 *
 *   fork_repeats [--raw] MODULE_DIR CONF CHILDREN BYTES PERIOD|DEFECT
 *
 * --raw: each child asks the RDRAND seed source itself (an EVP_RAND
 * context of the provider's RDRAND, BYTES bytes: the words it serves)
 * instead of RAND_bytes (whose output, a function of the seed, can still
 * differ where a seed's words repeat only in part).
 *
 * Prints how many children were served, how many children's outputs are
 * identical to an earlier child's, and how many output bytes lie in an
 * 8-byte block that an earlier child already output.  The goal (issue 31): no
 * child serves a word its parent or a sibling already served, so 0
 * repeated outputs.  Exit 0 when it ran (the figures are the result), 2
 * when it could not.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

/* Past what 1000 children of 4 KiB could draw. */
#define CYCLE_WORDS 600000

/* splitmix64: clean words the health tests pass. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int write_words(const char *path, unsigned long period)
{
    FILE *f = fopen(path, "w");
    int ok = f != NULL;

    for (uint64_t i = 0; ok && i < 64; i++)
        ok = fprintf(f, "%016llx\n", (unsigned long long)mix(i + 1)) == 17;
    /*
     * The cycle written out CYCLE_WORDS long: the simulated CPU replays a
     * words= file from its start, and the clean words must not come
     * round again (they would make the cycle 64 words longer).
     */
    for (uint64_t i = 0; ok && i < CYCLE_WORDS; i++)
        ok = fprintf(f, "%016llx\n",
                     (unsigned long long)mix((i % period + 1) << 32))
             == 17;
    return f != NULL && fclose(f) == 0 && ok;
}

/* bytes straight from the provider's RDRAND seed source: its words. */
static int raw_words(unsigned char *buf, size_t bytes)
{
    EVP_RAND *rand = EVP_RAND_fetch(NULL, "RDRAND", "provider=rdrand-sim");
    EVP_RAND_CTX *ctx = rand != NULL ? EVP_RAND_CTX_new(rand, NULL) : NULL;
    int ok = ctx != NULL && EVP_RAND_instantiate(ctx, 256, 0, NULL, 0, NULL)
             && EVP_RAND_generate(ctx, buf, bytes, 256, 0, NULL, 0);

    EVP_RAND_CTX_free(ctx);
    EVP_RAND_free(rand);
    return ok;
}

/*
 * RDRAND executions of the parent's startup (the module's load and its
 * first seed), counted by the provider in a child on the default stream,
 * whose words are those clean= gives (tests/sim/sim.h); 0 if it failed.
 */
static uint64_t startup_words(void)
{
    uint64_t words = 0;
    int fds[2], status;
    pid_t pid;

    if (pipe(fds) != 0 || (pid = fork()) < 0)
        return 0;
    if (pid == 0) {
        unsigned char buf[32];
        OSSL_PROVIDER *prov;
        OSSL_PARAM p[] = {OSSL_PARAM_uint64("rdrand-words", &words),
                          OSSL_PARAM_END};

        setenv("RDRAND_SIM", "stream=shared", 1);
        _exit(RAND_bytes(buf, sizeof(buf)) == 1
                      && (prov = OSSL_PROVIDER_load(NULL, "rdrand-sim")) != NULL
                      && OSSL_PROVIDER_get_params(prov, p)
                      && write(fds[1], &words, sizeof(words))
                             == (ssize_t)sizeof(words)
                  ? 0
                  : 1);
    }
    close(fds[1]);
    if (read(fds[0], &words, sizeof(words)) != (ssize_t)sizeof(words))
        words = 0;
    close(fds[0]);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)
        || WEXITSTATUS(status) != 0)
        words = 0;
    return words;
}

int main(int argc, char **argv)
{
    char words[] = "/tmp/fork-repeats-XXXXXX", spec[128], defect[64];
    unsigned long children, bytes, period = 0, served = 0, repeated = 0,
                                   same = 0;
    const char *item = NULL;
    unsigned char *out, first[32];

    int fd, raw = argc > 1 && strcmp(argv[1], "--raw") == 0;

    argc -= raw;
    argv += raw;
    if (argc == 6 && strchr(argv[5], '=') != NULL
        && strlen(argv[5]) < sizeof(defect))
        item = argv[5];
    if (argc != 6 || (children = strtoul(argv[3], NULL, 10)) == 0
        || (bytes = strtoul(argv[4], NULL, 10)) == 0 || bytes > 4096
        || (item == NULL && (period = strtoul(argv[5], NULL, 10)) == 0)) {
        fprintf(stderr, "usage: fork_repeats [--raw] MODULE_DIR CONF CHILDREN "
                        "BYTES PERIOD|DEFECT\n");
        return 2;
    }
    setenv("OPENSSL_MODULES", argv[1], 1);
    setenv("OPENSSL_CONF", argv[2], 1);
    if (item != NULL) {
        uint64_t clean = startup_words();

        if (clean == 0) {
            fprintf(stderr, "fork_repeats: the probe could not draw\n");
            return 2;
        }
        snprintf(spec, sizeof(spec), "stream=shared,clean=%llu,%s",
                 (unsigned long long)clean, item);
        snprintf(defect, sizeof(defect), "%s after %llu clean words", item,
                 (unsigned long long)clean);
        words[0] = '\0'; /* no file */
    } else if ((fd = mkstemp(words)) < 0 || close(fd) != 0
               || !write_words(words, period)) {
        perror(words);
        return 2;
    } else {
        snprintf(spec, sizeof(spec), "stream=shared,words=%s", words);
        snprintf(defect, sizeof(defect), "period %lu", period);
    }
    setenv("RDRAND_SIM", spec, 1);
    out = calloc(children, bytes);
    if (out == NULL || RAND_bytes(first, sizeof(first)) != 1) {
        fprintf(stderr, "fork_repeats: the parent could not draw\n");
        if (words[0] != '\0')
            unlink(words);
        return 2;
    }
    /*
     * A configuration whose module is missing is skipped by OpenSSL 3.0
     * to 3.6, and the parent is then seeded by the OS: figures measured
     * so would say nothing of the provider.
     */
    if (!OSSL_PROVIDER_available(NULL, "rdrand-sim")) {
        fprintf(stderr,
                "fork_repeats: rdrand-sim is not loaded from %s (is "
                "MODULE_DIR %s the directory of rdrand-sim.so?)\n",
                argv[2], argv[1]);
        if (words[0] != '\0')
            unlink(words);
        return 2;
    }
    for (unsigned long c = 0; c < children; c++) {
        int fds[2], status;
        pid_t pid;
        ssize_t got = 0;

        if (pipe(fds) != 0 || (pid = fork()) < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) {
            unsigned char *buf = out + c * bytes;

            close(fds[0]);
            if ((raw ? raw_words(buf, bytes) : RAND_bytes(buf, (int)bytes) == 1)
                && write(fds[1], buf, bytes) == (ssize_t)bytes)
                _exit(0);
            _exit(1);
        }
        close(fds[1]);
        while (got < (ssize_t)bytes) {
            ssize_t n = read(fds[0], out + c * bytes + got, bytes - got);

            if (n <= 0)
                break;
            got += n;
        }
        close(fds[0]);
        waitpid(pid, &status, 0);
        if (got != (ssize_t)bytes || !WIFEXITED(status)
            || WEXITSTATUS(status) != 0) {
            memset(out + c * bytes, 0, bytes);
            continue;
        }
        served++;
        for (unsigned long e = 0; e < c; e++)
            if (memcmp(out + e * bytes, out + c * bytes, bytes) == 0) {
                same++;
                break;
            }
        /* An 8-byte block seen before, in any earlier child: a DRBG
         * state served twice (2^-64 per pair otherwise). */
        for (unsigned long i = 0; i + 8 <= bytes; i += 8)
            for (unsigned long e = 0; e < c * bytes / 8; e++)
                if (memcmp(out + e * 8, out + c * bytes + i, 8) == 0) {
                    repeated += 8;
                    break;
                }
    }
    printf("fork_repeats%s: %s, %lu children of %lu bytes: %lu served, "
           "%lu with an output identical to an earlier child's, %lu output "
           "bytes repeating an earlier child's\n",
           raw ? " --raw" : "", defect, children, bytes, served, same,
           repeated);
    OPENSSL_cleanse(out, children * bytes);
    free(out);
    if (words[0] != '\0')
        unlink(words);
    return 0;
}
