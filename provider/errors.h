/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reason codes of this provider, and how they are raised.  Shared on
 * purpose with tools/rdrand-check, which compiles errors.c for the one
 * table of reasons: it names a reason (rdrand_reason_text) and tells a
 * CoCo refusal (rdrand_reason_has) as the provider does.
 */
#ifndef RDRAND_ERRORS_H
#define RDRAND_ERRORS_H

#include <openssl/core.h>

struct rdrand_prov;

/*
 * Reason codes (library 0, as the core requires for provider reasons).
 * 0 means "no error" wherever a function returns a reason.
 * Their properties and strings are one table in provider/errors.c.
 */
enum rdrand_reason {
    RDRAND_R_OK = 0,
    RDRAND_R_NO_RDRAND = 100,     /* CPUID: no RDRAND */
    RDRAND_R_RDRAND_FAILED,       /* a word came back with CF=0 */
    RDRAND_R_STUCK_ZERO,          /* word == 0 */
    RDRAND_R_STUCK_ONES,          /* word == ~0 */
    RDRAND_R_REPEATED_WORD,       /* repetition count test */
    RDRAND_R_ADAPTIVE_PROPORTION, /* adaptive proportion test */
    RDRAND_R_SELFTEST_FAILED,     /* startup self-test */
    RDRAND_R_COCO_NO_RDRAND,      /* CoCo guest without RDRAND */
    RDRAND_R_COCO_SEED_FAILED,    /* CoCo init draw failed */
    RDRAND_R_BAD_CONFIG,          /* invalid provider config value */
    RDRAND_R_CONFIG_UNREADABLE,   /* core_get_params failed */
    RDRAND_R_BAD_LENGTH,          /* request length out of range */
    RDRAND_R_PARENT_REFUSED,      /* a seed source takes no parent */
    RDRAND_R_NOT_INSTANTIATED,    /* generate before instantiate */
    RDRAND_R_OUT_OF_MEMORY,
    RDRAND_R_BAD_PARAMETER,     /* a malformed OSSL_PARAM */
    RDRAND_R_STRENGTH_TOO_HIGH, /* more than RDRAND_STRENGTH requested */
    RDRAND_R_INTERNAL,          /* lock creation etc. */
    RDRAND_R_SHORT_CYCLE,       /* a word equal to a recent one */
    RDRAND_R_STUCK_BIT,         /* a bit position stuck at one value */
    RDRAND_R_BIASED_BIT,        /* a bit position biased over a window */
    RDRAND_R_NO_AESNI,          /* conditioning = reduce512 without AES-NI */
    RDRAND_R_RECOVERY_FAILED,   /* the 8192 words after a trip, as a whole */
    RDRAND_R_LONG_CYCLE,        /* a word drawn earlier in the process */
    RDRAND_R_OS_ENTROPY_FAILED, /* mix = os: getrandom failed or was short */
    RDRAND_R_MAX
};

/* Properties of a reason (errors.c's table). */
enum rdrand_reason_flag {
    RDRAND_REASON_HEALTH = 1, /* a health-test verdict: health-failures */
    RDRAND_REASON_COCO = 2,   /* the CoCo check at load failed */
    RDRAND_REASON_CONFIG = 4, /* the provider's section was refused */
    /*
     * A whole 64-bit word repeated: no working RDRAND does that within
     * what this provider remembers (fault.c), so it is permanent at once.
     */
    RDRAND_REASON_PROOF = 8
};
/* Whether reason has flag. */
int rdrand_reason_has(int reason, unsigned int flag);

/* The table served through OSSL_FUNC_PROVIDER_GET_REASON_STRINGS. */
const OSSL_ITEM *rdrand_reason_strings(void);
/*
 * What OpenSSL does where the seed source [random] names is not served
 * (its provider refused to load or is not loaded, or the name matches
 * nothing), said in every message that leads there.  Measured per
 * release in docs/compatibility.md ("What fails closed on 4.0, and what
 * stays silent"); it is why a refused value loads and fails every request
 * (fault.c) instead of refusing to load.
 */
#define RDRAND_TEXT_UNSERVED                                                   \
    "OpenSSL 3.0-3.6 seed from the OS without a word, 4.0 fails every "        \
    "random request"

/* The string for one reason, or "unknown reason". */
const char *rdrand_reason_text(int reason);
/*
 * The reason a CoCo guest's requests fail with, from why its check at
 * load failed (cause: no RDRAND, or the draw's reason).  The module's
 * latch and rdrand-check --pid's reading of coco_cause both use it.
 */
int rdrand_coco_reason(int cause);

/*
 * Raise reason on the error queue through the core, with an optional
 * printf-style detail.  Safe with prov == NULL (then it does nothing).
 */
void rdrand_raise(const struct rdrand_prov *prov, const char *file, int line,
                  const char *func, int reason, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* A warning's longest text; longer ones are cut. */
#define RDRAND_WARN_MAX 640
/*
 * A warning on the same channel every time it is called: for what happens
 * at most once per load (a refused config section, a refusal to load).
 * The process's one-shot warnings are the fault owner's (fault.c).
 */
void rdrand_warn(const struct rdrand_prov *prov, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#define RDRAND_RAISE(prov, reason, ...)                                        \
    rdrand_raise((prov), OPENSSL_FILE, OPENSSL_LINE, OPENSSL_FUNC, (reason),   \
                 __VA_ARGS__)

#endif
