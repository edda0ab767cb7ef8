/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The errata warning as an application meets it: libcrypto loads
 * rdrand-sim.so from argv[1] (conf/rdrand-sim.cnf: warn = stderr) into
 * two library contexts, in a child process per simulated CPU.  A listed
 * CPU gives exactly one warning line on stderr and an unlisted one none;
 * the CPU parameters read as simulated and RAND_bytes is served.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

#define SIM_PROVIDER "rdrand-sim"

static const char *conf;

struct cpu_case {
    const char *spec;
    unsigned int family, model, stepping;
    const char *microcode, *errata;
    const char *warning; /* the one line's start, or NULL for none */
};

/* One library context as an application's: its config, params, a draw. */
static void load_and_check(const struct cpu_case *c)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov;
    unsigned int family = 0, model = 0, stepping = 0;
    const char *microcode = NULL, *errata = NULL;
    unsigned char buf[32];
    OSSL_PARAM params[] = {
        OSSL_PARAM_uint(RDRAND_PARAM_CPU_FAMILY, &family),
        OSSL_PARAM_uint(RDRAND_PARAM_CPU_MODEL, &model),
        OSSL_PARAM_uint(RDRAND_PARAM_CPU_STEPPING, &stepping),
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_CPU_MICROCODE, &microcode, 0),
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_CPU_ERRATA, &errata, 0),
        OSSL_PARAM_END};

    assert_non_null(libctx);
    assert_int_equal(OSSL_LIB_CTX_load_config(libctx, conf), 1);
    assert_non_null(prov = OSSL_PROVIDER_load(libctx, SIM_PROVIDER));
    assert_int_equal(OSSL_PROVIDER_get_params(prov, params), 1);
    assert_int_equal(family, c->family);
    assert_int_equal(model, c->model);
    assert_int_equal(stepping, c->stepping);
    assert_string_equal(microcode, c->microcode);
    assert_string_equal(errata, c->errata);
    /* A warning, not a refusal: the seed source serves. */
    assert_int_equal(RAND_bytes_ex(libctx, buf, sizeof(buf), 0), 1);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
}

/*
 * Two loads in a child whose stderr is a file, then that file's lines
 * counted here (and shown, if the child failed).
 */
static void run_case(const struct cpu_case *c)
{
    char path[] = "/tmp/rdrand-errata-XXXXXX", line[1024], first[1024] = "";
    int fd = mkstemp(path), status, lines = 0;
    FILE *err;
    pid_t pid;

    assert_true(fd >= 0);
    fflush(NULL);
    assert_true((pid = fork()) >= 0);
    if (pid == 0) {
        setenv("CMOCKA_TEST_ABORT", "1", 1);
        if (dup2(fd, STDERR_FILENO) < 0
            || setenv("RDRAND_SIM", c->spec, 1) != 0)
            _exit(1);
        load_and_check(c);
        load_and_check(c);
        fflush(NULL);
        _exit(0);
    }
    close(fd);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_non_null(err = fopen(path, "r"));
    assert_int_equal(unlink(path), 0);
    while (fgets(line, sizeof(line), err) != NULL) {
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fprintf(stderr, "  child: %s", line);
        if (strncmp(line, "rdrand-provider: ", 17) == 0 && lines++ == 0)
            memcpy(first, line, sizeof(line));
    }
    fclose(err);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("RDRAND_SIM \"%s\": the child failed (status 0x%x)", c->spec,
                 status);
    if (lines != (c->warning != NULL))
        fail_msg("RDRAND_SIM \"%s\": %d warning lines (first: %s), want %d",
                 c->spec, lines, first, c->warning != NULL);
    if (c->warning != NULL && strncmp(first, c->warning, strlen(c->warning)))
        fail_msg("RDRAND_SIM \"%s\": \"%s\" does not start \"%s\"", c->spec,
                 first, c->warning);
}

static void test_one_warning_per_process(void **state)
{
    static const struct cpu_case cases[] = {
        {"cpu=amd:17:71:0,microcode=8701013", 0x17, 0x71, 0, "0x8701013",
         "amd-17h-70h-7fh",
         "rdrand-provider: CPU erratum amd-17h-70h-7fh (AuthenticAMD "
         "family 17h model 71h stepping 0, microcode 0x8701013): "},
        {"cpu=amd:15:2:0", 0x15, 0x02, 0, "", "amd-15h-16h",
         "rdrand-provider: CPU erratum amd-15h-16h (AuthenticAMD family 15h "
         "model 02h stepping 0, microcode unknown): "},
        {"cpu=intel:6:8F:8,microcode=2b000603", 6, 0x8F, 8, "0x2b000603",
         "none", NULL},
        {"", 0x19, 0x11, 1, "", "none", NULL},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_case(&cases[i]);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_warning_per_process),
    };

    if (argc != 2) {
        fprintf(stderr, "usage: %s conf/rdrand-sim.cnf\n", argv[0]);
        return 2;
    }
    conf = argv[1];
    return cmocka_run_group_tests(tests, NULL, NULL);
}
