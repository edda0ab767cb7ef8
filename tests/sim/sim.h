/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated CPU behind provider/hw.h, for test builds only.
 * Grammar of RDRAND_SIM (comma-separated key=value items, every item
 * optional, each key at most once, no empty item, no spaces):
 *   cpuid=present|absent|leaf0
 *                           absent: every CPUID leaf answers 0 with zeros,
 *                           as where the CPU has no CPUID (hw.h); leaf0:
 *                           leaf 0's EAX (the highest basic leaf) is 0,
 *                           so leaf 1 is not announced (default present)
 *   rdrand=present|absent   CPUID leaf 1 ECX bit 30 (default present)
 *   aesni=present|absent    CPUID leaf 1 ECX bit 25 (default present); the
 *                           provider's AES-NI code runs on the real
 *                           CPU, which must have AES-NI
 *   fail-at=N               the N-th RDRAND execution (1-based) returns CF=0
 *   fail-from=N             executions N, N+1, ... return CF=0
 *   fail-while=PATH         every execution returns CF=0 while the file
 *                           PATH (absolute, under 256 bytes) exists: a
 *                           CPU that breaks and recovers for every
 *                           process at once (a test creates and removes
 *                           the file)
 *   stream=shared|process   where the stream's position lives (the
 *                           execution count that fail-at=, fail-from=,
 *                           words=, cycle=, every= and clean= go by,
 *                           and the default generator's state):
 *                           shared, in memory
 *                           shared with fork()ed children, so that a
 *                           child draws the CPU's next words and never
 *                           its parent's or a sibling's again, as on a
 *                           real CPU; process (the default): each
 *                           process's own from the fork on, so that a
 *                           child replays what its parent draws next.
 *                           Read when the module or program is loaded:
 *                           the children of a process that loads it
 *                           before forking share one page
 *   value=HEX               every execution returns this word with CF=1;
 *                           HEX is 1 to 16 hex digits, no 0x, no sign
 *   words=FILE              replay FILE (a regular file) in a loop
 *   cycle=P                 a cycle: P good words, repeated (execution
 *                           n gives good word 1 + (n - 1) mod P); P is
 *                           decimal digits, 1 to 4294967296 (2^32)
 *   every=N:HEX             every N-th execution (N, 2N, ...) returns
 *                           HEX, every other one good word n; N as
 *                           below, HEX as value='s (every=1:HEX is
 *                           value=HEX)
 *   clean=C                 the first C executions return good words
 *                           1..C, then the defect value=, words=,
 *                           cycle= or every= gives (one of them is
 *                           needed) starts: execution C + k is its k-th
 *                           (value=; words='s k-th line; cycle=P: good
 *                           word C + 1 + (k - 1) mod P, so the cycle's
 *                           words are not the clean ones; every=N:HEX:
 *                           HEX where N divides k, else good word
 *                           C + k); C as N below
 *                 Good word i (from 1) is splitmix64's i-th output, as
 *                 the default stream gives them (all distinct).  The
 *                 words of cycle=, every= and clean= are a function of
 *                 the execution's number alone, counted as fail-at=
 *                 counts (a failing execution's word is never given): a
 *                 stream=shared tree of processes, or threads, draw one
 *                 stream.  value=, words=, cycle= and every= each give
 *                 the words: at most one of them.
 *   coco=PLATFORM           CPUID leaves and files of that kind of guest
 *   cpu=VENDOR:FAMILY:MODEL:STEPPING
 *                           CPUID leaf 0's vendor (amd: AuthenticAMD,
 *                           intel: GenuineIntel) and leaf 1 EAX's
 *                           signature, whatever coco= says.  FAMILY
 *                           (0-10E), MODEL (0-FF) and STEPPING (0-F) are
 *                           hex digits, no 0x, as AMD and Linux write
 *                           them (amd:17:71:0 is family 23, model 113);
 *                           a MODEL above F needs a family that has
 *                           extended models (amd: 0F and above; intel: 6,
 *                           0F and above).  Default: amd:19:11:1, or
 *                           intel:6:8F:8 where coco= is an Intel guest
 *                           (a platform's own leaf 1 wins over both)
 *   microcode=HEX           /sys/devices/system/cpu/cpu0/microcode/version
 *                           reads "0x<hex>\n" as Linux writes it; HEX is 1
 *                           to 8 hex digits, no 0x.  Default: no such
 *                           file, as in a virtual machine
 *   microcode-text=TEXT     the same file reads TEXT as it is (no 0x, no
 *                           newline added): 1 to 31 characters, for a file
 *                           no kernel writes; not with microcode=
 *   os-value=HEX            every byte the OS's getrandom gives is this
 *                           one (1 or 2 hex digits, no 0x); os-value=count:
 *                           byte i of the OS's stream (across reads, from
 *                           0 at configure) is i mod 256; default: the
 *                           real getrandom(2), GRND_NONBLOCK
 *   os-fail-at=N            the N-th getrandom read (1-based) fails
 *   os-fail-from=N          reads N, N+1, ... fail
 *   os-errno=NAME           the errno of a failing read: EAGAIN (the
 *                           default), ENOSYS, EPERM, EINTR, EFAULT, EINVAL
 *   os-short-at=N           the N-th read returns one byte fewer than asked
 * N is decimal digits only (at least 1, at most 20, nonzero).  A words
 * FILE holds one word per line, each line exactly "<16 hex digits>" or
 * "<16 hex digits> fail" (one space; no tab, no other trailing
 * character, no CR) ended by a newline (the last line may omit it);
 * empty lines and lines starting with '#' are skipped; no NUL byte
 * anywhere; at least one word.  Anything else is refused with a message
 * naming the item (and the line).
 * Unset or empty: a working RDRAND returning a deterministic splitmix64
 * stream (seed fixed, so runs are repeatable): the good words, the i-th
 * word drawn the i-th (failing executions take none).
 */
