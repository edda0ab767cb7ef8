/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-check --enable / --disable: make, or revert, the edit that makes
 * rdrand.so the seed source in an openssl.cnf (Debian's stock file, or any
 * file whose structure this understands), and nothing else.
 *
 * The file is edited line by line, never rewritten: conf_text.c reads
 * it, conf_plan.c says what to add (marked, so that --disable removes
 * exactly what --enable added and gives back the operator's bytes) and
 * refuses what it does not understand, changing nothing.  This file owns
 * the files: the result is checked in a child process by rdrand-check's
 * own check (static and live) before it replaces the file: a temporary
 * file in the same directory, a backup, then rename().
 */
#define _GNU_SOURCE /* realpath's PATH_MAX buffer is not needed: NULL */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/conf.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include "check.h"
#include "conf_plan.h"
#include "conf_text.h"
#include "conf_walk.h"

#define BACKUP_INFIX ".rdrand-check-backup-"
#define MAX_BACKUPS 64
/* An openssl.cnf is a few kB; anything this large is not one. */
#define MAX_SIZE (4 << 20)

/* The check a new file passes before it replaces the old (the caller's). */
static check_file_fn *check_file;

/* ---- files ---- */

static int load_conf(const char *buf, size_t size, CONF **conf,
                     struct edit_why *w)
{
    BIO *bio = BIO_new_mem_buf(buf, (int)size);
    long eline = 0;

    *conf = NCONF_new(NULL);
    if (bio == NULL || *conf == NULL
        || NCONF_load_bio(*conf, bio, &eline) <= 0) {
        unsigned long e = ERR_peek_last_error();
        char err[256] = "";

        if (e != 0)
            ERR_error_string_n(e, err, sizeof(err));
        ERR_clear_error();
        BIO_free(bio);
        return edit_refuse(
            w,
            "line %ld: OpenSSL cannot parse this file (%s); every "
            "OpenSSL program using it runs without it: fix that "
            "first",
            eline, err);
    }
    BIO_free(bio);
    return 1;
}

/* Everything --enable and --disable need to know about one file. */
struct file {
    const char *path; /* the real path, edited in place */
    struct stat st;
    char *buf;
    size_t size;
};

static int read_file(struct file *f, const char *asked)
{
    char *real = realpath(asked, NULL);
    int fd;
    ssize_t n;

    if (real == NULL) {
        fprintf(stderr, "rdrand-check: %s: %s; nothing changed\n", asked,
                strerror(errno));
        return 0;
    }
    f->path = real;
    if ((fd = open(real, O_RDONLY | O_NOCTTY)) < 0 || fstat(fd, &f->st) != 0) {
        fprintf(stderr, "rdrand-check: cannot read %s: %s; nothing changed\n",
                real, strerror(errno));
        if (fd >= 0)
            close(fd);
        return 0;
    }
    if (!S_ISREG(f->st.st_mode) || f->st.st_size > MAX_SIZE) {
        fprintf(stderr,
                "rdrand-check: %s is not a regular file of at most %d "
                "bytes; nothing changed\n",
                real, MAX_SIZE);
        close(fd);
        return 0;
    }
    f->buf = edit_xrealloc(NULL, (size_t)f->st.st_size + 1);
    f->size = 0;
    while ((n = read(fd, f->buf + f->size, (size_t)f->st.st_size + 1 - f->size))
           != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (f->size += (size_t)n) > (size_t)f->st.st_size) {
            fprintf(stderr,
                    "rdrand-check: %s: %s while reading; nothing changed\n",
                    real, n < 0 ? strerror(errno) : "it grew");
            close(fd);
            return 0;
        }
    }
    close(fd);
    return 1;
}

/* Can this process replace the file: write it, and its directory? */
static int writable(const struct file *f)
{
    char *dir = edit_xstrdup(f->path);
    int fd, ok;

    *strrchr(dir, '/') = '\0';
    fd = open(f->path, O_WRONLY | O_NOCTTY); /* no O_TRUNC: nothing written */
    ok = fd >= 0 && access(dir[0] ? dir : "/", W_OK) == 0;
    if (fd < 0)
        fprintf(stderr,
                "rdrand-check: cannot write %s: %s; nothing changed (run as "
                "its owner or root, on a writable file system)\n",
                f->path, strerror(errno));
    else if (!ok)
        fprintf(stderr,
                "rdrand-check: cannot create a file in %s (the new file is "
                "written there, then renamed over %s): %s; nothing changed "
                "(run as the directory's owner or root)\n",
                dir[0] ? dir : "/", f->path, strerror(errno));
    if (fd >= 0)
        close(fd);
    free(dir);
    return ok;
}

