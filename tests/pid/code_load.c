/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test only: a program that loads rdrand.so in code, as the README's
 * example does, and draws (tests/cli/test_pid.sh).  No configuration.
 *   pid_code_load default  OSSL_PROVIDER_load(NULL, ...): the default
 *                          library context seeded from it (--pid: live)
 *   pid_code_load private  only into a library context of its own; the
 *                          default one, which RAND_bytes and TLS use,
 *                          seeded by the OS (--pid: not live)
 *   pid_code_load conf     as openssl.cnf (OPENSSL_CONF) says: one draw,
 *                          failed or not (a failing simulated CPU)
 * Built against the libcrypto under test, unlike the system's python3.
 * Prints "ready" and waits.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

int main(int argc, char **argv)
{
    unsigned char buf[32];
    OSSL_LIB_CTX *ctx = NULL;

    if (argc != 2
        || (strcmp(argv[1], "default") != 0 && strcmp(argv[1], "private") != 0
            && strcmp(argv[1], "conf") != 0))
        return 2;
    if (strcmp(argv[1], "conf") == 0) {
        if (!OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL))
            return 2;
        (void)RAND_bytes(buf, sizeof(buf)); /* may fail: that is the test */
        ERR_clear_error();
        goto ready;
    }
    if (strcmp(argv[1], "private") == 0
        && (RAND_bytes(buf, sizeof(buf)) != 1
            || (ctx = OSSL_LIB_CTX_new()) == NULL))
        return 2;
    if (OSSL_PROVIDER_load(ctx, RDRAND_PROVIDER_NAME) == NULL
        || OSSL_PROVIDER_load(ctx, "default") == NULL
        || !RAND_set_seed_source_type(ctx, RDRAND_ALGORITHM_NAME,
                                      RDRAND_PROPERTY_QUERY)
        || RAND_bytes_ex(ctx, buf, sizeof(buf), 0) != 1)
        return 2;
ready:
    puts("ready");
    fflush(stdout);
    pause();
    return 0;
}
