/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-check --pid PID: the status block (include/rdrand_status.h) of
 * a running process, read from its memory.
 *
 * Which mapped file is the module, and where its block lies, is
 * pid_module.c's: a file byte-identical to a module this tool trusts,
 * never what the process's own memory says.  Here: the block's header and
 * a consistent copy of it, read with process_vm_readv, and what it means.
 *
 * process_vm_readv needs the kernel's ptrace access (PTRACE_MODE_ATTACH):
 * the same user and a dumpable process, or CAP_SYS_PTRACE; Yama, where
 * it is built in, can narrow that further.  Reading /proc/PID/maps needs
 * only the weaker read access, so the two can disagree: each failure is
 * reported where it happens.
 */
/* process_vm_readv */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "rdrand_provider.h"
#include "rdrand_status.h"

#include "check.h"
#include "config_rules.h"
#include "errors.h"
#include "pid_module.h"

#ifndef RDRAND_PROVIDER_VERSION
#define RDRAND_PROVIDER_VERSION "0.0.0"
#endif

/* How long reading one process may take before it gives up. */
#define PID_DEADLINE_MS 5000

static int check_pid_fail(struct check_pid *p, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int check_pid_fail(struct check_pid *p, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(p->error, sizeof(p->error), fmt, ap);
    va_end(ap);
    return code;
}

/* len bytes at addr in the process: 0, or an errno (EFAULT if short). */
static int pid_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
    struct iovec local = {buf, len};
    struct iovec remote = {(void *)(uintptr_t)addr, len};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

    if (n < 0)
        return errno;
    return (size_t)n == len ? 0 : EFAULT;
}

/*
 * A small /proc file whole, NUL-terminated: a process name may hold any
 * byte but NUL, a newline too, so no line-reading here.
 */
