/* SPDX-License-Identifier: Apache-2.0 */
/* rdrand-check's parts: the report, the static config check, params. */
#ifndef RDRAND_CHECK_H
#define RDRAND_CHECK_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <openssl/provider.h>

#include "rdrand_status.h"

#include "pid_module.h"

struct check_service;

/* Exit statuses, documented in docs/operations.md. */
enum check_exit {
    CHECK_LIVE = 0,          /* RDRAND is the live seed source, healthy */
    CHECK_UNHEALTHY = 1,     /* RDRAND failing or unhealthy */
    CHECK_MISCONFIGURED = 2, /* seeds do not come from this provider */
    CHECK_USAGE = 3,
    CHECK_UNREADABLE = 4 /* --pid: that process's state cannot be read */
};

/* What a problem means for the verdict. */
enum check_severity { SEV_WARNING, SEV_UNHEALTHY, SEV_MISCONFIGURED };

struct check_problem {
    enum check_severity severity;
    char file[1024];  /* an included file; "" for the file checked */
    int line;         /* in that file; 0 when not known */
    char section[64]; /* "" when not about one section */
    char key[64];     /* "" when not about one key */
    char message[1536];
};

#define CHECK_MAX_PROBLEMS 64
#define CHECK_MAX_LOADS 8

struct check_report {
    long pid;             /* --pid: the process read; 0 for this one */
    const char *process;  /* --pid: its name (/proc/PID/comm), untrusted */
    const char *config;   /* the file OpenSSL loads, as it was named */
    const char *shown;    /* its real path, the file the operator edits */
    const char *provider; /* the provider checked, as -p names it */
    /*
     * The draw again as a service makes it (check_service.c): who, and
     * what it found; NULL for --pid and inside that draw itself.
     */
    struct check_service *service;
    /*
     * What the file makes of it (check_config): the name OpenSSL loads
     * the first active instance of the module under (an entry of the
     * providers section: "rd = rd_sect" with module = rdrand.so is "rd"),
     * and the provider= property that module registers (its file name
     * without .so).  Both r->provider until the file says otherwise.
     */
    char entry[64], property[64];
    unsigned long openssl_version;
    /*
     * Where the file sends RAND_bytes from 3.5 on: [random]'s
     * random_provider, else "fips" (OpenSSL's default); "" before 3.5.
     */
    char random_provider[64];
    struct check_problem problems[CHECK_MAX_PROBLEMS];
    size_t nproblems;
    /*
     * Where the file loads the provider's module (check_config): each
     * entry of its providers section that is an instance, by the line
     * that names the module (or the entry, without a module line).
     */
    struct check_load {
        char file[1024]; /* "" for the file checked */
        int line;
        char section[64];
        int active; /* activated here (else configured only) */
    } loads[CHECK_MAX_LOADS];
    size_t nloads;
};

/* How a forked child of the tool ends (check_child.c): _exit(code); and
 * what it does before an exec (a coverage build writes its counts). */
_Noreturn void check_child_exit(int code);
void check_child_flush(void);

