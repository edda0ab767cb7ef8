/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CoCo init check through OSSL_provider_init on the simulated CPU:
 * every guest platform x {working, no RDRAND, CF=0 at word k of the draw,
 * stuck output} x every policy, counting RDRAND executions exactly.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <openssl/evp.h>

#include "rdrand_provider.h"

#include "errors.h"
#include "fake_core.h"
#include "fault.h"
#include "health.h"
#include "load.h"
#include "rand.h"
#include "seams.h"
#include "sim.h"
#include "source.h"

/* Guests and the platform detection must name for them. */
static const struct {
    const char *sim, *platform;
} guests[] = {
    {"tdx", "tdx"},
    {"sev", "sev"},
    {"sev-es-msr", "sev-es"},
    {"sev-snp", "sev-snp"},
    {"hyperv-snp", "hyperv-snp"},
    {"hyperv-tdx", "hyperv-tdx"},
    {"tsm-only", "unknown-cvm"},
    /* Detection round two: each of these once read as "none". */
    {"hyperv-vbs", "hyperv-vbs"},
    {"tdx-leaf-hidden", "tdx"},
    {"masked", "unknown-cvm"},
    {"unmounted", "unknown-cvm"},
    /* Round three: a sysfs stand-in, the root-partition bit. */
    {"snp-sysfs-standin", "unknown-cvm"},
    {"hyperv-root-isolated", "hyperv-snp"},
};
#define NGUESTS (sizeof(guests) / sizeof(guests[0]))

static void teardown_prov(const OSSL_DISPATCH *prov, void *provctx)
{
    ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
        prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
}

static int init_with(const char *spec, const char *policy, void **provctx,
                     const OSSL_DISPATCH **prov)
{
    const char *config[] = {"on_coco_failure", policy, "warn", "none", NULL};

    return fake_provider_init(spec, config, provctx, prov);
}

/* A working guest: self-test (8 words) + 256 bits (4 words), then loads. */
static void test_working_guests(void **state)
{
    char spec[64];

    (void)state;
    for (size_t g = 0; g < NGUESTS; g++) {
        void *provctx;
        const OSSL_DISPATCH *prov;

        snprintf(spec, sizeof(spec), "coco=%s", guests[g].sim);
        assert_int_equal(init_with(spec, "refuse", &provctx, &prov), 1);
        assert_int_equal(rdrand_sim_executions(), RDRAND_SELFTEST_WORDS + 4);
        assert_string_equal(
            fake_get_utf8(prov, provctx, RDRAND_PARAM_COCO_PLATFORM),
            guests[g].platform);
        assert_int_equal(
            fake_get_u64(prov, provctx, RDRAND_PARAM_COCO_SEED_BITS), 256);
        assert_int_not_equal(
            strcmp(fake_get_utf8(prov, provctx, RDRAND_PARAM_COCO_SIGNAL),
                   "none"),
            0);
        assert_int_equal(fake_get_int(prov, provctx, "status"), 1);
        assert_int_equal(fake_error_count, 0);
        teardown_prov(prov, provctx);
    }
}

/* coco_seed_bits raises the draw: exactly bits / 64 more executions. */
static void test_seed_bits_configurable(void **state)
{
    static const char *const bits[] = {"256", "320", "512", "4096"};

    (void)state;
    for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
        const char *config[] = {"coco_seed_bits", bits[i], NULL};
        void *provctx;
        const OSSL_DISPATCH *prov;
        unsigned long n = strtoul(bits[i], NULL, 10);

        assert_int_equal(
            fake_provider_init("coco=tdx", config, &provctx, &prov), 1);
        assert_int_equal(rdrand_sim_executions(),
                         RDRAND_SELFTEST_WORDS + n / 64);
        assert_int_equal(
            fake_get_u64(prov, provctx, RDRAND_PARAM_COCO_SEED_BITS), n);
        teardown_prov(prov, provctx);
    }
}

/* A failed check is the process's verdict: forked (fake_in_child). */
static void require_without_rdrand(void *arg)
{
    const char *require[] = {"coco", "require", NULL};
    void *provctx;
    const OSSL_DISPATCH *prov;

    (void)arg;
    assert_int_equal(
        fake_provider_init("rdrand=absent", require, &provctx, &prov), 0);
    assert_int_equal(fake_last_reason(), RDRAND_R_COCO_NO_RDRAND);
    assert_non_null(strstr(fake_last_message(), "coco = require"));
}

