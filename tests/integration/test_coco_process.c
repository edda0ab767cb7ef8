/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CoCo verdict is the process's, through the
 * real libcrypto and the simulated-CPU module: once any instance enforces
 * CoCo rules (here coco = require on a CPU whose guest is hidden), a
 * failed check, or a fault met later by any instance, binds every
 * instance, every later load (from code, without a config section, in
 * any library context) and every request.  Each scenario runs in its own
 * process: the verdict cannot be reset.
 *
 * argv[1]: the path of rdrand-sim.so.
 */
#define _GNU_SOURCE
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

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

#define SELFTEST 64 /* words of the startup self-test at every load */
#define CONF_NAME "rdrand-sim"

static const char *module_path;

/* A library context configured with one rdrand-sim section of keys. */
static OSSL_LIB_CTX *configured_libctx(const char *keys)
{
    char path[] = "/tmp/rdrand-coco-process-XXXXXX";
    OSSL_LIB_CTX *libctx;
    FILE *f;
    int fd;

    assert_true((fd = mkstemp(path)) >= 0);
    assert_non_null(f = fdopen(fd, "w"));
    fprintf(f,
            "openssl_conf = init\n[init]\nproviders = provs\n"
            "[provs]\n" CONF_NAME " = rdrand_sect\ndefault = default_sect\n"
            "[default_sect]\nactivate = 1\n"
            "[rdrand_sect]\nmodule = %s\nactivate = 1\nwarn = none\n%s",
            module_path, keys);
    assert_int_equal(fclose(f), 0);
    assert_non_null(libctx = OSSL_LIB_CTX_new());
    (void)OSSL_LIB_CTX_load_config(libctx, path); /* fails if refused */
    ERR_clear_error();
    assert_int_equal(unlink(path), 0);
    return libctx;
}

/* A library context from code, with the default provider (CTR-DRBG). */
static OSSL_LIB_CTX *code_libctx(void)
{
    OSSL_LIB_CTX *libctx;

    assert_non_null(libctx = OSSL_LIB_CTX_new());
    assert_non_null(OSSL_PROVIDER_load(libctx, "default"));
    return libctx;
}

/* Loaded from code, by path: no config section reaches this instance. */
static OSSL_PROVIDER *load_from_code(OSSL_LIB_CTX *libctx)
{
    OSSL_PROVIDER *p = OSSL_PROVIDER_load(libctx, module_path);

    ERR_clear_error();
    return p;
}

static int get_int(OSSL_PROVIDER *p, const char *name)
{
    int v = -1;
    OSSL_PARAM params[] = {OSSL_PARAM_int(name, &v), OSSL_PARAM_END};

    assert_int_equal(OSSL_PROVIDER_get_params(p, params), 1);
    return v;
}

static const char *get_text(OSSL_PROVIDER *p, const char *name)
{
    const char *v = NULL;
    OSSL_PARAM params[] = {OSSL_PARAM_utf8_ptr(name, (char **)&v, 0),
                           OSSL_PARAM_END};

    assert_int_equal(OSSL_PROVIDER_get_params(p, params), 1);
    return v;
}

/* RAND_bytes_ex seeded by RDRAND in a library context: 1 if served. */
static int seeded_bytes(OSSL_LIB_CTX *libctx)
{
    unsigned char buf[32];
    int ok = RAND_set_seed_source_type(libctx, RDRAND_ALGORITHM_NAME, NULL)
             && RAND_bytes_ex(libctx, buf, sizeof(buf), 0) == 1;

    ERR_clear_error();
    return ok;
}

/* Every way to be served after the verdict: none works. */
static void nothing_serves(OSSL_LIB_CTX *configured)
{
    OSSL_LIB_CTX *fresh;
    OSSL_PROVIDER *p;

    /* Another instance in the same library context, from code. */
    if ((p = load_from_code(configured)) != NULL) {
        assert_int_equal(get_int(p, OSSL_PROV_PARAM_STATUS), 0);
        assert_string_equal(get_text(p, RDRAND_PARAM_HEALTH_VERDICT),
                            "permanent");
        assert_int_equal(get_int(p, RDRAND_PARAM_COCO_ENFORCED), 1);
        OSSL_PROVIDER_unload(p);
    }
    /* A new library context: refused (the default on_coco_failure). */
    fresh = code_libctx();
    assert_null(p = load_from_code(fresh));
    /* 3.x then seeds from the OS (visible: the warning); 4.0 fails. */
    if (OpenSSL_version_num() >= 0x40000000L)
        assert_int_equal(seeded_bytes(fresh), 0);
    OSSL_LIB_CTX_free(fresh);
}

