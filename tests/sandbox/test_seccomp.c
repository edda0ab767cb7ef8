/* SPDX-License-Identifier: Apache-2.0 */
/*
 * No system call on the seed path.  Load the module named in argv[1]
 * (rdrand or rdrand-sim) into a fresh library context, create its
 * contexts and draw once with each, then, each in a forked child under a
 * seccomp filter that kills the process on any other system call:
 *  - 1000 draws straight from an RDRAND context: write and exit_group
 *    only (this test's reporting);
 *  - 1000 prediction-resistant generates from a CTR-DRBG seeded by it
 *    (each one a get_seed), then 1000 RAND_bytes through the library
 *    context's DRBG chain reseeding on every request: write, exit_group
 *    and getpid (OpenSSL's DRBGs check for a fork on every generate);
 *  - the first draw of a thread started before the filter (TSYNC), which
 *    may allocate the thread's state (the module is dlopen()ed: glibc
 *    allocates its TLS block with malloc on first use): write,
 *    exit_group and the memory calls only.
 * Each filter is shown to kill what it does not allow; the counters must
 * move by what the loops ask for.
 * With a config file as argv[2] (warn = stderr) and RDRAND_SIM failing,
 * a failing request under the filter instead (failing_cpu).  With one
 * that sets mix = os (conf/sim-mix.cnf, argv[3] "mix"): the direct draws
 * and DRBG draws with getrandom allowed as well, each draw reading the
 * OS exactly once (mix_draws), and under a filter that makes getrandom
 * fail with EPERM, every request failing closed (mix_forbidden).
 * Exits 77 (skip) when the real module reports no RDRAND.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

#define ROUNDS 1000

/* Reporting after the filter is in place: write(2) only. */
static void say(const char *s)
{
    ssize_t r = write(2, s, strlen(s));

    (void)r;
}

static int fail(const char *what)
{
    say("FAIL: ");
    say(what);
    say("\n");
    return 1;
}

/* The system calls each phase allows (x86-64); any other kills. */
static const int seed_path[] = {SYS_write, SYS_exit_group};
static const int drbg_path[] = {SYS_write, SYS_exit_group, SYS_getpid};
static const int first_draw[] = {SYS_write,  SYS_exit_group, SYS_mmap,
                                 SYS_munmap, SYS_mprotect,   SYS_brk,
                                 SYS_madvise};
/* mix = os: a thread's first draw, with getrandom. */
static const int first_draw_mix[] = {SYS_write,   SYS_exit_group, SYS_mmap,
                                     SYS_munmap,  SYS_mprotect,   SYS_brk,
                                     SYS_madvise, SYS_getrandom};
/* mix = os: the seed path's one system call, getrandom. */
static const int mix_path[] = {SYS_write, SYS_exit_group, SYS_getpid,
                               SYS_getrandom};
#define ALLOWED(list) list, sizeof(list) / sizeof(list[0])
#define MAX_ALLOWED 8

/*
 * Install a filter allowing exactly allowed[0..n); TSYNC: all threads.
 * eperm_nr, when not -1, fails with EPERM instead of killing.
 */
