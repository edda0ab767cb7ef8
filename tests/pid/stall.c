/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test only: a process that loads the module with dlopen, then puts its
 * status block's pages behind userfaultfd and never serves the fault,
 * so that any read of them (process_vm_readv included) blocks for good.
 * rdrand-check --pid must give up at its deadline (tests/cli/test_pid.sh).
 * Usage: pid_stall MODULE; prints "ready" and waits; exits 3 where
 * userfaultfd cannot catch the kernel's faults here (the test skips).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rdrand_status.h"

int main(int argc, char **argv)
{
    const uintptr_t page = 4096;
    struct uffdio_api api = {.api = UFFD_API};
    struct uffdio_register reg = {.mode = UFFDIO_REGISTER_MODE_MISSING};
    void *module, *block;
    uintptr_t lo, hi;
    int uffd;

    if (argc != 2 || (module = dlopen(argv[1], RTLD_NOW)) == NULL
        || (block = dlsym(module, RDRAND_STATUS_SYMBOL)) == NULL)
        return 2;
    lo = (uintptr_t)block & ~(page - 1);
    hi = ((uintptr_t)block + sizeof(struct rdrand_status) + page - 1)
         & ~(page - 1);
    /* Fresh anonymous pages (the .bss kind), never touched. */
    if (mmap((void *)lo, hi - lo, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
        == MAP_FAILED)
        return 2;
    uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
    reg.range.start = lo;
    reg.range.len = hi - lo;
    if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) != 0
        || ioctl(uffd, UFFDIO_REGISTER, &reg) != 0)
        return 3;
    puts("ready");
    fflush(stdout);
    pause();
    return 0;
}
