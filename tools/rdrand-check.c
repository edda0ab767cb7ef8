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
 * This file is the command line; the static check is check_conf.c, the
 * draw check_live.c, the reports check_output.c, the editor conf_edit.c.
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
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/conf.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/opensslv.h>

#include "rdrand_provider.h"

#include "check.h"
#include "check_live.h"
#include "check_output.h"
#include "check_service.h"
#include "pid_module.h"

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
    if (!r->service->here)
        check_service_run(r->service,
                          r->config[0] == '/' ? r->config : r->shown,
                          r->provider);
    if ((settings = OPENSSL_INIT_new()) == NULL /* unreachable: malloc fails */
        || !OPENSSL_INIT_set_config_filename(settings, config)
        || !OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, settings)) {
        check_collect_errors(d);
        /* A CoCo refusal is RDRAND failing (exit 1), not a mistake. */
        check_problem(
            r, d->coco_refused ? SEV_UNHEALTHY : SEV_MISCONFIGURED, 0, NULL,
            NULL, "OpenSSL failed to apply this configuration: %s", d->errors);
        d->errors[0] = '\0';
    }
    OPENSSL_INIT_free(settings);
    check_config(r);
    check_live(r, d, more);
    check_service_finding(r);
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
    if ((code = check_run_in_child(&cr, &reported)) < 0) {
        check_in_process(&cr, &cd, path, 0);
        code = check_verdict(&cr);
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
    fd = open(dirname(dir), O_RDONLY | O_DIRECTORY);
    /*
     * A directory this user may write but not read (mode 0300): the
     * file is renamed into place and complete; only the rename's
     * durability cannot be asked for.  Not an error: failing here would
     * report a usage error for a file already written.
     */
    if (fd < 0)
        return errno == EACCES;
    ok = fsync(fd) == 0;
    close(fd);
    return ok;
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
        /* Digits only (never negative): strtol would also take " 5", "+5". */
        return isdigit((unsigned char)*optarg) && *end == '\0'
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
        usage(stdout, argv0);
        return -1;
    case 'V':
        version();
        return -1;
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
    int code = check_pid_run(r, d, &process, a->modules, a->nmodules);

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

    /*
     * The check's children are waited for: a SIGCHLD ignored by whoever
     * started this (inherited across exec) makes waitpid fail with ECHILD,
     * and the service draw's failure would read as exit 0, live.
     */
    signal(SIGCHLD, SIG_DFL);
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
    if (config == NULL) { /* unreachable: only malloc failing does it */
        fprintf(stderr, "%s: no configuration file to check\n", argv[0]);
        return CHECK_USAGE;
    }
    r.config = config;
    /* The file the operator edits: /etc/ssl/openssl.cnf, not the link. */
    r.shown = (real = realpath(config, NULL)) != NULL ? real : config;
    if (a.edit != 0)
        code = conf_edit(a.edit == 'E', config, check_file_in_child);
    /* A child that aborts (on_coco_failure = abort) still gets a report. */
    else if ((code = check_run_in_child(&r, &reported)) < 0) {
        check_in_process(&r, &d, config, a.more);
        code = write_report(&r, &d, &a, check_verdict(&r));
    } else if (!reported)
        code = write_report(&r, &d, &a, code);
    /* else: the child's report and status */
    OPENSSL_free(default_conf);
    free(real);
    return code;
}
