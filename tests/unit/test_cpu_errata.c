/* SPDX-License-Identifier: Apache-2.0 */
/*
 * provider/cpu_errata.c: the table lists exactly the ranges its sources
 * give, boundaries included; a listed CPU reads as such in the provider
 * parameters and gets one warning per process where RDRAND is in use,
 * and nothing else: the provider serves as on any CPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <openssl/core_dispatch.h>
#include <openssl/params.h>

#include "rdrand_provider.h"

#include "cpu_errata.h"
#include "fake_core.h"

#define AMD "AuthenticAMD"
#define INTEL "GenuineIntel"

/* The sources' ranges, written out again (cpu_errata.c has them). */
static const char *listed(const char *vendor, unsigned int family,
                          unsigned int model)
{
    if (strcmp(vendor, AMD) != 0)
        return "none";
    if (family == 0x15 || family == 0x16)
        return "amd-15h-16h";
    if (family == 0x17 && model >= 0x70 && model <= 0x7F)
        return "amd-17h-70h-7fh";
    return "none";
}

static struct rdrand_cpu_info cpu_of(const char *vendor, unsigned int family,
                                     unsigned int model)
{
    struct rdrand_cpu_info cpu;

    memset(&cpu, 0, sizeof(cpu));
    snprintf(cpu.vendor, sizeof(cpu.vendor), "%s", vendor);
    cpu.have_signature = 1;
    cpu.family = family;
    cpu.model = model;
    cpu.stepping = family % 16;
    return cpu;
}

static const char *ids_of(const struct rdrand_cpu_info *cpu)
{
    static char ids[RDRAND_CPU_ERRATA_LEN];

    rdrand_errata_ids(cpu, ids, sizeof(ids));
    return ids;
}

/* Every family and model a signature can encode, for four vendors. */
static void test_exact_ranges(void **state)
{
    static const char *const vendors[] = {AMD, INTEL, "HygonGenuine", ""};

    (void)state;
    for (size_t v = 0; v < sizeof(vendors) / sizeof(vendors[0]); v++)
        for (unsigned int f = 0; f <= 0x10E; f++)
            for (unsigned int m = 0; m <= 0xFF; m++) {
                struct rdrand_cpu_info cpu = cpu_of(vendors[v], f, m);

                if (strcmp(ids_of(&cpu), listed(vendors[v], f, m)) != 0)
                    fail_msg("\"%s\" family %x model %x: \"%s\", want \"%s\"",
                             vendors[v], f, m, ids_of(&cpu),
                             listed(vendors[v], f, m));
            }
}

/* The boundaries by name, as a reader checks them against the sources. */
static void test_boundaries(void **state)
{
    static const struct {
        const char *vendor;
        unsigned int family, model;
        const char *ids;
    } cpus[] = {
        {AMD, 0x14, 0xFF, "none"},
        {AMD, 0x15, 0x00, "amd-15h-16h"},
        {AMD, 0x15, 0x02, "amd-15h-16h"}, /* Piledriver */
        {AMD, 0x16, 0x30, "amd-15h-16h"}, /* Puma */
        {AMD, 0x16, 0xFF, "amd-15h-16h"},
        {AMD, 0x17, 0x00, "none"},
        {AMD, 0x17, 0x31, "none"}, /* Rome, Zen 2 */
        {AMD, 0x17, 0x6F, "none"},
        {AMD, 0x17, 0x70, "amd-17h-70h-7fh"},
        {AMD, 0x17, 0x71, "amd-17h-70h-7fh"}, /* Matisse */
        {AMD, 0x17, 0x7F, "amd-17h-70h-7fh"},
        {AMD, 0x17, 0x80, "none"},
        {AMD, 0x18, 0x71, "none"},
        {AMD, 0x19, 0x11, "none"},
        {AMD, 0x1A, 0x02, "none"},
        {INTEL, 0x15, 0x00, "none"},
        {INTEL, 0x17, 0x71, "none"},
        {"HygonGenuine", 0x18, 0x00, "none"},
    };
    struct rdrand_cpu_info cpu;

    (void)state;
    for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
        cpu = cpu_of(cpus[i].vendor, cpus[i].family, cpus[i].model);
        assert_string_equal(ids_of(&cpu), cpus[i].ids);
    }
    /* Without CPUID leaf 1 there is no family to list. */
    cpu = cpu_of(AMD, 0x15, 0x00);
    cpu.have_signature = 0;
    assert_string_equal(ids_of(&cpu), "none");
}