static int write_all(int fd, const char *buf, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, buf, size);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        buf += n;
        size -= (size_t)n;
    }
    return 1;
}

/* A new file beside path, with its mode and owner, holding buf. */
static int write_beside(const struct file *f, const char *suffix, int exclusive,
                        const char *buf, size_t size, char *name, size_t len)
{
    int fd;

    if (exclusive) {
        snprintf(name, len, "%s%s", f->path, suffix);
        fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY, 0600);
    } else {
        snprintf(name, len, "%s.rdrand-check-XXXXXX", f->path);
        fd = mkstemp(name);
    }
    if (fd < 0)
        return 0;
    if (fchown(fd, f->st.st_uid, f->st.st_gid) != 0
        || fchmod(fd, f->st.st_mode & 07777) != 0 || !write_all(fd, buf, size)
        || fsync(fd) != 0) {
        int e = errno;

        close(fd);
        unlink(name);
        errno = e;
        return 0;
    }
    return close(fd) == 0;
}

/*
 * FILE.rdrand-check-backup-YYYYMMDDTHHMMSSZ, -2, -3...: never over an
 * older backup (O_EXCL).
 */
static int backup(const struct file *f, char *name, size_t len)
{
    char suffix[64], stamp[32];
    time_t now = time(NULL);
    struct tm tm;

    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
    for (int i = 1; i < 100; i++) {
        if (i == 1)
            snprintf(suffix, sizeof(suffix), BACKUP_INFIX "%s", stamp);
        else
            snprintf(suffix, sizeof(suffix), BACKUP_INFIX "%s-%d", stamp, i);
        if (write_beside(f, suffix, 1, f->buf, f->size, name, len))
            return 1;
        if (errno != EEXIST)
            return 0;
    }
    return 0;
}

static int sync_parent(const char *path)
{
    char *dir = edit_xstrdup(path);
    int fd, ok;

    *strrchr(dir, '/') = '\0';
    fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY);
    ok = fd >= 0 && fsync(fd) == 0;
    if (fd >= 0)
        close(fd);
    free(dir);
    return ok;
}

/* The changes, as "+ line N" (new numbering) and "- line N" (old). */
static void print_changes(const struct edit_text *t, int adding)
{
    size_t n = 0;

    for (size_t i = 0; i < t->n; i++) {
        n++;
        if (t->v[i].added)
            printf("%c line %zu: %s\n", adding ? '+' : '-', n, t->v[i].text);
    }
}

/*
 * Replace the file with buf once the check passes: the new file beside
 * it, checked in a child (enable: verdict 0; disable: rdrand no longer
 * live), the original still unchanged, a backup, then rename.
 */
/*
 * The file's extended attributes (an SELinux label, a POSIX ACL, user.*)
 * onto the new file, which the rename would otherwise leave without
 * them: 0 and the attribute's name in failed when one cannot be kept.
 */
static int keep_xattrs(const char *from, const char *to, char *failed,
                       size_t len)
{
    char names[4096], value[4096];
    ssize_t n = listxattr(from, names, sizeof(names));

    if (n < 0) {
        int e = errno;

        snprintf(failed, len, "(the list: %s)", strerror(e));
        return e == ENOTSUP;
    }
    for (char *name = names; name < names + n; name += strlen(name) + 1) {
        ssize_t v = getxattr(from, name, value, sizeof(value));

        if (v < 0 || setxattr(to, name, value, (size_t)v, 0) != 0) {
            snprintf(failed, len, "%s (%s)", name, strerror(errno));
            return 0;
        }
    }
    return 1;
}

/*
 * Is name (in path's directory) a backup --enable or --disable made of
 * path: its base name, BACKUP_INFIX, a stamp YYYYMMDDTHHMMSSZ and an
 * optional -N, nothing else?  Compared as text: a path with glob
 * characters ([ab].cnf) names only itself.
 */
