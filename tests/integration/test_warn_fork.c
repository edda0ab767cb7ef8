/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one-shot warning is once per process, and a fork()ed child is a
 * process: it warns once for its own first fault, whatever its parent
 * did.  Through the real libcrypto and rdrand-sim.so, with the config
 * file argv[1] (conf/rdrand-sim.cnf: warn = stderr) and
 * RDRAND_SIM=fail-from=65, so that every draw after the load's 64-word
 * self-test meets CF=0.  Each process writes its stderr to a file of its
 * own, and the lines starting "rdrand-provider: " are counted:
 * by kind: a fault's line, once per process, and the line of a verdict
 * that became permanent, once per process (the first request trips, the
 * second's recovery meets CF=0 again: permanent):
 *  - a child of a parent that has not faulted: one of each, however many
 *    of its requests fail; the same with its threads faulting at once;
 *  - the parent faults: one of each, and still one of each after its
 *    children;
 *  - a child of the faulted parent, its own child, a child whose threads
 *    all fault at once: the permanent line only.  They inherit the
 *    permanent verdict and draw nothing, so they never fault themselves:
 *    their refused requests give the permanent line, once per process.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "rdrand_provider.h"

/* Reported on stdout: stderr is what is being counted. */
#include "check_line.h"

#define MODULE "rdrand-sim"
#define REQUESTS 3
#define THREADS 8

static EVP_RAND *rdrand;

/* A new empty file for one process's stderr; its descriptor. */
static int new_capture(char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");

    snprintf(path, len, "%s/rdrand-warn-XXXXXX", dir != NULL ? dir : "/tmp");
    return mkstemp(path);
}

/*
 * Lines of the warn channel in the file at path, by kind: a fault's line
 * counts 1, a permanent verdict's line (which says the fault too) 100;
 * -1 if the file cannot be read.
 */
#define FAULT 1
#define PERMANENT 100
static int warnings(const char *path)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    int n = 0;

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "rdrand-provider: ", 17) == 0)
            n += strstr(line, "verdict on RDRAND is now permanent") != NULL
                     ? PERMANENT
                     : FAULT;
    fclose(f);
    return n;
}

/* A fresh context, ready to draw; NULL on failure. */
static EVP_RAND_CTX *new_ctx(void)
{
    EVP_RAND_CTX *ctx = EVP_RAND_CTX_new(rdrand, NULL);

    if (ctx != NULL && !EVP_RAND_instantiate(ctx, 256, 0, NULL, 0, NULL)) {
        EVP_RAND_CTX_free(ctx);
        ctx = NULL;
    }
    return ctx;
}

/* 0 when every one of REQUESTS requests failed (the CPU fails). */
static int fault(void)
{
    EVP_RAND_CTX *ctx = new_ctx();
    unsigned char buf[16];
    int served = ctx == NULL;

    for (int i = 0; ctx != NULL && i < REQUESTS; i++)
        served += EVP_RAND_generate(ctx, buf, sizeof(buf), 256, 0, NULL, 0);
    EVP_RAND_CTX_free(ctx);
    ERR_clear_error();
    return served;
}

static pthread_barrier_t start;

static void *fault_thread(void *arg)
{
    EVP_RAND_CTX *ctx = new_ctx();
    unsigned char buf[16];

    (void)arg;
    pthread_barrier_wait(&start); /* every thread's first request at once */
    if (ctx == NULL
        || EVP_RAND_generate(ctx, buf, sizeof(buf), 256, 0, NULL, 0))
        arg = &start; /* non-NULL: not the failure expected */
    EVP_RAND_CTX_free(ctx);
    ERR_clear_error();
    return arg;
}

/* 0 when THREADS threads each had their first request fail at once. */
static int fault_threads(void)
{
    pthread_t t[THREADS];
    int bad = pthread_barrier_init(&start, NULL, THREADS) != 0;

    for (int i = 0; !bad && i < THREADS; i++)
        bad = pthread_create(&t[i], NULL, fault_thread, NULL) != 0;
    for (int i = 0; !bad && i < THREADS; i++) {
        void *r;

        bad = pthread_join(t[i], &r) != 0 || r != NULL;
    }
    return bad;
}

/*
 * Run body in a child whose stderr goes to a file of its own: the
 * child's warning lines, or -1 when body failed or the child died.
 */
static int in_child(int (*body)(void))
{
    char path[256];
    int fd = new_capture(path, sizeof(path)), status, n = -1;
    pid_t pid;

    if (fd < 0)
        return -1;
    fflush(NULL);
    if ((pid = fork()) == 0) {
        if (dup2(fd, 2) < 0)
            _exit(1);
        n = body();
        fflush(stdout);
        _exit(n != 0);
    }
    close(fd);
    if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)
        && WEXITSTATUS(status) == 0)
        n = warnings(path);
    unlink(path);
    return n;
}

/* A child that faults, then has a child that faults. */
static int fault_and_fork(void)
{
    int bad = fault();

    return check(in_child(fault) == PERMANENT,
                 "a grandchild, its parent and grandparent faulted: the "
                 "permanent line")
               ? bad
               : 1;
}

int main(int argc, char **argv)
{
    char path[256];
    int fd = new_capture(path, sizeof(path)), n;
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov = NULL;

    if (argc != 2 || fd < 0 || libctx == NULL) {
        fprintf(stderr, "usage: test_warn_fork rdrand-sim.cnf "
                        "(RDRAND_SIM=fail-from=65)\n");
        return 2;
    }
    /* This process's own stderr, counted as its children's are. */
    if (dup2(fd, 2) < 0 || close(fd) < 0
        || !OSSL_LIB_CTX_load_config(libctx, argv[1])
        || (prov = OSSL_PROVIDER_load(libctx, MODULE)) == NULL
        || (rdrand = EVP_RAND_fetch(libctx, RDRAND_ALGORITHM_NAME,
                                    "provider=" MODULE))
               == NULL) {
        printf("not ok - cannot load %s with %s (OPENSSL_MODULES?)\n", MODULE,
               argv[1]);
        return 1;
    }
    check(warnings(path) == 0, "the load's self-test passed: no line yet");
    check(in_child(fault) == FAULT + PERMANENT,
          "a child of a parent that never faulted: one fault line, one "
          "permanent line");
    /*
     * Threads that fault at once: the permanent line once; the fault's
     * line at most once (a thread whose trip was the first may find the
     * verdict already permanent when it warns: the permanent line says
     * its fault too).
     */
    n = in_child(fault_threads);
    check(n == PERMANENT || n == FAULT + PERMANENT,
          "a child of a parent that never faulted, its threads faulting at "
          "once: the permanent line, at most one fault line");
    check(warnings(path) == 0, "the parent has not faulted: no line");
    check(fault() == 0 && warnings(path) == FAULT + PERMANENT,
          "the parent faults: one line of each kind");
    check(in_child(fault) == PERMANENT,
          "a child of a faulted parent: the permanent line");
    check(in_child(fault_and_fork) == PERMANENT,
          "a child of a faulted parent that forks: the permanent line");
    check(in_child(fault_threads) == PERMANENT,
          "a child of a faulted parent, its threads faulting at once: the "
          "permanent line");
    check(fault() == 0 && warnings(path) == FAULT + PERMANENT,
          "the parent faults again: still one line of each kind");
    unlink(path);
    EVP_RAND_free(rdrand);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
    printf("%s\n", failed ? "FAILED" : "all passed");
    return failed != 0;
}
