/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The live draw once more, as a system service makes it.
 *
 * The operator's shell is not a service: it runs as root, whose reads no
 * file mode stops, with OPENSSL_MODULES, OPENSSL_CONF_INCLUDE, HOME and
 * whatever else the login set.  A daemon runs as its own user, from /,
 * with what systemd gives a unit: PATH, and nothing OpenSSL reads.  A
 * module only root can read, or found only through OPENSSL_MODULES, is
 * live in the shell and absent in every service.  The static reader
 * names what it can see (file modes, $ENV:: values, relative includes);
 * this draw settles the rest by doing what a service does.
 *
 * The child becomes the service's user and then runs this program anew
 * (fexecve), so nothing of the operator's process reaches it: not the
 * libcrypto that LD_LIBRARY_PATH or LD_PRELOAD chose, not OPENSSL_*.  It
 * cannot regain root: setuid from root drops every capability, and the
 * child checks that it did.  What it does not model: a unit's mount
 * namespace (PrivateTmp=, ProtectHome=: conf_reach.c warns of paths
 * there) and file ACLs beyond what its own user meets.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "check_service.h"

/* systemd's PATH for system units, Debian's split /usr as well as merged. */
#define SERVICE_PATH                                                           \
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

int check_service_user(struct check_service *s, const char *who, char *err,
                       size_t len)
{
    struct passwd *pw;
    char *end, shown[64];
    unsigned long uid;

    if (who == NULL && geteuid() != 0) {
        /* Not root: the draw stays this process's user, entry or not. */
        s->uid = geteuid();
        s->gid = getegid();
        pw = getpwuid(s->uid);
        snprintf(s->user, sizeof(s->user), "%s",
                 pw != NULL && strlen(pw->pw_name) < sizeof(s->user)
                     ? pw->pw_name
                     : "(no name)");
        return 0;
    }
    if (who == NULL)
        who = "nobody";
    /* An operator's typo shown as text, not as terminal controls. */
    for (size_t i = 0; i < sizeof(shown) - 1 && (shown[i] = who[i]); i++)
        if ((unsigned char)shown[i] < 0x20 || shown[i] == 0x7f)
            shown[i] = '?';
    shown[sizeof(shown) - 1] = '\0';
    errno = 0;
    if (*who >= '0' && *who <= '9'
        && (uid = strtoul(who, &end, 10), *end == '\0') && uid == (uid_t)uid)
        pw = getpwuid((uid_t)uid);
    else
        pw = getpwnam(who);
    if (pw == NULL) {
        snprintf(err, len,
                 "--as %s: no such user%s%s (the service draw runs as "
                 "nobody by default; name a user with --as USER, or skip "
                 "it with --here)",
                 shown, errno ? ": " : "", errno ? strerror(errno) : "");
        return -1;
    }
    if (geteuid() != 0 && pw->pw_uid != geteuid()) {
        snprintf(err, len,
                 "--as %s: only root can run the check as another user", shown);
        return -1;
    }
    /* initgroups needs the whole name. */
    if (strlen(pw->pw_name) >= sizeof(s->user)) {
        snprintf(err, len,
                 "--as: user names of %zu bytes or more are not supported",
                 sizeof(s->user));
        return -1;
    }
    s->uid = pw->pw_uid;
    s->gid = pw->pw_gid;
    snprintf(s->user, sizeof(s->user), "%s", pw->pw_name);
    return 0;
}

/* In the child: be the service, or say why not (errno's text in why). */
static int become_service(const struct check_service *s, char *why, size_t len)
{
    if (chdir("/") != 0) { /* unreachable: / is searchable by every user */
        snprintf(why, len, "entering /: %s", strerror(errno));
        return 0;
    }
    if (geteuid() != 0)
        return 1; /* check_service_user allowed only this user */
    if (initgroups(s->user, s->gid) != 0
        || setgid(s->gid) != 0 /* unreachable: initgroups had CAP_SETGID */
        || setuid(s->uid) != 0) {
        snprintf(why, len, "becoming user %s: %s", s->user, strerror(errno));
        return 0;
    }
    if (s->uid != 0 && (setuid(0) == 0 || seteuid(0) == 0)) {
        snprintf(why, len, "user %s could become root again", s->user);
        return 0;
    }
    return 1;
}