static int is_backup_of(const char *base, const char *name)
{
    size_t n = strlen(base), infix = strlen(BACKUP_INFIX);
    const char *stamp = name + n + infix;

    if (strncmp(name, base, n) != 0
        || strncmp(name + n, BACKUP_INFIX, infix) != 0 || strlen(stamp) < 16)
        return 0;
    for (int i = 0; i < 16; i++)
        if (!(i == 8    ? stamp[i] == 'T'
              : i == 15 ? stamp[i] == 'Z'
                        : isdigit((unsigned char)stamp[i])))
            return 0;
    if (stamp[16] == '\0')
        return 1;
    return stamp[16] == '-' && stamp[17] != '\0'
           && strspn(stamp + 17, "0123456789") == strlen(stamp + 17);
}

size_t conf_edit_backups(const char *path, char (*out)[CHECK_PATH_LEN],
                         size_t max)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/'), *base;
    struct dirent *e;
    size_t n = 0;
    DIR *d;

    if (slash == NULL) /* unreachable: path is realpath()'s: absolute */
        return 0;
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    base = slash + 1;
    if ((d = opendir(dir[0] != '\0' ? dir : "/")) == NULL)
        return 0;
    while ((e = readdir(d)) != NULL && n < max)
        if (is_backup_of(base, e->d_name))
            snprintf(out[n++], sizeof(out[0]), "%s/%s", dir, e->d_name);
    closedir(d);
    return n;
}

/*
 * The file locked against another --enable or --disable for the whole
 * edit (flock on the file itself): the lock on the inode the path still
 * names, retried when a rename replaced it meanwhile.  -1 if it cannot
 * be opened (read_file says why).
 */
static int lock_file(const char *path)
{
    for (int tries = 0; tries < 100; tries++) {
        struct stat held, now;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

        if (fd < 0)
            return -1;
        if (flock(fd, LOCK_EX) == 0 && fstat(fd, &held) == 0
            && stat(path, &now) == 0 && held.st_dev == now.st_dev
            && held.st_ino == now.st_ino)
            return fd;
        close(fd);
    }
    return -1;
}

static int replace(const struct file *f, const char *buf, size_t size,
                   int enable)
{
    static char older[MAX_BACKUPS][CHECK_PATH_LEN];
    char tmp[PATH_MAX + 64], saved[PATH_MAX + 64];
    struct stat now;
    size_t nolder;
    int code;

    if (!writable(f))
        return EDIT_FAILED;
    if (!write_beside(f, NULL, 0, buf, size, tmp, sizeof(tmp))) {
        fprintf(stderr,
                "rdrand-check: cannot write the new file %s: %s; nothing "
                "changed\n",
                tmp, strerror(errno));
        return EDIT_FAILED;
    }
    if (!keep_xattrs(f->path, tmp, saved, sizeof(saved))) {
        unlink(tmp);
        fprintf(stderr,
                "rdrand-check: %s has an extended attribute that the new "
                "file cannot keep: %s; nothing changed: the edit would drop "
                "it (an SELinux label, an ACL): edit by hand\n",
                f->path, saved);
        return EDIT_REFUSED;
    }
    printf("checking the new file in a child process (%s) before it "
           "replaces %s:\n",
           tmp, f->path);
    fflush(stdout);
    code = check_file(tmp, enable);
    if (enable ? code != CHECK_LIVE : code == CHECK_LIVE) {
        unlink(tmp);
        fprintf(stderr,
                enable ? "rdrand-check: the new file fails the check (verdict "
                         "%d, above); %s: nothing changed: fix what the check "
                         "names (rdrand.so installed? RDRAND healthy?) and run "
                         "--enable again\n"
                       : "rdrand-check: rdrand is still the live seed source "
                         "without the marked lines (verdict %d); %s: nothing "
                         "changed: revert by hand (rdrand-check -c %s)\n",
                code, f->path, f->path);
        return EDIT_CHECK_FAILED;
    }
    if (stat(f->path, &now) != 0 || now.st_ino != f->st.st_ino
        || now.st_size != f->st.st_size
        || now.st_mtim.tv_sec != f->st.st_mtim.tv_sec
        || now.st_mtim.tv_nsec != f->st.st_mtim.tv_nsec) {
        unlink(tmp);
        fprintf(stderr,
                "rdrand-check: %s changed while rdrand-check ran; nothing "
                "changed: run it again\n",
                f->path);
        return EDIT_FAILED;
    }
    /* The backups before this one: the ones this edit replaces. */
    nolder = conf_edit_backups(f->path, older, MAX_BACKUPS);
    if (!backup(f, saved, sizeof(saved))) {
        fprintf(stderr,
                "rdrand-check: cannot write the backup %s: %s; nothing "
                "changed\n",
                saved, strerror(errno));
        unlink(tmp);
        return EDIT_FAILED;
    }
    if (rename(tmp, f->path) != 0) {
        fprintf(stderr,
                "rdrand-check: cannot rename %s to %s: %s; nothing "
                "changed\n",
                tmp, f->path, strerror(errno));
        unlink(tmp);
        unlink(saved);
        return EDIT_FAILED;
    }
    if (!sync_parent(f->path))
        fprintf(stderr,
                "rdrand-check: warning: syncing the directory of %s: %s (the "
                "new file is in place)\n",
                f->path, strerror(errno));
    for (size_t i = 0; i < nolder; i++)
        unlink(older[i]);
    printf("%s %s; the previous file is kept as %s\n",
           enable ? "enabled:" : "disabled:", f->path, saved);
    return 0;
}

