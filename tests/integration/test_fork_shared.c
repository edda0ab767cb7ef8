/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fork()ed siblings meet in one set of tables (seen.c): a child that
 * draws words its sibling already drew trips the recent-words test,
 * permanent at once, though neither its own tests nor the tables it
 * inherited from its parent ever saw them.  Through the real libcrypto
 * and rdrand-sim.so, the simulated CPU's stream shared with the children
 * (RDRAND_SIM=stream=shared,words=FILE), as a real CPU's is:
 *
 *   FILE: 64 clean words (the parent's self-test at load), 48 words X,
 *         X again, then clean words;
 *   child A draws X (48 words, served: nothing has seen them);
 *   child B draws X again: it must fail, recent words, permanent.
 *
 * A child that drew with tables of its own (before issue 31) was
 * served.  Every word is in the recent buckets, so B's first word trips.
 *
 * Without AES-NI (RDRAND_SIM's aesni=absent) the checks would give a
 * word back to any process of the tree, so there is no shared page: B
 * is served, the documented weaker test (docs/health-tests.md).
 *
 * And what a descendant can do to the shared page: in a process of its
 * own, a child overwrites every shared mapping of 128 KiB or more with
 * 0xff; its parent's next new thread must still be served.  (With the
 * key in the page, as first written, the key became ~0, every digest
 * one value, and that thread a permanent repeat.)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "rdrand_provider.h"

#include "check_line.h"

#define MODULE "rdrand-sim"
#define X_WORDS 48

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Only clean words: 64 for the self-test, then 8192 more. */
static int write_clean(const char *path)
{
    FILE *f = fopen(path, "w");
    int ok = f != NULL;

    for (uint64_t i = 0; ok && i < 64 + 8192; i++)
        ok = fprintf(f, "%016llx\n", (unsigned long long)mix(i + 7)) == 17;
    return f != NULL && fclose(f) == 0 && ok;
}

static int write_words(const char *path)
{
    FILE *f = fopen(path, "w");
    int ok = f != NULL;

    for (uint64_t i = 0; ok && i < 64; i++)
        ok = fprintf(f, "%016llx\n", (unsigned long long)mix(i + 1)) == 17;
    for (int twice = 0; twice < 2; twice++)
        for (uint64_t i = 0; ok && i < X_WORDS; i++)
            ok = fprintf(f, "%016llx\n", (unsigned long long)mix((i + 1) << 40))
                 == 17;
    for (uint64_t i = 0; ok && i < 1024; i++)
        ok = fprintf(f, "%016llx\n", (unsigned long long)mix((i + 1) << 20))
             == 17;
    return f != NULL && fclose(f) == 0 && ok;
}

/*
 * In a child: X_WORDS words from the seed source; exit 0 served, 1 the
 * recent-words test tripped and the verdict is permanent, 2 anything else.
 */
static void child(OSSL_PROVIDER *prov)
{
    unsigned char buf[X_WORDS * 8];
    EVP_RAND *rand = EVP_RAND_fetch(NULL, "RDRAND", "provider=" MODULE);
    EVP_RAND_CTX *ctx = rand != NULL ? EVP_RAND_CTX_new(rand, NULL) : NULL;
    const char *state = NULL, *verdict = NULL;
    OSSL_PARAM p[] = {
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_HEALTH_STATE, (char **)&state, 0),
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_HEALTH_VERDICT, (char **)&verdict, 0),
        OSSL_PARAM_END};

    if (ctx == NULL || !EVP_RAND_instantiate(ctx, 256, 0, NULL, 0, NULL))
        _exit(2);
    if (EVP_RAND_generate(ctx, buf, sizeof(buf), 256, 0, NULL, 0))
        _exit(0);
    if (!OSSL_PROVIDER_get_params(prov, p) || state == NULL || verdict == NULL)
        _exit(2);
    printf("# child %d: health-state \"%s\", health-verdict %s\n",
           (int)getpid(), state, verdict);
    fflush(stdout);
    _exit(strstr(state, "recent-words test") != NULL
                  && strcmp(verdict, "permanent") == 0
              ? 1
              : 2);
}

/*
 * Every rw-s mapping of 128 KiB or more (the shared table) set to 0xff
 * (or, with write 0, only counted).
 */
static int shared_mappings(int write)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512], perm[8];
    unsigned long a, b;
    int n = 0;

    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "%lx-%lx %7s", &a, &b, perm) == 3 && perm[1] == 'w'
            && perm[3] == 's' && b - a >= 128 * 1024) {
            if (write)
                memset((void *)a, 0xff, b - a);
            n++;
        }
    if (f != NULL)
        fclose(f);
    return n;
}

static void *draw_4k(void *arg)
{
    static unsigned char buf[4096];
    EVP_RAND *rand = EVP_RAND_fetch(NULL, "RDRAND", "provider=" MODULE);
    EVP_RAND_CTX *ctx = rand != NULL ? EVP_RAND_CTX_new(rand, NULL) : NULL;
    int ok = ctx != NULL && EVP_RAND_instantiate(ctx, 256, 0, NULL, 0, NULL)
             && EVP_RAND_generate(ctx, buf, sizeof(buf), 256, 0, NULL, 0);

    (void)arg;
    EVP_RAND_CTX_free(ctx);
    EVP_RAND_free(rand);
    return ok ? buf : NULL;
}

