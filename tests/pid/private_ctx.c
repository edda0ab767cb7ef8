/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test only: a program whose default library context is seeded by the OS
 * (no configuration) and which loads rdrand.so only into a library context
 * of its own, seeded from it there.  rdrand-check --pid must not call it
 * seeded: RAND_bytes and TLS use the default context
 * (tests/cli/test_pid.sh).  Prints "ready" and waits.
 */
#include <stdio.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

int main(void)
{
    unsigned char buf[32];
    OSSL_LIB_CTX *mine = OSSL_LIB_CTX_new();

    if (RAND_bytes(buf, sizeof(buf)) != 1 || mine == NULL
        || OSSL_PROVIDER_load(mine, RDRAND_PROVIDER_NAME) == NULL
        || OSSL_PROVIDER_load(mine, "default") == NULL
        || !RAND_set_seed_source_type(mine, RDRAND_ALGORITHM_NAME,
                                      RDRAND_PROPERTY_QUERY)
        || RAND_bytes_ex(mine, buf, sizeof(buf), 0) != 1)
        return 2;
    puts("ready");
    fflush(stdout);
    pause();
    return 0;
}