/* A refusal: the reason, and the file as it was. */
static int refused(const struct file *f, const struct edit_why *w)
{
    fprintf(stderr, "rdrand-check: %s: %s; nothing changed\n", f->path,
            w->text);
    return EDIT_REFUSED;
}

static int do_enable(const struct file *f, const struct edit_text *t,
                     const struct edit_parsed *p, const CONF *conf)
{
    struct edit_text orig, again, out;
    struct edit_parsed po;
    struct plan pl;
    struct edit_why w;
    char names[2048], *buf;
    size_t size;
    int ours, code;
    CONF *oconf = NULL;

    if (!edit_strip(t, &orig, &ours, &w)) {
        return refused(f, &w);
    }
    if (ours) {
        /* Ours and consistent: --enable on what --disable gives is this. */
        char *obuf = edit_join(&orig, &size);
        int same = 0;

        edit_parse(&orig, &po);
        if (load_conf(obuf, size, &oconf, &w)
            && edit_naming_lines(&po, NULL, 0) == 0
            && plan_enable(&po, oconf, &pl, &w)) {
            edit_apply(&orig, &pl, &again);
            buf = edit_join(&again, &size);
            same = size == f->size && memcmp(buf, f->buf, size) == 0;
            free(buf);
            edit_text_free(&again);
        }
        NCONF_free(oconf);
        edit_parsed_free(&po);
        edit_text_free(&orig);
        free(obuf);
        if (same) {
            printf("%s: already enabled by rdrand-check --enable; nothing "
                   "changed\n",
                   f->path);
            return 0;
        }
        fprintf(stderr,
                "rdrand-check: %s has rdrand-check's marks, but not as "
                "--enable writes them (edited since?); nothing changed: run "
                "--disable first, or edit by hand\n",
                f->path);
        return EDIT_REFUSED;
    }
    edit_text_free(&orig);
    if (edit_naming_lines(p, names, sizeof(names)) > 0) {
        printf("%s already names rdrand (not by rdrand-check --enable):%s\n"
               "checking it in a child process:\n",
               f->path, names);
        fflush(stdout);
        if ((code = check_file(f->path, 1)) == CHECK_LIVE) {
            printf("%s: already enabled (by hand): rdrand is the live seed "
                   "source; nothing changed\n",
                   f->path);
            return 0;
        }
        fprintf(stderr,
                "rdrand-check: %s names rdrand but the check gives verdict "
                "%d (above); nothing changed: fix the lines it names by "
                "hand, or remove the rdrand lines and run --enable again\n",
                f->path, code);
        return EDIT_REFUSED;
    }
    if (!plan_enable(p, conf, &pl, &w)) {
        return refused(f, &w);
    }
    edit_apply(t, &pl, &out);
    printf("--enable's edit of %s:\n", f->path);
    print_changes(&out, 1);
    buf = edit_join(&out, &size);
    code = replace(f, buf, size, 1);
    free(buf);
    edit_text_free(&out);
    return code;
}

