/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Does every process that reads this configuration read what this one
 * reads?  rdrand-check runs as root in an operator's shell; the programs
 * it vouches for run as other users, with a service's environment.  A
 * file they cannot open, or a value taken from each process's
 * environment, makes them load something else (or nothing: NCONF fails
 * the whole file on a variable without a value) and be seeded from the
 * OS without a word, while this process sees the file work.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "conf_reach.h"

/*
 * Can every user get to path's directory entries: each directory above
 * it let others through (x)?  Both the path as written (a symlink in a
 * closed directory is as closed) and the one it resolves to.  The first
 * closed one into dir; 0 if none.
 */
static int closed_dir(const char *path, char *dir, size_t len)
{
    char walk[PATH_MAX], *slash;
    struct stat st;

    snprintf(walk, sizeof(walk), "%s", path);
    for (slash = strrchr(walk, '/'); slash != NULL && slash > walk;
         slash = strrchr(walk, '/')) {
        *slash = '\0';
        if (stat(walk, &st) == 0 && !(st.st_mode & S_IXOTH)) {
            snprintf(dir, len, "%s", walk);
            return 1;
        }
    }
    return 0;
}

/*
 * Can a user who is neither owner nor in the group read path (a file: r;
 * an included directory: r and x, to list and open its files)?  "" if
 * so, else what is closed ("file", "directory"); *st and at say which.
 */
static const char *closed_to_others(const char *path, char *at, size_t len,
                                    struct stat *st)
{
    char *real = realpath(path, NULL);
    const char *what = "";

    if (real == NULL)
        return ""; /* NCONF's own failure to open it is reported elsewhere */
    if (stat(real, st) == 0
        && (!(st->st_mode & S_IROTH)
            || (S_ISDIR(st->st_mode) && !(st->st_mode & S_IXOTH)))) {
        snprintf(at, len, "%s", real);
        what = S_ISDIR(st->st_mode) ? "included directory" : "file";
    } else if ((path[0] == '/' && closed_dir(path, at, len))
               || closed_dir(real, at, len)) {
        stat(at, st);
        what = "directory";
    }
    free(real);
    return what;
}

/* Trees a unit's own mount namespace hides or replaces. */
static const char *const sandboxed[][2] = {{"/tmp/", "PrivateTmp="},
                                           {"/var/tmp/", "PrivateTmp="},
                                           {"/home/", "ProtectHome="},
                                           {"/root/", "ProtectHome="},
                                           {"/run/user/", "ProtectHome="}};

/* Is path, as written or as it resolves (real, or NULL), under tree? */
static int under(const char *path, const char *real, const char *tree)
{
    size_t n = strlen(tree);

    return strncmp(path, tree, n) == 0
           || (real != NULL && strncmp(real, tree, n) == 0);
}

/* Is path under a tree that option (PrivateTmp=, ProtectHome=) hides? */
static int hidden_by(const char *path, const char *real, const char *option)
{
    for (size_t i = 0; i < sizeof(sandboxed) / sizeof(sandboxed[0]); i++)
        if (strcmp(sandboxed[i][1], option) == 0
            && under(path, real, sandboxed[i][0]))
            return 1;
    return 0;
}