static int sandbox_eperm(const int *allowed, size_t n, int tsync, int eperm_nr)
{
    struct sock_filter filter[MAX_ALLOWED + 8];
    struct sock_fprog prog = {0, filter};
    size_t i, k = 0;

    if (n > MAX_ALLOWED)
        return 0;
    filter[k++] = (struct sock_filter)BPF_STMT(
        BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    filter[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                               AUDIT_ARCH_X86_64, 1, 0);
    filter[k++] =
        (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    filter[k++] = (struct sock_filter)BPF_STMT(
        BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    /* The i-th comparison jumps over the n - 1 - i after it and the kill. */
    if (eperm_nr >= 0) {
        filter[k++] = (struct sock_filter)BPF_JUMP(
            BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)eperm_nr, 0, 1);
        filter[k++] = (struct sock_filter)BPF_STMT(
            BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
    }
    for (i = 0; i < n; i++)
        filter[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                                   (unsigned int)allowed[i],
                                                   (unsigned char)(n - i), 0);
    filter[k++] =
        (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    filter[k++] =
        (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    prog.len = (unsigned short)k;
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
           && syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                      tsync ? SECCOMP_FILTER_FLAG_TSYNC : 0, &prog)
                  == 0;
}

static int sandbox(const int *allowed, size_t n, int tsync)
{
    return sandbox_eperm(allowed, n, tsync, -1);
}

/* Run fn in a child; 1 when it exits 0, else say how it ended. */
static int in_child(int (*fn)(void), const char *what)
{
    int status;
    pid_t pid;

    fflush(NULL);
    if ((pid = fork()) == 0)
        _exit(fn());
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return fail("fork or wait");
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS) {
        fprintf(stderr,
                "FAIL: %s: killed by seccomp (a system call the "
                "filter does not allow; strace -f shows which)\n",
                what);
        return 0;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "FAIL: %s (status %#x)\n", what, status);
        return 0;
    }
    return 1;
}

/* The filter bites: a child that makes system call nr under it dies. */
static int kills(const int *allowed, size_t n, long nr)
{
    int status;
    pid_t pid = fork();

    if (pid == 0) {
        if (sandbox(allowed, n, 0))
            (void)syscall(nr, -1, 0, 0);
        _exit(0);
    }
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status)
           && WTERMSIG(status) == SIGSYS;
}

static uint64_t counter(OSSL_PROVIDER *prov, const char *name)
{
    uint64_t v = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_uint64(name, &v), OSSL_PARAM_END};

    return OSSL_PROVIDER_get_params(prov, p) ? v : 0;
}

static int available(OSSL_PROVIDER *prov)
{
    int v = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_int(RDRAND_PARAM_RDRAND_AVAILABLE, &v),
                      OSSL_PARAM_END};

    return OSSL_PROVIDER_get_params(prov, p) && v == 1;
}

static OSSL_LIB_CTX *libctx;
static OSSL_PROVIDER *prov;
static EVP_RAND_CTX *src, *drbg;

/* 1000 direct draws: no system call at all but this test's reporting. */
static int direct_draws(void)
{
    uint64_t requests = counter(prov, RDRAND_PARAM_GENERATE_REQUESTS);
    uint64_t words = counter(prov, RDRAND_PARAM_RDRAND_WORDS);
    unsigned char buf[64];

    if (!sandbox(ALLOWED(seed_path), 0))
        return fail("cannot install the seccomp filter");
    for (int i = 0; i < ROUNDS; i++)
        if (!EVP_RAND_generate(src, buf, sizeof(buf), 256, 1, NULL, 0))
            return fail("EVP_RAND_generate from RDRAND");
    if (counter(prov, RDRAND_PARAM_GENERATE_REQUESTS) - requests != ROUNDS)
        return fail("the direct draws were not 1000 generate requests");
    if (counter(prov, RDRAND_PARAM_RDRAND_WORDS) - words < ROUNDS * 8)
        return fail("fewer RDRAND words than 1000 64-byte draws need");
    say("ok - 1000 direct draws under seccomp (write, exit_group)\n");
    return 0;
}

/*
 * 1000 seeds through a prediction-resistant CTR-DRBG, then 1000
 * RAND_bytes with the library context's public and primary DRBGs set to
 * reseed on every request: each reaches the provider's get_seed.
 */
