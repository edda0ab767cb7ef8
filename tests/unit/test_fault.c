/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fault.c alone: what a request is told to do (rdrand_fault_admit) for
 * each fault state, with a bare instance and no core, and errors.c's one
 * table of reasons.  The same decisions through the loaded module are
 * test_rand's, test_latch's and test_coco_process's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "counters.h"
#include "errors.h"
#include "fake_core.h"
#include "fault.h"
#include "health.h"
#include "prov.h"
#include "seams.h"

/* No core: raising is a no-op, warnings go nowhere (warn = none). */
static struct rdrand_prov *bare(struct rdrand_prov *prov)
{
    *prov = (struct rdrand_prov){.rdrand_available = 1};
    prov->config.warn = RDRAND_WARN_NONE;
    prov->coco.signal = "none";
    rdrand_fault_forget();
    return prov;
}

/*
 * The same with the fake core's error queue (fake_errors) and warn =
 * stderr, which a test reads back through a file (warned()).
 */
static FILE *warnings;
static int saved_stderr = -1;

static struct rdrand_prov *cored(struct rdrand_prov *prov)
{
    bare(prov)->config.warn = RDRAND_WARN_STDERR;
    for (const OSSL_DISPATCH *d = fake_core_dispatch(); d->function_id; d++)
        if (d->function_id == OSSL_FUNC_CORE_NEW_ERROR)
            prov->core_new_error = OSSL_FUNC_core_new_error(d);
        else if (d->function_id == OSSL_FUNC_CORE_SET_ERROR_DEBUG)
            prov->core_set_error_debug = OSSL_FUNC_core_set_error_debug(d);
        else if (d->function_id == OSSL_FUNC_CORE_VSET_ERROR)
            prov->core_vset_error = OSSL_FUNC_core_vset_error(d);
    fake_core_reset(NULL);
    if (saved_stderr < 0) {
        assert_non_null(warnings = tmpfile());
        fflush(stderr);
        assert_true((saved_stderr = dup(STDERR_FILENO)) >= 0);
        assert_true(dup2(fileno(warnings), STDERR_FILENO) >= 0);
    }
    return prov;
}

/* After each test: stderr back, for cmocka's own report. */
static int stderr_back(void **state)
{
    (void)state;
    if (saved_stderr >= 0) {
        fflush(stderr);
        dup2(saved_stderr, STDERR_FILENO);
        close(saved_stderr);
        fclose(warnings);
        saved_stderr = -1;
    }
    return 0;
}

/* Everything written to stderr since cored() (static buffer). */
static const char *warned(void)
{
    static char text[4096];
    size_t n;

    fflush(stderr);
    rewind(warnings);
    n = fread(text, 1, sizeof(text) - 1, warnings);
    text[n] = '\0';
    return text;
}

static enum rdrand_admit admit(struct rdrand_prov *prov,
                               struct rdrand_ticket *t)
{
    return rdrand_fault_admit(prov, t, "seed request", 48);
}

static void test_clean_instance_serves(void **state)
{
    struct rdrand_prov prov;
    struct rdrand_ticket t;

    (void)state;
    assert_int_equal(admit(bare(&prov), &t), RDRAND_ADMIT_SERVE);
    assert_int_equal(rdrand_fault_usable(&prov), 1);
    assert_string_equal(rdrand_fault_state_text(&prov), "ok");
    assert_string_equal(rdrand_status_verdict_text(rdrand_fault_verdict()),
                        "ok");
}

static void test_no_rdrand_is_refused(void **state)
{
    struct rdrand_prov prov;
    struct rdrand_ticket t;

    (void)state;
    bare(&prov)->rdrand_available = 0;
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_REFUSED);
    assert_int_equal(rdrand_fault_usable(&prov), 0);
    assert_string_equal(rdrand_fault_state_text(&prov),
                        rdrand_reason_text(RDRAND_R_NO_RDRAND));
}

/* A trip: the next request recovers; once answered, the latch clears. */
static void test_trip_recovers_then_serves(void **state)
{
    struct rdrand_prov prov;
    struct rdrand_ticket t;

    (void)state;
    rdrand_fault_record(bare(&prov), RDRAND_R_STUCK_ONES, NULL);
    assert_string_equal(rdrand_status_verdict_text(rdrand_fault_verdict()),
                        "intermittent");
    assert_int_equal(rdrand_fault_latched(&prov), RDRAND_R_STUCK_ONES);
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_RECOVER);
    assert_int_equal(rdrand_fault_answered(&prov, &t, "seed request", 48), 1);
    assert_int_equal(rdrand_fault_latched(&prov), RDRAND_R_OK);
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_SERVE);
}

