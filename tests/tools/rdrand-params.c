/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-params, the tests' probe (never installed): print a provider's
 * parameters (counters, state) as "name = value" lines, after optionally
 * drawing random bytes through the library's default context, in this
 * same process.  Operators have rdrand-check for this.
 *
 *   rdrand-params [-p NAME] [-l] [-n BYTES] [-r] [PARAM...]
 *     -p NAME   provider to query (default rdrand)
 *     -l        load it with OSSL_PROVIDER_load (else openssl.cnf must)
 *     -n BYTES  draw BYTES with RAND_bytes first
 *     -r        then one prediction-resistant request (forces a get_seed)
 *     PARAM     print only these parameters' values, one a line, in order
 *
 * The parameters are printed even when the draw failed (exit status 1).
 * Exit status: 0 ok, 1 an OpenSSL call failed, 2 usage, 3 provider absent.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

static int print_param(OSSL_PROVIDER *prov, const OSSL_PARAM *known,
                       int value_only)
{
    uint64_t u = 0;
    int64_t i = 0;
    const char *s = NULL;
    OSSL_PARAM params[2] = {OSSL_PARAM_END, OSSL_PARAM_END};

    switch (known->data_type) {
    case OSSL_PARAM_UNSIGNED_INTEGER:
        params[0] = OSSL_PARAM_construct_uint64(known->key, &u);
        break;
    case OSSL_PARAM_INTEGER:
        params[0] = OSSL_PARAM_construct_int64(known->key, &i);
        break;
    case OSSL_PARAM_UTF8_PTR:
        params[0] = OSSL_PARAM_construct_utf8_ptr(known->key, (char **)&s, 0);
        break;
    default:
        return 1; /* nothing of another type is served */
    }
    if (!OSSL_PROVIDER_get_params(prov, params))
        return 0;
    if (!value_only)
        printf("%s = ", known->key);
    if (known->data_type == OSSL_PARAM_UNSIGNED_INTEGER)
        printf("%" PRIu64 "\n", u);
    else if (known->data_type == OSSL_PARAM_INTEGER)
        printf("%" PRId64 "\n", i);
    else
        printf("%s\n", s != NULL ? s : "");
    return 1;
}

static int usage(FILE *to, const char *argv0)
{
    fprintf(to, "usage: %s [-p NAME] [-l] [-n BYTES] [-r] [PARAM...]\n", argv0);
    return to == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    /* Before getopt: -h and --help are no options of the old line. */
    for (int a = 1; a < argc && strcmp(argv[a], "--") != 0; a++)
        if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0)
            return usage(stdout, argv[0]);

    const char *name = RDRAND_PROVIDER_NAME;
    long nbytes = 0;
    int load = 0, predict = 0, opt, ok = 1, drew;
    char *end;
    OSSL_PROVIDER *prov;
    const OSSL_PARAM *known;

    while ((opt = getopt(argc, argv, "p:ln:r")) != -1) {
        switch (opt) {
        case 'p':
            name = optarg;
            break;
        case 'l':
            load = 1;
            break;
        case 'n':
            nbytes = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || nbytes < 1
                || nbytes > 1 << 20) {
                fprintf(stderr, "-n wants a byte count from 1 to %d\n",
                        1 << 20);
                return 2;
            }
            break;
        case 'r':
            predict = 1;
            break;
        default:
            return usage(stderr, argv[0]);
        }
    }
    prov = load ? OSSL_PROVIDER_load(NULL, name) : NULL;
    if (!load && OSSL_PROVIDER_available(NULL, name))
        prov = OSSL_PROVIDER_load(NULL, name); /* a reference to it */
    if (prov == NULL) {
        fprintf(stderr, "provider %s is not loaded\n", name);
        ERR_print_errors_fp(stderr);
        return 3;
    }
    if (nbytes > 0) {
        unsigned char *buf = malloc((size_t)nbytes);

        ok = buf != NULL && RAND_bytes(buf, (int)nbytes) == 1;
        free(buf);
    }
    if (ok && predict) {
        unsigned char buf[32];

        ok = EVP_RAND_generate(RAND_get0_public(NULL), buf, sizeof(buf), 0, 1,
                               NULL, 0);
    }
    known = OSSL_PROVIDER_gettable_params(prov);
    /* Print even after a failed draw: the counters say what happened. */
    drew = ok;
    ok = 1;
    if (optind == argc) {
        for (const OSSL_PARAM *k = known; ok && k && k->key != NULL; k++)
            ok = print_param(prov, k, 0);
    }
    for (int a = optind; ok && a < argc; a++) {
        const OSSL_PARAM *k = OSSL_PARAM_locate_const(known, argv[a]);

        if (k == NULL) {
            fprintf(stderr, "%s has no parameter %s\n", name, argv[a]);
            ok = 0;
        } else {
            ok = print_param(prov, k, 1);
        }
    }
    if (!ok || !drew)
        ERR_print_errors_fp(stderr);
    OSSL_PROVIDER_unload(prov);
    return ok && drew ? 0 : 1;
}
