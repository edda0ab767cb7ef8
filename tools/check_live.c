/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-check's live check: the configuration loaded in this process as
 * an application loads it, a draw through the default library context
 * (RAND_bytes, then prediction-resistant requests that must reach the
 * seed source), and the provider's counters proving where the seeds came
 * from; run in a child, so that a configuration that aborts is reported
 * too.  rdrand-check.c drives it; check_output.c prints what it found.
 */
#include "check_live.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/conf.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "rdrand_provider.h"

#include "check_service.h"
#include "errors.h"

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

void check_collect_errors(struct dynamic *d)
{
    collect_errors_at(d, 0);
}

/*
 * A CPU in the provider's errata table: a warning (the exit status stays
 * the health tests' to decide, as the provider's own use of RDRAND does).
 */
static void check_errata(struct check_report *r, const struct dynamic *d)
{
    const struct check_value *errata = check_param(d, RDRAND_PARAM_CPU_ERRATA);
    const struct check_value *family = check_param(d, RDRAND_PARAM_CPU_FAMILY);
    const struct check_value *model = check_param(d, RDRAND_PARAM_CPU_MODEL);
    const struct check_value *vendor = check_param(d, RDRAND_PARAM_CPU_VENDOR);
    const struct check_value *microcode =
        check_param(d, RDRAND_PARAM_CPU_MICROCODE);

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
                      d->requests, check_plural((uint64_t)d->requests),
                      r->provider, d->pr.requests,
                      check_plural(d->pr.requests));
    else
        d->live = counted; /* unproven without the counters (above) */
}

/*
 * Steps 2 and 3: in this process, as an application.  The draw comes
 * before any OSSL_PROVIDER_* call that names a provider: loading or even
 * asking for one by name can change which provider instance the seed
 * fetch picks, and the check must measure what an application gets.
 */
void check_live(struct check_report *r, struct dynamic *d, long more_seeds)
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
    status = check_param(d, "status");
    state = check_param(d, RDRAND_PARAM_HEALTH_STATE);
    check_errata(r, d);

    judge_draw(r, d, counted);
    if (status != NULL && status->i != 1 && d->drew)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "provider %s reports status 0: %s", r->provider,
                      state != NULL && state->s != NULL ? state->s : "");
    OSSL_PROVIDER_unload(prov);
}

/*
 * What the service draw found, unless this process found it too: a
 * process as root, with the operator's environment, is not a service.
 */
void check_service_finding(struct check_report *r)
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
 * A configuration can make every process that loads it abort (the
 * provider's on_coco_failure = abort), rdrand-check included; then it
 * would write nothing and a monitor would keep the last good result.  So
 * the check runs in a child, whose stderr passes through this process:
 * returns -1 in the child (go on and report), the child's exit status if
 * it exited, or CHECK_UNHEALTHY with the signal and the provider's last
 * line on stderr as a problem for the parent to report (having loaded
 * nothing itself).
 */
int check_run_in_child(struct check_report *r, int *reported)
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
        if (dup2(fds[1], STDERR_FILENO) < 0) /* unreachable: fd valid */
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
    while (waitpid(pid, &status, 0) < 0) /* unreachable: our child */
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
