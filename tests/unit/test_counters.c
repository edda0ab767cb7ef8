/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process-wide counters kept in per-thread slots (provider/counters.c):
 * exact with more threads than slots, alive at once or one after another
 * (slots freed at thread exit and taken over), and monotonic for a reader
 * running alongside the writers.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "counters.h"
#include "seams.h"
#include "status_block.h"

#define ADDS 2000

static pthread_barrier_t all_alive;

struct writer {
    pthread_t id;
    int wait; /* hold at the barrier: every writer alive at once */
};

static void *writer_main(void *arg)
{
    struct writer *w = arg;

    for (uint64_t i = 1; i <= ADDS; i++) {
        rdrand_counter_add(RDRAND_CTR_SEED_BYTES, i);
        rdrand_counter_add(RDRAND_CTR_SEED_REQUESTS, 1);
    }
    if (w->wait)
        pthread_barrier_wait(&all_alive);
    return NULL;
}

static void run_writers(int n, int at_once)
{
    struct writer w[100];

    assert_true(n <= 100);
    if (at_once)
        assert_int_equal(pthread_barrier_init(&all_alive, NULL, (unsigned)n),
                         0);
    for (int i = 0; i < n; i++) {
        w[i].wait = at_once;
        assert_int_equal(pthread_create(&w[i].id, NULL, writer_main, &w[i]), 0);
        if (!at_once)
            assert_int_equal(pthread_join(w[i].id, NULL), 0);
    }
    for (int i = 0; at_once && i < n; i++)
        assert_int_equal(pthread_join(w[i].id, NULL), 0);
    if (at_once)
        pthread_barrier_destroy(&all_alive);
}

/* 100 threads alive at once (more than the 64 slots), then 100 in turn. */
static void test_exact_beyond_the_slots(void **state)
{
    const uint64_t per_thread = (uint64_t)ADDS * (ADDS + 1) / 2;

    (void)state;
    for (int at_once = 1; at_once >= 0; at_once--) {
        uint64_t bytes = rdrand_counter_get(RDRAND_CTR_SEED_BYTES);
        uint64_t requests = rdrand_counter_get(RDRAND_CTR_SEED_REQUESTS);

        run_writers(100, at_once);
        assert_int_equal(rdrand_counter_get(RDRAND_CTR_SEED_BYTES) - bytes,
                         100 * per_thread);
        assert_int_equal(rdrand_counter_get(RDRAND_CTR_SEED_REQUESTS)
                             - requests,
                         100 * ADDS);
    }
    /* This thread's own slot. */
    {
        uint64_t failures = rdrand_counter_get(RDRAND_CTR_SEED_FAILURES);

        rdrand_counter_add(RDRAND_CTR_SEED_FAILURES, 3);
        assert_int_equal(
            rdrand_counter_get(RDRAND_CTR_SEED_FAILURES) - failures, 3);
    }
}

static atomic_int writers_done;

static void *reader_main(void *arg)
{
    uint64_t last = 0, *backwards = arg;

    while (!atomic_load(&writers_done)) {
        uint64_t now = rdrand_counter_get(RDRAND_CTR_SEED_BYTES);

        *backwards += now < last;
        last = now;
    }
    return NULL;
}

/*
 * A reader never sees a counter go back while threads come and go (their
 * slots freed and taken over).
 */
static void test_monotonic_while_threads_come_and_go(void **state)
{
    pthread_t reader;
    uint64_t backwards = 0;

    (void)state;
    atomic_store(&writers_done, 0);
    assert_int_equal(pthread_create(&reader, NULL, reader_main, &backwards), 0);
    for (int round = 0; round < 5; round++)
        run_writers(20, round % 2);
    atomic_store(&writers_done, 1);
    assert_int_equal(pthread_join(reader, NULL), 0);
    assert_int_equal(backwards, 0);
}

/*
 * A child of fork() starts from the parent's counts (other threads'
 * slots included) and counts on; the parent does not see the child's.
 */
static void test_fork(void **state)
{
    uint64_t before;
    int status = -1;
    pid_t pid;

    (void)state;
    run_writers(3, 1); /* slots of threads that do not exist in the child */
    rdrand_counter_add(RDRAND_CTR_GENERATE_REQUESTS, 5);
    before = rdrand_counter_get(RDRAND_CTR_GENERATE_REQUESTS);
    if ((pid = fork()) == 0) {
        /* No thread here: TSan cannot start one after a threaded fork. */
        rdrand_counter_add(RDRAND_CTR_GENERATE_REQUESTS, 7);
        _exit(rdrand_counter_get(RDRAND_CTR_GENERATE_REQUESTS) == before + 7
                  ? 0
                  : 1);
    }
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(rdrand_counter_get(RDRAND_CTR_GENERATE_REQUESTS), before);
}

static void *count_five(void *arg)
{
    (void)arg;
    rdrand_counter_add(RDRAND_CTR_OS_FAILURES, 5);
    return NULL;
}

static unsigned int slots_taken(void)
{
    unsigned int n = 0;

    for (size_t i = 0; i < RDRAND_STATUS_SLOTS; i++)
        n += atomic_load(&rdrand_status_block.slots[i].taken) != 0;
    return n;
}

/*
 * A new thread whose slot claim meets a failure of libcrypto's thread
 * API (the once, making the thread-local key, setting it) counts in the
 * shared atomics instead, exactly, and keeps no slot it could never free;
 * with none failing (the control) it counts in a slot of its own.
 */
static void test_claim_failures_count_shared(void **state)
{
    (void)state;
    for (int which = 3; which >= 0; which--) {
        _Atomic uint64_t *shared =
            &rdrand_status_block.counters_shared[RDRAND_CTR_OS_FAILURES];
        uint64_t before = atomic_load(shared);
        uint64_t total = rdrand_counter_get(RDRAND_CTR_OS_FAILURES);
        unsigned int taken = slots_taken();
        pthread_t t;

        rdrand_counters_claim_fails = which;
        rdrand_counters_forget();
        assert_int_equal(pthread_create(&t, NULL, count_five, NULL), 0);
        assert_int_equal(pthread_join(t, NULL), 0);
        rdrand_counters_claim_fails = 0;
        assert_int_equal(rdrand_counter_get(RDRAND_CTR_OS_FAILURES) - total, 5);
        assert_int_equal(atomic_load(shared) - before, which != 0 ? 5 : 0);
        assert_int_equal(slots_taken(), taken);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_beyond_the_slots),
        cmocka_unit_test(test_monotonic_while_threads_come_and_go),
        cmocka_unit_test(test_fork),
        cmocka_unit_test(test_claim_failures_count_shared),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