/* Another instance latched by the trip a recovery answered: a self-test. */
static void test_answered_trip_retests_other_instance(void **state)
{
    struct rdrand_prov a, b;
    struct rdrand_ticket t;

    (void)state;
    rdrand_fault_record(bare(&a), RDRAND_R_RDRAND_FAILED, NULL);
    memcpy(&b, &a, sizeof(b)); /* latched by the same trip */
    assert_int_equal(admit(&a, &t), RDRAND_ADMIT_RECOVER);
    assert_int_equal(rdrand_fault_answered(&a, &t, "seed request", 48), 1);
    assert_int_equal(admit(&b, &t), RDRAND_ADMIT_RETEST);
    assert_int_equal(rdrand_fault_answered(&b, &t, "seed request", 48), 1);
    assert_int_equal(admit(&b, &t), RDRAND_ADMIT_SERVE);
}

/* A fault met while a recovery ran is not cleared by that recovery. */
static void test_fault_during_recovery_is_kept(void **state)
{
    struct rdrand_prov prov;
    struct rdrand_ticket t;

    (void)state;
    rdrand_fault_record(bare(&prov), RDRAND_R_STUCK_ZERO, NULL);
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_RECOVER);
    rdrand_fault_record(&prov, RDRAND_R_RDRAND_FAILED, NULL);
    assert_int_equal(rdrand_fault_answered(&prov, &t, "seed request", 48), 0);
    assert_int_equal(rdrand_fault_latched(&prov), RDRAND_R_STUCK_ZERO);
}

/* Two trips within the horizon: permanent, for every instance. */
static void test_second_trip_is_permanent(void **state)
{
    struct rdrand_prov a, b;
    struct rdrand_ticket t;

    (void)state;
    bare(&a);
    memcpy(&b, &a, sizeof(b));
    rdrand_fault_record(&a, RDRAND_R_BIASED_BIT, NULL);
    rdrand_fault_record(&a, RDRAND_R_STUCK_BIT, NULL);
    assert_string_equal(rdrand_status_verdict_text(rdrand_fault_verdict()),
                        "permanent");
    assert_int_equal(rdrand_fault_permanent(), RDRAND_R_STUCK_BIT);
    assert_int_equal(admit(&a, &t), RDRAND_ADMIT_REFUSED);
    assert_int_equal(admit(&b, &t), RDRAND_ADMIT_REFUSED);
    assert_int_equal(rdrand_fault_latched(&b), RDRAND_R_STUCK_BIT);
    assert_int_equal(rdrand_fault_usable(&b), 0);
}

/* A second trip beyond the horizon is a new first trip: no verdict. */
static void test_trip_beyond_horizon_is_intermittent(void **state)
{
    struct rdrand_prov prov;
    struct rdrand_ticket t;

    (void)state;
    rdrand_fault_record(bare(&prov), RDRAND_R_BIASED_BIT, NULL);
    rdrand_counter_add(RDRAND_CTR_RDRAND_WORDS, RDRAND_VERDICT_HORIZON_WORDS);
    rdrand_fault_record(&prov, RDRAND_R_STUCK_BIT, NULL);
    assert_string_equal(rdrand_status_verdict_text(rdrand_fault_verdict()),
                        "intermittent");
    assert_int_equal(RDRAND_VERDICT_TRIPS(rdrand_fault_verdict()), 2);
    assert_int_equal(rdrand_fault_permanent(), RDRAND_R_OK);
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_RECOVER);
}

/*
 * Two trips at once: the later reader of the words count swapped its
 * count in first, so this trip finds the last count above its own.  They
 * were concurrent, within any horizon: permanent (unsigned now - last
 * would read as far beyond it).
 */
static void test_concurrent_trip_is_permanent(void **state)
{
    struct rdrand_prov prov;

    (void)state;
    rdrand_fault_record(bare(&prov), RDRAND_R_BIASED_BIT, NULL);
    rdrand_fault_last_trip_at(rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS)
                              + 2 * RDRAND_VERDICT_HORIZON_WORDS);
    rdrand_fault_record(&prov, RDRAND_R_STUCK_BIT, NULL);
    assert_string_equal(rdrand_status_verdict_text(rdrand_fault_verdict()),
                        "permanent");
    assert_int_equal(rdrand_fault_permanent(), RDRAND_R_STUCK_BIT);
}

/*
 * Answers go only forwards: a slow recovery of the first trip, ending
 * after another's recovery of a later trip (beyond the horizon), leaves
 * the later trip answered.
 */
