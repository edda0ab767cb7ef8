/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The words the process tree has drawn: every word a thread draws is
 * looked up in and entered into two tables that all its threads and its
 * fork()ed descendants share.  Why shared and why these two: seen.c; the
 * reach, bounds and false-positive rates: docs/health-tests.md ("Recent
 * words and long cycles").
 */
#ifndef RDRAND_SEEN_H
#define RDRAND_SEEN_H

#include <stddef.h>
#include <stdint.h>

/* The tables' layout and their step: seen_table.h. */
struct rdrand_seen;

/*
 * The process's digest key and tables, for a thread's test state at its
 * first self-test: 1 with key, *aes (whether the digest is AES's,
 * health.h, which the tables are shared for) and *table (NULL where no
 * tables could be made) set, once the process has a key; else 0.  The
 * key is the one the load took from the OS; if the OS gave none, it is
 * taken from the first sample that passes the sample rules (sample_ok,
 * the caller's judgement of words[0..n)).  Every thread, and every
 * process forked after the load, digests under the one key, so their
 * digests meet in the tables.
 */
int rdrand_seen_process(uint64_t key[2], int *aes, struct rdrand_seen **table,
                        const uint64_t *words, size_t n, int sample_ok);

/* Why the tables are not shared with fork()ed descendants. */
enum rdrand_seen_unshared {
    RDRAND_SEEN_SHARED = 0,
    RDRAND_SEEN_NO_AESNI,  /* the digest would give the words back */
    RDRAND_SEEN_NO_MAPPING /* mmap refused: *map_errno says why */
};

/*
 * Make the tables' mapping if it is not made yet (the load does, before
 * a server forks): RDRAND_SEEN_SHARED if the tables are shared with
 * fork()ed descendants, else why not; then *own says whether tables of
 * the process's own could be made instead (if not, threads have none,
 * and only the repetition test compares words).
 */
enum rdrand_seen_unshared rdrand_seen_share(int *own, int *map_errno);

#endif
