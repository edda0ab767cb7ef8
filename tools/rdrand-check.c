/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-check: are this machine's OpenSSL processes seeded from RDRAND,
 * and is RDRAND healthy?
 *
 *   rdrand-check [-c FILE] [-n N] [--provider NAME] [--json|--prometheus]
 *                [-o FILE]
 *
 * 1. reads the configuration OpenSSL would (-c FILE, else OPENSSL_CONF,
 *    else the default openssl.cnf) with libcrypto's parser and checks it
 *    (check_conf.c);
 * 2. loads it as an application does, draws through the default library
 *    context (RAND_bytes, then 1 + N prediction-resistant requests on the
 *    public DRBG, each of which must reach the seed source) before any
 *    OSSL_PROVIDER_* call, and proves from the provider's counters, in
 *    this process, that the seed requests went to it; steps 1 to 3 run in
 *    a child, so that a configuration that aborts is reported too;
 * 3. reports health (the startup self-test ran when the provider loaded
 *    in this process), CoCo platform and signal, and every counter.
 *
 *   rdrand-check --pid PID [--json|--prometheus] [-o FILE]
 *
 * reads instead the provider's state and counters in running process
 * PID, from the status block the module exports (check_pid.c).
 *
 * Exit status: 0 RDRAND is the live seed source and healthy, 1 RDRAND
 * failing or unhealthy, 2 seeds do not come from this provider
 * (misconfiguration), 3 usage error, 4 (--pid) that process cannot be
 * read.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/conf.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

#include "check.h"
#include "check_service.h"
#include "errors.h"
#include "pid_module.h"

#define MAX_PARAMS 64

enum format { TEXT, JSON, PROMETHEUS };

/* A provider's seed counters at one moment. */
struct seeds {
    uint64_t requests, failures;
};

struct dynamic {
    int loaded;            /* the provider is active in this process */
    int drew;              /* RAND_bytes and every PR request succeeded */
    int requests;          /* prediction-resistant requests made */
    uint64_t seed_delta;   /* seed-requests during the draws */
    uint64_t failed_delta; /* seed-failures during the draws */
    struct seeds rand;     /* ... during RAND_bytes alone */
    struct seeds pr;       /* ... during the prediction-resistant requests */
    int rand_drew;         /* RAND_bytes succeeded */
    int bypassed;          /* RAND_bytes goes to provider rand_to */
    char rand_to[64];
    int parts;          /* rand and pr were read around each part */
    int live;           /* the verdict on the seed source */
    int coco_refused;   /* the provider refused to load: CoCo check */
    int seed_unfetched; /* OpenSSL 4.0 could not fetch the seed source */
    char errors[1024];  /* the error queue after a failed draw */
    struct check_value params[MAX_PARAMS];
    size_t nparams;
};

int check_get_param(OSSL_PROVIDER *prov, const OSSL_PARAM *known,
                    struct check_value *v)
{
    OSSL_PARAM params[2] = {OSSL_PARAM_END, OSSL_PARAM_END};

    memset(v, 0, sizeof(*v));
    v->key = known->key;
    v->type = (int)known->data_type;
    switch (known->data_type) {
    case OSSL_PARAM_UNSIGNED_INTEGER:
        params[0] = OSSL_PARAM_construct_uint64(known->key, &v->u);
        break;
    case OSSL_PARAM_INTEGER:
        params[0] = OSSL_PARAM_construct_int64(known->key, &v->i);
        break;
    case OSSL_PARAM_UTF8_PTR:
        params[0] =
            OSSL_PARAM_construct_utf8_ptr(known->key, (char **)&v->s, 0);
        break;
    default:
        return 1; /* nothing of another type is served */
    }
    return OSSL_PROVIDER_get_params(prov, params);
}

/* One counter; 0 if get_params failed (*v is then unusable). */
static int counter(OSSL_PROVIDER *prov, const char *name, uint64_t *v)
{
    OSSL_PARAM params[] = {OSSL_PARAM_uint64(name, v), OSSL_PARAM_END};

    *v = 0;
    return OSSL_PROVIDER_get_params(prov, params);
}

static const struct check_value *param(const struct dynamic *d, const char *key)
{
    for (size_t i = 0; i < d->nparams; i++)
        if (strcmp(d->params[i].key, key) == 0)
            return &d->params[i];
    return NULL;
}

/* The error queue, appended at len to d->errors, then cleared. */
static void collect_errors_at(struct dynamic *d, size_t len)
{
    unsigned long e;
    const char *data, *func;
    int flags;

    while ((e = ERR_get_error_all(NULL, NULL, &func, &data, &flags)) != 0
           && len < sizeof(d->errors) - 1) {
        char one[256];

        /* A provider's reasons come with a library number of its own. */
        if (ERR_GET_LIB(e) >= ERR_LIB_USER
            && rdrand_reason_has(ERR_GET_REASON(e), RDRAND_REASON_COCO))
            d->coco_refused = 1;
        /*
         * The seed source [random] names could not be fetched: 4.0 raises
         * this from rand_new_seed (RDRAND_TEXT_UNSERVED, errors.h).
         */
        if (ERR_GET_LIB(e) == ERR_LIB_RAND
            && ERR_GET_REASON(e) == RAND_R_UNABLE_TO_FETCH_DRBG && func != NULL
            && strcmp(func, "rand_new_seed") == 0)
            d->seed_unfetched = 1;

        /* Includes OpenSSL skipped: check_conf.c names them by line. */
        if (func != NULL
            && (strcmp(func, "process_include") == 0
                || strcmp(func, "BIO_new_file") == 0))
            continue;
        ERR_error_string_n(e, one, sizeof(one));
        len += (size_t)snprintf(d->errors + len, sizeof(d->errors) - len,
                                "%s%s%s%s", len ? "; " : "", one,
                                (flags & ERR_TXT_STRING) && *data ? ": " : "",
                                (flags & ERR_TXT_STRING) ? data : "");
        if (len >= sizeof(d->errors))
            len = sizeof(d->errors) - 1;
    }
    ERR_clear_error();
}

static void collect_errors(struct dynamic *d)
{
    collect_errors_at(d, 0);
}

/*
 * A CPU in the provider's errata table: a warning (the exit status stays
 * the health tests' to decide, as the provider's own use of RDRAND does).
 */
static void check_errata(struct check_report *r, const struct dynamic *d)
{
    const struct check_value *errata = param(d, RDRAND_PARAM_CPU_ERRATA);
    const struct check_value *family = param(d, RDRAND_PARAM_CPU_FAMILY);
    const struct check_value *model = param(d, RDRAND_PARAM_CPU_MODEL);
    const struct check_value *vendor = param(d, RDRAND_PARAM_CPU_VENDOR);
    const struct check_value *microcode = param(d, RDRAND_PARAM_CPU_MICROCODE);

    if (errata == NULL || errata->s == NULL || strcmp(errata->s, "none") == 0
        || family == NULL || model == NULL)
        return;
    check_problem(r, SEV_WARNING, 0, NULL, NULL,
                  "this CPU (%s family %02" PRIX64 "h model %02" PRIX64
                  "h, microcode %s) is in provider %s's table of known "
                  "RDRAND errata: %s; RDRAND stays in use while the health "
                  "tests pass (they fail closed on the constant these "
                  "defects return); the provider's warning at load and "
                  "docs/health-tests.md say what to do",
                  vendor != NULL && vendor->s != NULL ? vendor->s : "",
                  family->u, model->u,
                  microcode != NULL && microcode->s != NULL
                          && microcode->s[0] != '\0'
                      ? microcode->s
                      : "unknown",
                  r->provider, errata->s);
}

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/* The provider named r->provider among those the configuration loaded. */
struct find {
    const char *name;
    OSSL_PROVIDER *prov;
};

