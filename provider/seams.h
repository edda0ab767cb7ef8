/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test seams: nothing in the provider calls these, and the linker drops
 * them from rdrand.so (tests/check_module.sh asserts it).  Unit tests call them
 * when they start a new simulated CPU (a new stream of words) with no
 * other thread drawing.
 */
#ifndef RDRAND_SEAMS_H
#define RDRAND_SEAMS_H

/* The process's verdict (fault.c): no trips, no CoCo rules. */
void rdrand_fault_forget(void);

/* The self-test samples' digests and key (samples.c). */
void rdrand_samples_forget(void);
/* The windows exited threads handed over (handover.c). */
void rdrand_handover_forget(void);

/*
 * All the process remembers of the CPU: the calling thread's test state,
 * the verdict, the self-test samples and the handed-over windows.
 */
void rdrand_source_forget(void);

#endif
