/* SPDX-License-Identifier: Apache-2.0 */
/* provider/handover.c as the module has it, and the seam that forgets the
 * handed-over windows. */
#include "handover.c"

#include "seams.h"

void rdrand_handover_forget(void)
{
    if (rdrand_handover_claim(RDRAND_HANDOVER_FULL)) {
        OPENSSL_cleanse(&rdrand_handover_windows,
                        sizeof(rdrand_handover_windows));
        atomic_store(&rdrand_handover_state, RDRAND_HANDOVER_EMPTY);
    }
}