static int find_one(OSSL_PROVIDER *prov, void *arg)
{
    struct find *f = arg;

    if (strcmp(OSSL_PROVIDER_get0_name(prov), f->name) != 0)
        return 1;
    f->prov = prov;
    return 0;
}

static void seeds_now(OSSL_PROVIDER *prov, struct seeds *s)
{
    memset(s, 0, sizeof(*s));
    if (prov != NULL) {
        counter(prov, RDRAND_PARAM_SEED_REQUESTS, &s->requests);
        counter(prov, RDRAND_PARAM_SEED_FAILURES, &s->failures);
    }
}

static void seeds_between(const struct seeds *from, const struct seeds *to,
                          struct seeds *delta)
{
    delta->requests = to->requests - from->requests;
    delta->failures = to->failures - from->failures;
}

/*
 * The draw, as an application makes it: RAND_bytes first, on whatever
 * path this OpenSSL and this file give it (from 3.5, random_provider may
 * send it to a provider's own generator, past libcrypto's DRBGs and so
 * past this seed source), then 1 + more prediction-resistant requests on
 * libcrypto's public DRBG, each of which must reach the seed source.  The
 * counters are read around each part through the providers the file
 * activated (OSSL_PROVIDER_do_all loads nothing and asks for no name, so
 * the seed fetch still picks the instance an application gets).
 */
static void draw(const struct check_report *r, struct dynamic *d,
                 long more_seeds)
{
    struct find f = {r->entry, NULL};
    struct seeds before, mid, after;
    unsigned char buf[32];

    OSSL_PROVIDER_do_all(NULL, find_one, &f);
    seeds_now(f.prov, &before);
    d->drew = d->rand_drew = RAND_bytes(buf, sizeof(buf)) == 1;
    seeds_now(f.prov, &mid);
    /* Prediction resistance makes the DRBG chain ask the seed source. */
    for (long i = 0; d->drew && i <= more_seeds; i++, d->requests++)
        d->drew = EVP_RAND_generate(RAND_get0_public(NULL), buf, sizeof(buf), 0,
                                    1, NULL, 0)
                  == 1;
    seeds_now(f.prov, &after);
    OPENSSL_cleanse(buf, sizeof(buf));
    seeds_between(&before, &mid, &d->rand);
    seeds_between(&mid, &after, &d->pr);
    d->parts = f.prov != NULL;
    if (!d->drew)
        collect_errors_at(d, strlen(d->errors)); /* after the load's */
}

/*
 * The provider is not available after the draw: why, from its second
 * load's errors (after the draw's).  A CoCo refusal is RDRAND failing.
 */
static void check_not_loaded(struct check_report *r, struct dynamic *d)
{
    collect_errors_at(d, strlen(d->errors)); /* after the draw's */
    if (d->coco_refused)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "provider %s refuses to load: %s", r->provider,
                      d->errors);
    else
        check_problem(
            r, SEV_MISCONFIGURED, 0, NULL, NULL,
            "provider %s is not loaded in a process using this "
            "configuration: %s%s%s",
            r->provider,
            d->drew ? "OpenSSL seeds from the OS without a word"
            : d->seed_unfetched
                ? "the seed source cannot be fetched: " RDRAND_TEXT_UNSERVED
                : "drawing random bytes failed",
            d->errors[0] ? "; errors: " : "", d->errors);
}

/* Every parameter the provider serves, into d->params. */
static void read_params(struct dynamic *d, OSSL_PROVIDER *prov)
{
    const OSSL_PARAM *known = OSSL_PROVIDER_gettable_params(prov);

    for (; known != NULL && known->key != NULL && d->nparams < MAX_PARAMS;
         known++)
        if (check_get_param(prov, known, &d->params[d->nparams]))
            d->nparams++;
}

/*
 * What the draw proved (counted: the seed counters were read): a finding,
 * or d->live.
 */
static void judge_draw(struct check_report *r, struct dynamic *d, int counted)
{
    if (!d->drew && d->seed_unfetched)
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL,
                      "drawing random bytes failed: OpenSSL cannot fetch the "
                      "seed source [random] names (seed, seed_properties) "
                      "from provider %s, which is loaded: " RDRAND_TEXT_UNSERVED
                      "; errors: %s",
                      r->provider, d->errors);
    /*
     * Judged by the counters, not by an error's function name: a draw
     * that failed without asking us for a seed did not fail on RDRAND.
     */
    else if (!d->drew && counted && d->seed_delta == 0 && d->failed_delta == 0)
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL,
                      "drawing random bytes failed and provider %s was never "
                      "asked for a seed (0 seed requests): the failure is in "
                      "OpenSSL's DRBG chain as [random] configures it "
                      "(random, seed, seed_properties), not in RDRAND; "
                      "errors: %s",
                      r->provider,
                      d->errors[0] ? d->errors : "no error recorded");
    else if (!d->drew)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "drawing random bytes failed: %s",
                      d->errors[0] ? d->errors : "no error recorded");
    else if (d->bypassed)
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL,
                      "RAND_bytes asked provider %s for no seed: it goes to "
                      "provider %s's own generator, past libcrypto's DRBGs "
                      "and this seed source (OpenSSL 3.5+ routes it to the "
                      "provider random_provider names, fips by default, "
                      "when that provider is activated); only callers of "
                      "libcrypto's DRBGs by name reach %s",
                      r->provider, d->rand_to, r->provider);
    else if (counted
             && (d->pr.requests < (uint64_t)d->requests
                 || d->failed_delta != 0))
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL,
                      "%d prediction-resistant request%s succeeded but "
                      "provider %s served %" PRIu64
                      " seed request%s: OpenSSL seeded from another source "
                      "(the OS)",
                      d->requests, plural((uint64_t)d->requests), r->provider,
                      d->pr.requests, plural(d->pr.requests));
    else
        d->live = counted; /* unproven without the counters (above) */
}

/*
 * Steps 2 and 3: in this process, as an application.  The draw comes
 * before any OSSL_PROVIDER_* call that names a provider: loading or even
 * asking for one by name can change which provider instance the seed
 * fetch picks, and the check must measure what an application gets.
 */
