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
#include <unistd.h>

#include "conf_reach.h"

/* Can a user who is neither owner nor in the group read path?  "" if so. */
static const char *closed_to_others(const char *path, char *real, size_t len,
                                    struct stat *st)
{
    char *resolved = realpath(path, NULL), *slash;

    if (resolved == NULL)
        return ""; /* NCONF's own failure to open it is reported elsewhere */
    snprintf(real, len, "%s", resolved);
    free(resolved);
    if (stat(real, st) == 0 && !(st->st_mode & S_IROTH))
        return "file";
    /* Every directory above it must let others through (x). */
    for (slash = strrchr(real, '/'); slash != NULL && slash > real;
         slash = strrchr(real, '/')) {
        *slash = '\0';
        if (stat(real, st) == 0 && !(st->st_mode & S_IXOTH))
            return "directory";
    }
    return "";
}

void conf_reach_file(struct check_report *r, const char *path, int pos)
{
    char real[PATH_MAX];
    struct stat st;
    const char *what = closed_to_others(path, real, sizeof(real), &st);

    if (what[0] == '\0')
        return;
    /*
     * A closed directory is a warning only: a checkout under /root (the
     * README's demo, a CI clone) is checked from there and never read by
     * a service; a file's own mode is the operator's, and a finding.
     */
    check_problem(
        r, strcmp(what, "directory") == 0 ? SEV_WARNING : SEV_MISCONFIGURED,
        pos, NULL, pos > 0 ? ".include" : NULL,
        "%s%s%s is not readable by every user (%s mode %04o, owner uid %u, "
        "group gid %u): a service running as another user cannot open it "
        "and %s, seeded from the OS without a word, while this check (uid "
        "%u) reads it; make it readable (chmod o+r%s)",
        path, strcmp(what, "directory") == 0 ? ": its directory " : "",
        strcmp(what, "directory") == 0 ? real : "", what,
        (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
        (unsigned)st.st_gid,
        pos > 0 ? "OpenSSL skips it there" : "runs with no configuration",
        (unsigned)geteuid(), strcmp(what, "directory") == 0 ? "x" : "");
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