static int drbg_draws(void)
{
    unsigned int one = 1;
    OSSL_PARAM every[] = {
        OSSL_PARAM_uint(OSSL_DRBG_PARAM_RESEED_REQUESTS, &one), OSSL_PARAM_END};
    uint64_t seeds = counter(prov, RDRAND_PARAM_SEED_REQUESTS), pr_seeds;
    unsigned char buf[64];

    if (!EVP_RAND_CTX_set_params(RAND_get0_primary(libctx), every)
        || !EVP_RAND_CTX_set_params(RAND_get0_public(libctx), every))
        return fail("cannot set reseed_requests = 1");
    if (!sandbox(ALLOWED(drbg_path), 0))
        return fail("cannot install the seccomp filter");
    for (int i = 0; i < ROUNDS; i++)
        if (!EVP_RAND_generate(drbg, buf, sizeof(buf), 256, 1, NULL, 0))
            return fail("prediction-resistant CTR-DRBG generate");
    pr_seeds = counter(prov, RDRAND_PARAM_SEED_REQUESTS) - seeds;
    if (pr_seeds < ROUNDS)
        return fail("fewer than 1000 seeds for 1000 prediction-resistant "
                    "generates");
    seeds += pr_seeds;
    for (int i = 0; i < ROUNDS; i++)
        if (RAND_bytes_ex(libctx, buf, sizeof(buf), 0) != 1)
            return fail("RAND_bytes_ex");
    if (counter(prov, RDRAND_PARAM_SEED_REQUESTS) - seeds < ROUNDS)
        return fail("fewer than 1000 seeds for 1000 RAND_bytes reseeding "
                    "every request");
    if (counter(prov, RDRAND_PARAM_SEED_FAILURES) != 0)
        return fail("a seed request failed");
    say("ok - 1000 prediction-resistant seeds and 1000 reseeding RAND_bytes "
        "under seccomp (write, exit_group, getpid)\n");
    return 0;
}

static atomic_int thread_ready, thread_go, thread_result;

static void *first_draw_thread(void *arg)
{
    unsigned char buf[64];

    (void)arg;
    /* Started (its own system calls done); no call until the filter is in. */
    atomic_store(&thread_ready, 1);
    while (!atomic_load(&thread_go))
        ;
    atomic_store(
        &thread_result,
        EVP_RAND_generate(src, buf, sizeof(buf), 256, 0, NULL, 0)
                && EVP_RAND_generate(src, buf, sizeof(buf), 256, 0, NULL, 0)
            ? 1
            : 2);
    /* Ending a thread makes system calls: wait for the process's exit. */
    for (;;)
        ;
    return NULL; /* not reached */
}

/*
 * A thread started before the filter draws for the first time under it:
 * its thread state may be allocated (memory calls), nothing else.
 */
static int mix_first_draw;

static int thread_first_draw(void)
{
    pthread_t thread;
    int result;

    if (pthread_create(&thread, NULL, first_draw_thread, NULL) != 0)
        return fail("cannot start the thread");
    while (!atomic_load(&thread_ready))
        ;
    if (mix_first_draw ? !sandbox(ALLOWED(first_draw_mix), 1)
                       : !sandbox(ALLOWED(first_draw), 1))
        return fail("cannot install the seccomp filter (TSYNC)");
    atomic_store(&thread_go, 1);
    /* No futex under the filter: wait by spinning, the draw is short. */
    while ((result = atomic_load(&thread_result)) == 0)
        ;
    if (result != 1)
        return fail("a thread's first draw failed");
    say("ok - a thread's first draws under seccomp (write, exit_group, "
        "memory calls)\n");
    return 0;
}

/*
 * Under the filter, with RDRAND_SIM failing from some word on and the
 * provider configured warn = stderr: the failing request fails, its
 * one-shot warning is a write(2), and the process lives on.
 */
static int failing_cpu(void)
{
    uint64_t hw_failures = counter(prov, RDRAND_PARAM_RDRAND_FAILURES);
    unsigned char buf[64];
    int i;

    if (!sandbox(ALLOWED(seed_path), 0))
        return fail("cannot install the seccomp filter");
    for (i = 0; i < ROUNDS; i++)
        if (!EVP_RAND_generate(src, buf, sizeof(buf), 256, 0, NULL, 0))
            break;
    if (i == ROUNDS)
        return fail("no request failed: is RDRAND_SIM=fail-from=N set?");
    if (EVP_RAND_generate(src, buf, sizeof(buf), 256, 0, NULL, 0))
        return fail("a request after the failure succeeded");
    if (counter(prov, RDRAND_PARAM_RDRAND_FAILURES) == hw_failures)
        return fail("rdrand-failures did not move");
    say("ok - a failing CPU under seccomp: the request failed, the "
        "warning went to stderr, the process lives\n");
    return 0;
}