static void check_live(struct check_report *r, struct dynamic *d,
                       long more_seeds)
{
    OSSL_PROVIDER *prov;
    const struct check_value *status, *state;
    int counted, available;

    draw(r, d, more_seeds);

    /*
     * Not available: load it once more, after the draw, for the reason it
     * was not (OpenSSL applies the file and drops a refused provider's
     * reason from the error queue).
     */
    available = OSSL_PROVIDER_available(NULL, r->entry);
    if ((prov = OSSL_PROVIDER_load(NULL, r->entry)) == NULL || !available) {
        check_not_loaded(r, d);
        OSSL_PROVIDER_unload(prov);
        return;
    }
    d->loaded = 1;
    counted = counter(prov, RDRAND_PARAM_SEED_REQUESTS, &d->seed_delta)
              & counter(prov, RDRAND_PARAM_SEED_FAILURES, &d->failed_delta);
    if (!counted) {
        collect_errors_at(d, strlen(d->errors));
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "provider %s did not serve its seed counters: %s",
                      r->provider,
                      d->errors[0] ? d->errors : "no error recorded");
    }
    /*
     * The whole draw's.  A provider not found among the active ones
     * before the draw: the totals since the process started, all counted
     * as the prediction-resistant requests' (a lower bound for them).
     */
    if (d->parts) {
        d->seed_delta = d->rand.requests + d->pr.requests;
        d->failed_delta = d->rand.failures + d->pr.failures;
    } else {
        d->pr.requests = d->seed_delta;
        d->pr.failures = d->failed_delta;
    }
    /*
     * RAND_bytes asked us for nothing while a provider it can be routed
     * to is active (3.5+): that provider's generator served it.  Either
     * the one random_provider names, or fips, which claims RAND_bytes
     * when it is activated before [random] names another.
     */
    if (d->parts && d->rand_drew && d->rand.requests == 0
        && r->random_provider[0] != '\0') {
        const char *to = OSSL_PROVIDER_available(NULL, r->random_provider)
                             ? r->random_provider
                         : OSSL_PROVIDER_available(NULL, "fips") ? "fips"
                                                                 : NULL;

        d->bypassed = to != NULL;
        snprintf(d->rand_to, sizeof(d->rand_to), "%s", to != NULL ? to : "");
    }

    read_params(d, prov);
    status = param(d, "status");
    state = param(d, RDRAND_PARAM_HEALTH_STATE);
    check_errata(r, d);

    judge_draw(r, d, counted);
    if (status != NULL && status->i != 1 && d->drew)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "provider %s reports status 0: %s", r->provider,
                      state != NULL && state->s != NULL ? state->s : "");
    OSSL_PROVIDER_unload(prov);
}

/*
 * The exit status, and the finding that made it (-1 for none): the first
 * of the deciding severity that names a line to fix, else the first.
 */
static int verdict_of(const struct check_report *r, int *because)
{
    int code = CHECK_LIVE;
    enum check_severity sev;

    *because = -1;
    for (size_t i = 0; i < r->nproblems; i++) {
        if (r->problems[i].severity == SEV_MISCONFIGURED)
            code = CHECK_MISCONFIGURED;
        else if (r->problems[i].severity == SEV_UNHEALTHY && code == CHECK_LIVE)
            code = CHECK_UNHEALTHY;
    }
    sev = code == CHECK_MISCONFIGURED ? SEV_MISCONFIGURED : SEV_UNHEALTHY;
    for (size_t i = 0; code != CHECK_LIVE && i < r->nproblems; i++)
        if (r->problems[i].severity == sev
            && (*because < 0
                || (r->problems[*because].line == 0
                    && r->problems[i].line > 0)))
            *because = (int)i;
    return code;
}

static int verdict(const struct check_report *r)
{
    int because;

    return verdict_of(r, &because);
}

/*
 * What each exit status means; the report says which finding made it 1
 * or 2 (the first of that severity), so that a seed source proved live
 * and a file that does not do what it says read together.
 */
static const char *const verdicts[] = {
    "live: RDRAND is the live seed source and healthy",
    "unhealthy: RDRAND is failing or unhealthy",
    ("misconfigured: the configuration does not do what it says, or seeds "
     "do not come from this provider")};
static const char *const verdict_words[] = {"live", "unhealthy",
                                            "misconfigured"};
static const char *const severities[] = {"warning", "unhealthy",
                                         "misconfigured"};

/* ---- output ---- */

static void put_value(FILE *out, const struct check_value *v, int json);

/*
 * The length of the well-formed UTF-8 sequence at s (1 to 4), or 0 for
 * an ill-formed one (bad lead or continuation byte, overlong, surrogate,
 * above U+10FFFF).  Config values are free text: the outputs must stay
 * valid JSON and Prometheus text whatever bytes they hold.
 */
static size_t utf8_len(const unsigned char *s)
{
    size_t n = s[0] < 0x80   ? 1
               : s[0] < 0xc2 ? 0
               : s[0] < 0xe0 ? 2
               : s[0] < 0xf0 ? 3
               : s[0] < 0xf5 ? 4
                             : 0;

    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0)      /* overlong */
        || (n == 3 && s[0] == 0xed && s[1] >= 0xa0)  /* surrogate */
        || (n == 4 && s[0] == 0xf0 && s[1] < 0x90)   /* overlong */
        || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90)) /* > U+10FFFF */
        return 0;
    return n;
}

/* s escaped for a JSON string (json) or a Prometheus label value. */
static void put_escaped(FILE *out, const char *s, int json)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
        size_t n = utf8_len(p);

        if (n == 0) {
            fputs("\xef\xbf\xbd", out); /* U+FFFD for the ill-formed byte */
            p++;
            continue;
        }
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (json && *p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fputs("\xef\xbf\xbd", out); /* a label: no terminal control */
        else
            fwrite(p, 1, n, out);
        p += n;
    }
}

/*
 * s for a terminal: a byte that could steer one (C0 and C1 controls, DEL)
 * or is not UTF-8 is written as \xNN.  Text a process or a file chose
 * (a process name, a path, a config value) cannot print a line of its own
 * or move the cursor over the verdict.
 */
static void put_text_safe(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
        size_t n = utf8_len(p);

        if (n == 0 || *p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] < 0xa0)) {
            for (size_t i = 0; i < (n ? n : 1); i++)
                fprintf(out, "\\x%02x", p[i]);
            p += n ? n : 1;
            continue;
        }
        fwrite(p, 1, n, out);
        p += n;
    }
}

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    put_escaped(out, s, 1);
    fputc('"', out);
}

static void put_value(FILE *out, const struct check_value *v, int json)
{
    if (v->type == OSSL_PARAM_UNSIGNED_INTEGER)
        fprintf(out, "%" PRIu64, v->u);
    else if (v->type == OSSL_PARAM_INTEGER)
        fprintf(out, "%" PRId64, v->i);
    else if (json)
        json_str(out, v->s);
    else
        put_text_safe(out, v->s);
}

/*
 * A finding as one line, "file:line: [section] key: message", the parts
 * there are (cut at len); the text report escapes it, the service draw's
 * finding is compared with it.
 */
static void problem_text(const struct check_report *r,
                         const struct check_problem *p, char *buf, size_t len)
{
    size_t n = 0;

#define PROBLEM_ADD(...)                                                       \
    (n += n < len ? (size_t)snprintf(buf + n, len - n, __VA_ARGS__) : 0)
    buf[0] = '\0';
    if (p->line > 0)
        PROBLEM_ADD("%s:%d: ", p->file[0] != '\0' ? p->file : r->shown,
                    p->line);
    if (p->section[0] != '\0')
        PROBLEM_ADD("[%s] ", p->section);
    if (p->key[0] != '\0')
        PROBLEM_ADD("%s: ", p->key);
#undef PROBLEM_ADD
    if (n < len)
        snprintf(buf + n, len - n, "%s", p->message);
}

static void put_problem(FILE *out, const struct check_report *r,
                        const struct check_problem *p)
{
    char line[PATH_MAX + sizeof(p->section) + sizeof(p->key)
              + sizeof(p->message) + 32];

    problem_text(r, p, line, sizeof(line));
    put_text_safe(out, line);
}

/* The file as named, and the file it is, once: "a -> b" or "b". */
static void put_config(FILE *out, const struct check_report *r)
{
    if (strcmp(r->config, r->shown) != 0) {
        put_text_safe(out, r->config);
        fputs(" -> ", out);
    }
    put_text_safe(out, r->shown);
}