/* Not a guest: no draw, coco-seed-bits 0 -- unless coco = require. */
static void test_not_a_guest(void **state)
{
    const char *require[] = {"coco", "require", NULL};
    void *provctx;
    const OSSL_DISPATCH *prov;

    static const char *const ordinary[] = {
        "", "coco=proc-subset-pid", "coco=tsm-unreadable",
        "coco=dev-unreadable", "coco=cpuinfo-cut"};

    (void)state;
    /* Hidden inputs that say nothing: no check, no CoCo latching. */
    for (size_t i = 0; i < sizeof(ordinary) / sizeof(ordinary[0]); i++) {
        assert_int_equal(fake_provider_init(ordinary[i], NULL, &provctx, &prov),
                         1);
        assert_int_equal(rdrand_sim_executions(), RDRAND_SELFTEST_WORDS);
        assert_string_equal(
            fake_get_utf8(prov, provctx, RDRAND_PARAM_COCO_PLATFORM), "none");
        assert_int_equal(
            fake_get_u64(prov, provctx, RDRAND_PARAM_COCO_SEED_BITS), 0);
        teardown_prov(prov, provctx);
    }

    assert_int_equal(fake_provider_init("", require, &provctx, &prov), 1);
    assert_int_equal(rdrand_sim_executions(), RDRAND_SELFTEST_WORDS + 4);
    assert_int_equal(fake_get_u64(prov, provctx, RDRAND_PARAM_COCO_SEED_BITS),
                     256);
    teardown_prov(prov, provctx);

    /* coco = require without RDRAND refuses, even with no guest seen. */
    fake_in_child(require_without_rdrand, NULL);
}

/*
 * Failing guests under "refuse": CF=0 at word k of the draw executes
 * exactly 8 + k words; no RDRAND executes nothing; stuck output fails
 * the 8-word self-test sample, and the draw is never attempted.  Each refuses
 * with the CoCo reason and a message that names the platform.
 */
struct refusal {
    const char *spec, *platform;
    uint64_t executions;
    int reason;
};

static void refusal_in_child(void *arg)
{
    const struct refusal *r = arg;
    void *provctx;
    const OSSL_DISPATCH *prov;

    assert_int_equal(init_with(r->spec, "refuse", &provctx, &prov), 0);
    assert_null(provctx);
    assert_int_equal(rdrand_sim_executions(), r->executions);
    assert_int_equal(fake_last_reason(), r->reason);
    if (strstr(fake_last_message(), r->platform) == NULL)
        fail_msg("\"%s\": message \"%s\" does not name %s", r->spec,
                 fake_last_message(), r->platform);
}

/* Each refusal in its own process: a failed check is the process's. */
static void check_refusal(const char *spec, uint64_t executions, int reason,
                          const char *platform)
{
    struct refusal r = {spec, platform, executions, reason};

    fake_in_child(refusal_in_child, &r);
}

static void test_failing_guests_refuse(void **state)
{
    char spec[96];

    (void)state;
    for (size_t g = 0; g < NGUESTS; g++) {
        const char *sim = guests[g].sim, *platform = guests[g].platform;

        for (int k = 1; k <= 4; k++) {
            snprintf(spec, sizeof(spec), "coco=%s,fail-at=%d", sim,
                     RDRAND_SELFTEST_WORDS + k);
            check_refusal(spec, RDRAND_SELFTEST_WORDS + k,
                          RDRAND_R_COCO_SEED_FAILED, platform);
        }
        snprintf(spec, sizeof(spec), "coco=%s,rdrand=absent", sim);
        check_refusal(spec, 0, RDRAND_R_COCO_NO_RDRAND, platform);
        snprintf(spec, sizeof(spec), "coco=%s,value=ffffffffffffffff", sim);
        check_refusal(spec, RDRAND_SELFTEST_WORDS, RDRAND_R_COCO_SEED_FAILED,
                      platform);
        snprintf(spec, sizeof(spec), "coco=%s,value=0123456789abcdef", sim);
        check_refusal(spec, RDRAND_SELFTEST_WORDS, RDRAND_R_COCO_SEED_FAILED,
                      platform);
        snprintf(spec, sizeof(spec), "coco=%s,fail-at=3", sim);
        check_refusal(spec, 3, RDRAND_R_COCO_SEED_FAILED, platform);
    }
}

/* fail-closed: loads, latched; every request fails with the CoCo reason. */
static const char *const fail_closed_specs[] = {
    "coco=tdx,fail-at=66", /* the CoCo draw's 2nd word */
    "coco=sev-snp,rdrand=absent", "coco=hyperv-snp,value=0"};
static const int fail_closed_reasons[] = {RDRAND_R_COCO_SEED_FAILED,
                                          RDRAND_R_COCO_NO_RDRAND,
                                          RDRAND_R_COCO_SEED_FAILED};