/* In a process of its own: 0 when the new thread was served. */
static int descendant_writes_page(const char *clean)
{
    char spec[128];
    OSSL_PROVIDER *prov;
    pthread_t t;
    void *res = NULL;
    int status;
    pid_t pid;

    snprintf(spec, sizeof(spec), "stream=shared,words=%s", clean);
    setenv("RDRAND_SIM", spec, 1);
    if ((prov = OSSL_PROVIDER_load(NULL, MODULE)) == NULL)
        return 2;
    if ((pid = fork()) == 0)
        _exit(shared_mappings(1) > 0 ? 0 : 3);
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)
        || WEXITSTATUS(status) != 0)
        return 3;
    if (pthread_create(&t, NULL, draw_4k, NULL) != 0
        || pthread_join(t, &res) != 0)
        return 4;
    return res != NULL ? 0 : 1;
}

static int run_child(OSSL_PROVIDER *prov);

/*
 * In a process of its own: a load whose self-test fails (CF=0 at its 3rd
 * word), then children forked one after another on a CPU that cycles
 * every 12,000 words: child A's recovery and request draw about 8,700 of
 * them, B's draw the rest and come round to A's.  B must not be served:
 * the key is the load's (the OS's), not each child's own sample's
 * (review of round four, 2: 35 of 40 children served a sibling's words).
 * 0: A served and B not, else what happened.
 */
static int load_failed_then_fork(void)
{
    OSSL_PROVIDER *prov;
    int a, b;

    setenv("RDRAND_SIM", "stream=shared,fail-at=3,cycle=12000", 1);
    if ((prov = OSSL_PROVIDER_load(NULL, MODULE)) == NULL)
        return 10;
    a = run_child(prov);
    b = run_child(prov);
    printf("# after a failed load: child A exit %d, child B exit %d\n", a, b);
    fflush(stdout);
    return a == 0 && b != 0 ? 0 : 11;
}

/*
 * In a process of its own, the words of FILE on a CPU without AES-NI:
 * no shared mapping, and so B, drawing A's words again, is served (its
 * tables are its own copy of its parent's).  0 when so.
 */
static int without_aesni(const char *words)
{
    char spec[128];
    OSSL_PROVIDER *prov;
    int shared, a, b;

    snprintf(spec, sizeof(spec), "stream=shared,words=%s,aesni=absent", words);
    setenv("RDRAND_SIM", spec, 1);
    if ((prov = OSSL_PROVIDER_load(NULL, MODULE)) == NULL)
        return 20;
    shared = shared_mappings(0);
    a = run_child(prov);
    b = run_child(prov);
    printf("# without AES-NI: %d shared mappings, child A exit %d, child B "
           "exit %d\n",
           shared, a, b);
    fflush(stdout);
    return shared == 0 && a == 0 && b == 0 ? 0 : 21;
}

static int run_child(OSSL_PROVIDER *prov)
{
    int status;
    pid_t pid = fork();

    if (pid == 0)
        child(prov);
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

int main(void)
{
    char words[] = "/tmp/rdrand-fork-shared-XXXXXX", spec[128];
    char clean[] = "/tmp/rdrand-fork-clean-XXXXXX";
    OSSL_PROVIDER *prov;
    int fd, status;
    pid_t pid;

    /* First, before this process loads the module: the page's case. */
    if ((fd = mkstemp(clean)) < 0 || close(fd) != 0 || !write_clean(clean)) {
        perror(clean);
        return 1;
    }
    fflush(NULL);
    if ((pid = fork()) == 0)
        _exit(descendant_writes_page(clean));
    check(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)
              && WEXITSTATUS(status) == 0,
          "a child writes 0xff over the shared table: its parent's next new "
          "thread is served (the key is not in the page)");
    unlink(clean);
    fflush(NULL);
    if ((pid = fork()) == 0)
        _exit(load_failed_then_fork());
    check(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)
              && WEXITSTATUS(status) == 0,
          "after a load whose self-test failed, a child that draws its "
          "sibling's words is not served (one key for the tree)");

    if ((fd = mkstemp(words)) < 0 || close(fd) != 0 || !write_words(words)) {
        perror(words);
        return 1;
    }
    fflush(NULL);
    if ((pid = fork()) == 0)
        _exit(without_aesni(words));
    check(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)
              && WEXITSTATUS(status) == 0,
          "without AES-NI no table is shared (its checks would give the "
          "words back): a child that draws its sibling's words is served");
    snprintf(spec, sizeof(spec), "stream=shared,words=%s", words);
    setenv("RDRAND_SIM", spec, 1);
    prov = OSSL_PROVIDER_load(NULL, MODULE);
    if (!check(prov != NULL, "the parent loads " MODULE " (its self-test)")) {
        ERR_print_errors_fp(stdout);
        unlink(words);
        return 1;
    }
    check(shared_mappings(0) == 1, "with AES-NI: one shared mapping, the "
                                   "tables");
    check(run_child(prov) == 0, "child A draws the 48 words X: served");
    check(run_child(prov) == 1,
          "child B draws X again: the recent-words test trips, permanent");
    /* B stopped at its first tripping word: C draws the rest of X's
     * repeat, and trips in its own right (a sibling's verdict is not its
     * own). */
    check(run_child(prov) == 1,
          "child C draws the rest of X's repeat: it trips too");
    OSSL_PROVIDER_unload(prov);
    unlink(words);
    printf("%d failed\n", failed);
    return failed != 0;
}