#ifndef RDRAND_SIM_H
#define RDRAND_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hw.h"

/*
 * Replace the simulated CPU with the one spec describes and reset the
 * execution count.  Returns 1, or 0 with a message in err for a bad spec
 * (the previous configuration is then kept).
 */
int rdrand_sim_configure(const char *spec, char *err, size_t errlen);
/* RDRAND executions since the last configure. */
uint64_t rdrand_sim_executions(void);
/* getrandom reads (the OS's entropy) since the last configure. */
uint64_t rdrand_sim_os_reads(void);
/*
 * Unit tests only: call fn(arg) just before the n-th execution (counted
 * as rdrand_sim_executions) returns, to inject an event from "another
 * thread" at an exact point.  Cleared by rdrand_sim_configure.
 */
void rdrand_sim_at_execution(uint64_t n, void (*fn)(void *), void *arg);

/* tests/sim/sim_coco.c: the guest platforms the simulated CPU can be. */
/* Select a platform by name; returns 1, or 0 for an unknown name. */
int rdrand_sim_coco_select(const char *name);
/* Names accepted by rdrand_sim_coco_select, for error messages. */
const char *rdrand_sim_coco_names(void);
/* 1 and *out filled if the selected platform defines this CPUID leaf. */
int rdrand_sim_coco_cpuid(uint32_t leaf, uint32_t subleaf,
                          struct rdrand_cpuid *out);
/* The platform's answer as rdrand_hw_path_exists, or -2: not its concern. */
int rdrand_sim_coco_path_exists(const char *path);
/* As rdrand_hw_fs_type, or -2: not its concern. */
int rdrand_sim_coco_fs_type(const char *path, uint64_t *type);
/* As rdrand_hw_read_file, or -2: not its concern. */
ssize_t rdrand_sim_coco_read_file(const char *path, void *buf, size_t len,
                                  off_t offset);

#endif
