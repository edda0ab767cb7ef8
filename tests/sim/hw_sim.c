/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated CPU behind provider/hw.h (test builds only).  The grammar
 * of RDRAND_SIM is in sim.h.  The configuration is read once, on first
 * use, from the environment, or set by rdrand_sim_configure(); an invalid
 * RDRAND_SIM aborts the process, since a test that runs on a CPU other
 * than the one it asked for proves nothing.
 */
#define _GNU_SOURCE
#include "sim.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct sim_word {
    uint64_t value;
    int carry;
};

struct sim_cpu {
    int cpuid; /* cpuid=: 1 present, 0 absent, 2 leaf 0 alone */
    int rdrand_present;
    int aesni_present;    /* CPUID leaf 1 ECX bit 25 */
    uint64_t fail_at;     /* 0: never */
    uint64_t fail_from;   /* 0: never */
    char fail_while[256]; /* "": never; else CF=0 while this file exists */
    int shared_stream;    /* stream=shared: the counters below, shared */
    int have_value;
    uint64_t value;
    struct sim_word *words; /* words=FILE, replayed in a loop */
    size_t nwords;
    /*
     * Generated streams: every word a function of its execution's index,
     * so that stream=shared and threads need nothing more.
     */
    uint64_t clean;       /* clean=N: good words first; 0: none */
    uint64_t cycle;       /* cycle=P: the period; 0: none */
    uint64_t every;       /* every=N:HEX: every N-th word; 0: none */
    uint64_t every_value; /* its HEX */
    int have_cpu;         /* cpu= given: */
    char vendor[13];      /* leaf 0's vendor string */
    uint32_t signature;   /* leaf 1 EAX */
    int have_microcode;   /* microcode= given (1), or microcode-text= (2) */
    uint64_t microcode;
    char microcode_text[32]; /* microcode-text=: the file as it is */
    /* The OS's getrandom (os-*=): reads count from 1, as executions. */
    int have_os_value; /* 1: os_value, 2: the running count */
    uint64_t os_value;
    uint64_t os_fail_at, os_fail_from, os_short_at; /* 0: never */
    int os_errno;
};

static struct sim_cpu sim = {
    .cpuid = 1, .rdrand_present = 1, .aesni_present = 1, .os_errno = EAGAIN};
/*
 * The stream's position: executions (fail-at=, fail-from=, words= and
 * the generated streams go by it) and the default generator's state (the
 * words it gave).  This process's own, or (stream=shared) in a
 * page shared with fork()ed children, as a real CPU's state is: a child
 * then draws the CPU's next words, never its parent's again.
 */
struct sim_position {
    _Atomic uint64_t executions, stream;
};
static struct sim_position sim_own_position;
static struct sim_position *sim_shared_position; /* mapped once */
static struct sim_position *sim_pos = &sim_own_position;
#define sim_executions (sim_pos->executions)
#define sim_stream (sim_pos->stream)
static _Atomic uint64_t sim_os_reads;
static _Atomic uint64_t sim_os_bytes; /* given since configure (count) */
static pthread_once_t sim_once = PTHREAD_ONCE_INIT;
static uint64_t sim_hook_at;
static void (*sim_hook)(void *);
static void *sim_hook_arg;
static int sim_configured;
static char sim_coco[32] = "none"; /* platform selected in sim_coco.c */

__attribute__((format(printf, 3, 4))) static int
sim_error(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return 0;
}

/* Exactly 1..maxdigits digits of base (10 or 16): no sign, space or 0x. */
static int sim_parse_u64(const char *s, int base, size_t maxdigits,
                         uint64_t *out)
{
    const char *digits = base == 16 ? "0123456789abcdefABCDEF" : "0123456789";
    size_t n = strspn(s, digits);

    if (n == 0 || n > maxdigits || s[n] != '\0')
        return 0;
    errno = 0;
    *out = strtoull(s, NULL, base);
    return errno == 0;
}

/* One words line without its newline: "<16 hex>" or "<16 hex> fail". */
static int sim_parse_word_line(const char *line, struct sim_word *w)
{
    char hex[17];

    if (strspn(line, "0123456789abcdefABCDEF") != 16)
        return 0;
    if (strcmp(line + 16, "") != 0 && strcmp(line + 16, " fail") != 0)
        return 0;
    memcpy(hex, line, 16);
    hex[16] = '\0';
    w->value = strtoull(hex, NULL, 16);
    w->carry = line[16] == '\0';
    return 1;
}

