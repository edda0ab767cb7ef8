/* SPDX-License-Identifier: Apache-2.0 */
/*
 * provider/counters.c as the module has it, its three calls into
 * libcrypto's thread API through functions a test can make fail, and the
 * seam that starts its once over.
 */
#include <openssl/crypto.h>

#include "seams.h"

int rdrand_counters_claim_fails;

static int rdrand_counters_run_once(CRYPTO_ONCE *once, void (*init)(void))
{
    return rdrand_counters_claim_fails != 1
           && CRYPTO_THREAD_run_once(once, init);
}

static int rdrand_counters_init_local(CRYPTO_THREAD_LOCAL *key,
                                      void (*cleanup)(void *))
{
    return rdrand_counters_claim_fails != 2
           && CRYPTO_THREAD_init_local(key, cleanup);
}

static int rdrand_counters_set_local(CRYPTO_THREAD_LOCAL *key, void *val)
{
    return rdrand_counters_claim_fails != 3
           && CRYPTO_THREAD_set_local(key, val);
}

/* openssl/crypto.h is in already: only counters.c's calls are renamed. */
#define CRYPTO_THREAD_run_once rdrand_counters_run_once
#define CRYPTO_THREAD_init_local rdrand_counters_init_local
#define CRYPTO_THREAD_set_local rdrand_counters_set_local
#include "counters.c"

void rdrand_counters_forget(void)
{
    static const CRYPTO_ONCE fresh = CRYPTO_ONCE_STATIC_INIT;

    rdrand_ctr_once = fresh;
    rdrand_ctr_key_ok = 0;
}
