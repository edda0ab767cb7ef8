/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The real platform door (provider/hw_x86.c, which rdrand.so links
 * instead of the simulated CPU) on this machine's files: a path that
 * exists, one that does not (ENOENT, ENOTDIR), one that cannot be told
 * (a symbolic link loop, ELOOP); a file read at an offset, a directory
 * (EISDIR), and a read interrupted by a signal (EINTR, from a seccomp
 * supervisor answering the first pread64 so), which is retried.  The
 * CPUID and RDRAND instructions are not run here (the simulated CPU's
 * tests and test_real_cpu cover their callers).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "hw.h"

static char dir[64], file[96], under_file[112], loop[96], missing[96];

static int setup(void **state)
{
    FILE *f;

    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/rdrand-hw-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(file, sizeof(file), "%s/file", dir);
    snprintf(under_file, sizeof(under_file), "%s/file/x", dir);
    snprintf(loop, sizeof(loop), "%s/loop", dir);
    snprintf(missing, sizeof(missing), "%s/missing", dir);
    if ((f = fopen(file, "w")) == NULL || fputs("hello", f) < 0
        || fclose(f) != 0 || symlink("loop", loop) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(loop);
    unlink(file);
    return rmdir(dir);
}

static void test_path_exists(void **state)
{
    (void)state;
    assert_int_equal(rdrand_hw_path_exists(dir), 1);
    assert_int_equal(rdrand_hw_path_exists(file), 1);
    assert_int_equal(rdrand_hw_path_exists(missing), 0);    /* ENOENT */
    assert_int_equal(rdrand_hw_path_exists(under_file), 0); /* ENOTDIR */
    assert_int_equal(rdrand_hw_path_exists(loop), -1);      /* ELOOP */
}

static void test_fs_type(void **state)
{
    uint64_t type = 0;

    (void)state;
    assert_int_equal(rdrand_hw_fs_type(file, &type), 1);
    assert_int_not_equal(type, 0);
    type = 7;
    assert_int_equal(rdrand_hw_fs_type(missing, &type), 0);
    assert_int_equal(rdrand_hw_fs_type(under_file, &type), 0);
    assert_int_equal(rdrand_hw_fs_type(loop, &type), -1);
    assert_int_equal(type, 7); /* untouched where not read */
}

static void test_read_file(void **state)
{
    char buf[8] = {0};

    (void)state;
    assert_int_equal(rdrand_hw_read_file(file, buf, sizeof(buf), 1), 4);
    assert_memory_equal(buf, "ello", 4);
    assert_int_equal(rdrand_hw_read_file(missing, buf, sizeof(buf), 0), -1);
    assert_int_equal(rdrand_hw_read_file(dir, buf, sizeof(buf), 0), -1);
}

/*
 * The supervisor of the filtered thread's pread64 calls: the first is
 * answered EINTR, the others run as asked.  How many it saw.
 */
struct supervisor {
    int fd;
    atomic_int seen; /* the kernel orders it; TSan cannot see that */
};

static void *supervise(void *arg)
{
    struct supervisor *s = arg;
    struct seccomp_notif req;
    struct seccomp_notif_resp resp;

    for (;;) {
        memset(&req, 0, sizeof(req));
        if (ioctl(s->fd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
            return NULL; /* the filtered thread is gone */
        memset(&resp, 0, sizeof(resp));
        resp.id = req.id;
        if (atomic_fetch_add(&s->seen, 1) == 0)
            resp.error = -EINTR;
        else
            resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        if (ioctl(s->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0)
            return NULL;
    }
}

/* In a child: 0 if the read came back whole after one EINTR. */
static int interrupted_read(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pread64, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
    struct supervisor s = {.fd = -1};
    pthread_t t;
    char buf[8] = {0};
    ssize_t n;

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return 2;
    /*
     * Before the supervisor starts, so it inherits the filter too; it
     * never calls pread64, so nothing of it is ever held.
     */
    s.fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                        SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (s.fd < 0)
        return 3;
    if (pthread_create(&t, NULL, supervise, &s) != 0)
        return 4;
    n = rdrand_hw_read_file(file, buf, sizeof(buf), 0);
    if (n != 5 || memcmp(buf, "hello", 5) != 0)
        return 5;
    if (atomic_load(&s.seen) != 2)
        return 6; /* interrupted once, then read */
    return 0;
}

static void test_read_file_interrupted(void **state)
{
    int status = 0;
    pid_t pid;

    (void)state;
    fflush(NULL);
    pid = fork();
    if (pid == 0)
        exit(interrupted_read()); /* exit: a coverage build writes counts */
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    /* Not a skip: Debian 12 and 13's kernels have both (5.0, 5.5). */
    if (WEXITSTATUS(status) == 2 || WEXITSTATUS(status) == 3)
        fail_msg("this kernel or container gives no seccomp user "
                 "notification listener (Linux 5.0+, none already set): "
                 "the interrupted read cannot be made here");
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_exists),
        cmocka_unit_test(test_fs_type),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_read_file_interrupted),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