static size_t read_small(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    size_t n = 0;

    if (f != NULL) {
        n = fread(buf, 1, len - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    return n;
}

/* The running process, for messages: "1234 (nginx)". */
static void pid_name(struct check_pid *p)
{
    char path[64];
    size_t n;

    snprintf(path, sizeof(path), "/proc/%ld/comm", (long)p->pid);
    n = read_small(path, p->comm, sizeof(p->comm));
    /* The kernel's newline, not the name's: comm ends in one. */
    if (n > 0 && p->comm[n - 1] == '\n') /* unreachable: the kernel's \n */
        p->comm[n - 1] = '\0';
}

/* Still there, and not a zombie whose memory is gone? */
static int pid_alive(pid_t pid)
{
    char path[64], buf[512], *close_paren;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    if (read_small(path, buf, sizeof(buf)) == 0)
        return 0;
    /* The state follows the last ')': comm may hold one itself. */
    close_paren = strrchr(buf, ')');
    if (close_paren == NULL) /* unreachable: the kernel writes "(comm) " */
        return 0;
    if (close_paren[1] != ' ') /* unreachable: the kernel writes ") " */
        return 0;
    return close_paren[2] != 'Z' && close_paren[2] != 'X';
}

static int not_permitted(struct check_pid *p, const char *what)
{
    char yama[16] = "";
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");

    if (f != NULL) {
        if (fgets(yama, sizeof(yama), f) == NULL)
            yama[0] = '\0';
        yama[strcspn(yama, "\n")] = '\0';
        fclose(f);
    }
    return check_pid_fail(
        p, CHECK_UNREADABLE,
        "not permitted to read process %ld (%s): %s: run as root or as the "
        "process's user; a process that is not dumpable (setuid, prctl "
        "PR_SET_DUMPABLE 0) needs CAP_SYS_PTRACE%s%s%s",
        (long)p->pid, p->comm, what,
        yama[0] != '\0' && strcmp(yama, "0") != 0 ? "; Yama's ptrace_scope is "
                                                  : "",
        yama[0] != '\0' && strcmp(yama, "0") != 0 ? yama : "",
        yama[0] != '\0' && strcmp(yama, "0") != 0
            ? " (/proc/sys/kernel/yama/ptrace_scope): 1 and 2 leave it to "
              "CAP_SYS_PTRACE, 3 to nobody"
            : "");
}

static int vanished(struct check_pid *p)
{
    return check_pid_fail(p, CHECK_UNREADABLE,
                          "process %ld%s%s%s exited while it was being read: "
                          "nothing to report",
                          (long)p->pid, p->comm[0] ? " (" : "", p->comm,
                          p->comm[0] ? ")" : "");
}

/* A failed read of the process: what it means for the report. */
static int read_failed(struct check_pid *p, int err)
{
    if (err == ESRCH || !pid_alive(p->pid))
        return vanished(p);
    if (err == EPERM || err == EACCES)
        return not_permitted(p, "process_vm_readv refused");
    return check_pid_fail(p, CHECK_UNREADABLE,
                          "reading the memory of process %ld (%s): %s",
                          (long)p->pid, p->comm, strerror(err));
}

static int too_slow(struct check_pid *p, const char *doing)
{
    return check_pid_fail(p, CHECK_UNREADABLE,
                          "gave up on process %ld (%s) after %d ms %s: "
                          "nothing to report (a process with that many "
                          "mappings, or a loaded machine: try again)",
                          (long)p->pid, p->comm, PID_DEADLINE_MS, doing);
}

/*
 * A copy in which no state change was under way: writers read before
 * generation here, in the opposite order to the writer's end (generation
 * then writers), so a change that finished between the two reads shows
 * as a new generation (include/rdrand_status.h).
 */
static int read_snapshot(struct check_pid *p)
{
    struct rdrand_status *b = &p->block;
    uint64_t addr = p->address, generation;
    uint32_t writers;

    for (int tries = 0; tries < 1000; tries++) {
        int err;

        if (pid_now_ms() > p->deadline_ms)
            return too_slow(p, "waiting for a consistent copy of its state");

        if ((err = pid_read(p->pid, addr, b, sizeof(*b))) != 0
            || (err = pid_read(p->pid,
                               addr + offsetof(struct rdrand_status, writers),
                               &writers, sizeof(writers)))
                   != 0
            || (err = pid_read(
                    p->pid, addr + offsetof(struct rdrand_status, generation),
                    &generation, sizeof(generation)))
                   != 0)
            return read_failed(p, err);
        if (b->writers == 0 && writers == 0 && b->generation == generation) {
            /* Another process's bytes: terminate every text. */
            b->module[sizeof(b->module) - 1] = '\0';
            b->coco_platform[sizeof(b->coco_platform) - 1] = '\0';
            b->coco_signal[sizeof(b->coco_signal) - 1] = '\0';
            b->cpu_vendor[sizeof(b->cpu_vendor) - 1] = '\0';
            b->cpu_microcode[sizeof(b->cpu_microcode) - 1] = '\0';
            b->cpu_errata[sizeof(b->cpu_errata) - 1] = '\0';
            b->version[sizeof(b->version) - 1] = '\0';
            return CHECK_LIVE;
        }
        usleep(1000);
    }
    return check_pid_fail(p, CHECK_UNREADABLE,
                          "process %ld (%s): the provider's state kept "
                          "changing for a second (loads and unloads under "
                          "way): try again",
                          (long)p->pid, p->comm);
}

/* The header says what the rest is; only this layout and version are read. */
static int check_header(struct check_pid *p)
{
    struct rdrand_status h;
    char version[RDRAND_STATUS_VERSION_LEN + 1];
    int err;

    if ((err = pid_read(p->pid, p->address, &h, RDRAND_STATUS_HEADER_SIZE))
        != 0)
        return read_failed(p, err);
    if (h.magic != RDRAND_STATUS_MAGIC)
        return check_pid_fail(p, CHECK_UNREADABLE,
                              "process %ld (%s): %s exports %s but it is not "
                              "a status block this rdrand-check knows (magic "
                              "%#" PRIx64 ")",
                              (long)p->pid, p->comm, p->path,
                              RDRAND_STATUS_SYMBOL, h.magic);
    memcpy(version, h.version, sizeof(h.version));
    version[sizeof(h.version)] = '\0';
    for (char *c = version; *c; c++)
        if (*c < 0x20 || *c > 0x7e)
            *c = '?';
    if (h.layout != RDRAND_STATUS_LAYOUT || h.size != sizeof(p->block)
        || p->block_size != sizeof(p->block)
        || strcmp(version, RDRAND_PROVIDER_VERSION) != 0)
        return check_pid_fail(
            p, CHECK_UNREADABLE,
            "process %ld (%s) runs %s version %s (status layout %" PRIu32
            ", %" PRIu32 " bytes); this rdrand-check is version %s (layout "
            "%u, %zu bytes) and reads only its own: use the rdrand-check of "
            "version %s",
            (long)p->pid, p->comm, p->path, version, h.layout, h.size,
            RDRAND_PROVIDER_VERSION, RDRAND_STATUS_LAYOUT, sizeof(p->block),
            version);
    return CHECK_LIVE;
}

/* The module file OpenSSL would load for "module = rdrand.so" here. */
static void default_module(char *path, size_t len)
{
    const char *dir = getenv("OPENSSL_MODULES");

    if (dir == NULL || dir[0] == '\0')
        dir = OPENSSL_info(OPENSSL_INFO_MODULES_DIR);
    if (dir == NULL) /* unreachable: Linux's is the built-in MODULESDIR */
        dir = ".";
    snprintf(path, len, "%s/%s.so", dir, RDRAND_PROVIDER_NAME);
}

/* What pid_module_find found, as the report's outcome. */
static int found_outcome(struct check_pid *p, const struct pid_find *f)
{
    if (f->untrusted > 0)
        return check_pid_fail(
            p, CHECK_UNREADABLE,
            "process %ld (%s) maps %s%s, which exports %s but is not a "
            "module this rdrand-check trusts (not byte for byte %s%s%s): its "
            "state is not read.  %s",
            (long)p->pid, p->comm, f->untrusted_path,
            f->untrusted_deleted ? " (deleted)" : "", RDRAND_STATUS_SYMBOL,
            f->trusted[0].path, f->ntrusted > 1 ? " or another --module" : "",
            f->untrusted > 1 ? "; and more such files" : "",
            f->untrusted_deleted
                ? "It was replaced or removed on disk since the process "
                  "loaded it: restart the process"
                : "If it is a module you trust, name it: --module FILE");
    if (f->misplaced > 0 && f->nfound == 0)
        return check_pid_fail(
            p, CHECK_UNREADABLE,
            "process %ld (%s) maps %s%s, a module this rdrand-check trusts, "
            "but not as the dynamic loader maps it (a segment, or the pages "
            "of its status block, are not the module's): its state is not "
            "read",
            (long)p->pid, p->comm, f->untrusted_path,
            f->untrusted_deleted ? " (deleted)" : "");
    if (f->nfound == 0 && !pid_alive(p->pid))
        return vanished(p);
    if (f->nfound == 0)
        return check_pid_fail(
            p, CHECK_MISCONFIGURED,
            "the provider module is not loaded in process %ld (%s): no file "
            "mapped there is the module %s, so its seeds do not come from "
            "this provider%s%s%s",
            (long)p->pid, p->comm, f->trusted[0].path,
            f->unopened > 0 ? " (" : "",
            f->unopened > 0 ? f->unopened_path : "",
            f->unopened > 0 ? " and any other mapped file this user cannot "
                              "open was not examined: run as root)"
                            : "");
    if (f->nfound > 1)
        return check_pid_fail(
            p, CHECK_UNREADABLE,
            "process %ld (%s) has %zu instances of the provider module "
            "loaded, each with its own counters: %s%s and %s%s%s; which one "
            "seeds depends on the configuration each library context "
            "loaded: load one module, from one path",
            (long)p->pid, p->comm, f->nfound, f->found[0].path,
            f->found[0].deleted ? " (deleted)" : "", f->found[1].path,
            f->found[1].deleted ? " (deleted)" : "",
            f->nfound > 2 ? " (and more)" : "");
    p->address = f->found[0].address;
    p->block_size = f->found[0].size;
    p->deleted = f->found[0].deleted;
    snprintf(p->path, sizeof(p->path), "%s", f->found[0].path);
    return CHECK_LIVE;
}

static int read_here(pid_t pid, struct check_pid *p, const char *const *modules,
                     size_t nmodules)
{
    static struct pid_find f;
    static struct pid_trusted trusted[PID_MAX_TRUSTED];
    char path[PID_PATH_MAX];
    int code = CHECK_LIVE, status;
    size_t nt = 0;

    memset(p, 0, sizeof(*p));
    memset(&f, 0, sizeof(f));
    p->pid = pid;
    p->deadline_ms = pid_now_ms() + PID_DEADLINE_MS;
    pid_name(p);
    if (nmodules == 0)
        default_module(path, sizeof(path));
    /* rdrand-check.c refuses a ninth --module. */
    for (size_t i = 0; i < (nmodules ? nmodules : 1)
                       && i < PID_MAX_TRUSTED; /* unreachable: CLI caps it */
         i++, nt++)
        if (!pid_module_trust(&trusted[i], nmodules ? modules[i] : path,
                              p->error, sizeof(p->error))) {
            code = CHECK_UNREADABLE;
            break;
        }
    f.pid = pid;
    f.deadline_ms = p->deadline_ms;
    f.trusted = trusted;
    f.ntrusted = nt;
    status = code == CHECK_LIVE ? pid_module_find(&f) : PID_FIND_OK;
    for (size_t i = 0; i < nt; i++)
        pid_module_untrust(&trusted[i]);
    if (code != CHECK_LIVE)
        return code;
    if (status == PID_FIND_NO_MAPS) {
        if (f.err == ENOENT || f.err == ESRCH)
            return check_pid_fail(p, CHECK_UNREADABLE,
                                  "no process %ld (no /proc/%ld)", (long)pid,
                                  (long)pid);
        if (f.err == EACCES || f.err == EPERM)
            return not_permitted(p, "cannot open its /proc/PID/maps");
        return check_pid_fail(p, CHECK_UNREADABLE, "/proc/%ld/maps: %s",
                              (long)pid, strerror(f.err));
    }
    if (status == PID_FIND_TIMEOUT)
        return too_slow(p, "reading its mappings");
    if (status != PID_FIND_OK)
        return check_pid_fail(p, CHECK_UNREADABLE, /* unreachable: NOMEM: OOM */
                              "process %ld (%s) maps more files or regions "
                              "than rdrand-check reads (%s): nothing to "
                              "report",
                              (long)pid, p->comm,
                              status == PID_FIND_TOO_BIG ? "its caps"
                                                         : "out of memory");
    if ((code = found_outcome(p, &f)) != CHECK_LIVE)
        return code;
    if ((code = check_header(p)) != CHECK_LIVE)
        return code;
    return read_snapshot(p);
}

/*
 * The deadline, kept even where a system call blocks: the process's
 * memory (a page it serves through userfaultfd and never does) or a
 * mapped file (FUSE) can hold process_vm_readv or pread forever.  So
 * the reading runs in a child, which sends its result whole down a pipe
 * (struct check_pid holds no pointer) and is killed when time is up.
 */
int check_pid_read(pid_t pid, struct check_pid *p, const char *const *modules,
                   size_t nmodules)
{
    uint64_t until = pid_now_ms() + PID_DEADLINE_MS + 1000;
    size_t got = 0;
    int fds[2], status = 0;
    pid_t child;

    if (pipe(fds) != 0 || (child = fork()) < 0)
        return read_here(pid, p, modules, nmodules);
    if (child == 0) {
        int code = read_here(pid, p, modules, nmodules);
        const char *at = (const char *)p;
        size_t left = sizeof(*p);

        close(fds[0]);
        while (left > 0) {
            ssize_t n = write(fds[1], at, left);

            if (n <= 0)
                check_child_exit(127);
            at += n;
            left -= (size_t)n;
        }
        check_child_exit(code);
    }
    close(fds[1]);
    while (got < sizeof(*p)) {
        uint64_t now = pid_now_ms();
        struct pollfd in = {fds[0], POLLIN, 0};
        ssize_t n;

        if (now >= until || poll(&in, 1, (int)(until - now)) <= 0
            || (n = read(fds[0], (char *)p + got, sizeof(*p) - got)) <= 0)
            break;
        got += (size_t)n;
    }
    close(fds[0]);
    if (got < sizeof(*p))
        kill(child, SIGKILL);
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (got == sizeof(*p) && WIFEXITED(status) && WEXITSTATUS(status) != 127)
        return WEXITSTATUS(status);
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    pid_name(p);
    return check_pid_fail(p, CHECK_UNREADABLE,
                          "gave up on process %ld (%s) after %d ms: reading "
                          "its memory or a file it maps did not return (a "
                          "page it never serves, a stalled file system): "
                          "nothing to report",
                          (long)pid, p->comm, PID_DEADLINE_MS + 1000);
}

uint64_t check_pid_counter(const struct rdrand_status *b,
                           enum rdrand_status_counter c)
{
    uint64_t sum = b->counters_shared[c];

    for (size_t i = 0; i < RDRAND_STATUS_SLOTS; i++)
        sum += b->slots[i].v[c];
    return sum;
}

/* ---- the block as the report's parameters and problems ---- */

static struct check_value *add(struct check_value *params, size_t max,
                               size_t *n, const char *key, int type)
{
    static struct check_value spare;

    if (*n == max) /* unreachable: block_params adds 37 of MAX_PARAMS */
        return memset(&spare, 0, sizeof(spare)); /* dropped, as -n's are */
    memset(&params[*n], 0, sizeof(params[*n]));
    params[*n].key = key;
    params[*n].type = type;
    return &params[(*n)++];
}

static void add_u(struct check_value *params, size_t max, size_t *n,
                  const char *key, uint64_t u)
{
    add(params, max, n, key, OSSL_PARAM_UNSIGNED_INTEGER)->u = u;
}

static void add_i(struct check_value *params, size_t max, size_t *n,
                  const char *key, int64_t i)
{
    add(params, max, n, key, OSSL_PARAM_INTEGER)->i = i;
}

static void add_s(struct check_value *params, size_t max, size_t *n,
                  const char *key, const char *s)
{
    add(params, max, n, key, OSSL_PARAM_UTF8_PTR)->s = s;
}

/*
 * The values the live instances hold, as the parameter names them
 * (comma-separated where instances differ).
 */
static void live_text(char *to, size_t size, const uint32_t *live,
                      enum rdrand_config_key key, size_t n)
{
    size_t len = 0;

    to[0] = '\0';
    for (size_t i = 0; i < n; i++)
        if (live[i] != 0 && len < size) /* unreachable: 3 names fit 64 */
            len +=
                (size_t)snprintf(to + len, size - len, "%s%s", len ? "," : "",
                                 rdrand_config_value_name(key, (unsigned)i));
}

/* The block counts instances by the values' numbers in prov.h. */
static void conditioning_text(struct check_pid *p)
{
    live_text(p->conditioning, sizeof(p->conditioning),
              p->block.live_conditioning, RDRAND_KEY_CONDITIONING,
              RDRAND_STATUS_CONDS);
    live_text(p->mix, sizeof(p->mix), p->block.live_mix, RDRAND_KEY_MIX,
              RDRAND_STATUS_MIXES);
}

/*
 * What the next request would meet, as health-state says in one
 * instance; here for the process (instances may differ: the worst).
 */
static const char *health_state(struct check_pid *p)
{
    const struct rdrand_status *b = &p->block;

    if (b->verdict & RDRAND_STATUS_VERDICT_PERMANENT)
        return rdrand_reason_text(b->verdict_reason);
    if (b->coco_cause != 0)
        return rdrand_reason_text(rdrand_coco_reason((int)b->coco_cause));
    if (b->rdrand_available == 0)
        return rdrand_reason_text(RDRAND_R_NO_RDRAND);
    if (b->live_instances == 0)
        return "no provider instance is loaded now: nothing is served from "
               "this module";
    if (b->live_config_refused != 0) {
        snprintf(p->health_state, sizeof(p->health_state),
                 "%" PRIu32 " of %" PRIu32 " provider instances refused "
                 "their config section: every request of theirs fails "
                 "(rdrand-check -c on the process's configuration names the "
                 "key)",
                 b->live_config_refused, b->live_instances);
        return p->health_state;
    }
    return "ok";
}

/* The block as the provider's parameters (its names and types). */
static size_t block_params(struct check_pid *p, const char *state,
                           struct check_value *params, size_t max)
{
    static const struct {
        const char *key;
        enum rdrand_status_counter c;
    } counters[] = {
        {RDRAND_PARAM_RDRAND_WORDS, RDRAND_STATUS_RDRAND_WORDS},
        {RDRAND_PARAM_RDRAND_FAILURES, RDRAND_STATUS_RDRAND_FAILURES},
        {RDRAND_PARAM_SEED_REQUESTS, RDRAND_STATUS_SEED_REQUESTS},
        {RDRAND_PARAM_SEED_FAILURES, RDRAND_STATUS_SEED_FAILURES},
        {RDRAND_PARAM_SEED_BYTES, RDRAND_STATUS_SEED_BYTES},
        {RDRAND_PARAM_GENERATE_REQUESTS, RDRAND_STATUS_GENERATE_REQUESTS},
        {RDRAND_PARAM_GENERATE_FAILURES, RDRAND_STATUS_GENERATE_FAILURES},
        {RDRAND_PARAM_CONDITIONED_BLOCKS, RDRAND_STATUS_CONDITIONED_BLOCKS},
        {RDRAND_PARAM_OS_BYTES, RDRAND_STATUS_OS_BYTES},
        {RDRAND_PARAM_OS_FAILURES, RDRAND_STATUS_OS_FAILURES},
        {RDRAND_PARAM_DEFAULT_SEED_REQUESTS,
         RDRAND_STATUS_DEFAULT_SEED_REQUESTS},
        {RDRAND_PARAM_HEALTH_FAILURES, RDRAND_STATUS_HEALTH_FAILURES},
    };
    const struct rdrand_status *b = &p->block;
    uint64_t v = b->verdict, trips = RDRAND_STATUS_VERDICT_TRIPS(v);
    int usable = strcmp(state, "ok") == 0;
    size_t n = 0;

    conditioning_text(p);
    add_s(params, max, &n, "version", b->version);
    add_s(params, max, &n, "buildinfo", b->module);
    add_s(params, max, &n, "module-path", p->path);
    add_u(params, max, &n, "provider-instances", b->live_instances);
    add_u(params, max, &n, "default-context-instances",
          b->live_default_instances);
    add_i(params, max, &n, "status", usable);
    for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
        add_u(params, max, &n, counters[i].key,
              check_pid_counter(b, counters[i].c));
    add_s(params, max, &n, RDRAND_PARAM_CONDITIONING, p->conditioning);
    add_s(params, max, &n, RDRAND_PARAM_MIX, p->mix);
    add_s(params, max, &n, RDRAND_PARAM_CPU_VENDOR, b->cpu_vendor);
    add_u(params, max, &n, RDRAND_PARAM_CPU_FAMILY, b->cpu_family);
    add_u(params, max, &n, RDRAND_PARAM_CPU_MODEL, b->cpu_model);
    add_u(params, max, &n, RDRAND_PARAM_CPU_STEPPING, b->cpu_stepping);
    add_s(params, max, &n, RDRAND_PARAM_CPU_MICROCODE, b->cpu_microcode);
    add_s(params, max, &n, RDRAND_PARAM_CPU_ERRATA, b->cpu_errata);
    add_i(params, max, &n, RDRAND_PARAM_RDRAND_AVAILABLE,
          b->rdrand_available > 0);
    add_s(params, max, &n, RDRAND_PARAM_COCO_PLATFORM, b->coco_platform);
    add_s(params, max, &n, RDRAND_PARAM_COCO_SIGNAL, b->coco_signal);
    add_u(params, max, &n, RDRAND_PARAM_COCO_SEED_BITS, b->coco_seed_bits);
    add_u(params, max, &n, "coco-refusals", b->coco_refusals);
    add_s(params, max, &n, RDRAND_PARAM_HEALTH_STATE, state);
    add_s(params, max, &n, RDRAND_PARAM_HEALTH_VERDICT,
          rdrand_status_verdict_text(v));
    add_u(params, max, &n, RDRAND_PARAM_HEALTH_TRIPS, trips);
    add_i(params, max, &n, RDRAND_PARAM_COCO_ENFORCED,
          (v & RDRAND_STATUS_VERDICT_ENFORCED) != 0);

    return n;
}

/* What the block says is wrong, as problems in r. */
static void block_problems(const struct check_pid *p, const char *state,
                           struct check_report *r)
{
    const struct rdrand_status *b = &p->block;
    uint64_t v = b->verdict, trips = RDRAND_STATUS_VERDICT_TRIPS(v);
    uint64_t seeds = check_pid_counter(b, RDRAND_STATUS_SEED_REQUESTS);
    uint64_t seed_failures = check_pid_counter(b, RDRAND_STATUS_SEED_FAILURES);
    uint64_t default_seeds =
        check_pid_counter(b, RDRAND_STATUS_DEFAULT_SEED_REQUESTS);
    uint64_t rdrand_failures =
        check_pid_counter(b, RDRAND_STATUS_RDRAND_FAILURES);

    if (p->deleted)
        check_problem(r, SEV_WARNING, 0, NULL, NULL,
                      "%s was replaced or removed on disk since process %ld "
                      "loaded it: it runs the old module until it restarts",
                      p->path, r->pid);
    /* Seeds served once prove nothing about where the next come from. */
    if (b->live_instances == 0)
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL,
                      "no provider instance is loaded in process %ld now: "
                      "the counters are those of instances since unloaded, "
                      "and its seeds come from elsewhere from now on",
                      r->pid);
    if (seed_failures > 0)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "%" PRIu64 " of the %" PRIu64 " seed requests process "
                      "%ld made failed",
                      seed_failures, seeds, r->pid);
    if (rdrand_failures > 0)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "RDRAND reported failure (CF=0) %" PRIu64 " time%s in "
                      "process %ld",
                      rdrand_failures, rdrand_failures == 1 ? "" : "s", r->pid);
    if (trips > 0 || (v & RDRAND_STATUS_VERDICT_PERMANENT))
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "the process's verdict on RDRAND is %s after %" PRIu64
                      " fault%s%s%s",
                      rdrand_status_verdict_text(v), trips,
                      trips == 1 ? "" : "s",
                      (v & RDRAND_STATUS_VERDICT_PERMANENT)
                          ? ": no request is served again until it restarts: "
                          : "",
                      (v & RDRAND_STATUS_VERDICT_PERMANENT)
                          ? rdrand_reason_text(b->verdict_reason)
                          : "");
    if (b->coco_refusals > 0)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "the provider refused to load %" PRIu32 " time%s in "
                      "process %ld: the confidential-computing check failed "
                      "(%s)",
                      b->coco_refusals, b->coco_refusals == 1 ? "" : "s",
                      r->pid, rdrand_reason_text(b->coco_cause));
    else if (b->coco_cause != 0)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL,
                      "the confidential-computing check at load failed in "
                      "process %ld (%s): every seed request fails",
                      r->pid, rdrand_reason_text(b->coco_cause));
    if (b->rdrand_available == 0)
        check_problem(r, SEV_UNHEALTHY, 0, NULL, NULL, "%s",
                      rdrand_reason_text(RDRAND_R_NO_RDRAND));
    if (b->live_config_refused != 0)
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL, "%s", state);
    if (seeds == 0 && b->live_instances > 0)
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL,
                      "the provider module is loaded in process %ld but has "
                      "served no seed: the process has not seeded yet "
                      "(OpenSSL asks at its first random draw, and at "
                      "reseeds), or its seeds come from elsewhere ([random] "
                      "seed does not name this provider)",
                      r->pid);
    /*
     * Seeds served to library contexts of the application's own say
     * nothing of RAND_bytes and TLS, which use the default one.
     */
    if (seeds > 0 && default_seeds == 0)
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL,
                      "the provider module served %" PRIu64 " seed request%s "
                      "in process %ld, none of them to its default library "
                      "context: it is loaded only into library contexts the "
                      "application made itself, and RAND_bytes, TLS and "
                      "every other use of the default context are seeded "
                      "from elsewhere",
                      seeds, seeds == 1 ? "" : "s", r->pid);
    else if (seeds > 0 && b->live_default_instances == 0)
        check_problem(r, SEV_MISCONFIGURED, 0, NULL, NULL,
                      "no provider instance is loaded in process %ld's "
                      "default library context now: its seeds came from "
                      "one since unloaded, and come from elsewhere now",
                      r->pid);
}

