/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every config key: each accepted value loads ready; each refused one
 * loads latched (status 0, health-state naming key and value) and every
 * request then fails naming the key, the value and what is accepted,
 * even after a self-test passes.  Keys in another case and values that
 * name a section (dotted keys) are refused the same way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <openssl/crypto.h>

#include "rdrand_provider.h"

#include "config_rules.h"
#include "errors.h"
#include "fake_core.h"
#include "load.h"
#include "rand.h"
#include "sim.h"

static const struct {
    const char *key, *value;
    int accepted;
    const char *wrong; /* what the message must say was wrong */
} cases[] = {
    {"warn", "syslog", 1, NULL},
    {"warn", "stderr", 1, NULL},
    {"warn", "none", 1, NULL},
    {"warn", "", 0, "use syslog | stderr | none"},
    {"warn", "Syslog", 0, "(values are case-sensitive)"},
    {"warn", "loud", 0, "use syslog | stderr | none"},
    {"coco", "auto", 1, NULL},
    {"coco", "require", 1, NULL},
    {"coco", "off", 0, "use auto | require"},
    {"coco", "none", 0, "use auto | require"},
    {"coco", "0", 0, "use auto | require"},
    {"coco", "", 0, "use auto | require"},
    {"coco_seed_bits", "256", 1, NULL},
    {"coco_seed_bits", "320", 1, NULL},
    {"coco_seed_bits", "4096", 1, NULL},
    {"coco_seed_bits", "128", 0, "(below 256)"},
    {"coco_seed_bits", "192", 0, "(below 256)"},
    {"coco_seed_bits", "0", 0, "(leading zero)"},
    {"coco_seed_bits", "300", 0, "(not a multiple of 64)"},
    {"coco_seed_bits", "4160", 0, "(above 4096)"},
    {"coco_seed_bits", "0256", 0, "(leading zero)"},
    {"coco_seed_bits", "00000256", 0, "(leading zero)"},
    {"coco_seed_bits", "10000", 0, "(above 4096)"},
    {"coco_seed_bits", "-256", 0, "(decimal digits only"},
    {"coco_seed_bits", "+256", 0, "(decimal digits only"},
    {"coco_seed_bits", " 256", 0, "(decimal digits only"},
    {"coco_seed_bits", "256 ", 0, "(decimal digits only"},
    {"coco_seed_bits", "0x100", 0, "(decimal digits only"},
    {"coco_seed_bits", "18446744073709551872", 0, "(above 4096)"},
    {"coco_seed_bits", "", 0, "(empty)"},
    {"on_coco_failure", "refuse", 1, NULL},
    {"on_coco_failure", "fail-closed", 1, NULL},
    {"on_coco_failure", "abort", 1, NULL},
    {"on_coco_failure", "refusee", 0, "use refuse | fail-closed | abort"},
    {"on_coco_failure", "ignore", 0, "use refuse | fail-closed | abort"},
    {"on_coco_failure", "fail_closed", 0, "use refuse | fail-closed | abort"},
    {"conditioning", "none", 1, NULL},
    {"conditioning", "reduce512", 1, NULL},
    {"conditioning", "Reduce512", 0, "(values are case-sensitive)"},
    {"conditioning", "NONE", 0, "(values are case-sensitive)"},
    {"conditioning", "reduce", 0, "use none | reduce512"},
    {"conditioning", "reduce512 ", 0, "use none | reduce512"},
    {"conditioning", "cbc-mac", 0, "use none | reduce512"},
    {"conditioning", "", 0, "use none | reduce512"},
    {"mix", "none", 1, NULL},
    {"mix", "os", 1, NULL},
    {"mix", "OS", 0, "(values are case-sensitive); use none | os"},
    {"mix", "yes", 0, "use none | os"},
    {"mix", "", 0, "use none | os"},
    {"mix", "os ", 0, "use none | os"},
    {"mix", "getrandom", 0, "use none | os"},
    /* What the core hands over for "WARN = bogus" and for a value that
     * names a section ("on_coco_failure = default_sect"). */
    {"WARN", "bogus", 0, "(keys are case-sensitive); write warn"},
    {"Coco", "auto", 0, "(keys are case-sensitive); write coco"},
    {"on_coco_failure.activate", "1", 0,
     "on_coco_failure is a section name, not a value"},
    {"coco.seed", "RDRAND", 0, "coco is a section name, not a value"},
    {"CONDITIONING", "reduce512", 0,
     "(keys are case-sensitive); write conditioning"},
    {"conditioning.default", "1", 0,
     "conditioning is a section name, not a value"},
    {"Mix", "os", 0, "(keys are case-sensitive); write mix"},
    {"mix.random", "1", 0, "mix is a section name, not a value"},
};

