/* SPDX-License-Identifier: Apache-2.0 */
/* provider/source.c as the module has it, and the seam that forgets all of the
 * above and the calling thread's state. */
#include "source.c"

#include "seams.h"

void rdrand_source_forget(void)
{
    rdrand_health_init(&rdrand_thread_health);
    rdrand_fault_forget();
    rdrand_seen_forget();
    rdrand_handover_forget();
}
