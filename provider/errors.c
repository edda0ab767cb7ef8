/* SPDX-License-Identifier: Apache-2.0 */
#include "errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include <openssl/err.h>

#include "health_state.h"
#include "prov.h"

/*
 * The cutoffs the messages quote, from their one definition (each a
 * plain decimal literal in health_state.h).
 */
#define RDRAND_STR_(x) #x
#define RDRAND_STR(x) RDRAND_STR_(x)
#define S_REACH RDRAND_STR(RDRAND_RECENT_REACH)
#define S_BLOCK RDRAND_STR(RDRAND_BIT_BLOCK)
#define S_WINDOW RDRAND_STR(RDRAND_APT_WINDOW)
#define S_BIT_CUTOFF RDRAND_STR(RDRAND_BIT_CUTOFF)
#define S_RECOVERY RDRAND_STR(RDRAND_RECOVERY_WORDS)

/*
 * The one table of reasons: each with its properties and its message.
 * Each message says what failed and what the operator can do about it.
 * HEALTH: a verdict of the health tests (counted in health-failures);
 * COCO: the CoCo check at load failed; CONFIG: the section was refused.
 */
#define HEALTH RDRAND_REASON_HEALTH
#define COCO RDRAND_REASON_COCO
#define CONFIG RDRAND_REASON_CONFIG
#define PROOF (RDRAND_REASON_HEALTH | RDRAND_REASON_PROOF)
#define RDRAND_REASONS(X)                                                      \
    X(RDRAND_R_NO_RDRAND, 0,                                                   \
      "RDRAND is not available on this CPU (CPUID leaf 1 ECX bit 30 is "       \
      "clear); select another seed source")                                    \
    X(RDRAND_R_RDRAND_FAILED, 0,                                               \
      "RDRAND reported failure (CF=0): the CPU's random number generator may " \
      "be defective; the request failed and was not retried")                  \
    X(RDRAND_R_STUCK_ZERO, HEALTH,                                             \
      "RDRAND returned an all-zero word: the CPU's random number generator "   \
      "is not usable (check microcode and firmware updates)")                  \
    X(RDRAND_R_STUCK_ONES, HEALTH,                                             \
      "RDRAND returned an all-ones word: the CPU's random number generator "   \
      "is not usable (check microcode and firmware updates)")                  \
    X(RDRAND_R_REPEATED_WORD, PROOF,                                           \
      "RDRAND returned the same 64-bit word twice in a row (repetition count " \
      "test): the CPU's random number generator is not usable")                \
    X(RDRAND_R_ADAPTIVE_PROPORTION, HEALTH,                                    \
      "RDRAND output failed the adaptive proportion test: the CPU's random "   \
      "number generator is not usable")                                        \
    X(RDRAND_R_SELFTEST_FAILED, HEALTH,                                        \
      "RDRAND failed its startup self-test: the CPU's random number "          \
      "generator is not usable")                                               \
    X(RDRAND_R_COCO_NO_RDRAND, COCO,                                           \
      "confidential-computing guest without RDRAND: there is no entropy "      \
      "source the host cannot influence; this provider will not seed "         \
      "anything")                                                              \
    X(RDRAND_R_COCO_SEED_FAILED, COCO,                                         \
      "confidential-computing guest: RDRAND failed the check at load; this "   \
      "provider will not seed anything")                                       \
    X(RDRAND_R_BAD_CONFIG, CONFIG,                                             \
      "invalid value in the rdrand provider's config "                         \
      "section")                                                               \
    X(RDRAND_R_CONFIG_UNREADABLE, CONFIG,                                      \
      "could not read the rdrand provider's config section from the core")     \
    X(RDRAND_R_BAD_LENGTH, 0, "requested length is outside the allowed range") \
    X(RDRAND_R_PARENT_REFUSED, 0,                                              \
      "RDRAND is a seed source and takes no parent")                           \
    X(RDRAND_R_NOT_INSTANTIATED, 0, "the RDRAND context is not instantiated")  \
    X(RDRAND_R_OUT_OF_MEMORY, 0, "out of memory")                              \
    X(RDRAND_R_BAD_PARAMETER, 0, "invalid parameter")                          \
    X(RDRAND_R_STRENGTH_TOO_HIGH, 0,                                           \
      "requested security strength exceeds the 256 bits RDRAND is credited "   \
      "with")                                                                  \
    X(RDRAND_R_INTERNAL, 0, "internal error")                                  \
    X(RDRAND_R_SHORT_CYCLE, PROOF,                                             \
      "RDRAND returned a word equal to one of the recent words drawn in this " \
      "process or a process forked from the same one (recent-words test, at "  \
      "least the last " S_REACH "): its output repeats; the CPU's random "     \
      "number generator is not usable")                                        \
    X(RDRAND_R_STUCK_BIT, HEALTH,                                              \
      "RDRAND returned " S_BLOCK " words in which one bit position never "     \
      "changed (stuck-bit test): the CPU's random number generator is not "    \
      "usable")                                                                \
    X(RDRAND_R_BIASED_BIT, HEALTH,                                             \
      "RDRAND returned " S_WINDOW " words in which one bit position took one " \
      "value " S_BIT_CUTOFF " times or more (bit proportion test): the CPU's " \
      "random number generator is not usable")                                 \
    X(RDRAND_R_NO_AESNI, 0,                                                    \
      "conditioning = reduce512 needs AES-NI (CPUID leaf 1 ECX bit 25), "      \
      "which this CPU does not report; set conditioning = none or run on a "   \
      "CPU with AES-NI")                                                       \
    X(RDRAND_R_RECOVERY_FAILED, HEALTH,                                        \
      "RDRAND failed its recovery after a health-test trip: over "             \
      "the " S_RECOVERY                                                        \
      " words drawn to recover, a bit position or a byte value "               \
      "was too frequent, so the defect persists; this process will not use "   \
      "RDRAND again: restart it after checking the CPU, its microcode and "    \
      "firmware")                                                              \
    X(RDRAND_R_LONG_CYCLE, PROOF,                                              \
      "RDRAND returned a word equal to one drawn earlier in this process or "  \
      "a process forked from the same one, beyond the recent words "           \
      "(long-cycle test): its output cycles or repeats; "                      \
      "the CPU's random number generator is not usable")                       \
    X(RDRAND_R_OS_ENTROPY_FAILED, 0,                                           \
      "mix = os: the OS's entropy (getrandom) could not be read, so the "      \
      "request failed closed (RDRAND alone was not asked for); check the "     \
      "process's seccomp filter and that the kernel's pool is initialised, "   \
      "or set mix = none")