size_t check_pid_report(struct check_pid *p, struct check_report *r,
                        struct check_value *params, size_t max, int *live)
{
    const struct rdrand_status *b = &p->block;
    uint64_t v = b->verdict, trips = RDRAND_STATUS_VERDICT_TRIPS(v);
    uint64_t seed_failures = check_pid_counter(b, RDRAND_STATUS_SEED_FAILURES);
    uint64_t default_seeds =
        check_pid_counter(b, RDRAND_STATUS_DEFAULT_SEED_REQUESTS);
    const char *state = health_state(p);
    int usable = strcmp(state, "ok") == 0;
    size_t n = block_params(p, state, params, max);

    block_problems(p, state, r);
    *live = default_seeds > 0 && b->live_default_instances > 0
            && seed_failures == 0 && usable
            && !(v & RDRAND_STATUS_VERDICT_PERMANENT) /* unreachable: usable
                                                         implies it */
            && trips == 0;
    return n;
}

/*
 * --pid: the report from the process's status block.  -1 when it cannot
 * be read (the reason is on stderr): there is no report to write.
 */
int check_pid_run(struct check_report *r, struct dynamic *d,
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
        return check_verdict(r);
    }
    d->loaded = 1;
    d->nparams = check_pid_report(p, r, d->params, MAX_PARAMS, &d->live);
    /* check_pid_report always sets both. */
    v = check_param(d, RDRAND_PARAM_SEED_REQUESTS);
    if (v != NULL) /* unreachable: block_params adds it */
        d->seed_delta = v->u;
    v = check_param(d, RDRAND_PARAM_SEED_FAILURES);
    if (v != NULL) /* unreachable: block_params adds it */
        d->failed_delta = v->u;
    return check_verdict(r);
}