/*
 * The child: the service's user, then this program anew, as a service
 * starts it: only PATH, so the loader picks libcrypto as it does for a
 * daemon (no LD_LIBRARY_PATH, no LD_PRELOAD of the operator's), and
 * libcrypto reads no OPENSSL_* of the operator's.  --here: no service
 * draw of its own.  Its report on out; why it could not run on err.
 */
static void child(const struct check_service *s, int self, int out, int err,
                  const char *config, const char *provider)
{
    char *const argv[] = {
        "rdrand-check", "--here",         "-c", (char *)config,
        "--provider",   (char *)provider, NULL};
    char *const envp[] = {"PATH=" SERVICE_PATH, NULL};
    char why[256] = "";
    int null = open("/dev/null", O_RDWR);

    if (null < 0 || dup2(out, STDOUT_FILENO) < 0
        || dup2(null, STDERR_FILENO) < 0 || dup2(null, STDIN_FILENO) < 0)
        snprintf(why, sizeof(why), "its output: %s", strerror(errno));
    else if (become_service(s, why, sizeof(why))) {
        /* The file is run, not found by path: a build tree under /root
         * is no reason to fail. */
        check_child_flush();
        fexecve(self, argv, envp);
        snprintf(why, sizeof(why), "running %s as user %s: %s", "rdrand-check",
                 s->user, strerror(errno));
    }
    if (write(err, why, strlen(why)) < 0) {
        /* nothing left to tell it with */
    }
    check_child_exit(127);
}

/* All of fd, up to len - 1 bytes kept (the rest read and dropped). */
static size_t read_all(int fd, char *buf, size_t len)
{
    char sink[512];
    size_t have = 0;

    for (;;) {
        char *to = have < len - 1 ? buf + have : sink;
        size_t room = have < len - 1 ? len - 1 - have : sizeof(sink);
        ssize_t n = read(fd, to, room);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (to != sink)
            have += (size_t)n;
    }
    buf[have] = '\0';
    return have;
}

/* The report's last "verdict: " line, after its ", because ". */
static void reason_of(const char *report, char *why, size_t len)
{
    const char *v = NULL, *p = report, *end, *because;

    for (; (p = strstr(p, "verdict: ")) != NULL; p++)
        if (p == report /* unreachable: a report starts with its header */
            || p[-1] == '\n')
            v = p;
    if (v == NULL) {
        snprintf(why, len, "its report has no verdict line");
        return;
    }
    end = strchr(v, '\n') != NULL ? strchr(v, '\n') : v + strlen(v);
    because = strstr(v, ", because ");
    if (because != NULL && because < end)
        v = because + strlen(", because ");
    snprintf(why, len, "%.*s", (int)(end - v), v);
}

void check_service_run(struct check_service *s, const char *config,
                       const char *provider)
{
    static char report[65536];
    char failed[256] = "";
    int out[2], err[2], status = 0, self;
    pid_t pid;

    s->ran = 1;
    s->code = -1;
    if ((self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) < 0
        || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0
        || (pid = fork()) < 0) {
        snprintf(s->why, sizeof(s->why), "starting it: %s", strerror(errno));
        return;
    }
    if (pid == 0)
        child(s, self, out[1], err[1], config, provider);
    close(self);
    close(out[1]);
    close(err[1]);
    read_all(out[0], report, sizeof(report));
    read_all(err[0], failed, sizeof(failed));
    close(out[0]);
    close(err[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    /* 0, 1, 2: a verdict; 3 and up, or a signal: no verdict. */
    if (WIFEXITED(status) && WEXITSTATUS(status) <= CHECK_MISCONFIGURED) {
        s->code = WEXITSTATUS(status);
        if (s->code != CHECK_LIVE)
            reason_of(report, s->why, sizeof(s->why));
    } else if (failed[0] != '\0')
        snprintf(s->why, sizeof(s->why), "%s", failed);
    else if (WIFEXITED(status))
        snprintf(s->why, sizeof(s->why),
                 "rdrand-check as user %s exited %d without a verdict", s->user,
                 WEXITSTATUS(status));
    else
        snprintf(s->why, sizeof(s->why),
                 "rdrand-check as user %s was killed by signal %d (%s)",
                 s->user, WTERMSIG(status), strsignal(WTERMSIG(status)));
}