static int do_disable(const struct file *f, const struct edit_text *t,
                      const struct edit_parsed *p)
{
    struct edit_text orig;
    struct edit_parsed po;
    struct edit_why w;
    char names[2048], *buf;
    size_t size;
    int ours, code;
    CONF *oconf = NULL;

    if (!edit_strip(t, &orig, &ours, &w)) {
        return refused(f, &w);
    }
    if (!ours) {
        edit_text_free(&orig);
        if (edit_naming_lines(p, names, sizeof(names)) == 0) {
            printf("%s: not enabled (no rdrand line); nothing changed\n",
                   f->path);
            return 0;
        }
        fprintf(stderr,
                "rdrand-check: %s was enabled by hand, not by rdrand-check "
                "--enable; nothing changed: revert these lines by hand (and "
                "what refers to their sections):%s\n",
                f->path, names);
        return EDIT_REFUSED;
    }
    edit_parse(&orig, &po);
    buf = edit_join(&orig, &size);
    code = 0;
    if (edit_naming_lines(&po, names, sizeof(names)) > 0) {
        fprintf(stderr,
                "rdrand-check: %s: without rdrand-check's marked lines it "
                "still names rdrand (a marked line edited, or rdrand lines "
                "added by hand?); nothing changed: revert these by hand "
                "(line numbers as without the marked lines):%s\n",
                f->path, names);
        code = EDIT_REFUSED;
    } else if (!load_conf(buf, size, &oconf, &w)) {
        fprintf(stderr,
                "rdrand-check: %s without the marked lines: %s; nothing "
                "changed\n",
                f->path, w.text);
        code = EDIT_REFUSED;
    }
    NCONF_free(oconf);
    edit_parsed_free(&po);
    if (code == 0) {
        /* The lines removed, numbered as in the file now. */
        struct edit_text shown = {NULL, 0};
        int inside = 0;

        for (size_t i = 0; i < t->n; i++) {
            inside |= strcmp(t->v[i].text, BEGIN) == 0;
            edit_push(&shown, t->v[i].text, strlen(t->v[i].text), t->v[i].eol,
                      inside || edit_ends_with(t->v[i].text, MARK));
            if (strcmp(t->v[i].text, END) == 0)
                inside = 0;
        }
        printf("--disable's edit of %s:\n", f->path);
        print_changes(&shown, 0);
        edit_text_free(&shown);
        code = replace(f, buf, size, 0);
    }
    free(buf);
    edit_text_free(&orig);
    return code;
}

int conf_edit(int enable, const char *asked, check_file_fn *check)
{
    struct file f = {0};
    struct stat st;
    struct edit_text t;
    struct edit_parsed p;
    struct edit_why w;
    CONF *conf = NULL;
    int code, lock;

    check_file = check;
    lock = lock_file(asked);
    if (!read_file(&f, asked)) {
        if (lock >= 0)
            close(lock);
        free((char *)f.path);
        free(f.buf);
        return EDIT_FAILED;
    }
    /* Debian's /usr/lib/ssl/openssl.cnf: the target is what is edited. */
    if (lstat(asked, &st) == 0 && S_ISLNK(st.st_mode))
        printf("%s is a symbolic link to %s: editing that file\n", asked,
               f.path);
    if (f.st.st_nlink > 1) {
        /* The rename would give this name a new inode: the other names
         * would keep the old text, and nothing would say so. */
        fprintf(stderr,
                "rdrand-check: %s has %ju hard links: the edit would reach "
                "only this one; nothing changed: edit by hand, or make it a "
                "single file first\n",
                f.path, (uintmax_t)f.st.st_nlink);
        code = EDIT_REFUSED;
    } else if (memchr(f.buf, '\0', f.size) != NULL) {
        fprintf(stderr,
                "rdrand-check: %s holds NUL bytes: not an openssl.cnf; "
                "nothing changed\n",
                f.path);
        code = EDIT_REFUSED;
    } else if (!load_conf(f.buf, f.size, &conf, &w)) {
        fprintf(stderr, "rdrand-check: %s: %s; nothing changed\n", f.path,
                w.text);
        code = EDIT_REFUSED;
    } else {
        edit_split(f.buf, f.size, &t);
        edit_parse(&t, &p);
        code = enable ? do_enable(&f, &t, &p, conf) : do_disable(&f, &t, &p);
        edit_parsed_free(&p);
        edit_text_free(&t);
    }
    NCONF_free(conf);
    free((char *)f.path);
    free(f.buf);
    if (lock >= 0)
        close(lock);
    return code;
}

int conf_edit_reverts(const char *path)
{
    struct file f = {0};
    struct edit_text t, orig;
    struct edit_why w;
    int ours = 0, ok = 0;

    if (read_file(&f, path) && memchr(f.buf, '\0', f.size) == NULL) {
        edit_split(f.buf, f.size, &t);
        if (edit_strip(&t, &orig, &ours, &w)) {
            ok = ours;
            edit_text_free(&orig);
        }
        edit_text_free(&t);
    }
    free((char *)f.path);
    free(f.buf);
    return ok;
}