#define RAND_FN(type, id)                                                      \
    ((OSSL_FUNC_rand_##type##_fn *)fake_dispatch_fn(rdrand_rand_functions, id))

static void teardown(const OSSL_DISPATCH *prov, void *provctx)
{
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
}

/* The last error names the key, the value and what was wrong. */
static void assert_names(const char *text, size_t i)
{
    char quoted[64];

    snprintf(quoted, sizeof(quoted), "\"%s\"", cases[i].value);
    if (strstr(text, cases[i].key) == NULL
        || (strchr(cases[i].key, '.') == NULL && strstr(text, quoted) == NULL)
        || strstr(text, cases[i].wrong) == NULL)
        fail_msg("%s = \"%s\": \"%s\" lacks key, value or \"%s\"", cases[i].key,
                 cases[i].value, text, cases[i].wrong);
}

/* A seed request and a generate on a fresh context: both refused. */
static void assert_requests_refused(void *provctx, size_t i)
{
    void *ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(provctx, NULL, NULL);
    unsigned char *seed = (unsigned char *)"untouched", out[16];

    assert_non_null(ctx);
    assert_int_equal(RAND_FN(instantiate, OSSL_FUNC_RAND_INSTANTIATE)(
                         ctx, 0, 0, NULL, 0, NULL),
                     1);
    for (int round = 0; round < 2; round++) {
        fake_error_count = 0;
        assert_int_equal(RAND_FN(get_seed, OSSL_FUNC_RAND_GET_SEED)(
                             ctx, &seed, 256, 32, 64, 0, NULL, 0),
                         0);
        assert_null(seed);
        assert_int_equal(fake_last_reason(), RDRAND_R_BAD_CONFIG);
        assert_names(fake_last_message(), i);
        assert_non_null(strstr(fake_last_message(), "seed request of 32"));
        assert_int_equal(RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(
                             ctx, out, sizeof(out), 0, 0, NULL, 0),
                         0);
        assert_int_equal(fake_last_reason(), RDRAND_R_BAD_CONFIG);
        assert_names(fake_last_message(), i);
    }
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
}

static void test_each_value(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *config[] = {cases[i].key, cases[i].value, "warn", "none",
                                NULL};
        void *provctx;
        const OSSL_DISPATCH *prov;

        /* warn itself under test: no second warn key after it. */
        if (strcmp(cases[i].key, "warn") == 0
            || strcmp(cases[i].key, "WARN") == 0)
            config[2] = NULL;
        /* Loads either way: a refusal would be skipped by OpenSSL. */
        assert_int_equal(fake_provider_init("", config, &provctx, &prov), 1);
        assert_non_null(provctx);
        assert_int_equal(fake_error_count, 0); /* nothing raised at load */
        if (fake_get_int(prov, provctx, "status") != cases[i].accepted)
            fail_msg("%s = \"%s\": status %d", cases[i].key, cases[i].value,
                     !cases[i].accepted);
        if (cases[i].accepted) {
            assert_string_equal(
                fake_get_utf8(prov, provctx, RDRAND_PARAM_HEALTH_STATE), "ok");
        } else {
            const char *hs =
                fake_get_utf8(prov, provctx, RDRAND_PARAM_HEALTH_STATE);

            assert_non_null(
                strstr(hs, rdrand_reason_text(RDRAND_R_BAD_CONFIG)));
            assert_names(hs, i);
            assert_requests_refused(provctx, i);
        }
        teardown(prov, provctx);
    }
}

/* The first refused key is the one reported, whatever follows. */
static void test_first_refusal_kept(void **state)
{
    const char *config[] = {"coco", "off", "on_coco_failure", "ignore", NULL};
    void *provctx;
    const OSSL_DISPATCH *prov;

    (void)state;
    assert_int_equal(fake_provider_init("", config, &provctx, &prov), 1);
    assert_non_null(strstr(
        fake_get_utf8(prov, provctx, RDRAND_PARAM_HEALTH_STATE), "coco = "));
    teardown(prov, provctx);
}

/*
 * The mode parameters (conditioning, mix) after a refusal: the mode the
 * operator wrote when that value is valid (another key was refused),
 * "refused" when the value or key itself was.
 */
static void test_mode_params_when_refused(void **state)
{
    static const struct {
        const char *config[5];
        const char *param, *want;
    } modes[] = {
        {{"warn", "loud", "conditioning", "reduce512", NULL},
         "conditioning",
         "reduce512"},
        {{"conditioning", "reduce512", "coco", "off", NULL},
         "conditioning",
         "reduce512"},
        {{"coco", "off", "conditioning", "none", NULL}, "conditioning", "none"},
        {{"coco", "off", NULL}, "conditioning", "none"},
        {{"conditioning", "reduce512 ", "warn", "none", NULL},
         "conditioning",
         "refused"},
        {{"warn", "loud", "conditioning", "Reduce512", NULL},
         "conditioning",
         "refused"},
        {{"CONDITIONING", "reduce512", "warn", "none", NULL},
         "conditioning",
         "refused"},
        {{"conditioning.default", "1", "warn", "none", NULL},
         "conditioning",
         "refused"},
        {{"warn", "loud", "mix", "os", NULL}, "mix", "os"},
        {{"mix", "os", "conditioning", "Reduce512", NULL}, "mix", "os"},
        {{"coco", "off", NULL}, "mix", "none"},
        {{"mix", "OS", "warn", "none", NULL}, "mix", "refused"},
        {{"mix", "yes", "conditioning", "reduce512", NULL}, "mix", "refused"},
        {{"mix", "", "warn", "none", NULL}, "mix", "refused"},
        {{"MIX", "os", "warn", "none", NULL}, "mix", "refused"},
        {{"mix.default", "1", "warn", "none", NULL}, "mix", "refused"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        void *provctx;
        const OSSL_DISPATCH *prov;
        const char *got;

        assert_int_equal(
            fake_provider_init("", modes[i].config, &provctx, &prov), 1);
        assert_int_equal(fake_get_int(prov, provctx, "status"), 0);
        got = fake_get_utf8(prov, provctx, modes[i].param);
        if (got == NULL || strcmp(got, modes[i].want) != 0)
            fail_msg("%s = \"%s\": %s \"%s\", not \"%s\"", modes[i].config[0],
                     modes[i].config[1], modes[i].param, got ? got : "(null)",
                     modes[i].want);
        teardown(prov, provctx);
    }
}

/*
 * A refused section in a confidential guest whose check fails does not
 * refuse to load (on_coco_failure = refuse is the default, but the value
 * the operator wrote is in doubt): it loads latched, reporting the config.
 */
static void test_bad_config_in_failing_guest_loads(void **state)
{
    const char *config[] = {"on_coco_failure", "refusee", "warn", "none", NULL};
    void *provctx;
    const OSSL_DISPATCH *prov;

    (void)state;
    assert_int_equal(
        fake_provider_init("coco=tdx,fail-at=9", config, &provctx, &prov), 1);
    assert_int_equal(fake_get_int(prov, provctx, "status"), 0);
    assert_non_null(strstr(
        fake_get_utf8(prov, provctx, RDRAND_PARAM_HEALTH_STATE), "refusee"));
    assert_string_equal(
        fake_get_utf8(prov, provctx, RDRAND_PARAM_COCO_PLATFORM), "tdx");
    teardown(prov, provctx);
}

/*
 * The config latch is not the hardware latch: with a stuck CPU at load
 * (the self-test fails) that then recovers, a request that would run the
 * recovery self-test and clear a hardware fault still fails on the config.
 */
static void test_config_latch_survives_recovery(void **state)
{
    const char *config[] = {"coco", "off", "warn", "none", NULL};
    void *provctx, *ctx;
    const OSSL_DISPATCH *prov;
    unsigned char out[16];

    (void)state;
    assert_int_equal(fake_provider_init("value=0", config, &provctx, &prov), 1);
    sim_or_fail(""); /* the CPU works again: a self-test would pass */
    ctx = RAND_FN(newctx, OSSL_FUNC_RAND_NEWCTX)(provctx, NULL, NULL);
    assert_int_equal(RAND_FN(instantiate, OSSL_FUNC_RAND_INSTANTIATE)(
                         ctx, 0, 0, NULL, 0, NULL),
                     1);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(RAND_FN(generate, OSSL_FUNC_RAND_GENERATE)(
                             ctx, out, sizeof(out), 0, 0, NULL, 0),
                         0);
        assert_int_equal(fake_last_reason(), RDRAND_R_BAD_CONFIG);
    }
    assert_int_equal(rdrand_sim_executions(), 0); /* no self-test ran */
    assert_int_equal(fake_get_int(prov, provctx, "status"), 0);
    assert_non_null(strstr(
        fake_get_utf8(prov, provctx, RDRAND_PARAM_HEALTH_STATE), "coco = "));
    RAND_FN(freectx, OSSL_FUNC_RAND_FREECTX)(ctx);
    teardown(prov, provctx);
}

/* A failing core_get_params latches too, with a reason of its own. */
static void test_core_get_params_failure_latches(void **state)
{
    static int handle;
    void *provctx = NULL;
    const OSSL_DISPATCH *prov = NULL;

    (void)state;
    sim_or_fail("");
    fake_core_reset(NULL);
    fake_core_get_params_fails = 1;
    assert_int_equal(OSSL_provider_init((const OSSL_CORE_HANDLE *)&handle,
                                        fake_core_dispatch(), &prov, &provctx),
                     1);
    assert_int_equal(fake_get_int(prov, provctx, "status"), 0);
    assert_non_null(
        strstr(fake_get_utf8(prov, provctx, RDRAND_PARAM_HEALTH_STATE),
               rdrand_reason_text(RDRAND_R_CONFIG_UNREADABLE)));
    teardown(prov, provctx);
}

/* A core that offers no get_params: the section is unreadable, latched. */
static void test_core_without_get_params(void **state)
{
    static int handle;
    OSSL_DISPATCH in[64];
    size_t n = 0;
    void *provctx = NULL;
    const OSSL_DISPATCH *prov = NULL;
    const char *hs;

    (void)state;
    for (const OSSL_DISPATCH *d = fake_core_dispatch(); d->function_id != 0;
         d++) {
        assert_true(n + 1 < sizeof(in) / sizeof(in[0]));
        if (d->function_id != OSSL_FUNC_CORE_GET_PARAMS)
            in[n++] = *d;
    }
    in[n] = (OSSL_DISPATCH){0, NULL};
    sim_or_fail("");
    fake_core_reset(NULL);
    assert_int_equal(OSSL_provider_init((const OSSL_CORE_HANDLE *)&handle, in,
                                        &prov, &provctx),
                     1);
    assert_int_equal(fake_get_int(prov, provctx, "status"), 0);
    hs = fake_get_utf8(prov, provctx, RDRAND_PARAM_HEALTH_STATE);
    assert_non_null(strstr(hs, rdrand_reason_text(RDRAND_R_CONFIG_UNREADABLE)));
    assert_non_null(strstr(hs, "the core did not answer get_params"));
    teardown(prov, provctx);
}

/*
 * config_rules.c's edges: a value longer than the message quotes is cut
 * and marked; a key that takes a number has no value names; a key out
 * of the table is an internal error, never a value accepted.
 */
static void test_rules_edges(void **state)
{
    char value[80], why[256], want[256];
    unsigned int out = 12345;

    (void)state;
    memset(value, 'x', 70);
    value[70] = '\0';
    assert_int_equal(
        rdrand_config_parse(RDRAND_KEY_WARN, value, &out, why, sizeof(why)), 0);
    snprintf(want, sizeof(want),
             "warn = \"%.64s\"... is not accepted; use syslog | stderr | none",
             value);
    assert_string_equal(why, want);
    value[64] = '\0'; /* 64: quoted whole */
    assert_int_equal(
        rdrand_config_parse(RDRAND_KEY_WARN, value, &out, why, sizeof(why)), 0);
    snprintf(want, sizeof(want),
             "warn = \"%s\" is not accepted; use syslog | stderr | none",
             value);
    assert_string_equal(why, want);
    assert_int_equal(
        rdrand_config_parse(RDRAND_KEY_COUNT, "none", &out, why, sizeof(why)),
        0);
    assert_string_equal(why, "internal error: config key 6");
    assert_int_equal(
        rdrand_config_parse((enum rdrand_config_key)(RDRAND_KEY_COUNT + 1),
                            "none", &out, why, sizeof(why)),
        0);
    assert_string_equal(why, "internal error: config key 7");
    assert_int_equal(out, 12345);
    assert_string_equal(
        rdrand_config_value_name(RDRAND_KEY_COCO_SEED_BITS, 256), "refused");
    assert_string_equal(rdrand_config_value_name(RDRAND_KEY_COUNT, 0),
                        "refused");
    assert_string_equal(rdrand_config_value_name(RDRAND_KEY_MIX, RDRAND_MIX_OS),
                        "os");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_value),
        cmocka_unit_test(test_first_refusal_kept),
        cmocka_unit_test(test_mode_params_when_refused),
        cmocka_unit_test(test_bad_config_in_failing_guest_loads),
        cmocka_unit_test(test_config_latch_survives_recovery),
        cmocka_unit_test(test_core_get_params_failure_latches),
        cmocka_unit_test(test_core_without_get_params),
        cmocka_unit_test(test_rules_edges),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
