/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test only: a library that is not the module but exports a status block
 * of this version saying "live and healthy" (an instance loaded, seeds
 * served, none failed), as a process that wants root's rdrand-check
 * --pid to vouch for it could.  rdrand-check must not read it
 * (tests/cli/test_pid.sh).  Nothing of it is in the shipped module.
 */
#include "rdrand_status.h"

#if defined(PID_FORGED_TINY)
/* A symbol too small to hold even the header. */
__attribute__((visibility("default")))
uint64_t rdrand_status[2] = {RDRAND_STATUS_MAGIC};
#else
#if defined(PID_FORGED_PAD)
/* A block whose symbol is bigger than the block: the size it claims in
 * its header is not the one its module's symbol table gives. */
__attribute__((visibility("default"))) struct {
    struct rdrand_status b;
    char pad[64];
} rdrand_status = {{
#else
__attribute__((visibility("default"))) struct rdrand_status rdrand_status = {
#endif
                       .magic = RDRAND_STATUS_MAGIC,
                       .layout = RDRAND_STATUS_LAYOUT,
                       .size = sizeof(struct rdrand_status),
                       .version = RDRAND_PROVIDER_VERSION,
                       .live_instances = 1,
                       .rdrand_available = 1,
                       .counters_shared = {[RDRAND_STATUS_SEED_REQUESTS] = 1000,
                                           [RDRAND_STATUS_RDRAND_WORDS] = 6000,
                                           [RDRAND_STATUS_SEED_BYTES] = 48000},
#if defined(PID_FORGED_PAD)
                   },
                   {0}
#endif
};
#endif

/* What a provider module exports too. */
int OSSL_provider_init(void);
__attribute__((visibility("default"))) int OSSL_provider_init(void)
{
    return 0;
}