static int sim_load_words(const char *path, struct sim_cpu *cpu, char *err,
                          size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, linecap = 0, lineno = 0;
    ssize_t len;
    struct stat st;
    int ok = 1;

    if (f == NULL)
        return sim_error(err, errlen, "words=%s: %s", path, strerror(errno));
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return sim_error(err, errlen, "words=%s: not a regular file", path);
    }
    while (ok && (len = getline(&line, &linecap, f)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (memchr(line, '\0', (size_t)len) != NULL) {
            ok = sim_error(err, errlen, "words=%s line %zu: a NUL byte", path,
                           lineno);
            break;
        }
        if (len == 0 || line[0] == '#')
            continue;
        if (cpu->nwords == cap) {
            cap = cap ? 2 * cap : 64;
            cpu->words = realloc(cpu->words, cap * sizeof(*cpu->words));
            if (cpu->words == NULL)
                abort();
        }
        if (!sim_parse_word_line(line, &cpu->words[cpu->nwords]))
            ok = sim_error(err, errlen,
                           "words=%s line %zu: want exactly 16 hex digits, "
                           "optionally followed by \" fail\"",
                           path, lineno);
        else
            cpu->nwords++;
    }
    if (ok && ferror(f))
        ok = sim_error(err, errlen, "words=%s: read error", path);
    free(line);
    fclose(f);
    if (ok && cpu->nwords == 0)
        ok = sim_error(err, errlen, "words=%s: no words", path);
    return ok;
}

#define SIM_MAX_ITEMS 16

/* Split spec at commas into items; refuse empty items and repeated keys. */
static int sim_split(char *copy, char **items, size_t *n, char *err,
                     size_t errlen)
{
    char *item, *next = copy;

    *n = 0;
    if (*copy == '\0')
        return 1;
    while ((item = strsep(&next, ",")) != NULL) {
        size_t keylen = strcspn(item, "=");

        if (*item == '\0')
            return sim_error(err, errlen,
                             "empty item (two commas, or a "
                             "comma at either end)");
        if (*n == SIM_MAX_ITEMS)
            return sim_error(err, errlen, "more than %d items", SIM_MAX_ITEMS);
        for (size_t i = 0; i < *n; i++)
            if (strncmp(items[i], item, keylen + 1) == 0)
                return sim_error(err, errlen, "\"%.*s\" given twice",
                                 (int)keylen, item);
        items[(*n)++] = item;
    }
    return 1;
}

/*
 * cpu=VENDOR:FAMILY:MODEL:STEPPING as CPUID leaf 1 EAX, encoded as the
 * vendor's manual says a CPU reports it: a family from 0Fh is 0Fh plus
 * the extended family; a model's high nibble is the extended model,
 * which only families 0Fh and up have (and Intel's family 6).
 */
static int sim_parse_cpu(const char *value, struct sim_cpu *cpu, char *err,
                         size_t errlen)
{
    char copy[32], *next = copy, *field[4];
    uint64_t family, model, stepping;
    int intel, extended;
    size_t n = 0;

    if (strlen(value) >= sizeof(copy))
        goto bad;
    strcpy(copy, value);
    while (n < 4 && (field[n] = strsep(&next, ":")) != NULL)
        n++;
    if (n != 4 || next != NULL
        || (strcmp(field[0], "amd") != 0 && strcmp(field[0], "intel") != 0)
        || !sim_parse_u64(field[1], 16, 3, &family) || family > 0x10E
        || !sim_parse_u64(field[2], 16, 2, &model)
        || !sim_parse_u64(field[3], 16, 1, &stepping))
        goto bad;
    intel = field[0][0] == 'i';
    extended = family >= 0xF || (intel && family == 6);
    if (model > 0xF && !extended)
        return sim_error(err, errlen,
                         "cpu=%s: model %s needs a family with extended "
                         "models (amd: 0F and above; intel: 6, 0F and "
                         "above)",
                         value, field[2]);
    memcpy(cpu->vendor, intel ? "GenuineIntel" : "AuthenticAMD", 13);
    cpu->signature =
        (uint32_t)(stepping | (model & 0xF) << 4
                   | (family < 0xF ? family : 0xF) << 8 | (model >> 4) << 16
                   | (family < 0xF ? 0 : family - 0xF) << 20);
    cpu->have_cpu = 1;
    return 1;
bad:
    return sim_error(err, errlen,
                     "cpu=%s: want VENDOR:FAMILY:MODEL:STEPPING, VENDOR amd "
                     "or intel, FAMILY 0-10E, MODEL 0-FF, STEPPING 0-F (hex "
                     "digits, no 0x)",
                     value);
}

