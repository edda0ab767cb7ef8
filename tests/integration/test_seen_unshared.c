/* SPDX-License-Identifier: Apache-2.0 */
/*
 * When the tables of words seen cannot be shared with fork()ed processes
 * (provider/seen.c), the load says so and the provider still serves,
 * with tables of the process's own: issue 31's "a shared-state mapping
 * that cannot be made (seccomp refusing mmap)".  Through the real
 * libcrypto, conf/rdrand-sim.cnf (warn = stderr) and rdrand-sim.so, in a
 * child whose seccomp filter refuses mmap(MAP_SHARED) with EPERM, as a
 * sandbox might; the control is the same child without the filter.
 *
 * And where no mapping of the tables can be made at all (a filter that
 * refuses any mmap of their size), on a CPU whose load sample has w[0] =
 * w[63] and w[1] = w[62] (a key taken from its XORs would be {0, 0},
 * under which the multiplications' digest is the word itself): the
 * sample's equal words are a repeat, a proof, so nothing is served (the
 * load's self-test failed only for now, the thread keyed itself from the
 * sample, and the last digest of a later request held its last word in
 * plain: review of the round-four fix, 3, and of its fix, 1).  The
 * control, a clean sample, is served.
 *
 *   test_seen_unshared CONF
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "check_line.h"
#include "seen_table.h" /* the tables' size, which the filter refuses */
#include "splitmix.h"

#define WARNING "tables of words seen could not be shared"

#if defined(__SANITIZE_THREAD__)
#define RDRAND_UNDER_TSAN 1
#else
#define RDRAND_UNDER_TSAN 0
#endif

/*
 * A seccomp filter: EPERM for an mmap whose argument arg (its low half,
 * little-endian) matches value under op (BPF_JSET: any bit of it;
 * BPF_JEQ: equal), all else allowed.
 */
static int refuse_mmap(unsigned int arg, __u16 op, __u32 value)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(
            BPF_LD | BPF_W | BPF_ABS,
            (__u32)(offsetof(struct seccomp_data, args) + arg * sizeof(__u64))),
        BPF_JUMP(BPF_JMP | op | BPF_K, value, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof(filter) / sizeof(filter[0]), filter};

    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
           && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

/* EPERM for mmap with MAP_SHARED (or MAP_SHARED_VALIDATE). */
static int refuse_shared_mmap(void)
{
    return refuse_mmap(3, BPF_JSET, MAP_SHARED);
}

/* EPERM for any mmap of the tables' size. */
static int refuse_table_mmap(void)
{
    return refuse_mmap(1, BPF_JEQ, (__u32)sizeof(struct rdrand_seen));
}

/*
 * Under refuse_table_mmap: 0 when a 48-byte request is served (the load's
 * self-test may fail for now, so up to 5 tries), else 5.
 */
static int served(void)
{
    static unsigned char buf[48];
    EVP_RAND *rand = EVP_RAND_fetch(NULL, "RDRAND", "provider=rdrand-sim");
    EVP_RAND_CTX *ctx = rand != NULL ? EVP_RAND_CTX_new(rand, NULL) : NULL;
    int ok = ctx != NULL && EVP_RAND_instantiate(ctx, 256, 0, NULL, 0, NULL);

    for (int i = 0; ok && i < 5; i++)
        if (EVP_RAND_generate(ctx, buf, sizeof(buf), 256, 0, NULL, 0))
            return 0;
    return 5;
}

/*
 * 64 words, then 4,000 clean ones; weak: the 64 words' XORs at the ends
 * are 0 (w[63] = w[0], w[62] = w[1]), else all distinct (the control).
 */
static int write_sample(const char *path, int weak)
{
    FILE *f = fopen(path, "w");

    for (uint64_t i = 0; f != NULL && i < 64 + 4000; i++) {
        uint64_t j = weak && i == 63 ? 0 : weak && i == 62 ? 1 : i;

        fprintf(f, "%016llx\n",
                (unsigned long long)rdrand_test_mix64(j + 777
                                                      + RDRAND_TEST_GOLDEN));
    }
    return f != NULL && fclose(f) == 0;
}

static int run(int filtered, char *err, size_t errlen);

/*
 * How a child ends: _exit (nothing of the parent's runs twice).  A
 * coverage build (scripts/coverage.sh defines RDRAND_COVERAGE) ends it
 * with exit() instead, whose destructors write every object's counts,
 * which _exit would drop: rdrand-sim.so's too (its load's warnings run
 * only in these children), which __gcov_dump called from here does not
 * write, as the module exports nothing but OSSL_provider_init.  The
 * parent has run nothing of OpenSSL's and flushed stdio before the fork.
 */
__attribute__((noreturn)) static void child_exit(int code)
{
#ifdef RDRAND_COVERAGE
    exit(code);
#else
    _exit(code);
#endif
}

