/* SPDX-License-Identifier: Apache-2.0 */
/*
 * No system call on the seed path.  Load the module named in argv[1]
 * (rdrand or rdrand-sim) into a fresh library context, create its
 * contexts and draw once, then install a seccomp filter that kills the
 * process on any system call but write and exit_group (this test's own
 * reporting) and getpid (OpenSSL 3.0's DRBG checks for a fork on every
 * generate).  Then: 1000 draws straight from an RDRAND context, 1000
 * prediction-resistant generates from a CTR-DRBG seeded by it (each one a
 * get_seed), 1000 RAND_bytes through the library context's DRBG chain
 * seeded by it.  Surviving and the counters moving is the pass.
 * With a config file as argv[2] (warn = stderr) and RDRAND_SIM failing,
 * a failing request under the filter instead (failing_cpu).
 * Exits 77 (skip) when the real module reports no RDRAND.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
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

/* Allow exactly write, exit_group and getpid on x86-64; kill otherwise. */
static int sandbox(void)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_write, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpid, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof(filter) / sizeof(filter[0]), filter};

    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
           && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

/* The filter bites: a child that opens a file under it dies of SIGSYS. */
static int sandbox_kills(void)
{
    int status;
    pid_t pid = fork();

    if (pid == 0) {
        if (sandbox())
            (void)open("/dev/urandom", O_RDONLY);
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

/*
 * Under the filter, with RDRAND_SIM failing from some word on and the
 * provider configured warn = stderr: the failing request fails, its
 * one-shot warning is a write(2), and the process lives on.
 */
static int failing_cpu(OSSL_PROVIDER *prov, EVP_RAND_CTX *src)
{
    uint64_t hw_failures = counter(prov, RDRAND_PARAM_RDRAND_FAILURES);
    unsigned char buf[64];
    int i;

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
    _exit(0);
}

int main(int argc, char **argv)
{
    const char *module = argc > 1 ? argv[1] : RDRAND_PROVIDER_NAME;
    const char *conf = argc > 2 ? argv[2] : NULL;
    char propq[64];
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov, *deflt;
    EVP_RAND *rdrand_alg, *drbg_alg;
    EVP_RAND_CTX *src, *drbg;
    char aes[] = "AES-256-CTR";
    OSSL_PARAM cipher[] = {
        OSSL_PARAM_utf8_string(OSSL_DRBG_PARAM_CIPHER, aes, sizeof(aes) - 1),
        OSSL_PARAM_END};
    unsigned char buf[64];
    uint64_t seeds, words;

    snprintf(propq, sizeof(propq), "provider=%s", module);
    if (libctx == NULL
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
    seeds = counter(prov, RDRAND_PARAM_SEED_REQUESTS);
    words = counter(prov, RDRAND_PARAM_RDRAND_WORDS);
    fflush(NULL);
    if (!sandbox_kills())
        return fail("the seccomp filter does not kill on open()");
    if (!sandbox())
        return fail("cannot install the seccomp filter");
    if (conf != NULL)
        return failing_cpu(prov, src);
    for (int i = 0; i < ROUNDS; i++)
        if (!EVP_RAND_generate(src, buf, sizeof(buf), 256, 1, NULL, 0))
            return fail("EVP_RAND_generate from RDRAND");
    for (int i = 0; i < ROUNDS; i++)
        if (!EVP_RAND_generate(drbg, buf, sizeof(buf), 256, 1, NULL, 0))
            return fail("prediction-resistant CTR-DRBG generate");
    for (int i = 0; i < ROUNDS; i++)
        if (RAND_bytes_ex(libctx, buf, sizeof(buf), 0) != 1)
            return fail("RAND_bytes_ex");
    if (counter(prov, RDRAND_PARAM_SEED_REQUESTS) - seeds < ROUNDS)
        return fail("fewer than 1000 seeds were drawn");
    /* 64 bytes a direct draw, at least 32 a seed: 8 + 4 words a round. */
    if (counter(prov, RDRAND_PARAM_RDRAND_WORDS) - words < ROUNDS * 12)
        return fail("fewer RDRAND words than the draws need");
    if (counter(prov, RDRAND_PARAM_SEED_FAILURES) != 0)
        return fail("a seed request failed");
    say("ok - 1000 direct draws, 1000 prediction-resistant seeds and 1000 "
        "RAND_bytes under seccomp (write, exit_group, getpid)\n");
    _exit(0); /* no cleanup: freeing may return memory to the kernel */
}