void conf_reach_limits(struct check_report *r, const char *path, int pos,
                       const char *section, const char *key)
{
    char *real = realpath(path, NULL), *conf;
    struct stat st;

    if (real == NULL)
        return;
    /*
     * Others may read it, its owner or group may not: a service running
     * as that owner or in that group cannot (nobody's draw can).
     */
    if (stat(real, &st) == 0 && (st.st_mode & S_IROTH)
        && (!(st.st_mode & S_IRGRP) || !(st.st_mode & S_IRUSR)))
        check_problem(r, SEV_MISCONFIGURED, pos, section, key,
                      "%s (mode %04o, owner uid %u, group gid %u) is "
                      "readable by others but not by its %s: a service "
                      "running as that %s cannot open it; make it readable "
                      "(chmod %s+r)",
                      real, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
                      (unsigned)st.st_gid,
                      !(st.st_mode & S_IRUSR) ? "owner" : "group",
                      !(st.st_mode & S_IRUSR) ? "user" : "group's member",
                      !(st.st_mode & S_IRUSR) ? "u" : "g");
    if (getxattr(real, "system.posix_acl_access", NULL, 0) > 0)
        check_problem(r, SEV_WARNING, pos, section, key,
                      "%s has an access ACL: a service's user may be denied "
                      "what its mode allows; this check reads the mode "
                      "bits only (getfacl %s)",
                      real, real);
    /*
     * Only where the file checked is outside that tree: a unit that
     * reads a file under /tmp sees /tmp (a test's file, a checkout's),
     * so what that file names under /tmp it sees too.
     */
    conf = r->shown != NULL ? realpath(r->shown, NULL) : NULL;
    for (size_t i = 0; pos > 0 && r->shown != NULL
                       && i < sizeof(sandboxed) / sizeof(sandboxed[0]);
         i++)
        if (under(path, real, sandboxed[i][0])
            && !hidden_by(r->shown, conf, sandboxed[i][1]))
            check_problem(
                r, SEV_WARNING, pos, section, key,
                "%s is under %s, %s is not: a systemd unit with %s (this "
                "tool's own example unit has it) reads the one and not the "
                "other, and runs without it; neither this check nor its "
                "service draw runs in a unit's mount namespace",
                path, sandboxed[i][0], r->shown, sandboxed[i][1]);
    free(conf);
    free(real);
}

void conf_reach_file(struct check_report *r, const char *path, int pos)
{
    char at[PATH_MAX];
    struct stat st;
    const char *what = closed_to_others(path, at, sizeof(at), &st);
    int above = strcmp(what, "directory") == 0;

    conf_reach_limits(r, path, pos, NULL, pos > 0 ? ".include" : NULL);
    if (what[0] == '\0')
        return;
    /*
     * A closed directory above the file checked is a warning only: a
     * checkout under /root (the README's demo, a CI clone) is checked
     * from there and read by no service.  Above an include, and any
     * file's or included directory's own mode, a finding.
     */
    check_problem(
        r, above && pos == 0 ? SEV_WARNING : SEV_MISCONFIGURED, pos, NULL,
        pos > 0 ? ".include" : NULL,
        "%s%s%s is not readable by every user (%s mode %04o, owner uid %u, "
        "group gid %u): a service running as another user cannot open it "
        "and %s, seeded from the OS without a word, while this check (uid "
        "%u) reads it; make it readable (chmod o+r%s)",
        path, above ? ": its directory " : "", above ? at : "", what,
        (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
        (unsigned)st.st_gid,
        pos > 0 ? "OpenSSL skips it there" : "runs with no configuration",
        (unsigned)geteuid(), above || S_ISDIR(st.st_mode) ? "x" : "");
}

/*
 * The first $ENV::NAME (also ${ENV::NAME} and $(ENV::NAME)) that NCONF
 * expands in value: outside quotes, not after a backslash.  NAME into
 * name; 0 if none.
 */
int conf_reach_env(const char *value, int dollarid, char *name, size_t len)
{
    for (const char *s = value; *s != '\0'; s++) {
        if (*s == '"' || *s == '\'' || *s == '`') {
            char q = *s;

            /* Inside quotes (NCONF's three) nothing expands; \ escapes. */
            while (s[1] != '\0' && s[1] != q)
                s += s[1] == '\\' && s[2] != '\0' ? 2 : 1;
            if (s[1] == '\0')
                return 0;
            s++;
        } else if (*s == '\\' && s[1] != '\0') {
            s++;
        } else if (*s == '$') {
            const char *p = s + 1 + (s[1] == '{' || s[1] == '(');
            size_t n = 0;

            if (strncmp(p, "ENV::", 5) != 0 || (dollarid && p == s + 1))
                continue;
            for (p += 5;
                 (p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= 'a' && p[n] <= 'z')
                 || (p[n] >= '0' && p[n] <= '9') || p[n] == '_';
                 n++)
                ;
            snprintf(name, len, "%.*s", (int)n, p);
            return 1;
        }
    }
    return 0;
}

void conf_reach_env_finding(struct check_report *r, const char *section,
                            const char *key, const char *name, int pos)
{
    check_problem(
        r, SEV_MISCONFIGURED, pos, section, key,
        "the value reads $ENV::%s, the environment of each process that "
        "loads this file: a process without %s (a service: systemd gives "
        "a unit almost no environment) fails to load the whole file and "
        "is seeded from the OS without a word, or gets another value; "
        "write the value itself",
        name, name);
}
