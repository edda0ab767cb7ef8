/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-provider: the status block, for readers outside the process.
 *
 * rdrand.so exports one data object, RDRAND_STATUS_SYMBOL, laid out as
 * struct rdrand_status below.  It is the storage of the module's
 * process-wide counters and of its process verdict, and it carries what
 * the provider instances of the process are (how many, their
 * conditioning and mix, the CoCo platform and verdict), so that another process
 * can read all of it from memory (process_vm_readv, under the kernel's
 * ptrace access rules) without the module doing anything for the reader:
 * no system call, lock, allocation or file.  `rdrand-check --pid PID` is
 * such a reader (tools/check_pid.c).
 *
 * How to read it:
 *  1. Find the symbol in the process's copy of the module's dynamic
 *     symbol table and read the first RDRAND_STATUS_HEADER_SIZE bytes.
 *  2. magic must be RDRAND_STATUS_MAGIC; layout RDRAND_STATUS_LAYOUT and
 *     size sizeof(struct rdrand_status) as the reader was built with,
 *     and version the module version it was built for: otherwise the
 *     fields below may mean something else (use the reader of that
 *     module version).
 *  3. Read the whole block.  Every field after the header is an aligned
 *     word the module writes with relaxed atomic stores: each is whole.
 *     The counters only grow: a counter is the sum of counters_shared[c]
 *     and every slots[i].v[c].  The rest (from generation to
 *     cpu_errata) changes only at a load, a teardown, a fault or a
 *     verdict change, each inside writers += 1 ... generation += 1,
 *     writers -= 1: a copy taken with writers == 0 and the same
 *     generation before and after is a consistent one (read again
 *     otherwise).
 *
 * Layout version 3; little-endian x86-64 (the only target of RDRAND).
 */
#ifndef RDRAND_STATUS_H
#define RDRAND_STATUS_H

#include <stdint.h>

/* The module builds the block with C11 atomics; a reader sees words. */
#ifndef RDRAND_STATUS_ATOMIC
#define RDRAND_STATUS_ATOMIC(type) type
#endif

#define RDRAND_STATUS_SYMBOL "rdrand_status"
/* "RDRNDSTS" read as a little-endian 64-bit word. */
#define RDRAND_STATUS_MAGIC UINT64_C(0x535453444e524452)
/*
 * 2: the os-bytes and os-failures counters and live_mix[] (mix = os).
 * 3: live_default_instances and the default-context-seed-requests
 *    counter (which library context the module serves).
 */
#define RDRAND_STATUS_LAYOUT 3u
/* magic, layout, size, version: the part every layout keeps. */
#define RDRAND_STATUS_HEADER_SIZE 48u
#define RDRAND_STATUS_VERSION_LEN 32u

/* Counter indexes (the provider parameter each one serves). */
enum rdrand_status_counter {
    RDRAND_STATUS_RDRAND_WORDS,       /* rdrand-words */
    RDRAND_STATUS_RDRAND_FAILURES,    /* rdrand-failures */
    RDRAND_STATUS_SEED_REQUESTS,      /* seed-requests */
    RDRAND_STATUS_SEED_FAILURES,      /* seed-failures */
    RDRAND_STATUS_SEED_BYTES,         /* seed-bytes */
    RDRAND_STATUS_HEALTH_FAILURES,    /* health-failures */
    RDRAND_STATUS_GENERATE_REQUESTS,  /* generate-requests */
    RDRAND_STATUS_GENERATE_FAILURES,  /* generate-failures */
    RDRAND_STATUS_CONDITIONED_BLOCKS, /* conditioned-blocks */
    RDRAND_STATUS_OS_BYTES,           /* os-bytes (layout 2) */
    RDRAND_STATUS_OS_FAILURES,        /* os-failures (layout 2) */
    /* default-context-seed-requests (layout 3) */
    RDRAND_STATUS_DEFAULT_SEED_REQUESTS,
    RDRAND_STATUS_COUNTERS
};
#define RDRAND_STATUS_SLOTS 64

/* verdict: the trip count in the low bits, and two flags. */
#define RDRAND_STATUS_VERDICT_PERMANENT (UINT64_C(1) << 63)
#define RDRAND_STATUS_VERDICT_ENFORCED (UINT64_C(1) << 62)
#define RDRAND_STATUS_VERDICT_TRIPS(v)                                         \
    ((v) & (RDRAND_STATUS_VERDICT_ENFORCED - 1))

/*
 * The verdict as the health-verdict parameter says it: "permanent",
 * "intermittent" (trips, none permanent) or "ok".
 */
static inline const char *rdrand_status_verdict_text(uint64_t v)
{
    if (v & RDRAND_STATUS_VERDICT_PERMANENT)
        return "permanent";
    return RDRAND_STATUS_VERDICT_TRIPS(v) > 0 ? "intermittent" : "ok";
}

