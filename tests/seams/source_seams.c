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

void rdrand_source_seam_exit_key_again(int broken)
{
    static const CRYPTO_ONCE fresh = CRYPTO_ONCE_STATIC_INIT;

    rdrand_exit_once = fresh;
    rdrand_exit_key_ok = 0;
    rdrand_thread_wiped_at_exit = 0;
    if (broken) {
        /* made, then deleted behind the module's back */
        (void)CRYPTO_THREAD_run_once(&rdrand_exit_once, rdrand_exit_key_init);
        (void)CRYPTO_THREAD_cleanup_local(&rdrand_exit_key);
    }
}

int rdrand_source_seam_wiped_at_exit(void)
{
    return rdrand_thread_wiped_at_exit;
}