static void fail_closed_in_child(void *arg)
{
    const size_t i = *(const size_t *)arg;
    const char *const *specs = fail_closed_specs;
    const int *reasons = fail_closed_reasons;

    {
        void *provctx, *ctx;
        const OSSL_DISPATCH *prov;
        unsigned char *seed = (unsigned char *)1, buf[16];
        uint64_t executed;
        OSSL_FUNC_rand_newctx_fn *newctx =
            (OSSL_FUNC_rand_newctx_fn *)fake_dispatch_fn(rdrand_rand_functions,
                                                         OSSL_FUNC_RAND_NEWCTX);
        OSSL_FUNC_rand_instantiate_fn *inst =
            (OSSL_FUNC_rand_instantiate_fn *)fake_dispatch_fn(
                rdrand_rand_functions, OSSL_FUNC_RAND_INSTANTIATE);
        OSSL_FUNC_rand_get_seed_fn *get_seed =
            (OSSL_FUNC_rand_get_seed_fn *)fake_dispatch_fn(
                rdrand_rand_functions, OSSL_FUNC_RAND_GET_SEED);
        OSSL_FUNC_rand_generate_fn *generate =
            (OSSL_FUNC_rand_generate_fn *)fake_dispatch_fn(
                rdrand_rand_functions, OSSL_FUNC_RAND_GENERATE);
        OSSL_FUNC_rand_freectx_fn *freectx =
            (OSSL_FUNC_rand_freectx_fn *)fake_dispatch_fn(
                rdrand_rand_functions, OSSL_FUNC_RAND_FREECTX);

        assert_int_equal(init_with(specs[i], "fail-closed", &provctx, &prov),
                         1);
        assert_int_equal(fake_error_count, 0); /* loaded: queue left clean */
        assert_int_equal(fake_get_int(prov, provctx, "status"), 0);
        assert_string_equal(
            fake_get_utf8(prov, provctx, RDRAND_PARAM_HEALTH_STATE),
            rdrand_reason_text(reasons[i]));
        assert_int_equal(
            fake_get_u64(prov, provctx, RDRAND_PARAM_COCO_SEED_BITS), 0);

        /* Now make the hardware good: the latch must still hold. */
        sim_or_fail("coco=tdx");
        executed = rdrand_sim_executions();
        ctx = newctx(provctx, NULL, NULL);
        assert_int_equal(inst(ctx, 0, 0, NULL, 0, NULL), 1);
        assert_int_equal(get_seed(ctx, &seed, 256, 32, 64, 0, NULL, 0), 0);
        assert_null(seed);
        assert_int_equal(fake_last_reason(), reasons[i]);
        assert_non_null(strstr(fake_last_message(), "since: "));
        assert_int_equal(generate(ctx, buf, sizeof(buf), 0, 0, NULL, 0), 0);
        assert_int_equal(fake_last_reason(), reasons[i]);
        assert_int_equal(rdrand_sim_executions(), executed);
        freectx(ctx);
        teardown_prov(prov, provctx);
    }
}

static void test_fail_closed(void **state)
{
    (void)state;
    for (size_t i = 0; i < 3; i++)
        fake_in_child(fail_closed_in_child, &i);
}

/* The child's counts, as abort() kills it (the handler returns). */
static void dump_at_abort(int sig)
{
    (void)sig;
    fake_coverage_dump();
}

/* abort: the process dies of SIGABRT, the kernel's panic. */
static void test_abort(void **state)
{
    int status;
    pid_t pid;

    (void)state;
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        void *provctx;
        const OSSL_DISPATCH *prov;

        if (freopen("/dev/null", "w", stderr) == NULL)
            _exit(2);
        signal(SIGABRT, dump_at_abort);
        init_with("coco=tdx,fail-at=9", "abort", &provctx, &prov);
        fake_child_exit(0); /* not reached if the policy works */
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);

    /* A working guest under abort loads normally. */
    {
        void *provctx;
        const OSSL_DISPATCH *prov;

        assert_int_equal(init_with("coco=tdx", "abort", &provctx, &prov), 1);
        teardown_prov(prov, provctx);
    }
}

/*
 * The check draws nothing from an instance a fault latched (a trip the
 * verdict has not made permanent), nor into a scratch buffer too small
 * for coco_seed_bits: each says why, and no bits count as drawn.
 */
