/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-check's reports: text, JSON and Prometheus's text format, from
 * what the checks found (a check_report, and the live check's or --pid's
 * parameters).  Everything printed that another process or a file
 * controls is escaped (put_text_safe, put_escaped).
 */
#include "check_output.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/core.h>
#include <openssl/crypto.h>

#include "rdrand_provider.h"

#include "check_service.h"

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

static void put_value(FILE *out, const struct check_value *v, int json);

/* s escaped for a JSON string (json) or a Prometheus label value. */
static void put_escaped(FILE *out, const char *s, int json)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
        size_t n = check_utf8_len(p);

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
                d->rand.requests, check_plural(d->rand.requests), r->provider,
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
            check_plural((uint64_t)d->requests), d->pr.requests,
            check_plural(d->pr.requests), r->provider, d->pr.failures);
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

void put_text(FILE *out, const struct check_report *r, const struct dynamic *d,
              int code)
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
        fprintf(
            out,
            "seed source: %s: %" PRIu64 " seed request%s served by "
            "provider %s in process %ld since it started, %" PRIu64 " failed\n",
            d->live ? "live" : "NOT live", d->seed_delta,
            check_plural(d->seed_delta), r->provider, r->pid, d->failed_delta);
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
    if (check_verdict_of(r, &because) != code || because < 0) {
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

void put_json(FILE *out, const struct check_report *r, const struct dynamic *d,
              int code)
{
    int because;

    fprintf(out, "{\"exit_code\": %d, \"verdict\": ", code);
    json_str(out, verdicts[code]);
    /* The finding that made the exit status, an index into problems. */
    if (check_verdict_of(r, &because) == code && because >= 0)
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

static void prom_info(FILE *out, const struct check_report *r,
                      const struct dynamic *d);

void put_prometheus(FILE *out, const struct check_report *r,
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
    if ((v = check_param(d, "status")) != NULL) {
        prom_metric(out, "rdrand_status", "gauge",
                    "1 when a request would be attempted", r->provider);
        fprintf(out, "} %" PRId64 "\n", v->i);
    }
    if ((v = check_param(d, RDRAND_PARAM_RDRAND_AVAILABLE)) != NULL) {
        prom_metric(out, "rdrand_available", "gauge",
                    "1 if CPUID reports RDRAND", r->provider);
        fprintf(out, "} %" PRId64 "\n", v->i);
    }
    for (size_t c = 0; counters[c] != NULL; c++) {
        char name[64], help[160];
        const char *base = counters[c];

        if ((v = check_param(d, counters[c])) == NULL)
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
    if ((v = check_param(d, RDRAND_PARAM_COCO_ENFORCED)) != NULL) {
        prom_metric(out, "rdrand_coco_enforced", "gauge",
                    "1 when confidential-computing rules bind the process",
                    r->provider);
        fprintf(out, "} %" PRId64 "\n", v->i);
    }
    if ((v = check_param(d, RDRAND_PARAM_COCO_SEED_BITS)) != NULL) {
        prom_metric(out, "rdrand_coco_seed_bytes", "gauge",
                    "bytes of RDRAND drawn and checked at load in a "
                    "confidential guest (coco-seed-bits / 8; 0: no check)",
                    r->provider);
        fprintf(out, "} %" PRIu64 "\n", v->u / 8);
    }
    prom_info(out, r, d);
}

/* The provider's text parameters as the labels of rdrand_info. */
static void prom_info(FILE *out, const struct check_report *r,
                      const struct dynamic *d)
{
    const struct check_value *v;

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
        v = check_param(d, info_labels[i][0]);
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
    if ((v = check_param(d, RDRAND_PARAM_MIX)) != NULL) {
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
FILE *open_output(const char *path, char *tmp, size_t tmp_len)
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
