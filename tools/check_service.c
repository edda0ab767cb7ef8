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
 * The child starts from a process that has loaded no configuration, so
 * what it finds is what the service would find, and it cannot regain
 * root: setuid from root drops every capability, and the child checks
 * that it did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
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

/* The child's answer; code -1: it could not become the service. */
struct service_answer {
    int code;
    char why[sizeof(((struct check_service *)0)->why)];
};

int check_service_user(struct check_service *s, const char *who, char *err,
                       size_t len)
{
    struct passwd *pw;
    char *end;
    unsigned long uid;

    if (who == NULL)
        who = geteuid() == 0 ? "nobody" : NULL;
    errno = 0;
    if (who == NULL)
        pw = getpwuid(geteuid());
    else if (*who >= '0' && *who <= '9'
             && (uid = strtoul(who, &end, 10), *end == '\0')
             && uid == (uid_t)uid)
        pw = getpwuid((uid_t)uid);
    else
        pw = getpwnam(who);
    if (pw == NULL) {
        snprintf(err, len,
                 "--as %s: no such user%s%s (the service draw runs as "
                 "nobody by default; name a user with --as USER, or skip "
                 "it with --here)",
                 who ? who : "(uid of this process)", errno ? ": " : "",
                 errno ? strerror(errno) : "");
        return -1;
    }
    if (geteuid() != 0 && pw->pw_uid != geteuid()) {
        snprintf(err, len,
                 "--as %s: only root can run the check as another user", who);
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
    int null = open("/dev/null", O_RDWR);

    /* The provider's warnings belong to the main draw's report. */
    if (null < 0 || dup2(null, STDOUT_FILENO) < 0
        || dup2(null, STDERR_FILENO) < 0 || clearenv() != 0
        || setenv("PATH", SERVICE_PATH, 1) != 0 || chdir("/") != 0) {
        snprintf(why, len, "setting up its environment: %s", strerror(errno));
        return 0;
    }
    if (null > STDERR_FILENO)
        close(null);
    if (geteuid() != 0)
        return 1; /* check_service_user allowed only this user */
    if (initgroups(s->user, s->gid) != 0 || setgid(s->gid) != 0
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

static void answer(int fd, int code, const char *why)
{
    struct service_answer a = {.code = code};
    const char *p = (const char *)&a;
    size_t left = sizeof(a);
    ssize_t n;

    snprintf(a.why, sizeof(a.why), "%s", why);
    while (left > 0 && ((n = write(fd, p, left)) > 0 || errno == EINTR))
        if (n > 0) {
            p += n;
            left -= (size_t)n;
        }
}

static void child(const struct check_service *s, int fd, check_service_fn *fn,
                  void *arg)
{
    char why[sizeof(s->why)] = "";
    int code = -1;

    if (become_service(s, why, sizeof(why)))
        code = fn(arg, why, sizeof(why));
    answer(fd, code, why);
    check_child_exit(0);
}

/* Read the whole answer: 1, or 0 if the child said less. */
static int read_answer(int fd, struct service_answer *a)
{
    char *p = (char *)a;
    size_t have = 0;
    ssize_t n;

    while (have < sizeof(*a)
           && ((n = read(fd, p + have, sizeof(*a) - have)) > 0
               || (n < 0 && errno == EINTR)))
        if (n > 0)
            have += (size_t)n;
    return have == sizeof(*a);
}

void check_service_run(struct check_service *s, check_service_fn *fn, void *arg)
{
    struct service_answer a = {.code = -1};
    int fds[2], status = 0, got;
    pid_t pid;

    s->ran = 1;
    s->code = CHECK_MISCONFIGURED;
    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        snprintf(s->why, sizeof(s->why), "the check could not start: %s",
                 strerror(errno));
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        child(s, fds[1], fn, arg);
    }
    close(fds[1]);
    got = read_answer(fds[0], &a);
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(status)) {
        /* on_coco_failure = abort kills every service too: RDRAND. */
        s->code = CHECK_UNHEALTHY;
        snprintf(s->why, sizeof(s->why),
                 "the check was killed by signal %d (%s) while loading "
                 "this configuration or drawing",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    } else if (!got || a.code < 0) {
        /* The reason is short; a longer one is cut, not overrun. */
        snprintf(s->why, sizeof(s->why), "the check could not run: %.600s",
                 got ? a.why : "it ended without an answer");
    } else {
        s->code = a.code;
        memcpy(s->why, a.why, sizeof(s->why));
    }
}