/* An execution count: decimal, from 1 (executions count from 1). */
static int sim_parse_count(const char *key, const char *value, uint64_t *n,
                           char *err, size_t errlen)
{
    if (!sim_parse_u64(value, 10, 20, n))
        return 0;
    if (*n == 0)
        return sim_error(err, errlen,
                         "%s=0: must be nonzero (executions count from 1)",
                         key);
    return 1;
}

/* clean=N: the good words before the defect; decimal, from 1. */
static int sim_parse_clean(const char *value, uint64_t *n, char *err,
                           size_t errlen)
{
    if (!sim_parse_u64(value, 10, 20, n))
        return sim_error(err, errlen,
                         "clean=%s: want the number of good words before "
                         "the defect, decimal digits, from 1",
                         value);
    if (*n == 0)
        return sim_error(err, errlen,
                         "clean=0: must be nonzero (without clean= the "
                         "defect starts at the first word)");
    return 1;
}

/* cycle=P: the period, 1 to 2^32. */
static int sim_parse_cycle(const char *value, uint64_t *p, char *err,
                           size_t errlen)
{
    if (!sim_parse_u64(value, 10, 10, p) || *p == 0 || *p > (uint64_t)1 << 32)
        return sim_error(err, errlen,
                         "cycle=%s: want the period, decimal digits, 1 to "
                         "4294967296 (2^32)",
                         value);
    return 1;
}

/* every=N:HEX: every N-th word is HEX; N decimal from 1. */
static int sim_parse_every(const char *value, struct sim_cpu *cpu, char *err,
                           size_t errlen)
{
    const char *colon = strchr(value, ':');
    char n[24];

    if (colon != NULL && (size_t)(colon - value) < sizeof(n)) {
        memcpy(n, value, (size_t)(colon - value));
        n[colon - value] = '\0';
        if (sim_parse_u64(n, 10, 20, &cpu->every) && cpu->every != 0
            && sim_parse_u64(colon + 1, 16, 16, &cpu->every_value))
            return 1;
    }
    return sim_error(err, errlen,
                     "every=%s: want N:HEX, every N-th word (N decimal "
                     "digits, from 1) the word HEX (1 to 16 hex digits, no "
                     "0x)",
                     value);
}

/*
 * value=, words=, cycle= and every= each give the words: one would
 * silently win over another.  clean= gives the words before one of them.
 */
static int sim_check_words(const struct sim_cpu *cpu, char *err, size_t errlen)
{
    const char *given[4];
    size_t n = 0;

    if (cpu->have_value)
        given[n++] = "value";
    if (cpu->nwords != 0)
        given[n++] = "words";
    if (cpu->cycle != 0)
        given[n++] = "cycle";
    if (cpu->every != 0)
        given[n++] = "every";
    if (n > 1)
        return sim_error(err, errlen,
                         "%s= and %s= both give the words: use one", given[0],
                         given[1]);
    if (cpu->clean != 0 && n == 0)
        return sim_error(err, errlen,
                         "clean=%" PRIu64 ": the good words before a defect, "
                         "and no defect: add value=, words=, cycle= or "
                         "every=",
                         cpu->clean);
    return 1;
}

/* os-errno=NAME: the errno of a failing getrandom read. */
static int sim_parse_errno(const char *value, int *out, char *err,
                           size_t errlen)
{
    static const struct {
        const char *name;
        int value;
    } names[] = {{"EAGAIN", EAGAIN}, {"ENOSYS", ENOSYS}, {"EPERM", EPERM},
                 {"EINTR", EINTR},   {"EFAULT", EFAULT}, {"EINVAL", EINVAL}};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(value, names[i].name) == 0) {
            *out = names[i].value;
            return 1;
        }
    return sim_error(err, errlen,
                     "os-errno=%s: want EAGAIN, ENOSYS, EPERM, EINTR, EFAULT "
                     "or EINVAL",
                     value);
}

