/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The only door to the hardware and the platform.
 *
 * Everything the provider learns about the machine (CPUID, the RDRAND
 * instruction, the kernel's files for confidential-computing detection)
 * comes through these six functions, and so does the OS's entropy
 * (mix = os).  provider/hw_x86.c implements them
 * with the real instructions and system calls and is linked only into
 * rdrand.so; tests/sim/hw_sim.c implements them as a simulated CPU and is
 * linked only into test binaries and tests/rdrand-sim.so.  Nothing else in
 * provider/ executes an instruction or opens a file.
 */
#ifndef RDRAND_HW_H
#define RDRAND_HW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rdrand_cpuid {
    uint32_t eax, ebx, ecx, edx;
};

/* CPUID(leaf, subleaf). Returns 1, or 0 where the CPU has no CPUID. */
int rdrand_hw_cpuid(uint32_t leaf, uint32_t subleaf, struct rdrand_cpuid *out);

/*
 * A feature bit of CPUID leaf 1 ECX (30: RDRAND, 25: AES-NI), through
 * rdrand_hw_cpuid: 0 where there is no CPUID or no leaf 1.
 */
static inline int rdrand_hw_leaf1_ecx(unsigned int bit)
{
    struct rdrand_cpuid leaf0, leaf1;

    if (!rdrand_hw_cpuid(0, 0, &leaf0) || leaf0.eax < 1)
        return 0;
    /* A CPU has CPUID or not, whatever the leaf: leaf 0 answered. */
    (void)rdrand_hw_cpuid(1, 0, &leaf1);
    return (leaf1.ecx >> bit & 1) != 0;
}

/*
 * Execute RDRAND exactly once (64-bit operand form).  Returns the carry
 * flag: 1 means *out holds a fresh word, 0 means the instruction reported
 * failure (and *out is 0).  Callers must have checked CPUID first.
 */
int rdrand_hw_rdrand64(uint64_t *out);

/* 1: the path exists, 0: it does not (ENOENT/ENOTDIR), -1: cannot tell. */
int rdrand_hw_path_exists(const char *path);

/*
 * The type (statfs f_type) of the filesystem path lives on, in *type.
 * 1: read, 0: no such path (ENOENT/ENOTDIR), -1: cannot tell.
 */
int rdrand_hw_fs_type(const char *path, uint64_t *type);

/*
 * Read up to len bytes at offset from path (pread semantics).
 * Returns the byte count, or -1 on any error (missing, permission, ...).
 */
ssize_t rdrand_hw_read_file(const char *path, void *buf, size_t len,
                            off_t offset);

/*
 * One getrandom(2) call, GRND_NONBLOCK, never retried (mix = os,
 * docs/mix.md): the byte count it returned (possibly short), or -1 with
 * errno set (EAGAIN before the kernel's pool is initialised, ENOSYS,
 * EPERM under a seccomp filter, ...).
 */
ssize_t rdrand_hw_getrandom(void *buf, size_t len);

#endif