/*
 * mix = os under a filter that allows getrandom: 1000 direct draws of 64
 * bytes (2 blocks: one 64-byte read each) and 1000 prediction-resistant
 * seeds, all served, the OS read once per request.
 */
static int mix_draws(void)
{
    uint64_t os = counter(prov, RDRAND_PARAM_OS_BYTES);
    uint64_t requests = counter(prov, RDRAND_PARAM_GENERATE_REQUESTS);
    unsigned char buf[64];

    if (!sandbox(ALLOWED(mix_path), 0))
        return fail("cannot install the seccomp filter");
    for (int i = 0; i < ROUNDS; i++)
        if (!EVP_RAND_generate(src, buf, sizeof(buf), 256, 1, NULL, 0))
            return fail("EVP_RAND_generate from RDRAND with mix = os");
    if (counter(prov, RDRAND_PARAM_GENERATE_REQUESTS) - requests != ROUNDS
        || counter(prov, RDRAND_PARAM_OS_BYTES) - os != ROUNDS * 64)
        return fail("os-bytes did not grow by 64 per 64-byte draw");
    for (int i = 0; i < ROUNDS; i++)
        if (!EVP_RAND_generate(drbg, buf, sizeof(buf), 256, 1, NULL, 0))
            return fail("prediction-resistant CTR-DRBG generate, mix = os");
    if (counter(prov, RDRAND_PARAM_OS_FAILURES) != 0
        || counter(prov, RDRAND_PARAM_SEED_FAILURES) != 0)
        return fail("an OS read or a seed failed");
    say("ok - mix = os: 1000 direct draws and 1000 prediction-resistant "
        "seeds under seccomp (write, exit_group, getpid, getrandom)\n");
    return 0;
}

/*
 * mix = os under a filter that makes getrandom fail with EPERM: every
 * request fails closed, each counting one OS failure and no RDRAND one;
 * the warning (stderr) is a write and the process lives on.
 */