static void test_older_answer_does_not_undo_newer(void **state)
{
    struct rdrand_prov a, b, c;
    struct rdrand_ticket ta, tb, tc;

    (void)state;
    bare(&a);
    memcpy(&b, &a, sizeof(b));
    memcpy(&c, &a, sizeof(c));
    rdrand_fault_record(&a, RDRAND_R_STUCK_ONES, NULL);
    assert_int_equal(admit(&a, &ta), RDRAND_ADMIT_RECOVER);
    rdrand_counter_add(RDRAND_CTR_RDRAND_WORDS, RDRAND_VERDICT_HORIZON_WORDS);
    rdrand_fault_record(&b, RDRAND_R_STUCK_ZERO, NULL);
    assert_int_equal(admit(&b, &tb), RDRAND_ADMIT_RECOVER);
    assert_int_equal(rdrand_fault_answered(&b, &tb, "seed request", 48), 1);
    assert_int_equal(admit(&c, &tc), RDRAND_ADMIT_SERVE);
    assert_int_equal(rdrand_fault_answered(&a, &ta, "seed request", 48), 1);
    assert_int_equal(admit(&c, &tc), RDRAND_ADMIT_SERVE); /* not RECOVER */
    assert_int_equal(admit(&a, &ta), RDRAND_ADMIT_SERVE);
}

/*
 * Two requests admitted on one latch: the first to finish clears it;
 * the second finds it cleared (no new fault), and succeeds silently.
 */
static void test_latch_cleared_by_other_request(void **state)
{
    struct rdrand_prov prov;
    struct rdrand_ticket t1, t2, t;

    (void)state;
    rdrand_fault_record(cored(&prov), RDRAND_R_RDRAND_FAILED, NULL);
    assert_int_equal(admit(&prov, &t1), RDRAND_ADMIT_RECOVER);
    assert_int_equal(admit(&prov, &t2), RDRAND_ADMIT_RECOVER);
    fake_core_reset(NULL);
    assert_int_equal(rdrand_fault_answered(&prov, &t1, "seed request", 48), 1);
    assert_int_equal(rdrand_fault_latched(&prov), RDRAND_R_OK);
    assert_int_equal(rdrand_fault_answered(&prov, &t2, "seed request", 48), 1);
    assert_int_equal(fake_error_count, 0);
    assert_int_equal(rdrand_fault_latched(&prov), RDRAND_R_OK);
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_SERVE);
}

/* Under CoCo rules the first trip, even one met before them, is permanent. */
static void test_coco_rules_make_trips_permanent(void **state)
{
    struct rdrand_prov a, b;
    struct rdrand_ticket t;

    (void)state;
    bare(&a);
    memcpy(&b, &a, sizeof(b));
    rdrand_fault_record(&a, RDRAND_R_RDRAND_FAILED, NULL);
    assert_int_equal(rdrand_fault_coco_enforced(&b), 0);
    rdrand_fault_enforce_coco(&a);
    assert_int_equal(rdrand_fault_coco_enforced(&b), 1); /* the process's */
    assert_int_equal(rdrand_fault_permanent(), RDRAND_R_RDRAND_FAILED);
    assert_int_equal(admit(&b, &t), RDRAND_ADMIT_REFUSED);
}

/* A failed CoCo check latches its CoCo reason over the cause; no recovery. */
static void test_coco_failure_latches_for_good(void **state)
{
    struct rdrand_prov prov;
    struct rdrand_ticket t;

    (void)state;
    rdrand_fault_enforce_coco(bare(&prov));
    assert_int_equal(rdrand_fault_coco_failed(&prov, RDRAND_R_NO_RDRAND),
                     RDRAND_R_COCO_NO_RDRAND);
    assert_int_equal(rdrand_fault_latched(&prov), RDRAND_R_COCO_NO_RDRAND);
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_REFUSED);
    bare(&prov);
    rdrand_fault_record(&prov, RDRAND_R_SELFTEST_FAILED, NULL);
    rdrand_fault_forget(); /* not permanent: only the CoCo cause holds it */
    assert_int_equal(rdrand_fault_coco_failed(&prov, RDRAND_R_SELFTEST_FAILED),
                     RDRAND_R_COCO_SEED_FAILED);
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_REFUSED);
    assert_int_equal(rdrand_fault_latched(&prov), RDRAND_R_COCO_SEED_FAILED);
}