/* What the draw proved, one line for each path it took. */
static void put_draw(FILE *out, const struct check_report *r,
                     const struct dynamic *d)
{
    if (!d->parts)
        fprintf(out, "live draw: RAND_bytes and ");
    else if (d->bypassed)
        fprintf(out,
                "live draw: RAND_bytes: no seed request reached provider "
                "%s: RAND_bytes goes to provider %s's own generator, "
                "past this seed source\n",
                r->provider, d->rand_to);
    else if (!d->rand_drew)
        fprintf(out, "live draw: RAND_bytes failed\n");
    else
        fprintf(out,
                "live draw: RAND_bytes: %" PRIu64 " seed request%s reached "
                "provider %s%s, %" PRIu64 " failed\n",
                d->rand.requests, plural(d->rand.requests), r->provider,
                d->rand.requests == 0 ? " (libcrypto's DRBGs were seeded "
                                        "before it)"
                                      : "",
                d->rand.failures);
    if (d->requests == 0)
        return;
    fprintf(out,
            "%s%d prediction-resistant request%s on libcrypto's public "
            "DRBG: %" PRIu64 " seed request%s reached provider %s, %" PRIu64
            " failed\n",
            d->parts ? "live draw: " : "", d->requests,
            plural((uint64_t)d->requests), d->pr.requests,
            plural(d->pr.requests), r->provider, d->pr.failures);
}

/* For whom the verdict holds: the service draw's user, or --here. */
static void put_service(FILE *out, const struct check_report *r)
{
    const struct check_service *s = r->service;

    if (s == NULL)
        return;
    if (s->here) {
        fputs("as a service: not checked (--here): this verdict holds for "
              "this user and environment only\n",
              out);
        return;
    }
    if (!s->ran)
        return;
    fputs("as a service: user ", out);
    put_text_safe(out, s->user);
    fprintf(out, " (uid %ld), environment PATH only, working directory /: %s\n",
            (long)s->uid,
            s->code == CHECK_LIVE ? "live" : "NOT live (see the finding)");
}

static void put_text(FILE *out, const struct check_report *r,
                     const struct dynamic *d, int code)
{
    int because;

    if (r->pid != 0) {
        fprintf(out, "rdrand-check: provider %s in process %ld (", r->provider,
                r->pid);
        put_text_safe(out, r->process);
        fputs(")\n", out);
    } else {
        fputs("rdrand-check: provider ", out);
        put_text_safe(out, r->provider);
        fputs(", configuration ", out);
        put_config(out, r);
        fprintf(out, ", %s\n", OpenSSL_version(OPENSSL_VERSION));
    }
    if (r->nproblems == 0 && r->pid != 0)
        fprintf(out, "process: no problem found\n");
    else if (r->nproblems == 0)
        fprintf(out, "configuration: no problem found (provider section, "
                     "module, activate, [random] seed and seed_properties, "
                     "default, included files)\n");
    for (size_t i = 0; i < r->nproblems; i++) {
        fprintf(out, "%s: ", severities[r->problems[i].severity]);
        put_problem(out, r, &r->problems[i]);
        fputc('\n', out);
    }
    if (d->loaded && r->pid != 0)
        fprintf(out,
                "seed source: %s: %" PRIu64 " seed request%s served by "
                "provider %s in process %ld since it started, %" PRIu64
                " failed\n",
                d->live ? "live" : "NOT live", d->seed_delta,
                plural(d->seed_delta), r->provider, r->pid, d->failed_delta);
    else if (d->loaded) {
        put_draw(out, r, d);
        fprintf(out, "seed source: %s\n",
                d->live ? "live: the draw's seeds came from this provider"
                        : "NOT live");
    }
    put_service(out, r);
    for (size_t i = 0; i < d->nparams; i++) {
        fprintf(out, "  %s = ", d->params[i].key);
        put_value(out, &d->params[i], 0);
        fputc('\n', out);
    }
    if (verdict_of(r, &because) != code || because < 0) {
        /* The child's signal, reported by the parent: no finding of ours. */
        fprintf(out, "verdict: %d %s\n", code, verdicts[code]);
        return;
    }
    fprintf(out, "verdict: %d %s, because ", code, verdict_words[code]);
    put_problem(out, r, &r->problems[because]);
    fputc('\n', out);
}

/* null for --here; else who the service draw ran as, and its verdict. */
static void put_service_json(FILE *out, const struct check_service *s)
{
    if (s == NULL || s->here || !s->ran) {
        fputs("null", out);
        return;
    }
    fputs("{\"user\": ", out);
    json_str(out, s->user);
    fprintf(out, ", \"uid\": %ld, \"exit_code\": %d, \"found\": ", (long)s->uid,
            s->code);
    if (s->code == CHECK_LIVE)
        fputs("null", out);
    else
        json_str(out, s->why);
    fputc('}', out);
}

static void put_json(FILE *out, const struct check_report *r,
                     const struct dynamic *d, int code)
{
    int because;

    fprintf(out, "{\"exit_code\": %d, \"verdict\": ", code);
    json_str(out, verdicts[code]);
    /* The finding that made the exit status, an index into problems. */
    if (verdict_of(r, &because) == code && because >= 0)
        fprintf(out, ", \"because\": %d", because);
    else
        fputs(", \"because\": null", out);
    fputs(", \"provider\": ", out);
    json_str(out, r->provider);
    /* A process is no configuration file: its name goes in "process". */
    if (r->pid != 0) {
        fputs(", \"config\": null, \"config_real\": null, \"process\": ", out);
        json_str(out, r->process);
    } else {
        fputs(", \"config\": ", out);
        json_str(out, r->config);
        fputs(", \"config_real\": ", out);
        json_str(out, r->shown);
    }
    fputs(", \"openssl_version\": ", out);
    json_str(out, OpenSSL_version(OPENSSL_VERSION));
    if (r->pid != 0) {
        fprintf(out,
                ", \"pid\": %ld, \"provider_loaded\": %s, "
                "\"seed_source_live\": %s, \"draw\": null, "
                "\"problems\": [",
                r->pid, d->loaded ? "true" : "false",
                d->live ? "true" : "false");
    } else {
        fprintf(out,
                ", \"provider_loaded\": %s, \"seed_source_live\": %s, "
                "\"draw\": {\"ok\": %s, \"prediction_resistant_requests\": %d, "
                "\"seed_requests\": %" PRIu64 ", \"seed_failures\": %" PRIu64
                ", \"rand_bytes_seed_requests\": ",
                d->loaded ? "true" : "false", d->live ? "true" : "false",
                d->drew ? "true" : "false", d->requests, d->seed_delta,
                d->failed_delta);
        if (d->parts)
            fprintf(out, "%" PRIu64, d->rand.requests);
        else
            fputs("null", out);
        fputs(", \"rand_bytes_to\": ", out);
        if (d->bypassed)
            json_str(out, d->rand_to);
        else
            fputs(d->parts ? "\"libcrypto\"" : "null", out);
        fputs("}, \"service\": ", out);
        put_service_json(out, r->service);
        fputs(", \"problems\": [", out);
    }
    for (size_t i = 0; i < r->nproblems; i++) {
        const struct check_problem *p = &r->problems[i];

        fprintf(out, "%s{\"severity\": \"%s\", \"file\": ", i ? ", " : "",
                severities[p->severity]);
        if (r->pid != 0 && p->file[0] == '\0')
            fputs("null", out);
        else
            json_str(out, p->file[0] != '\0' ? p->file : r->shown);
        fprintf(out, ", \"line\": %d, \"section\": ", p->line);
        json_str(out, p->section);
        fputs(", \"key\": ", out);
        json_str(out, p->key);
        fputs(", \"message\": ", out);
        json_str(out, p->message);
        fputc('}', out);
    }
    fputs("], \"params\": {", out);
    for (size_t i = 0; i < d->nparams; i++) {
        fputs(i ? ", " : "", out);
        json_str(out, d->params[i].key);
        fputs(": ", out);
        put_value(out, &d->params[i], 1);
    }
    fputs("}}\n", out);
}