static int sim_parse(const char *spec, struct sim_cpu *cpu, char *err,
                     size_t errlen)
{
    char *copy = strdup(spec), *items[SIM_MAX_ITEMS];
    const char *coco = "none";
    size_t n;
    int ok;

    if (copy == NULL)
        abort();
    ok = sim_split(copy, items, &n, err, errlen);
    for (size_t i = 0; ok && i < n; i++) {
        char *item = items[i], *value = strchr(item, '=');

        if (value == NULL) {
            ok = sim_error(err, errlen, "\"%s\": want key=value", item);
            break;
        }
        *value++ = '\0';
        if (strcmp(item, "cpuid") == 0 && strcmp(value, "present") == 0)
            cpu->cpuid = 1;
        else if (strcmp(item, "cpuid") == 0 && strcmp(value, "absent") == 0)
            cpu->cpuid = 0;
        else if (strcmp(item, "cpuid") == 0 && strcmp(value, "leaf0") == 0)
            cpu->cpuid = 2;
        else if (strcmp(item, "rdrand") == 0 && strcmp(value, "absent") == 0)
            cpu->rdrand_present = 0;
        else if (strcmp(item, "rdrand") == 0 && strcmp(value, "present") == 0)
            cpu->rdrand_present = 1;
        else if (strcmp(item, "aesni") == 0 && strcmp(value, "absent") == 0)
            cpu->aesni_present = 0;
        else if (strcmp(item, "aesni") == 0 && strcmp(value, "present") == 0)
            cpu->aesni_present = 1;
        else if (strcmp(item, "fail-at") == 0)
            ok = sim_parse_count(item, value, &cpu->fail_at, err, errlen);
        else if (strcmp(item, "fail-from") == 0)
            ok = sim_parse_count(item, value, &cpu->fail_from, err, errlen);
        else if (strcmp(item, "fail-while") == 0) {
            /* Absolute: every process must mean the same file. */
            ok = value[0] == '/' && strlen(value) < sizeof(cpu->fail_while);
            if (ok)
                snprintf(cpu->fail_while, sizeof(cpu->fail_while), "%s", value);
            else
                sim_error(
                    err, errlen,
                    "fail-while=%.64s%s: want an absolute path, under %zu "
                    "bytes",
                    value, strlen(value) > 64 ? "..." : "",
                    sizeof(cpu->fail_while));
        } else if (strcmp(item, "stream") == 0
                   && (strcmp(value, "shared") == 0
                       || strcmp(value, "process") == 0))
            cpu->shared_stream = strcmp(value, "shared") == 0;
        else if (strcmp(item, "value") == 0)
            ok = cpu->have_value = sim_parse_u64(value, 16, 16, &cpu->value);
        else if (strcmp(item, "os-value") == 0 && strcmp(value, "count") == 0)
            cpu->have_os_value = 2;
        else if (strcmp(item, "os-value") == 0) {
            ok = cpu->have_os_value =
                sim_parse_u64(value, 16, 2, &cpu->os_value);
            if (!ok)
                sim_error(err, errlen,
                          "os-value=%s: want 1 or 2 hex digits, no 0x", value);
        } else if (strcmp(item, "os-fail-at") == 0)
            ok = sim_parse_count(item, value, &cpu->os_fail_at, err, errlen);
        else if (strcmp(item, "os-fail-from") == 0)
            ok = sim_parse_count(item, value, &cpu->os_fail_from, err, errlen);
        else if (strcmp(item, "os-short-at") == 0)
            ok = sim_parse_count(item, value, &cpu->os_short_at, err, errlen);
        else if (strcmp(item, "os-errno") == 0)
            ok = sim_parse_errno(value, &cpu->os_errno, err, errlen);
        else if (strcmp(item, "words") == 0)
            ok = sim_load_words(value, cpu, err, errlen);
        else if (strcmp(item, "clean") == 0)
            ok = sim_parse_clean(value, &cpu->clean, err, errlen);
        else if (strcmp(item, "cycle") == 0)
            ok = sim_parse_cycle(value, &cpu->cycle, err, errlen);
        else if (strcmp(item, "every") == 0)
            ok = sim_parse_every(value, cpu, err, errlen);
        else if (strcmp(item, "cpu") == 0)
            ok = sim_parse_cpu(value, cpu, err, errlen);
        else if ((strcmp(item, "microcode") == 0
                  || strcmp(item, "microcode-text") == 0)
                 && cpu->have_microcode)
            ok = sim_error(err, errlen,
                           "microcode= and microcode-text=: one of them");
        else if (strcmp(item, "microcode") == 0) {
            ok = cpu->have_microcode =
                sim_parse_u64(value, 16, 8, &cpu->microcode);
            if (!ok)
                sim_error(err, errlen,
                          "microcode=%s: want 1 to 8 hex digits, no 0x", value);
        } else if (strcmp(item, "microcode-text") == 0) {
            ok =
                value[0] != '\0' && strlen(value) < sizeof(cpu->microcode_text);
            if (ok) {
                cpu->have_microcode = 2;
                snprintf(cpu->microcode_text, sizeof(cpu->microcode_text), "%s",
                         value);
            } else
                sim_error(err, errlen,
                          "microcode-text=%.40s: want 1 to %zu characters",
                          value, sizeof(cpu->microcode_text) - 1);
        } else if (strcmp(item, "coco") == 0) {
            coco = value;
            if (strlen(value) >= sizeof(sim_coco)
                || !(ok = rdrand_sim_coco_select(value)))
                ok = sim_error(err, errlen, "coco=%s: want one of %s", value,
                               rdrand_sim_coco_names());
        } else
            ok = 0;
        if (!ok && err[0] == '\0')
            sim_error(err, errlen, "\"%s=%s\" is not understood", item, value);
    }
    if (ok)
        ok = sim_check_words(cpu, err, errlen);
    if (ok)
        strcpy(sim_coco, coco);
    rdrand_sim_coco_select(sim_coco); /* a bad spec changes nothing */
    free(copy);
    return ok;
}