/* A refusal: the first is kept, it outlives any passing test, it is shown. */
static void test_refusal_is_first_and_final(void **state)
{
    struct rdrand_prov prov;
    struct rdrand_ticket t;

    (void)state;
    rdrand_fault_refuse(bare(&prov), RDRAND_R_BAD_CONFIG, "warn = loud");
    rdrand_fault_refuse(&prov, RDRAND_R_NO_AESNI, "no AES-NI");
    assert_int_equal(rdrand_fault_refused(&prov), RDRAND_R_BAD_CONFIG);
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_REFUSED);
    assert_int_equal(rdrand_fault_usable(&prov), 0);
    assert_non_null(strstr(rdrand_fault_state_text(&prov), "warn = loud"));
    assert_non_null(strstr(rdrand_fault_state_text(&prov),
                           rdrand_reason_text(RDRAND_R_BAD_CONFIG)));
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_REFUSED);
}

/*
 * Admission order: a refused instance raises its refusal even under a
 * permanent verdict, and a process that has not said the verdict yet (a
 * fork()ed child) writes its line there too.  In a child: the one-shot
 * lines are the process's.
 */
static void refusal_before_permanent(void *arg)
{
    struct rdrand_prov prov;
    struct rdrand_ticket t;
    char lines[4096];

    (void)arg;
    cored(&prov);
    rdrand_fault_refuse(&prov, RDRAND_R_BAD_CONFIG, "warn = loud");
    rdrand_fault_record(&prov, RDRAND_R_STUCK_ONES, NULL);
    rdrand_fault_record(&prov, RDRAND_R_STUCK_ONES, NULL);
    assert_int_equal(rdrand_fault_permanent(), RDRAND_R_STUCK_ONES);
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_REFUSED);
    snprintf(lines, sizeof(lines), "%s", warned());
    stderr_back(NULL); /* a failure below reaches the parent's report */
    assert_int_equal(fake_last_reason(), RDRAND_R_BAD_CONFIG);
    assert_non_null(strstr(fake_last_message(), "warn = loud"));
    assert_non_null(strstr(lines, "now permanent"));
    assert_non_null(strstr(lines, rdrand_reason_text(RDRAND_R_STUCK_ONES)));
}

static void test_refusal_before_permanent(void **state)
{
    (void)state;
    fake_in_child(refusal_before_permanent, NULL);
}

/* A section refused says to fix the section; a mode that cannot run, not. */
static void test_refusal_wording(void **state)
{
    struct rdrand_prov prov;
    struct rdrand_ticket t;

    (void)state;
    rdrand_fault_refuse(cored(&prov), RDRAND_R_CONFIG_UNREADABLE, "no core");
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_REFUSED);
    assert_int_equal(fake_last_reason(), RDRAND_R_CONFIG_UNREADABLE);
    assert_non_null(strstr(fake_last_message(), "fix this provider's section"));
    rdrand_fault_refuse(cored(&prov), RDRAND_R_NO_AESNI,
                        "conditioning = none works here");
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_REFUSED);
    assert_int_equal(fake_last_reason(), RDRAND_R_NO_AESNI);
    assert_non_null(strstr(fake_last_message(), "none works here"));
    assert_null(strstr(fake_last_message(), "fix this provider's section"));
}

/*
 * Under CoCo rules a permanent verdict names the guest, and says when the
 * rules came from another instance of the process.
 */
static void test_permanent_under_coco_rules_wording(void **state)
{
    struct rdrand_prov own, other;
    struct rdrand_ticket t;

    (void)state;
    cored(&own)->coco.platform = RDRAND_COCO_TDX;
    memcpy(&other, &own, sizeof(other));
    rdrand_fault_enforce_coco(&own);
    rdrand_fault_record(&own, RDRAND_R_RDRAND_FAILED, NULL);
    assert_int_equal(admit(&own, &t), RDRAND_ADMIT_REFUSED);
    assert_non_null(strstr(fake_last_message(), "confidential guest (tdx)"));
    assert_null(strstr(fake_last_message(), "another instance"));
    assert_int_equal(admit(&other, &t), RDRAND_ADMIT_REFUSED);
    assert_non_null(strstr(fake_last_message(), "CoCo rules set by another "
                                                "instance"));
    assert_int_equal(fake_last_reason(), RDRAND_R_RDRAND_FAILED);
}

/* Outside CoCo rules the permanent verdict says what made it permanent. */
static void test_permanent_wording(void **state)
{
    struct rdrand_prov prov;
    struct rdrand_ticket t;

    (void)state;
    rdrand_fault_record(cored(&prov), RDRAND_R_BIASED_BIT, NULL);
    rdrand_fault_record(&prov, RDRAND_R_BIASED_BIT, NULL);
    assert_int_equal(admit(&prov, &t), RDRAND_ADMIT_REFUSED);
    assert_int_equal(fake_last_reason(), RDRAND_R_BIASED_BIT);
    assert_non_null(strstr(fake_last_message(), "seed request of 48 bytes"));
    assert_non_null(strstr(fake_last_message(), "tripped the health tests "
                                                "again within 1048576 words"));
}