/* The provider's counters, as Prometheus counters (name_total). */
static const char *const counters[] = {
    RDRAND_PARAM_RDRAND_WORDS,       RDRAND_PARAM_RDRAND_FAILURES,
    RDRAND_PARAM_SEED_REQUESTS,      RDRAND_PARAM_SEED_FAILURES,
    RDRAND_PARAM_SEED_BYTES,         RDRAND_PARAM_GENERATE_REQUESTS,
    RDRAND_PARAM_GENERATE_FAILURES,  RDRAND_PARAM_HEALTH_FAILURES,
    RDRAND_PARAM_CONDITIONED_BLOCKS, RDRAND_PARAM_OS_BYTES,
    RDRAND_PARAM_OS_FAILURES,        RDRAND_PARAM_DEFAULT_SEED_REQUESTS,
    RDRAND_PARAM_HEALTH_TRIPS,       NULL};

static void prom_label(FILE *out, const char *name, const char *value)
{
    fprintf(out, "%s=\"", name);
    put_escaped(out, value, 0);
    fputc('"', out);
}

/* --pid: every metric is labelled with the process read. */
static long prom_pid;

static void prom_metric(FILE *out, const char *name, const char *type,
                        const char *help, const char *provider)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s %s\n%s{", name, help, name, type,
            name);
    prom_label(out, "provider", provider); /* the caller closes the set */
    if (prom_pid != 0)
        fprintf(out, ",pid=\"%ld\"", prom_pid);
}

/* rdrand_info's labels: the provider's text parameters, by label name. */
static const char *const info_labels[][2] = {
    {RDRAND_PARAM_HEALTH_STATE, "health_state"},
    {RDRAND_PARAM_COCO_PLATFORM, "coco_platform"},
    {RDRAND_PARAM_COCO_SIGNAL, "coco_signal"},
    {RDRAND_PARAM_CONDITIONING, "conditioning"},
    {RDRAND_PARAM_CPU_VENDOR, "cpu_vendor"},
    {RDRAND_PARAM_CPU_FAMILY, "cpu_family"},
    {RDRAND_PARAM_CPU_MODEL, "cpu_model"},
    {RDRAND_PARAM_CPU_STEPPING, "cpu_stepping"},
    {RDRAND_PARAM_CPU_MICROCODE, "cpu_microcode"},
    {RDRAND_PARAM_CPU_ERRATA, "cpu_errata"},
    {RDRAND_PARAM_HEALTH_VERDICT, "health_verdict"},
};

static void put_prometheus(FILE *out, const struct check_report *r,
                           const struct dynamic *d, int code)
{
    const struct check_value *v;

    prom_pid = r->pid;
    prom_metric(out, "rdrand_seed_source_live", "gauge",
                r->pid != 0 ? "1 if the process's default library context "
                              "was seeded by this provider and none of its "
                              "seed requests failed"
                            : "1 if rdrand-check's own draw with this "
                              "configuration took its seeds from this "
                              "provider and none failed",
                r->provider);
    fprintf(out, "} %d\n", d->live);
    prom_metric(out, "rdrand_check_exit_code", "gauge",
                "rdrand-check's exit status: 0 live and healthy, 1 "
                "unhealthy, 2 misconfigured",
                r->provider);
    fprintf(out, "} %d\n", code);
    prom_metric(out, "rdrand_check_problems", "gauge",
                "problems rdrand-check found (warnings included)", r->provider);
    fprintf(out, "} %zu\n", r->nproblems);
    if ((v = param(d, "status")) != NULL) {
        prom_metric(out, "rdrand_status", "gauge",
                    "1 when a request would be attempted", r->provider);
        fprintf(out, "} %" PRId64 "\n", v->i);
    }
    if ((v = param(d, RDRAND_PARAM_RDRAND_AVAILABLE)) != NULL) {
        prom_metric(out, "rdrand_available", "gauge",
                    "1 if CPUID reports RDRAND", r->provider);
        fprintf(out, "} %" PRId64 "\n", v->i);
    }
    for (size_t c = 0; counters[c] != NULL; c++) {
        char name[64], help[160];
        const char *base = counters[c];

        if ((v = param(d, counters[c])) == NULL)
            continue;
        if (strncmp(base, "rdrand-", 7) == 0)
            base += 7;
        snprintf(name, sizeof(name), "rdrand_%s_total", base);
        for (char *p = name; *p; p++)
            if (*p == '-')
                *p = '_';
        if (r->pid != 0)
            snprintf(help, sizeof(help),
                     "provider parameter %s, in process %ld since it started",
                     counters[c], r->pid);
        else
            snprintf(help, sizeof(help),
                     "provider parameter %s, in rdrand-check's own process",
                     counters[c]);
        prom_metric(out, name, "counter", help, r->provider);
        fprintf(out, "} %" PRIu64 "\n", v->u);
    }
    if ((v = param(d, RDRAND_PARAM_COCO_ENFORCED)) != NULL) {
        prom_metric(out, "rdrand_coco_enforced", "gauge",
                    "1 when confidential-computing rules bind the process",
                    r->provider);
        fprintf(out, "} %" PRId64 "\n", v->i);
    }
    if ((v = param(d, RDRAND_PARAM_COCO_SEED_BITS)) != NULL) {
        prom_metric(out, "rdrand_coco_seed_bytes", "gauge",
                    "bytes of RDRAND drawn and checked at load in a "
                    "confidential guest (coco-seed-bits / 8; 0: no check)",
                    r->provider);
        fprintf(out, "} %" PRIu64 "\n", v->u / 8);
    }
    /* No parameters (the module not loaded there): no info to give. */
    if (d->nparams == 0)
        return;
    prom_metric(out, "rdrand_info", "gauge",
                "the provider's health state and the process's verdict "
                "(ok, intermittent, permanent), confidential-computing "
                "platform, conditioning, CPU (vendor, family, model, "
                "stepping and microcode, as the provider's parameters "
                "give them) and its known RDRAND errata, as labels",
                r->provider);
    for (size_t i = 0; i < sizeof(info_labels) / sizeof(info_labels[0]); i++) {
        v = param(d, info_labels[i][0]);
        fputc(',', out);
        if (v != NULL && v->type == OSSL_PARAM_UNSIGNED_INTEGER)
            fprintf(out, "%s=\"%" PRIu64 "\"", info_labels[i][1], v->u);
        else
            prom_label(out, info_labels[i][1], v ? v->s : "");
    }
    fputs("} 1\n", out);
    /*
     * Its own metric, not a label of rdrand_info: scripts match that
     * metric's label set as it was before mix existed.
     */
    if ((v = param(d, RDRAND_PARAM_MIX)) != NULL) {
        prom_metric(out, "rdrand_mix_info", "gauge",
                    "the mix value in force (none, os, refused): whether "
                    "the OS's entropy is mixed into every seed",
                    r->provider);
        fputc(',', out);
        prom_label(out, "mix", v->s);
        fputs("} 1\n", out);
    }
}

/* -o FILE: write beside it and rename, as the textfile collector wants. */
static FILE *open_output(const char *path, char *tmp, size_t tmp_len)
{
    int fd;
    FILE *out;

    snprintf(tmp, tmp_len, "%s.XXXXXX", path);
    if ((fd = mkstemp(tmp)) < 0) {
        perror(tmp);
        return NULL;
    }
    if (fchmod(fd, 0644) != 0 || (out = fdopen(fd, "w")) == NULL) {
        perror(tmp);
        close(fd);
        unlink(tmp);
        return NULL;
    }
    return out;
}