/* Under refuse_table_mmap, on a weak or a control sample: run()'s. */
static int run_sample(int weak, char *err, size_t errlen)
{
    char path[] = "/tmp/rdrand-seen-weak-XXXXXX", spec[64];
    int fd = mkstemp(path), rc = -1;

    if (fd >= 0 && close(fd) == 0 && write_sample(path, weak)) {
        snprintf(spec, sizeof(spec), "words=%s", path);
        setenv("RDRAND_SIM", spec, 1);
        rc = run(2, err, errlen);
    }
    if (fd >= 0)
        unlink(path);
    return rc;
}

/*
 * In a child (stderr into a pipe): load OPENSSL_CONF, draw 32 bytes, and with
 * the filter check that it really refuses a shared mapping.  Returns
 * the child's exit status (0: served) and what it wrote to stderr.
 */
static int run(int filtered, char *err, size_t errlen)
{
    int fds[2], status;
    size_t got = 0;
    ssize_t n;
    pid_t pid;

    if (pipe(fds) != 0)
        return -1;
    fflush(NULL);
    if ((pid = fork()) == 0) {
        unsigned char buf[32];
        void *p;

        dup2(fds[1], 2);
        close(fds[0]);
        if (filtered == 2)
            child_exit(refuse_table_mmap() ? served() : 3);
        if (filtered) {
            if (!refuse_shared_mmap())
                child_exit(3);
            p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
            if (p != MAP_FAILED || errno != EPERM)
                child_exit(4); /* the filter does not do what it must */
        }
        if (!OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL)
            || RAND_bytes(buf, sizeof(buf)) != 1)
            child_exit(1);
        child_exit(0);
    }
    close(fds[1]);
    while (got + 1 < errlen
           && (n = read(fds[0], err + got, errlen - 1 - got)) > 0)
        got += (size_t)n;
    err[got] = '\0';
    close(fds[0]);
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;

    return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
    static char err[8192];
    int rc;

    if (argc != 2 || setenv("OPENSSL_CONF", argv[1], 1) != 0
        || setenv("RDRAND_SIM", "", 1) != 0) {
        fprintf(stderr, "usage: test_seen_unshared CONF\n");
        return 2;
    }
    rc = run(0, err, sizeof(err));
    check(rc == 0, "without a filter: served");
    check(strstr(err, WARNING) == NULL, "without a filter: no warning");
    rc = run(1, err, sizeof(err));
    if (rc == 3) {
        printf("# seccomp filters are not allowed here: %s\n", err);
        check(0, "a seccomp filter could be installed");
        return 1;
    }
    check(rc != 4, "the filter refuses mmap(MAP_SHARED) with EPERM");
    check(rc == 0, "mmap(MAP_SHARED) refused: still served, with tables of "
                   "the process's own");
    check(strstr(err, WARNING) != NULL
              && strstr(err, "Operation not permitted") != NULL
              && strstr(err, "seccomp filter") != NULL,
          "mmap(MAP_SHARED) refused: the load warns, naming the error and "
          "what to do");
    if (failed)
        printf("# stderr of the filtered child:\n%s\n", err);
    /* A CPU without AES-NI: the tables are the process's own, said. */
    setenv("RDRAND_SIM", "aesni=absent", 1);
    rc = run(0, err, sizeof(err));
    check(rc == 0, "no AES-NI: served, with tables of the process's own");
    check(strstr(err, WARNING) != NULL && strstr(err, "no AES-NI") != NULL
              && strstr(err, "enable AES-NI") != NULL,
          "no AES-NI: the load warns, naming why and what to do");
    if (failed)
        printf("# stderr of the child without AES-NI:\n%s\n", err);
    /*
     * No tables at all, and a load sample whose XORs are 0.  Not under
     * ThreadSanitizer, whose runtime maps memory of the tables' size for
     * a mapping it watches and dies of the filter (the plain and ASan
     * builds run it, and the OpenSSL 3.5 and 4.0 ones).
     */
    if (RDRAND_UNDER_TSAN) {
        printf("# no-tables scenario not run under ThreadSanitizer\n");
    } else {
        int control = run_sample(0, err, sizeof(err)), weak;

        check(control == 0, "no tables (control, a clean sample): served");
        weak = run_sample(1, err, sizeof(err));
        check(weak == 5 && strstr(err, "permanent") != NULL,
              "no tables, a load sample with two equal words: a repeat, a "
              "proof: nothing served, the verdict permanent (it was a "
              "temporary self-test failure, and then served with the last "
              "word in the thread's state)");
        check(strstr(err, "nor could tables of the process's own be made")
                  != NULL,
              "no tables: the load says so");
        if (failed)
            printf("# control %d, weak %d; stderr of the child:\n%s\n", control,
                   weak, err);
    }
    return failed != 0;
}
