/* SPDX-License-Identifier: Apache-2.0 */
/* provider/fault.c as the module has it, and the seams that forget the
 * process's verdict and stand in for a concurrent trip. */
#include "fault.c"

#include "seams.h"

void rdrand_fault_forget(void)
{
    atomic_store(&rdrand_verdict, 0);
    atomic_store(&rdrand_verdict_why, RDRAND_R_OK);
    atomic_store(&rdrand_verdict_last_reason, RDRAND_R_OK);
    atomic_store(&rdrand_verdict_last_words, 0);
    atomic_store(&rdrand_verdict_answered, 0);
}

void rdrand_fault_last_trip_at(uint64_t words)
{
    atomic_store(&rdrand_verdict_last_words, words);
}