typedef void scenario_fn(void);

static void in_child(scenario_fn *fn, const char *sim)
{
    pid_t pid;

    fflush(stdout); /* cmocka's buffered lines: printed once, here */
    pid = fork();
    int status = 0;

    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("RDRAND_SIM", sim, 1);
        fn();
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("scenario failed in the child (status 0x%x)", status);
}

/* The check at load fails (CF=0 in its 256 bits); refuse. */
static void refused_check(void)
{
    OSSL_LIB_CTX *configured = configured_libctx("coco = require\n");

    assert_int_equal(OSSL_PROVIDER_available(configured, CONF_NAME), 0);
    nothing_serves(configured);
    OSSL_LIB_CTX_free(configured);
}

static void test_refused_check_binds_every_load(void **state)
{
    char sim[32];

    (void)state;
    snprintf(sim, sizeof(sim), "fail-at=%d", SELFTEST + 1);
    in_child(refused_check, sim);
}

/* The same with on_coco_failure = fail-closed: loaded, latched. */
static void latched_check(void)
{
    OSSL_LIB_CTX *configured =
        configured_libctx("coco = require\non_coco_failure = fail-closed\n");
    OSSL_PROVIDER *p;

    assert_non_null(p = OSSL_PROVIDER_load(configured, CONF_NAME));
    assert_int_equal(get_int(p, OSSL_PROV_PARAM_STATUS), 0);
    assert_int_equal(seeded_bytes(configured), 0);
    nothing_serves(configured);
    OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(configured);
}

static void test_latched_check_binds_every_load(void **state)
{
    char sim[32];

    (void)state;
    snprintf(sim, sizeof(sim), "fail-at=%d", SELFTEST + 1);
    in_child(latched_check, sim);
}

/*
 * The check passes; later a CF=0 met by an instance loaded from code,
 * without a config section, in another library context, binds the
 * configured one too, and every later load.  Executions: the configured
 * load (64 + 4), the load from code (64 + 4: the rules are the process's),
 * then its request.
 */
static void fault_after_check(void)
{
    OSSL_LIB_CTX *configured = configured_libctx("coco = require\n");
    OSSL_LIB_CTX *other;
    OSSL_PROVIDER *p;

    assert_int_equal(OSSL_PROVIDER_available(configured, CONF_NAME), 1);
    other = code_libctx();
    assert_non_null(p = load_from_code(other));
    /* The rules are the process's: this instance enforces them too. */
    assert_int_equal(get_int(p, RDRAND_PARAM_COCO_ENFORCED), 1);
    assert_int_equal(seeded_bytes(other), 0); /* meets the CF=0 */
    assert_string_equal(get_text(p, RDRAND_PARAM_HEALTH_VERDICT), "permanent");
    assert_int_equal(seeded_bytes(configured), 0);
    nothing_serves(configured);
    OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(other);
    OSSL_LIB_CTX_free(configured);
}

static void test_fault_after_check_binds_every_instance(void **state)
{
    (void)state;
    /* from the load from code's first request on, CF=0 */
    in_child(fault_after_check, "fail-from=137");
}

/*
 * The other way round: the configured instance meets the CF=0; an
 * instance loaded from code earlier, in another library context, stops
 * serving.
 */
static void configured_faults(void)
{
    OSSL_LIB_CTX *configured = configured_libctx("coco = require\n");
    OSSL_LIB_CTX *other;
    OSSL_PROVIDER *p;

    other = code_libctx();
    assert_non_null(p = load_from_code(other));
    assert_int_equal(seeded_bytes(configured), 0); /* meets the CF=0 */
    assert_int_equal(get_int(p, OSSL_PROV_PARAM_STATUS), 0);
    assert_int_equal(seeded_bytes(other), 0);
    nothing_serves(configured);
    OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(other);
    OSSL_LIB_CTX_free(configured);
}

static void test_configured_fault_binds_loaded_instance(void **state)
{
    (void)state;
    in_child(configured_faults, "fail-from=137");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused_check_binds_every_load),
        cmocka_unit_test(test_latched_check_binds_every_load),
        cmocka_unit_test(test_fault_after_check_binds_every_instance),
        cmocka_unit_test(test_configured_fault_binds_loaded_instance),
    };

    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH-OF-rdrand-sim.so\n", argv[0]);
        return 2;
    }
    module_path = argv[1];
    return cmocka_run_group_tests(tests, NULL, NULL);
}