/*
 * What the service draw found, unless this process found it too: a
 * process as root, with the operator's environment, is not a service.
 */
static void service_finding(struct check_report *r)
{
    const struct check_service *s = r->service;
    enum check_severity sev;
    char seen[sizeof(s->why)];

    if (s == NULL || !s->ran || s->code == CHECK_LIVE)
        return;
    /*
     * Not a finding about the file: a root without CAP_SETUID (a
     * container), a tool its user may not run.  No verdict either way.
     */
    if (s->code < 0) {
        fputs("rdrand-check: the service draw could not run: ", stderr);
        put_text_safe(stderr, s->why);
        fputs("; no verdict (--here checks for this user and environment "
              "only)\n",
              stderr);
        exit(CHECK_USAGE);
    }
    sev = s->code == CHECK_UNHEALTHY ? SEV_UNHEALTHY : SEV_MISCONFIGURED;
    for (size_t i = 0; i < r->nproblems; i++) {
        problem_text(r, &r->problems[i], seen, sizeof(seen));
        if (r->problems[i].severity == sev && strcmp(seen, s->why) == 0)
            return;
    }
    check_problem(r, sev, 0, NULL, NULL,
                  "a service using this configuration is not seeded as this "
                  "process is: the check, run as a system service runs (user "
                  "%s, uid %ld, that user's groups, environment PATH only, "
                  "working directory /, the file given as OPENSSL_CONF), "
                  "found: %s",
                  s->user, (long)s->uid, s->why);
}

/*
 * Steps 1 to 3 in this process: load the configuration as an application
 * would, before any other libcrypto use, check it, then draw.
 */
static void check_in_process(struct check_report *r, struct dynamic *d,
                             const char *config, long more)
{
    OPENSSL_INIT_SETTINGS *settings;

    /* First, while nothing is loaded here for the service's child to
     * inherit. */
    if (r->service != NULL && !r->service->here)
        check_service_run(r->service,
                          r->config[0] == '/' ? r->config : r->shown,
                          r->provider);
    if ((settings = OPENSSL_INIT_new()) == NULL
        || !OPENSSL_INIT_set_config_filename(settings, config)
        || !OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, settings)) {
        collect_errors(d);
        /* A CoCo refusal is RDRAND failing (exit 1), not a mistake. */
        check_problem(
            r, d->coco_refused ? SEV_UNHEALTHY : SEV_MISCONFIGURED, 0, NULL,
            NULL, "OpenSSL failed to apply this configuration: %s", d->errors);
        d->errors[0] = '\0';
    }
    OPENSSL_INIT_free(settings);
    check_config(r);
    check_live(r, d, more);
    service_finding(r);
}

/*
 * A configuration can make every process that loads it abort (the
 * provider's on_coco_failure = abort), rdrand-check included; then it
 * would write nothing and a monitor would keep the last good result.  So
 * the check runs in a child, whose stderr passes through this process:
 * returns -1 in the child (go on and report), the child's exit status if
 * it exited, or CHECK_UNHEALTHY with the signal and the provider's last
 * line on stderr as a problem for the parent to report (having loaded
 * nothing itself).
 */
static int run_in_child(struct check_report *r, int *reported)
{
    int fds[2], status;
    pid_t pid;
    char buf[512], line[512], last[512] = "";
    size_t have = 0;
    ssize_t n;

    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        perror("rdrand-check: running the check in a child");
        exit(CHECK_USAGE);
    }
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], STDERR_FILENO) < 0)
            check_child_exit(CHECK_USAGE);
        close(fds[1]);
        return -1;
    }
    close(fds[1]);
    while ((n = read(fds[0], buf, sizeof(buf))) > 0
           || (n < 0 && errno == EINTR))
        for (ssize_t i = 0; i < n; i++) {
            fputc(buf[i], stderr);
            if (buf[i] == '\n') {
                line[have] = '\0';
                if (have > 0)
                    memcpy(last, line, have + 1);
                have = 0;
            } else if (have < sizeof(line) - 1) {
                line[have++] = buf[i];
            }
        }
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            perror("rdrand-check: waiting for the check");
            exit(CHECK_USAGE);
        }
    if ((*reported = WIFEXITED(status)) != 0)
        return WEXITSTATUS(status);
    check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                  "the check process was killed by signal %d (%s) while "
                  "loading this configuration or drawing: so is every "
                  "application using it%s%s",
                  WTERMSIG(status), strsignal(WTERMSIG(status)),
                  last[0] ? "; its last words on stderr: " : "", last);
    return CHECK_UNHEALTHY;
}

/* Who the service draw runs as, for every check of a file this run. */
static struct check_service service_settings;

static int check_file_in_child(const char *path, int print)
{
    static struct check_report cr;
    static struct dynamic cd;
    static struct check_service cs;
    int code, reported = 0;

    cs = service_settings;
    cr.service = &cs;
    cr.config = path;
    cr.shown = path; /* the temporary file, not yet where it goes */
    cr.provider = RDRAND_PROVIDER_NAME;
    cr.openssl_version = OpenSSL_version_num();
    if ((code = run_in_child(&cr, &reported)) < 0) {
        check_in_process(&cr, &cd, path, 0);
        code = verdict(&cr);
        if (print)
            put_text(stdout, &cr, &cd, code);
        exit(code);
    }
    if (!reported && print)
        put_text(stdout, &cr, &cd, code);
    return code;
}

/* The rename survives a crash only once its directory is synced. */
static int sync_dir(const char *path)
{
    char dir[4096];
    int fd, ok;

    snprintf(dir, sizeof(dir), "%s", path);
    if ((fd = open(dirname(dir), O_RDONLY | O_DIRECTORY)) < 0)
        return 0;
    ok = fsync(fd) == 0;
    close(fd);
    return ok;
}

/*
 * --pid: the report from the process's status block.  -1 when it cannot
 * be read (the reason is on stderr): there is no report to write.
 */
static int check_process(struct check_report *r, struct dynamic *d,
                         struct check_pid *p, const char *const *modules,
                         size_t nmodules)
{
    const struct check_value *v;
    int code = check_pid_read((pid_t)r->pid, p, modules, nmodules);

    if (code == CHECK_UNREADABLE) {
        fputs("rdrand-check: ", stderr);
        put_text_safe(stderr, p->error);
        fputc('\n', stderr);
        return -1;
    }
    r->process = p->comm;
    if (code == CHECK_MISCONFIGURED) {
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL, "%s", p->error);
        return verdict(r);
    }
    d->loaded = 1;
    d->nparams = check_pid_report(p, r, d->params, MAX_PARAMS, &d->live);
    if ((v = param(d, RDRAND_PARAM_SEED_REQUESTS)) != NULL)
        d->seed_delta = v->u;
    if ((v = param(d, RDRAND_PARAM_SEED_FAILURES)) != NULL)
        d->failed_delta = v->u;
    return verdict(r);
}

/* s as one word for a POSIX shell: '...', a ' inside as '\''. */
static void put_shell_word(FILE *out, const char *s)
{
    fputc('\'', out);
    for (; *s != '\0'; s++) {
        if (*s == '\'')
            fputs("'\\''", out);
        else
            fputc(*s, out);
    }
    fputc('\'', out);
}

/*
 * advice, then a and b as shell words; for a name with a control byte,
 * which no pasted line carries as it is, "by hand" instead.
 */