/* Add a problem; section/key may be NULL. */
void check_problem(struct check_report *r, enum check_severity sev, int line,
                   const char *section, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/*
 * The length of the well-formed UTF-8 sequence at s (1 to 4), or 0 for
 * an ill-formed one.
 */
size_t check_utf8_len(const unsigned char *s);
/* s with every byte that is not printable UTF-8 escaped. */
void put_text_safe(FILE *out, const char *s);
/* A problem as one line: where (file:line: [section] key:) and what. */
void problem_text(const struct check_report *r, const struct check_problem *p,
                  char *buf, size_t len);

/*
 * The exit status the problems make (an enum check_exit), and the
 * finding that made it (-1 for none): the first of the deciding severity
 * that names a line to fix, else the first.
 */
int check_verdict_of(const struct check_report *r, int *because);
int check_verdict(const struct check_report *r);

static inline const char *check_plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/*
 * Step 1: read r->config with libcrypto's own parser (NCONF) and check,
 * statically, that it makes r->provider the live seed source.  Lines come
 * from reading the file again (NCONF keeps none).
 */
void check_config(struct check_report *r);

/* One provider parameter's value, as gettable_params types it. */
struct check_value {
    const char *key;
    int type; /* OSSL_PARAM_UNSIGNED_INTEGER, _INTEGER or _UTF8_PTR */
    uint64_t u;
    int64_t i;
    const char *s;
};

/*
 * What the live check (check_live.c) or --pid (check_pid.c) measured:
 * the provider's parameters and what the draw proved.
 */
#define MAX_PARAMS 64

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

/* The parameter key among those d read, or NULL. */
const struct check_value *check_param(const struct dynamic *d, const char *key);

/* Read one parameter described by known; 0 if get_params failed. */
int check_get_param(OSSL_PROVIDER *prov, const OSSL_PARAM *known,
                    struct check_value *v);

/* ---- --pid (check_pid.c) ---- */

struct check_pid {
    pid_t pid;
    char comm[64];           /* /proc/PID/comm, "" if unreadable */
    char path[PID_PATH_MAX]; /* the module's file, as maps names it */
    int deleted;             /* that file was replaced or removed since */
    uint64_t address;        /* of the status block in the process */
    uint64_t block_size;     /* its size, as the module file's symbol says */
    uint64_t deadline_ms;    /* when reading the process gives up */
    struct rdrand_status block;
    char error[1024]; /* why check_pid_read did not return CHECK_LIVE */
    /* Texts the parameters point to, derived from the block. */
    char conditioning[64];
    char mix[32];
    char health_state[640];
};

/*
 * Find the status block of process pid in a mapping of a module file this
 * tool trusts (modules, nmodules of them; none: the rdrand.so OpenSSL
 * would load here) and take a consistent copy of it.  CHECK_LIVE when
 * p->block holds it; CHECK_MISCONFIGURED when the module is not loaded
 * there; CHECK_UNREADABLE otherwise (no such process, not permitted, it
 * exited, another version, two instances, a file exporting the block that
 * is not a trusted module, the deadline passed); p->error then says which.
 */
int check_pid_read(pid_t pid, struct check_pid *p, const char *const *modules,
                   size_t nmodules);

/* One counter of a block: the shared fallback and every slot summed. */
uint64_t check_pid_counter(const struct rdrand_status *b,
                           enum rdrand_status_counter c);

/*
 * The block as provider parameters (the provider's own names and types,
 * up to max of them, pointing into p) and as problems in r.  Returns
 * the number of parameters; *live is 1 when the process has been served
 * seeds by the module, none failed, and its verdict is ok.
 */
size_t check_pid_report(struct check_pid *p, struct check_report *r,
                        struct check_value *params, size_t max, int *live);

/*
 * --pid: the report from the process's status block, into r and d's
 * parameters: its verdict, or -1 when it cannot be read (the reason is
 * on stderr): there is no report to write.
 */
int check_pid_run(struct check_report *r, struct dynamic *d,
                  struct check_pid *p, const char *const *modules,
                  size_t nmodules);

/*
 * --enable and --disable (conf_edit.c): edit file in place, or explain
 * why not.  Exit 0: done, or nothing to do; otherwise the file is
 * unchanged and the status says why.
 */
enum edit_exit {
    EDIT_REFUSED = 4,     /* a file it does not understand, or edited by hand */
    EDIT_FAILED = 5,      /* cannot read, write or back up the file */
    EDIT_CHECK_FAILED = 6 /* the new file fails the check: not installed */
};

/*
 * The check of a file at path (static and live), in a child process: its
 * verdict, an enum check_exit; print: the text report on stdout.
 * rdrand-check.c gives its own to conf_edit.
 */
typedef int check_file_fn(const char *path, int print);

int conf_edit(int enable, const char *file, check_file_fn *check_file);

/* A path and a file name below it. */
#define CHECK_PATH_LEN (PATH_MAX + 256)

/*
 * The backups --enable and --disable kept of path (an absolute path):
 * its name, ".rdrand-check-backup-", a stamp and an optional -N, matched
 * as text; up to max full paths into out, the number found.
 */
size_t conf_edit_backups(const char *path, char (*out)[CHECK_PATH_LEN],
                         size_t max);

/* Would --disable revert file: does it hold --enable's edit, intact? */
int conf_edit_reverts(const char *file);

#endif
