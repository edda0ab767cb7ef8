/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test seams: what only tests call, to start a new simulated CPU (a new
 * stream of words) with no other thread drawing.  Each is defined in
 * tests/seams/<file>_seams.c, which compiles the module's own
 * provider/<file>.c as it is (an #include) and adds the function that
 * reaches its state; the unit tests link those objects instead of the
 * module's (CMakeLists.txt, rdrand_core_seams), and rdrand.so is built
 * from the module's sources alone (tests/check_module.sh checks it
 * carries none of these).
 */
#ifndef RDRAND_SEAMS_H
#define RDRAND_SEAMS_H

#include <stddef.h>
#include <stdint.h>

struct dl_phdr_info;
struct rdrand_status;

/*
 * copies.c's steps on an object a test describes: rdrand_copies_maps and
 * rdrand_copies_build_id as they are; the addresses of this copy's mark
 * and status block; the first walk's step (*base and the build id it
 * found, *id NULL for none); the second walk's step with this copy at
 * load address 0 and build id id (*home: the holder's block it found,
 * *holder: this copy's mark after it, from 1); the whole search through
 * dl_iterate_phdr (the block it found, *holder: this copy's mark), which
 * then forgets what it found.
 */
int rdrand_copies_seam_maps(const struct dl_phdr_info *info, uintptr_t off,
                            size_t len, int writable);
int rdrand_copies_seam_build_id(const struct dl_phdr_info *info,
                                const unsigned char **id, size_t *id_len);
void rdrand_copies_seam_layout(uintptr_t *mark, uintptr_t *block);
int rdrand_copies_seam_self(struct dl_phdr_info *info, uintptr_t *base,
                            const unsigned char **id, size_t *id_len);
int rdrand_copies_seam_visit(struct dl_phdr_info *info, const unsigned char *id,
                             size_t id_len, struct rdrand_status **home,
                             int *holder);
struct rdrand_status *rdrand_copies_seam_find(int *holder);

/* The process's verdict (fault.c): no trips, no CoCo rules. */
void rdrand_fault_forget(void);
/*
 * The words count the last trip left (fault.c), as a trip on another
 * thread that read the counter after this thread's next trip read it,
 * but swapped first, leaves it: above the count that trip will read.
 */
void rdrand_fault_last_trip_at(uint64_t words);

/*
 * The self-test samples' digests and key (seen.c).  The table is
 * shared with fork()ed relatives: no other process of the tree may be
 * drawing (a test's child forgetting wipes its parent's table too).
 */
void rdrand_seen_forget(void);
/*
 * The process's key unset (as where the OS gave none), and a half of it
 * set as the load or a sample sets it (the half it is then).
 */
void rdrand_seen_seam_unkey(void);
uint64_t rdrand_seen_seam_key_half(int i, uint64_t candidate);
/* The windows exited threads handed over (handover.c). */
void rdrand_handover_forget(void);

/*
 * All the process remembers of the CPU: the calling thread's test state,
 * the verdict, the self-test samples and the handed-over windows.
 */
void rdrand_source_forget(void);
/*
 * The thread-local key that wipes a thread's state at its exit (source.c)
 * made again at the next self-test, as at the first load; broken: made
 * now and deleted (CRYPTO_THREAD_set_local then fails).  Whether the
 * calling thread's state is set to be wiped at its exit.
 */
void rdrand_source_seam_exit_key_again(int broken);
int rdrand_source_seam_wiped_at_exit(void);

/*
 * counters.c's slot claims from now on meet a failure of libcrypto's
 * thread API: 1 CRYPTO_THREAD_run_once, 2 CRYPTO_THREAD_init_local, 3
 * CRYPTO_THREAD_set_local (0: none).
 */
extern int rdrand_counters_claim_fails;
/*
 * counters.c's once started over: the next thread's claim makes its key
 * again (the threads holding a slot free it at exit, as before).
 */
void rdrand_counters_forget(void);

#endif