static int has_control(const char *s)
{
    for (; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

static void put_command(const char *advice, const char *a, const char *b)
{
    if (has_control(a) || (b != NULL && has_control(b))) {
        printf("%s(a name with a control character: do it by hand)\n", advice);
        return;
    }
    fputs(advice, stdout);
    put_shell_word(stdout, a);
    if (b != NULL) {
        fputc(' ', stdout);
        put_shell_word(stdout, b);
    }
    fputc('\n', stdout);
}

/*
 * Is real the file OpenSSL reads when nothing names one (OPENSSLDIR's
 * openssl.cnf: not CONF_get1_default_config_file, which prefers
 * OPENSSL_CONF)?
 */
static int is_default_config(const char *real)
{
    char name[PATH_MAX], *target;
    int is;

    snprintf(name, sizeof(name), "%s/openssl.cnf",
             OPENSSL_info(OPENSSL_INFO_CONFIG_DIR));
    target = realpath(name, NULL);
    is = target != NULL && strcmp(target, real) == 0;
    free(target);
    return is;
}

/* The newest backup --enable kept beside path, into buf; 0 if none. */
static int backup_of(const char *path, char *buf, size_t len)
{
    static char found[64][CHECK_PATH_LEN];
    size_t n = conf_edit_backups(path, found, 64), newest = 0;
    struct stat a, b;

    for (size_t i = 1; i < n; i++)
        if (stat(found[i], &a) == 0 && stat(found[newest], &b) == 0
            && a.st_mtime > b.st_mtime)
            newest = i;
    if (n > 0)
        snprintf(buf, len, "%s", found[newest]);
    return n > 0;
}

/*
 * --loads FILE...: which of these files, each taken as the configuration
 * a program is pointed at, loads the provider's module, where, and how to
 * revert it.  The package's prerm asks this before the module goes
 * (cmake/debian/prerm): the check's own reader (NCONF, includes followed,
 * whatever the names), nothing loaded or drawn.  Exit 1 when a file
 * loads it, 0 when none does.
 */
static int check_loads(char **files, int n, const char *provider)
{
    static struct check_report r;
    char done[64][PATH_MAX], backup[PATH_MAX + 64];
    int any = 0, ndone = 0;

    for (int i = 0; i < n; i++) {
        char *real = realpath(files[i], NULL);
        int seen = 0;

        for (int k = 0; real != NULL && k < ndone; k++)
            seen |= strcmp(done[k], real) == 0;
        if (real == NULL || seen) {
            free(real);
            continue;
        }
        if (ndone < 64)
            snprintf(done[ndone++], sizeof(done[0]), "%s", real);
        memset(&r, 0, sizeof(r));
        r.config = real;
        r.shown = real;
        r.provider = provider;
        r.openssl_version = OpenSSL_version_num();
        check_config(&r);
        ERR_clear_error();
        for (size_t k = 0; k < r.nloads; k++) {
            fputs("    ", stdout);
            put_text_safe(stdout,
                          r.loads[k].file[0] != '\0' ? r.loads[k].file : real);
            printf(":%d: [", r.loads[k].line);
            put_text_safe(stdout, r.loads[k].section);
            printf("] %s %s.so%s", r.loads[k].active ? "loads" : "configures",
                   r.property,
                   r.loads[k].active ? ""
                                     : " (not activated on this OpenSSL: an "
                                       "application may still load it by "
                                       "name)");
            if (r.loads[k].file[0] != '\0') {
                fputs(" (included from ", stdout);
                put_text_safe(stdout, real);
                fputc(')', stdout);
            }
            fputc('\n', stdout);
        }
        if (r.nloads == 0) {
            free(real);
            continue;
        }
        any = 1;
        if (conf_edit_reverts(real)) {
            put_command("      revert: rdrand-check --disable ", real, NULL);
        } else if (is_default_config(real)) {
            fputs("      not --enable's edit: remove those lines by hand, and "
                  "what refers to their sections\n",
                  stdout);
        } else {
            put_command("      not --enable's edit: remove those lines by "
                        "hand, or delete the file if it is a copy made for "
                        "rdrand (as the README's quick start makes): rm ",
                        real, NULL);
        }
        if (backup_of(real, backup, sizeof(backup)))
            put_command("      without rdrand-check, restore --enable's "
                        "backup: cp -p ",
                        backup, real);
        free(real);
    }
    return any;
}

static int usage(FILE *to, const char *argv0)
{
    fprintf(to,
            "usage: %s [-c FILE] [-n N] [--provider NAME] [--as USER | "
            "--here]\n"
            "          [--json | --prometheus] [-o FILE]\n"
            "       %s --pid PID [--module FILE]... [--json | --prometheus] "
            "[-o FILE]\n"
            "  -c FILE          the openssl.cnf to check (default: "
            "OPENSSL_CONF, else OpenSSL's default)\n"
            "  -n N             draw N more seeds before reporting (0-1000)\n"
            "  --provider NAME  the provider to check (default %s)\n"
            "  --json           one JSON object\n"
            "  --prometheus     node_exporter textfile-collector format\n"
            "  -o FILE          write FILE atomically (temporary file, "
            "then rename)\n"
            "  -h, --help       this text\n"
            "  --version        rdrand-check's version and OpenSSL's\n"
            "  --enable [FILE]  edit FILE (default: the file OpenSSL reads) "
            "to make rdrand\n"
            "                   the seed source, check it, keep a backup\n"
            "  --disable [FILE] revert --enable's edit\n"
            "  --pid PID        report the provider in running process PID "
            "(needs ptrace access to it: root, or its user)\n"
            "  --loads FILE...  which of these files, each as the "
            "configuration a program\n"
            "                   reads, loads the module (where, and how to "
            "revert it);\n"
            "                   exit 1 when one does (the package's prerm "
            "asks this)\n"
            "  --as USER        the service draw's user (default: nobody as "
            "root, else\n"
            "                   this user; only root may name another)\n"
            "  --here           no service draw: the verdict holds for this "
            "user and\n"
            "                   environment only, as the report says\n"
            "  --module FILE    with --pid: the module file to trust (default: "
            "the rdrand.so\n"
            "                   OpenSSL loads here); a mapped file is the "
            "module only if byte\n"
            "                   for byte the same; up to 8\n"
            "exit status: 0 live and healthy, 1 unhealthy, 2 "
            "misconfigured, 3 usage, 4 (--pid) the process cannot be read;\n"
            "  --enable, --disable: 0 done or nothing to do, 4 refused, 5 "
            "read/write error,\n"
            "  6 the new file fails the check (the file is unchanged "
            "unless 0)\n",
            argv0, argv0, RDRAND_PROVIDER_NAME);
    return to == stdout ? 0 : CHECK_USAGE;
}

/* The tool's release, and the libcrypto it runs with (and was built for). */
static int version(void)
{
    printf("rdrand-check %s (rdrand-provider)\n"
           "OpenSSL: %s (built with %s)\n",
           RDRAND_PROVIDER_VERSION, OpenSSL_version(OPENSSL_VERSION),
           OPENSSL_VERSION_TEXT);
    return 0;
}

/* What the command line asks for. */
struct args {
    enum format format;
    const char *config, *output, *edit_file;
    const char *modules[PID_MAX_TRUSTED];
    size_t nmodules;
    long more;
    int edit, provider_given, loads;
    int here;       /* --here: no service draw */
    const char *as; /* --as USER: the service draw's user */
};

/* One option into a: 0, or the exit status (usage, help, version). */
static int take_option(int opt, struct args *a, struct check_report *r,
                       const char *argv0)
{
    char *end;

    switch (opt) {
    case 'c':
        a->config = optarg;
        return 0;
    case 'n':
        a->more = strtol(optarg, &end, 10);
        /* Digits only: strtol would also take " 5" and "+5". */
        return isdigit((unsigned char)*optarg) && *end == '\0' && a->more >= 0
                       && a->more <= 1000
                   ? 0
                   : usage(stderr, argv0);
    case 'p':
        r->provider = optarg;
        a->provider_given = 1;
        return 0;
    case 'j':
    case 'P':
        if (a->format != TEXT)
            return usage(stderr, argv0);
        a->format = opt == 'j' ? JSON : PROMETHEUS;
        return 0;
    case 'o':
        a->output = optarg;
        return 0;
    case 'h':
        return usage(stdout, argv0) == 0 ? -1 : CHECK_USAGE;
    case 'V':
        return version() == 0 ? -1 : CHECK_USAGE;
    case 'E':
    case 'D':
        if (a->edit != 0)
            return usage(stderr, argv0);
        a->edit = opt;
        a->edit_file = optarg;
        return 0;
    case 'L':
        a->loads = 1;
        return 0;
    case 'H':
        a->here = 1;
        return 0;
    case 'A':
        a->as = optarg;
        return 0;
    case 'M':
        if (a->nmodules == PID_MAX_TRUSTED)
            return usage(stderr, argv0);
        a->modules[a->nmodules++] = optarg;
        return 0;
    case 'I':
        r->pid = strtol(optarg, &end, 10);
        return isdigit((unsigned char)*optarg) && *end == '\0' && r->pid > 0
                       && r->pid == (pid_t)r->pid
                   ? 0
                   : usage(stderr, argv0);
    default:
        return usage(stderr, argv0);
    }
}

/* The command line into a and r: 0, else the exit status (-1: 0, done). */
static int parse_args(int argc, char **argv, struct args *a,
                      struct check_report *r)
{
    static const struct option options[] = {
        {"config", required_argument, NULL, 'c'},
        {"provider", required_argument, NULL, 'p'},
        {"json", no_argument, NULL, 'j'},
        {"prometheus", no_argument, NULL, 'P'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {"enable", optional_argument, NULL, 'E'},
        {"disable", optional_argument, NULL, 'D'},
        {"pid", required_argument, NULL, 'I'},
        {"module", required_argument, NULL, 'M'},
        {"loads", no_argument, NULL, 'L'},
        {"here", no_argument, NULL, 'H'},
        {"as", required_argument, NULL, 'A'},
        {NULL, 0, NULL, 0}};
    int opt;

    while ((opt = getopt_long(argc, argv, "c:n:p:o:h", options, NULL)) != -1) {
        int code = take_option(opt, a, r, argv[0]);

        if (code != 0)
            return code;
    }
    /* --enable FILE as well as --enable=FILE */
    if (a->edit != 0 && a->edit_file == NULL && optind + 1 == argc)
        a->edit_file = argv[optind++];
    /* --loads: files; --pid: a process, read as it runs (nothing of this
     * one's to choose); --enable, --disable: one file, text. */
    if ((a->loads
         && (optind == argc || a->edit != 0 || r->pid != 0 || a->config != NULL
             || a->format != TEXT || a->output != NULL || a->more != 0
             || a->nmodules != 0))
        || (!a->loads && optind != argc)
        || (a->edit != 0
            && (a->format != TEXT || a->output != NULL || a->more != 0
                || a->provider_given))
        || (r->pid != 0 && (a->config != NULL || a->more != 0 || a->edit != 0))
        || (r->pid == 0 && a->nmodules != 0)
        /* A service draw belongs to a configuration's check. */
        || ((a->here || a->as != NULL) && (r->pid != 0 || a->loads))
        || (a->here && a->as != NULL))
        return usage(stderr, argv[0]);
    return 0;
}

/*
 * --pid: the process's report into r and d; its exit status, or -1 when
 * it cannot be read.  An earlier run's metrics would go on saying "live"
 * for a process that is gone: they are removed, so that their absence is
 * what the collector sees.
 */
static int run_pid(struct check_report *r, struct dynamic *d,
                   const struct args *a)
{
    static struct check_pid process;
    int code = check_process(r, d, &process, a->modules, a->nmodules);

    if (code < 0 && a->output != NULL && unlink(a->output) == 0)
        fprintf(stderr,
                "rdrand-check: removed %s: it described process %ld, which "
                "cannot be read now\n",
                a->output, r->pid);
    return code;
}

/* The report, to stdout or atomically to a->output: code, or usage. */
static int write_report(const struct check_report *r, const struct dynamic *d,
                        const struct args *a, int code)
{
    char tmp[4096];
    FILE *out = stdout;

    if (a->output != NULL
        && (out = open_output(a->output, tmp, sizeof(tmp))) == NULL)
        return CHECK_USAGE;
    if (a->format == JSON)
        put_json(out, r, d, code);
    else if (a->format == PROMETHEUS)
        put_prometheus(out, r, d, code);
    else
        put_text(out, r, d, code);
    if (a->output != NULL
        && (fflush(out) != 0 || fsync(fileno(out)) != 0 || fclose(out) != 0
            || rename(tmp, a->output) != 0 || !sync_dir(a->output))) {
        perror(a->output);
        unlink(tmp);
        return CHECK_USAGE;
    }
    return code;
}

int main(int argc, char **argv)
{
    static struct check_report r;
    static struct dynamic d;
    struct args a = {.format = TEXT};
    const char *config;
    char *default_conf = NULL, *real = NULL, err[256];
    int code, reported = 0;

    r.provider = RDRAND_PROVIDER_NAME;
    if ((code = parse_args(argc, argv, &a, &r)) != 0)
        return code < 0 ? 0 : code;
    if (a.loads)
        return check_loads(argv + optind, argc - optind, r.provider);
    r.openssl_version = OpenSSL_version_num();
    if (r.pid != 0)
        return (code = run_pid(&r, &d, &a)) < 0
                   ? CHECK_UNREADABLE
                   : write_report(&r, &d, &a, code);
    /*
     * --disable refuses while rdrand stays live without its lines: root's
     * draw, which reads every file, answers that; a service draw that
     * fails would turn "still live" into "not live".
     */
    service_settings.here = a.here || a.edit == 'D';
    if (!a.here
        && check_service_user(&service_settings, a.as, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s: %s\n", argv[0], err);
        return CHECK_USAGE;
    }
    r.service = &service_settings;
    config = a.edit != 0 && a.edit_file != NULL ? a.edit_file : a.config;
    if (config == NULL)
        config = getenv("OPENSSL_CONF");
    if (config == NULL)
        config = default_conf = CONF_get1_default_config_file();
    if (config == NULL) {
        fprintf(stderr, "%s: no configuration file to check\n", argv[0]);
        return CHECK_USAGE;
    }
    r.config = config;
    /* The file the operator edits: /etc/ssl/openssl.cnf, not the link. */
    r.shown = (real = realpath(config, NULL)) != NULL ? real : config;
    if (a.edit != 0)
        code = conf_edit(a.edit == 'E', config, check_file_in_child);
    /* A child that aborts (on_coco_failure = abort) still gets a report. */
    else if ((code = run_in_child(&r, &reported)) < 0) {
        check_in_process(&r, &d, config, a.more);
        code = write_report(&r, &d, &a, verdict(&r));
    } else if (!reported)
        code = write_report(&r, &d, &a, code);
    /* else: the child's report and status */
    OPENSSL_free(default_conf);
    free(real);
    return code;
}
