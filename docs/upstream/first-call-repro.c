/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RAND_bytes() as a process's first libcrypto call, with OPENSSL_CONF
 * naming a [random] seed source (first-call-repro.cnf: one that cannot be
 * fetched, so that using it fails loudly).
 *
 *   cc first-call-repro.c -o first-call-repro \
 *       $(pkg-config --cflags --libs libcrypto)
 *   export OPENSSL_CONF=first-call-repro.cnf
 *   openssl rand -hex 16         # fails
 *   ./first-call-repro           # 4.0.2: succeeds
 *   ./first-call-repro config    # fails
 *
 * "config" loads the configuration first.  On 4.0.2 the plain run
 * succeeds, seeded from the default seed source: the file's seed source
 * was never used (with the 0001 patch it fails, as "openssl rand" does).
 * Exit status: 0 if RAND_bytes used the configured seed source (failed
 * here), 1 if it did not, 2 on a setup error.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/rand.h>

int main(int argc, char **argv)
{
    unsigned char buf[16];
    int ok;

    if (argc > 1 && strcmp(argv[1], "config") == 0
        && !OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL)) {
        ERR_print_errors_fp(stderr);
        return 2;
    }
    ok = RAND_bytes(buf, sizeof(buf));
    printf("%s: RAND_bytes as the first RAND call returned %d: %s\n",
           OpenSSL_version(OPENSSL_VERSION), ok,
           ok == 1 ? "the configured seed source was NOT used"
                   : "the configured seed source was used (and failed)");
    ERR_print_errors_fp(stdout);
    return ok == 1;
}