/* live_conditioning[]: live instances by their conditioning value. */
enum rdrand_status_conditioning {
    RDRAND_STATUS_COND_NONE,
    RDRAND_STATUS_COND_REDUCE512,
    RDRAND_STATUS_COND_REFUSED, /* the value itself was refused */
    RDRAND_STATUS_CONDS
};

/* live_mix[]: live instances by their mix value. */
enum rdrand_status_mix {
    RDRAND_STATUS_MIX_NONE,
    RDRAND_STATUS_MIX_OS,
    RDRAND_STATUS_MIX_REFUSED, /* the value itself was refused */
    RDRAND_STATUS_MIXES
};

/* One thread's counters at a time (see provider/counters.c). */
struct rdrand_status_slot {
    _Alignas(64) RDRAND_STATUS_ATOMIC(uint64_t) v[RDRAND_STATUS_COUNTERS];
    RDRAND_STATUS_ATOMIC(int32_t) taken;
};

/*
 * The order is the reader's, not the packer's: header, state, texts, then
 * the counters on their own cache lines (the padding before them is what
 * keeps a seeding thread's writes off the lines the state lives on).
 */
struct rdrand_status { /* NOLINT(clang-analyzer-optin.performance.Padding) */
    /* Header: constant from the module's load on. */
    uint64_t magic;
    uint32_t layout;
    uint32_t size;                           /* sizeof(struct rdrand_status) */
    char version[RDRAND_STATUS_VERSION_LEN]; /* "0.1.0", NUL-terminated */

    /* State: see "How to read it" above. */
    RDRAND_STATUS_ATOMIC(uint64_t) generation;
    RDRAND_STATUS_ATOMIC(uint32_t) writers;
    /* Provider instances now loaded (OSSL_provider_init minus teardown). */
    RDRAND_STATUS_ATOMIC(uint32_t) live_instances;
    RDRAND_STATUS_ATOMIC(uint32_t) live_conditioning[RDRAND_STATUS_CONDS];
    RDRAND_STATUS_ATOMIC(uint32_t) live_mix[RDRAND_STATUS_MIXES];
    /* Live instances loaded into the process's default library context
     * (the one RAND_bytes, TLS and every NULL libctx use); the rest were
     * loaded into library contexts of the application's own (layout 3). */
    RDRAND_STATUS_ATOMIC(uint32_t) live_default_instances;
    /* Live instances whose config section was refused: every request of
     * theirs fails, naming the key (health-state). */
    RDRAND_STATUS_ATOMIC(uint32_t) live_config_refused;
    /* Loads refused by the CoCo check (on_coco_failure = refuse). */
    RDRAND_STATUS_ATOMIC(uint32_t) coco_refusals;
    /* An instance's CoCo check at load failed: the provider reason code
     * of the cause (the CPU's, e.g. no RDRAND), else 0. */
    RDRAND_STATUS_ATOMIC(int32_t) coco_cause;
    /* CPUID reports RDRAND: 1 or 0; -1 before the first load. */
    RDRAND_STATUS_ATOMIC(int32_t) rdrand_available;
    /* The reason code of the permanent verdict, else 0. */
    RDRAND_STATUS_ATOMIC(int32_t) verdict_reason;
    /* The process verdict (RDRAND_STATUS_VERDICT_*). */
    RDRAND_STATUS_ATOMIC(uint64_t) verdict;
    /* Bits drawn and checked by the last CoCo check at load, or 0. */
    RDRAND_STATUS_ATOMIC(uint64_t) coco_seed_bits;
    /* What the first load saw (the same CPU and platform for every
     * instance), NUL-terminated; "" before the first load. */
    RDRAND_STATUS_ATOMIC(uint32_t) cpu_family;
    RDRAND_STATUS_ATOMIC(uint32_t) cpu_model;
    RDRAND_STATUS_ATOMIC(uint32_t) cpu_stepping;
    RDRAND_STATUS_ATOMIC(uint32_t) identity_written; /* texts below set */
    char module[64];        /* rdrand.so's description, or the test one's */
    char coco_platform[16]; /* coco-platform */
    char coco_signal[64];   /* coco-signal */
    char cpu_vendor[16];    /* cpu-vendor */
    char cpu_microcode[16]; /* cpu-microcode */
    char cpu_errata[64];    /* cpu-errata */

    /* Counters: the shared fallback, then one slot per thread. */
    _Alignas(64)
        RDRAND_STATUS_ATOMIC(uint64_t) counters_shared[RDRAND_STATUS_COUNTERS];
    struct rdrand_status_slot slots[RDRAND_STATUS_SLOTS];
};

/* Both sides check that they mean the same bytes. */
#define RDRAND_STATUS_SIZE 8704u
_Static_assert(sizeof(struct rdrand_status) == RDRAND_STATUS_SIZE,
               "struct rdrand_status changed: bump RDRAND_STATUS_LAYOUT");

#endif