/* Every entry complete and sourced; the ids fit where they are kept. */
static void test_table(void **state)
{
    size_t all_ids = 0;

    (void)state;
    assert_true(rdrand_errata_count > 0);
    for (size_t i = 0; i < rdrand_errata_count; i++) {
        const struct rdrand_erratum *e = &rdrand_errata[i];
        struct rdrand_cpu_info cpu =
            cpu_of(e->vendor, e->family_max, e->model_max);
        char msg[1024];
        int n;

        assert_true(e->id[0] && e->what[0] && e->action[0] && e->source[0]);
        assert_int_equal(strlen(e->vendor), 12);
        assert_true(e->family_min <= e->family_max);
        assert_true(e->model_min <= e->model_max);
        assert_true(e->model_max <= 0xFF && e->family_max <= 0x10E);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(e->id, rdrand_errata[j].id);
        all_ids += strlen(e->id) + 1;
        /* rdrand_warn formats into 512 bytes: nothing may be cut. */
        cpu.stepping = 15;
        cpu.have_microcode = 1;
        snprintf(cpu.microcode_text, sizeof(cpu.microcode_text), "0xffffffff");
        n = rdrand_erratum_message(e, &cpu, msg, sizeof(msg));
        assert_true(n > 0 && n < 512);
        assert_non_null(strstr(msg, e->id));
        assert_non_null(strstr(msg, e->what));
        assert_non_null(strstr(msg, e->action));
        assert_non_null(strstr(msg, "0xffffffff"));
        assert_non_null(strstr(msg, "not a refusal"));
    }
    assert_true(all_ids <= RDRAND_CPU_ERRATA_LEN);
}

/* A short buffer gets a cut, terminated id, never an overrun. */
static void test_ids_buffer(void **state)
{
    struct rdrand_cpu_info cpu = cpu_of(AMD, 0x17, 0x71);
    char buf[8];

    (void)state;
    memset(buf, 'x', sizeof(buf));
    rdrand_errata_ids(&cpu, buf, 5);
    assert_string_equal(buf, "amd-");
    assert_int_equal(buf[5], 'x');
    cpu = cpu_of(AMD, 0x19, 0x11);
    rdrand_errata_ids(&cpu, buf, 5);
    assert_string_equal(buf, "none");
    /* Cut at the first entry: the buffer full, no later entry tried. */
    cpu = cpu_of(AMD, 0x15, 0x02);
    memset(buf, 'x', sizeof(buf));
    rdrand_errata_ids(&cpu, buf, 5);
    assert_string_equal(buf, "amd-");
    assert_int_equal(buf[5], 'x');
    /* Room for the terminator alone. */
    memset(buf, 'x', sizeof(buf));
    rdrand_errata_ids(&cpu, buf, 1);
    assert_string_equal(buf, "");
    assert_int_equal(buf[1], 'x');
}

static void teardown_provider(const OSSL_DISPATCH *prov, void *provctx)
{
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
}

/*
 * The parameters read what the simulated CPU is; service is unchanged.
 * warn = none: the process's one warning is test_warn_once's to see.
 */