/* health-failures counts the health tests' verdicts, not a CF=0. */
static void test_health_failures_counted_by_table(void **state)
{
    struct rdrand_prov prov;
    uint64_t before = rdrand_counter_get(RDRAND_CTR_HEALTH_FAILURES);

    (void)state;
    rdrand_fault_record(bare(&prov), RDRAND_R_RDRAND_FAILED, NULL);
    assert_true(rdrand_counter_get(RDRAND_CTR_HEALTH_FAILURES) == before);
    rdrand_fault_record(&prov, RDRAND_R_REPEATED_WORD, NULL);
    assert_true(rdrand_counter_get(RDRAND_CTR_HEALTH_FAILURES) == before + 1);
}

/* errors.c's table: every reason once, each with the properties it has. */
static void test_reason_table(void **state)
{
    const OSSL_ITEM *r = rdrand_reason_strings();
    size_t n = 0;

    (void)state;
    for (; r[n].ptr != NULL; n++) {
        assert_int_equal(r[n].id, RDRAND_R_NO_RDRAND + n);
        assert_string_equal(rdrand_reason_text((int)r[n].id), r[n].ptr);
    }
    assert_int_equal(n, RDRAND_R_MAX - RDRAND_R_NO_RDRAND);
    for (int id = RDRAND_R_NO_RDRAND; id < RDRAND_R_MAX; id++) {
        /* Health: the tests' verdicts, the self-test, the recovery. */
        int health =
            id == RDRAND_R_SELFTEST_FAILED || id == RDRAND_R_RECOVERY_FAILED;
        int coco =
            id == RDRAND_R_COCO_NO_RDRAND || id == RDRAND_R_COCO_SEED_FAILED;
        int config =
            id == RDRAND_R_BAD_CONFIG || id == RDRAND_R_CONFIG_UNREADABLE;

        for (unsigned int bit = 0; bit < 32; bit++)
            health |= rdrand_health_reason(1u << bit) == id;
        assert_int_equal(rdrand_reason_has(id, RDRAND_REASON_HEALTH), health);
        assert_int_equal(rdrand_reason_has(id, RDRAND_REASON_COCO), coco);
        assert_int_equal(rdrand_reason_has(id, RDRAND_REASON_CONFIG), config);
    }
    assert_false(rdrand_reason_has(RDRAND_R_OK, RDRAND_REASON_HEALTH));
    assert_false(rdrand_reason_has(RDRAND_R_MAX, RDRAND_REASON_HEALTH));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_clean_instance_serves, stderr_back),
        cmocka_unit_test_teardown(test_no_rdrand_is_refused, stderr_back),
        cmocka_unit_test_teardown(test_trip_recovers_then_serves, stderr_back),
        cmocka_unit_test_teardown(test_answered_trip_retests_other_instance,
                                  stderr_back),
        cmocka_unit_test_teardown(test_fault_during_recovery_is_kept,
                                  stderr_back),
        cmocka_unit_test_teardown(test_second_trip_is_permanent, stderr_back),
        cmocka_unit_test_teardown(test_trip_beyond_horizon_is_intermittent,
                                  stderr_back),
        cmocka_unit_test_teardown(test_concurrent_trip_is_permanent,
                                  stderr_back),
        cmocka_unit_test_teardown(test_older_answer_does_not_undo_newer,
                                  stderr_back),
        cmocka_unit_test_teardown(test_latch_cleared_by_other_request,
                                  stderr_back),
        cmocka_unit_test_teardown(test_coco_rules_make_trips_permanent,
                                  stderr_back),
        cmocka_unit_test_teardown(test_coco_failure_latches_for_good,
                                  stderr_back),
        cmocka_unit_test_teardown(test_refusal_is_first_and_final, stderr_back),
        cmocka_unit_test_teardown(test_refusal_before_permanent, stderr_back),
        cmocka_unit_test_teardown(test_refusal_wording, stderr_back),
        cmocka_unit_test_teardown(test_permanent_under_coco_rules_wording,
                                  stderr_back),
        cmocka_unit_test_teardown(test_permanent_wording, stderr_back),
        cmocka_unit_test_teardown(test_health_failures_counted_by_table,
                                  stderr_back),
        cmocka_unit_test_teardown(test_reason_table, stderr_back),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
