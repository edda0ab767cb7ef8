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
#include <openssl/rand.h>

#include "check_line.h"

#define WARNING "tables of words seen could not be shared"

/* EPERM for mmap with MAP_SHARED (or MAP_SHARED_VALIDATE), all else allowed. */
static int refuse_shared_mmap(void)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /* the flags' low half (little-endian) */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                 offsetof(struct seccomp_data, args) + 3 * sizeof(__u64)),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_SHARED, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof(filter) / sizeof(filter[0]), filter};

    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
           && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
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
        if (filtered) {
            if (!refuse_shared_mmap())
                _exit(3);
            p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
            if (p != MAP_FAILED || errno != EPERM)
                _exit(4); /* the filter does not do what it must */
        }
        if (!OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL)
            || RAND_bytes(buf, sizeof(buf)) != 1)
            _exit(1);
        _exit(0);
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
    return failed != 0;
}