static void test_params(void **state)
{
    static const char *const quiet[] = {"warn", "none", NULL};
    static const struct {
        const char *spec;
        unsigned int family, model, stepping;
        const char *microcode, *errata;
    } cpus[] = {
        {"", 0x19, 0x11, 1, "", "none"},
        {"cpu=amd:17:71:0,microcode=8701013", 0x17, 0x71, 0, "0x8701013",
         "amd-17h-70h-7fh"},
        {"cpu=amd:15:2:0", 0x15, 0x02, 0, "", "amd-15h-16h"},
        {"cpu=intel:6:8F:8,microcode=2b000603", 0x06, 0x8F, 8, "0x2b000603",
         "none"},
        /* Listed, but without RDRAND: listed all the same. */
        {"cpu=amd:16:30:1,rdrand=absent", 0x16, 0x30, 1, "", "amd-15h-16h"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
        const OSSL_DISPATCH *prov;
        void *provctx;
        unsigned int family = 0, model = 0, stepping = 0;
        OSSL_PARAM small[] = {
            OSSL_PARAM_uint(RDRAND_PARAM_CPU_FAMILY, &family),
            OSSL_PARAM_uint(RDRAND_PARAM_CPU_MODEL, &model),
            OSSL_PARAM_uint(RDRAND_PARAM_CPU_STEPPING, &stepping),
            OSSL_PARAM_END};

        assert_int_equal(
            fake_provider_init(cpus[i].spec, quiet, &provctx, &prov), 1);
        assert_int_equal(fake_get_u64(prov, provctx, RDRAND_PARAM_CPU_FAMILY),
                         cpus[i].family);
        assert_int_equal(fake_get_u64(prov, provctx, RDRAND_PARAM_CPU_MODEL),
                         cpus[i].model);
        assert_int_equal(fake_get_u64(prov, provctx, RDRAND_PARAM_CPU_STEPPING),
                         cpus[i].stepping);
        /* As gettable_params types them: unsigned int. */
        assert_int_equal(
            ((OSSL_FUNC_provider_get_params_fn *)fake_dispatch_fn(
                prov, OSSL_FUNC_PROVIDER_GET_PARAMS))(provctx, small),
            1);
        assert_int_equal(family, cpus[i].family);
        assert_int_equal(model, cpus[i].model);
        assert_int_equal(stepping, cpus[i].stepping);
        assert_string_equal(
            fake_get_utf8(prov, provctx, RDRAND_PARAM_CPU_MICROCODE),
            cpus[i].microcode);
        assert_string_equal(
            fake_get_utf8(prov, provctx, RDRAND_PARAM_CPU_ERRATA),
            cpus[i].errata);
        /* Neither refused nor latched: the health tests decide. */
        if (strstr(cpus[i].spec, "rdrand=absent") == NULL) {
            assert_int_equal(fake_get_int(prov, provctx, "status"), 1);
            assert_string_equal(
                fake_get_utf8(prov, provctx, RDRAND_PARAM_HEALTH_STATE), "ok");
        }
        teardown_provider(prov, provctx);
    }
}

struct loads {
    const char *spec;
    const char *const *config[3]; /* a load per config, until NULL */
    int want;                     /* erratum warning lines */
    const char *says;
};

/* Count the erratum lines on stderr over the loads (in a child). */
static void count_warnings(void *arg)
{
    const struct loads *l = arg;
    FILE *err = tmpfile();
    int saved = dup(STDERR_FILENO), lines = 0;
    char line[1024];

    assert_non_null(err);
    assert_true(saved >= 0);
    fflush(stderr);
    assert_true(dup2(fileno(err), STDERR_FILENO) >= 0);
    for (size_t i = 0; i < 3 && l->config[i] != NULL; i++) {
        const OSSL_DISPATCH *prov;
        void *provctx;

        assert_int_equal(
            fake_provider_init(l->spec, l->config[i], &provctx, &prov), 1);
        teardown_provider(prov, provctx);
    }
    fflush(stderr);
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    rewind(err);
    while (fgets(line, sizeof(line), err) != NULL)
        if (strncmp(line, "rdrand-provider: CPU erratum ", 29) == 0) {
            lines++;
            if (l->says != NULL && strstr(line, l->says) == NULL)
                fail_msg("\"%s\" does not say \"%s\"", line, l->says);
        }
    fclose(err);
    if (lines != l->want)
        fail_msg("RDRAND_SIM \"%s\": %d erratum lines, want %d", l->spec, lines,
                 l->want);
}

/*
 * One line per process, however many loads; none while warn = none (a
 * later load with a channel still warns), none without RDRAND (the
 * provider says it has none), none for an unlisted CPU.
 */
static void test_warn_once(void **state)
{
    static const char *const stderr_cfg[] = {"warn", "stderr", NULL};
    static const char *const none_cfg[] = {"warn", "none", NULL};
    static const struct loads cases[] = {
        {"cpu=amd:17:71:0,microcode=8701013",
         {stderr_cfg, stderr_cfg, stderr_cfg},
         1,
         "CPU erratum amd-17h-70h-7fh (AuthenticAMD family 17h model 71h "
         "stepping 0, microcode 0x8701013): "},
        {"cpu=amd:15:1:2",
         {stderr_cfg},
         1,
         "amd-15h-16h (AuthenticAMD family 15h model 01h stepping 2, "
         "microcode unknown)"},
        {"cpu=amd:17:71:0", {none_cfg, stderr_cfg, stderr_cfg}, 1, NULL},
        {"cpu=amd:17:71:0", {none_cfg, none_cfg}, 0, NULL},
        {"cpu=amd:17:71:0,rdrand=absent", {stderr_cfg, stderr_cfg}, 0, NULL},
        {"cpu=amd:17:80:0", {stderr_cfg}, 0, NULL},
        {"", {stderr_cfg}, 0, NULL},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        fake_in_child(count_warnings, (void *)&cases[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_ranges), cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_table),        cmocka_unit_test(test_ids_buffer),
        cmocka_unit_test(test_params),       cmocka_unit_test(test_warn_once),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