#define RDRAND_REASON_ITEM(id, flags, text) {(id), (text)},
static const OSSL_ITEM rdrand_reasons[] = {
    RDRAND_REASONS(RDRAND_REASON_ITEM){0, NULL}};
#define RDRAND_REASON_FLAGS(id, flags, text)                                   \
    [(id)-RDRAND_R_NO_RDRAND] = (flags),
static const unsigned char
    rdrand_reason_flags[RDRAND_R_MAX - RDRAND_R_NO_RDRAND] = {
        RDRAND_REASONS(RDRAND_REASON_FLAGS)};
_Static_assert(sizeof(rdrand_reasons) / sizeof(rdrand_reasons[0])
                   == RDRAND_R_MAX - RDRAND_R_NO_RDRAND + 1,
               "every reason has one entry");
#undef HEALTH
#undef COCO
#undef CONFIG

int rdrand_reason_has(int reason, unsigned int flag)
{
    return reason >= RDRAND_R_NO_RDRAND && reason < RDRAND_R_MAX
           && (rdrand_reason_flags[reason - RDRAND_R_NO_RDRAND] & flag) != 0;
}

const OSSL_ITEM *rdrand_reason_strings(void)
{
    return rdrand_reasons;
}

int rdrand_coco_reason(int cause)
{
    return cause == RDRAND_R_NO_RDRAND ? RDRAND_R_COCO_NO_RDRAND
                                       : RDRAND_R_COCO_SEED_FAILED;
}

const char *rdrand_reason_text(int reason)
{
    for (const OSSL_ITEM *r = rdrand_reasons; r->ptr != NULL; r++)
        if ((int)r->id == reason)
            return r->ptr;
    return "unknown reason";
}

void rdrand_raise(const struct rdrand_prov *prov, const char *file, int line,
                  const char *func, int reason, const char *fmt, ...)
{
    va_list ap;

    if (prov == NULL || prov->core_new_error == NULL)
        return;
    prov->core_new_error(prov->handle);
    prov->core_set_error_debug(prov->handle, file, line, func);
    va_start(ap, fmt);
    prov->core_vset_error(prov->handle, ERR_PACK(0, 0, reason), fmt, ap);
    va_end(ap);
}

void rdrand_warn(const struct rdrand_prov *prov, const char *fmt, ...)
{
    char msg[RDRAND_WARN_MAX];
    va_list ap;
    int len;

    if (prov->config.warn == RDRAND_WARN_NONE)
        return;
    va_start(ap, fmt);
    /* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above */
    len = vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    if (prov->config.warn == RDRAND_WARN_STDERR)
        fprintf(stderr,
                "rdrand-provider: %s (see rdrand-provider's "
                "docs/operations.md)\n",
                msg);
    else
        syslog(LOG_USER | LOG_CRIT,
               "rdrand-provider: %s (see rdrand-provider's "
               "docs/operations.md)",
               msg);
}