static void test_seed_check_draws_nothing(void **state)
{
    unsigned char scratch[128];
    uint64_t executed;
    void *provctx;
    const OSSL_DISPATCH *prov;

    (void)state;
    assert_int_equal(init_with("", "refuse", &provctx, &prov), 1);
    executed = rdrand_sim_executions();
    memset(scratch, 0xA5, sizeof(scratch));
    assert_int_equal(rdrand_coco_seed_check(provctx, scratch, 256 / 8 - 1),
                     RDRAND_R_INTERNAL);
    assert_int_equal(rdrand_coco_seed_check(provctx, scratch, 0),
                     RDRAND_R_INTERNAL);
    assert_int_equal(rdrand_sim_executions(), executed);
    assert_int_equal(scratch[0], 0xA5);
    rdrand_fault_record(provctx, RDRAND_R_STUCK_ONES, NULL);
    assert_int_equal(rdrand_fault_permanent(), RDRAND_R_OK);
    assert_int_equal(rdrand_coco_seed_check(provctx, scratch, sizeof(scratch)),
                     RDRAND_R_STUCK_ONES);
    assert_int_equal(rdrand_sim_executions(), executed);
    assert_int_equal(fake_get_u64(prov, provctx, RDRAND_PARAM_COCO_SEED_BITS),
                     0);
    teardown_prov(prov, provctx);
}

/*
 * CoCo rules an earlier instance set bind a later one that is no guest
 * and asks nothing: its failed check says where the rules came from.
 */
static void rules_from_earlier_instance(void *arg)
{
    static int handle;
    const char *require[] = {"coco", "require", "warn", "none", NULL};
    const char *plain[] = {"warn", "none", NULL};
    void *provctx, *later = NULL;
    const OSSL_DISPATCH *prov, *out = NULL;

    (void)arg;
    assert_int_equal(fake_provider_init("", require, &provctx, &prov), 1);
    assert_int_equal(fake_get_int(prov, provctx, RDRAND_PARAM_COCO_ENFORCED),
                     1);
    /* Not fake_provider_init: it would forget the process's rules. */
    sim_or_fail("rdrand=absent");
    fake_core_reset(plain);
    assert_int_equal(OSSL_provider_init((const OSSL_CORE_HANDLE *)&handle,
                                        fake_core_dispatch(), &out, &later),
                     0);
    assert_int_equal(fake_last_reason(), RDRAND_R_COCO_NO_RDRAND);
    assert_non_null(strstr(fake_last_message(),
                           "platform none detected, CoCo rules set by an "
                           "earlier instance in this process"));
    assert_non_null(strstr(fake_last_message(), "CPUID reports no RDRAND"));
    teardown_prov(prov, provctx);
}

static void test_rules_from_earlier_instance(void **state)
{
    (void)state;
    fake_in_child(rules_from_earlier_instance, NULL);
}

/* The drawn bits are wiped before the check returns. */
static void test_draw_buffer_wiped(void **state)
{
    const char *config[] = {"coco_seed_bits", "512", NULL};
    unsigned char scratch[128];
    uint64_t executed;
    void *provctx;
    const OSSL_DISPATCH *prov;

    (void)state;
    assert_int_equal(fake_provider_init("", config, &provctx, &prov), 1);
    /* the stream goes on: a restarted one would be a cycle */
    executed = rdrand_sim_executions();
    memset(scratch, 0xA5, sizeof(scratch));
    assert_int_equal(rdrand_coco_seed_check(provctx, scratch, sizeof(scratch)),
                     RDRAND_R_OK);
    assert_int_equal(rdrand_sim_executions() - executed, 512 / 64);
    for (size_t i = 0; i < sizeof(scratch); i++)
        assert_int_equal(scratch[i], 0);

    sim_or_fail("fail-at=3");
    rdrand_source_forget(); /* a new CPU: its stream starts over */
    memset(scratch, 0xA5, sizeof(scratch));
    assert_int_equal(rdrand_coco_seed_check(provctx, scratch, sizeof(scratch)),
                     RDRAND_R_RDRAND_FAILED);
    assert_int_equal(rdrand_sim_executions(), 3);
    for (size_t i = 0; i < sizeof(scratch); i++)
        assert_int_equal(scratch[i], 0);
    teardown_prov(prov, provctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_working_guests),
        cmocka_unit_test(test_seed_bits_configurable),
        cmocka_unit_test(test_not_a_guest),
        cmocka_unit_test(test_failing_guests_refuse),
        cmocka_unit_test(test_fail_closed),
        cmocka_unit_test(test_abort),
        cmocka_unit_test(test_draw_buffer_wiped),
        cmocka_unit_test(test_seed_check_draws_nothing),
        cmocka_unit_test(test_rules_from_earlier_instance),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
