/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test seams: nothing in the provider calls the void ones, and the
 * linker drops them from rdrand.so (tests/check_module.sh asserts it).  Unit
 * tests call them when they start a new simulated CPU (a new stream of words)
 * with no other thread drawing.
 */
#ifndef RDRAND_SEAMS_H
#define RDRAND_SEAMS_H

#include <stddef.h>

/* The process's verdict (fault.c): no trips, no CoCo rules. */
void rdrand_fault_forget(void);

/*
 * The self-test samples' digests and key (seen.c).  The table is
 * shared with fork()ed relatives: no other process of the tree may be
 * drawing (a test's child forgetting wipes its parent's table too).
 */
void rdrand_seen_forget(void);
/* The windows exited threads handed over (handover.c). */
void rdrand_handover_forget(void);

/*
 * Not test-only, but called from outside its file only by tests (which
 * hand it their own scratch to see it wiped) and bench/: the CoCo check's draw
 * (coco_policy.c), into scratch (at least coco_seed_bits / 8 bytes),
 * wiped before it returns.  RDRAND_R_OK or the reason.
 */
struct rdrand_prov;
int rdrand_coco_seed_check(struct rdrand_prov *prov, unsigned char *scratch,
                           size_t scratch_len);

/*
 * All the process remembers of the CPU: the calling thread's test state,
 * the verdict, the self-test samples and the handed-over windows.
 */
void rdrand_source_forget(void);

#endif