int rdrand_sim_configure(const char *spec, char *err, size_t errlen)
{
    struct sim_cpu cpu = {.cpuid = 1,
                          .rdrand_present = 1,
                          .aesni_present = 1,
                          .os_errno = EAGAIN};

    err[0] = '\0';
    if (!sim_parse(spec != NULL ? spec : "", &cpu, err, errlen)) {
        free(cpu.words);
        return 0;
    }
    if (cpu.shared_stream && sim_shared_position == NULL) {
        void *page =
            mmap(NULL, sizeof(struct sim_position), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

        if (page == MAP_FAILED) {
            sim_error(err, errlen, "stream=shared: mmap: %s", strerror(errno));
            free(cpu.words);
            return 0;
        }
        sim_shared_position = page;
    }
    sim_pos = cpu.shared_stream ? sim_shared_position : &sim_own_position;
    free(sim.words);
    sim = cpu;
    sim_configured = 1;
    atomic_store(&sim_executions, 0);
    atomic_store(&sim_stream, 0);
    atomic_store(&sim_os_reads, 0);
    atomic_store(&sim_os_bytes, 0);
    sim_hook = NULL;
    return 1;
}

static void sim_configure_from_env(void)
{
    char err[256];

    if (sim_configured)
        return;
    if (!rdrand_sim_configure(getenv("RDRAND_SIM"), err, sizeof(err))) {
        fprintf(stderr, "RDRAND_SIM: %s\n", err);
        abort();
    }
}

static void sim_init(void)
{
    pthread_once(&sim_once, sim_configure_from_env);
}

/*
 * Configured when the module (or test program) is loaded, not at first
 * use: a process that forks before it draws then gives its children the
 * one stream=shared page, as a real CPU is one.
 */
__attribute__((constructor)) static void sim_load(void)
{
    sim_init();
}

uint64_t rdrand_sim_executions(void)
{
    return atomic_load(&sim_executions);
}

uint64_t rdrand_sim_os_reads(void)
{
    return atomic_load(&sim_os_reads);
}

void rdrand_sim_at_execution(uint64_t n, void (*fn)(void *), void *arg)
{
    sim_hook_at = n;
    sim_hook_arg = arg;
    sim_hook = fn;
}

/*
 * splitmix64's i-th output (from 1): a deterministic stream that passes
 * the health tests, every word distinct (a bijection of i).
 */
static uint64_t sim_good_word(uint64_t i)
{
    uint64_t z = i * 0x9e3779b97f4a7c15ULL;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The default stream: its next word (failed executions take none). */
static uint64_t sim_next_good_word(void)
{
    return sim_good_word(atomic_fetch_add(&sim_stream, 1) + 1);
}

/*
 * The word of execution n (from 1) where clean=, cycle= or every= is
 * given: good words (splitmix64's n-th output: the default stream's, where
 * no execution failed) for the first clean executions, then the defect,
 * whose k-th execution (from 1) gives value=, words='s k-th line, the
 * cycle's (k mod P)-th word or every N-th word the constant.
 */
static uint64_t sim_generated_word(uint64_t n, int *carry)
{
    uint64_t k = n - sim.clean;

    *carry = 1;
    if (n <= sim.clean)
        return sim_good_word(n);
    if (sim.nwords != 0) {
        const struct sim_word *w = &sim.words[(k - 1) % sim.nwords];

        *carry = w->carry;
        return w->carry ? w->value : 0;
    }
    if (sim.have_value)
        return sim.value;
    if (sim.cycle != 0)
        return sim_good_word(sim.clean + 1 + (k - 1) % sim.cycle);
    return k % sim.every == 0 ? sim.every_value : sim_good_word(n);
}

int rdrand_hw_rdrand64(uint64_t *out)
{
    uint64_t n;

    sim_init();
    n = atomic_fetch_add(&sim_executions, 1) + 1;
    if (!sim.rdrand_present)
        abort(); /* real hardware raises #UD: the provider must not get here */
    if (sim_hook != NULL && n == sim_hook_at)
        sim_hook(sim_hook_arg);
    *out = 0;
    if (n == sim.fail_at || (sim.fail_from != 0 && n >= sim.fail_from)
        || (sim.fail_while[0] != '\0' && access(sim.fail_while, F_OK) == 0))
        return 0;
    if (sim.clean != 0 || sim.cycle != 0 || sim.every != 0) {
        int carry;

        *out = sim_generated_word(n, &carry);
        return carry;
    }
    if (sim.nwords != 0) {
        const struct sim_word *w = &sim.words[(n - 1) % sim.nwords];

        *out = w->carry ? w->value : 0;
        return w->carry;
    }
    *out = sim.have_value ? sim.value : sim_next_good_word();
    return 1;
}

/*
 * The OS's entropy: the real getrandom(2) unless os-value= gives every
 * byte, so that a fork()ed child's reads are its own (and a seccomp
 * filter sees the call) as with the real module.
 */
ssize_t rdrand_hw_getrandom(void *buf, size_t len)
{
    uint64_t n;

    sim_init();
    n = atomic_fetch_add(&sim_os_reads, 1) + 1;
    if (n == sim.os_fail_at
        || (sim.os_fail_from != 0 && n >= sim.os_fail_from)) {
        errno = sim.os_errno;
        return -1;
    }
    if (n == sim.os_short_at && len > 0)
        len--;              /* one byte short: the smallest short read */
    if (!sim.have_os_value) /* the system call, as hw_x86.c makes it */
        return syscall(SYS_getrandom, buf, len, GRND_NONBLOCK);
    if (sim.have_os_value == 2) {
        uint64_t at = atomic_fetch_add(&sim_os_bytes, len);

        for (size_t i = 0; i < len; i++)
            ((unsigned char *)buf)[i] = (unsigned char)(at + i);
        return (ssize_t)len;
    }
    memset(buf, (int)sim.os_value, len);
    return (ssize_t)len;
}

/*
 * Leaf 1 EAX where neither cpu= nor the platform gives one: a CPU of the
 * vendor leaf 0 names that no errata table entry lists (cpu= overrides
 * it, after).  AMD family 19h model 11h stepping 1 (Zen 4, EPYC 9004),
 * Intel family 6 model 8Fh stepping 8 (Sapphire Rapids, as the tdx
 * guest's /proc/cpuinfo says).
 */
static uint32_t sim_base_signature(void)
{
    struct rdrand_cpuid leaf0;

    rdrand_hw_cpuid(0, 0, &leaf0);
    return memcmp(&leaf0.ebx, "Genu", 4) == 0 ? 0x000806F8 : 0x00A10F11;
}

/* Base machine: a KVM guest on an AMD host, no memory encryption. */
int rdrand_hw_cpuid(uint32_t leaf, uint32_t subleaf, struct rdrand_cpuid *out)
{
    sim_init();
    memset(out, 0, sizeof(*out));
    if (sim.cpuid == 0)
        return 0; /* as hw_x86.c where the CPU has no CPUID */
    if (!rdrand_sim_coco_cpuid(leaf, subleaf, out)) {
        switch (leaf) {
        case 0:
            out->eax = 0x16;
            memcpy(&out->ebx, "Auth", 4);
            memcpy(&out->edx, "enti", 4);
            memcpy(&out->ecx, "cAMD", 4);
            break;
        case 1:
            out->eax = sim_base_signature();
            out->ecx = 1u << 31; /* hypervisor present */
            break;
        case 0x40000000:
            out->eax = 0x40000001;
            memcpy(&out->ebx, "KVMK", 4);
            memcpy(&out->ecx, "VMKV", 4);
            memcpy(&out->edx, "M\0\0\0", 4);
            break;
        case 0x80000000:
            out->eax = 0x80000008;
            break;
        }
    }
    if (leaf == 0 && sim.have_cpu) {
        memcpy(&out->ebx, sim.vendor, 4);
        memcpy(&out->edx, sim.vendor + 4, 4);
        memcpy(&out->ecx, sim.vendor + 8, 4);
    }
    if (leaf == 1 && sim.have_cpu)
        out->eax = sim.signature;
    if (leaf == 0 && sim.cpuid == 2)
        out->eax = 0; /* no leaf above 0 */
    if (leaf == 1) {
        out->ecx &= ~(1u << 30);
        out->ecx |= (uint32_t)sim.rdrand_present << 30;
        out->ecx &= ~(1u << 25);
        out->ecx |= (uint32_t)sim.aesni_present << 25;
    }
    return 1;
}

static const char sim_cpuinfo_with[] =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
    "flags\t\t: fpu vme de pse tsc msr pae sse2 rdrand hypervisor\n\n";
static const char sim_cpuinfo_without[] =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
    "flags\t\t: fpu vme de pse tsc msr pae sse2 hypervisor\n\n";

/* As Linux writes it, where the microcode loader runs (not under KVM). */
#define SIM_MICROCODE_PATH "/sys/devices/system/cpu/cpu0/microcode/version"

int rdrand_hw_path_exists(const char *path)
{
    int answer;

    sim_init();
    if ((answer = rdrand_sim_coco_path_exists(path)) != -2)
        return answer;
    if (strcmp(path, SIM_MICROCODE_PATH) == 0)
        return sim.have_microcode != 0;
    return strcmp(path, "/proc/cpuinfo") == 0 ? 1 : 0;
}

int rdrand_hw_fs_type(const char *path, uint64_t *type)
{
    int answer;

    sim_init();
    return (answer = rdrand_sim_coco_fs_type(path, type)) != -2 ? answer : 0;
}

ssize_t rdrand_hw_read_file(const char *path, void *buf, size_t len,
                            off_t offset)
{
    const char *text;
    char microcode[16];
    size_t size;
    ssize_t answer;

    sim_init();
    if ((answer = rdrand_sim_coco_read_file(path, buf, len, offset)) != -2)
        return answer;
    if (strcmp(path, SIM_MICROCODE_PATH) == 0) {
        /* A platform that hides /sys hides the file too. */
        if (!sim.have_microcode || rdrand_hw_path_exists(path) != 1)
            return -1;
        snprintf(microcode, sizeof(microcode), "0x%" PRIx64 "\n",
                 sim.microcode);
        text = sim.have_microcode == 2 ? sim.microcode_text : microcode;
    } else if (strcmp(path, "/proc/cpuinfo") == 0) {
        text = sim.rdrand_present ? sim_cpuinfo_with : sim_cpuinfo_without;
    } else {
        return -1;
    }
    size = strlen(text);
    if (offset < 0 || (size_t)offset >= size)
        return 0;
    size -= (size_t)offset;
    if (size > len)
        size = len;
    memcpy(buf, text + offset, size);
    return (ssize_t)size;
}
