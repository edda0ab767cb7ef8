/* SPDX-License-Identifier: Apache-2.0 */
/* The real hardware behind provider/hw.h.  Linked into rdrand.so only. */
#include "hw.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>

int rdrand_hw_cpuid(uint32_t leaf, uint32_t subleaf, struct rdrand_cpuid *out)
{
    __cpuid_count(leaf, subleaf, out->eax, out->ebx, out->ecx, out->edx);
    return 1;
}

/* NOLINTNEXTLINE(readability-non-const-parameter): the asm writes *out */
int rdrand_hw_rdrand64(uint64_t *out)
{
    unsigned char ok;

    /* One execution; the carry flag is the hardware's verdict. */
    __asm__ __volatile__("rdrand %0; setc %1" : "=r"(*out), "=qm"(ok) : : "cc");
    return ok;
}
#else
/* No RDRAND off x86-64: the module loads and reports it unavailable. */
int rdrand_hw_cpuid(uint32_t leaf, uint32_t subleaf, struct rdrand_cpuid *out)
{
    (void)leaf, (void)subleaf;
    out->eax = out->ebx = out->ecx = out->edx = 0;
    return 0;
}

int rdrand_hw_rdrand64(uint64_t *out)
{
    *out = 0;
    return 0;
}
#endif

int rdrand_hw_path_exists(const char *path)
{
    struct stat st;

    if (stat(path, &st) == 0)
        return 1;
    return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
}

int rdrand_hw_fs_type(const char *path, uint64_t *type)
{
    struct statfs st;

    if (statfs(path, &st) == 0) {
        *type = (uint64_t)(unsigned long)st.f_type;
        return 1;
    }
    return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
}

ssize_t rdrand_hw_read_file(const char *path, void *buf, size_t len,
                            off_t offset)
{
    /* O_NONBLOCK: a FIFO bound over a kernel file must not hang a load. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    ssize_t n;

    if (fd < 0)
        return -1;
    do
        n = pread(fd, buf, len, offset);
    while (n < 0 && errno == EINTR);
    close(fd);
    return n;
}

/*
 * GRND_NONBLOCK (0x0001, linux/random.h): a seed request must not hang
 * until the pool is ready; before that it fails closed (EAGAIN), as the
 * operator asked for both.  The system call itself, not glibc's
 * getrandom(): from glibc 2.41 (Debian 13) that may run in the vDSO and,
 * on a thread's first call, block signals, take a lock and mmap its
 * state, system calls a sandbox allowing getrandom does not expect.
 */
ssize_t rdrand_hw_getrandom(void *buf, size_t len)
{
    return syscall(SYS_getrandom, buf, len, 0x0001);
}