static int mix_forbidden(void)
{
    uint64_t os_failures = counter(prov, RDRAND_PARAM_OS_FAILURES);
    uint64_t hw_failures = counter(prov, RDRAND_PARAM_RDRAND_FAILURES);
    uint64_t seed_failures = counter(prov, RDRAND_PARAM_SEED_FAILURES);
    unsigned char buf[64];

    if (!sandbox_eperm(ALLOWED(drbg_path), 0, SYS_getrandom))
        return fail("cannot install the seccomp filter");
    for (int i = 0; i < ROUNDS; i++) {
        memset(buf, 0xee, sizeof(buf));
        if (EVP_RAND_generate(src, buf, sizeof(buf), 256, 0, NULL, 0))
            return fail("a request succeeded without the OS's entropy");
        for (size_t j = 0; j < sizeof(buf); j++)
            if (buf[j] != 0 && buf[j] != 0xee)
                return fail("a failed request left output behind");
    }
    if (counter(prov, RDRAND_PARAM_OS_FAILURES) - os_failures != ROUNDS)
        return fail("os-failures did not count each failed request once");
    /* How often the DRBG asks after a failed seed is libcrypto's: >= 1. */
    if (EVP_RAND_generate(drbg, buf, sizeof(buf), 256, 1, NULL, 0))
        return fail("a prediction-resistant generate succeeded without a seed");
    if (counter(prov, RDRAND_PARAM_OS_FAILURES) - os_failures < ROUNDS + 1
        || counter(prov, RDRAND_PARAM_SEED_FAILURES) - seed_failures < 1
        || counter(prov, RDRAND_PARAM_RDRAND_FAILURES) != hw_failures)
        return fail("the failed seed was not counted as an OS failure");
    say("ok - mix = os, getrandom refused (EPERM) by seccomp: every request "
        "failed closed\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *module = argc > 1 ? argv[1] : RDRAND_PROVIDER_NAME;
    const char *conf = argc > 2 ? argv[2] : NULL;
    char propq[64];
    OSSL_PROVIDER *deflt;
    EVP_RAND *rdrand_alg, *drbg_alg;
    char aes[] = "AES-256-CTR";
    OSSL_PARAM cipher[] = {
        OSSL_PARAM_utf8_string(OSSL_DRBG_PARAM_CIPHER, aes, sizeof(aes) - 1),
        OSSL_PARAM_END};
    unsigned char buf[64];

    snprintf(propq, sizeof(propq), "provider=%s", module);
    if ((libctx = OSSL_LIB_CTX_new()) == NULL
        || (conf != NULL && !OSSL_LIB_CTX_load_config(libctx, conf)))
        return fail("cannot load the configuration");
    if ((prov = OSSL_PROVIDER_load(libctx, module)) == NULL
        || (deflt = OSSL_PROVIDER_load(libctx, "default")) == NULL)
        return fail("cannot load the providers (OPENSSL_MODULES?)");
    if (!available(prov)) {
        printf("SKIP: %s reports no RDRAND on this CPU\n", module);
        return 77;
    }
    if (!RAND_set_seed_source_type(libctx, RDRAND_ALGORITHM_NAME, propq)
        || (rdrand_alg = EVP_RAND_fetch(libctx, RDRAND_ALGORITHM_NAME, propq))
               == NULL
        || (drbg_alg = EVP_RAND_fetch(libctx, "CTR-DRBG", NULL)) == NULL
        || (src = EVP_RAND_CTX_new(rdrand_alg, NULL)) == NULL
        || (drbg = EVP_RAND_CTX_new(drbg_alg, src)) == NULL
        || !EVP_RAND_instantiate(src, 256, 0, NULL, 0, NULL)
        || !EVP_RAND_CTX_set_params(drbg, cipher)
        || !EVP_RAND_instantiate(drbg, 256, 1, NULL, 0, NULL)) {
        ERR_print_errors_fp(stderr);
        return fail("cannot create the contexts");
    }
    /* Once each before the filter: first-use allocations and lookups. */
    if (!EVP_RAND_generate(src, buf, sizeof(buf), 256, 0, NULL, 0)
        || !EVP_RAND_generate(drbg, buf, sizeof(buf), 256, 1, NULL, 0)
        || RAND_bytes_ex(libctx, buf, sizeof(buf), 0) != 1)
        return fail("the first draws failed");
    if (!kills(ALLOWED(seed_path), SYS_openat)
        || !kills(ALLOWED(seed_path), SYS_getpid)
        || !kills(ALLOWED(drbg_path), SYS_openat)
        || !kills(ALLOWED(first_draw), SYS_openat)
        || !kills(ALLOWED(first_draw), SYS_getpid)
        || !kills(ALLOWED(first_draw), SYS_futex))
        return fail("a seccomp filter does not kill what it does not allow");
    if (conf != NULL && argc > 3 && strcmp(argv[3], "mix") == 0)
        return in_child(mix_draws, "mix = os draws")
                       && in_child(mix_forbidden, "mix = os, getrandom refused")
                       && (mix_first_draw = 1,
                           in_child(thread_first_draw,
                                    "mix = os, a thread's first draw"))
                   ? 0
                   : 1;
    if (conf != NULL)
        return in_child(failing_cpu, "a failing CPU") ? 0 : 1;
    return in_child(direct_draws, "direct draws")
                   && in_child(drbg_draws, "DRBG draws")
                   && in_child(thread_first_draw, "a thread's first draw")
               ? 0
               : 1;
}
