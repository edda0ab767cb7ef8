/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The status block (provider/status.c, include/rdrand_status.h) is the
 * storage of the counters and the verdict: what a reader outside the
 * process sums and reads is what the provider's parameters say.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "counters.h"
#include "errors.h"
#include "fault.h"
#include "prov.h"
#include "seams.h"
#include "status.h"

/* The exported name (an alias of the block). */
extern struct rdrand_status rdrand_status;

static uint64_t block_sum(enum rdrand_status_counter c)
{
    const struct rdrand_status *b = &rdrand_status;
    uint64_t sum = atomic_load(&b->counters_shared[c]);

    for (size_t i = 0; i < RDRAND_STATUS_SLOTS; i++)
        sum += atomic_load(&b->slots[i].v[c]);
    return sum;
}

static void test_header(void **state)
{
    (void)state;
    assert_ptr_equal(&rdrand_status, &rdrand_status_block);
    assert_true(rdrand_status.magic == RDRAND_STATUS_MAGIC);
    assert_int_equal(rdrand_status.layout, RDRAND_STATUS_LAYOUT);
    assert_int_equal(rdrand_status.size, RDRAND_STATUS_SIZE);
    assert_true(
        memchr(rdrand_status.version, '\0', sizeof(rdrand_status.version))
        != NULL);
    assert_true(rdrand_status.version[0] != '\0');
}

static void *adder(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++)
        rdrand_counter_add(RDRAND_CTR_RDRAND_WORDS, 3);
    return NULL;
}

static void test_counters_are_the_block(void **state)
{
    pthread_t t[4];
    uint64_t before = block_sum(RDRAND_STATUS_RDRAND_WORDS);

    (void)state;
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, adder, NULL), 0);
    adder(NULL);
    for (size_t i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    assert_true(block_sum(RDRAND_STATUS_RDRAND_WORDS) == before + 5 * 3000);
    assert_true(block_sum(RDRAND_STATUS_RDRAND_WORDS)
                == rdrand_counter_get(RDRAND_CTR_RDRAND_WORDS));
}

static void test_verdict_is_the_block(void **state)
{
    struct rdrand_prov prov = {0}; /* raises nothing: no core */

    (void)state;
    rdrand_fault_forget();
    assert_true(atomic_load(&rdrand_status.verdict) == 0);
    rdrand_fault_record(&prov, RDRAND_R_RDRAND_FAILED, NULL);
    assert_true(RDRAND_STATUS_VERDICT_TRIPS(atomic_load(&rdrand_status.verdict))
                == 1);
    rdrand_fault_enforce_coco(&prov); /* a trip under CoCo rules: permanent */
    assert_true(atomic_load(&rdrand_status.verdict)
                & RDRAND_STATUS_VERDICT_PERMANENT);
    assert_int_equal(atomic_load(&rdrand_status.verdict_reason),
                     RDRAND_R_RDRAND_FAILED);
    rdrand_fault_forget();
}

static void test_generation(void **state)
{
    uint64_t g = atomic_load(&rdrand_status.generation);

    (void)state;
    rdrand_status_begin();
    assert_int_equal(atomic_load(&rdrand_status.writers), 1);
    rdrand_status_end();
    assert_int_equal(atomic_load(&rdrand_status.writers), 0);
    assert_true(atomic_load(&rdrand_status.generation) == g + 1);
}

/*
 * The identity the first load writes: each text as the instance has it,
 * and a text it has none of (a NULL signal) as "", never "(null)".
 */
static void test_identity_texts(void **state)
{
    struct rdrand_prov prov = {0}; /* no CoCo check ran: no signal */
    uint32_t live = atomic_load(&rdrand_status.live_instances);

    (void)state;
    assert_int_equal(atomic_load(&rdrand_status.identity_written), 0);
    memcpy(prov.cpu_vendor, "GenuineIntel", 13);
    rdrand_status_loaded(&prov);
    assert_int_equal(atomic_load(&rdrand_status.identity_written), 1);
    assert_string_equal(rdrand_status.module, rdrand_module_description);
    assert_string_equal(rdrand_status.cpu_vendor, "GenuineIntel");
    assert_string_equal(rdrand_status.coco_signal, "");
    assert_int_equal(atomic_load(&rdrand_status.live_instances), live + 1);
    rdrand_status_unloaded(&prov);
    assert_int_equal(atomic_load(&rdrand_status.live_instances), live);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_counters_are_the_block),
        cmocka_unit_test(test_verdict_is_the_block),
        cmocka_unit_test(test_generation),
        cmocka_unit_test(test_identity_texts),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
