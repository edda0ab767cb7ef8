/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Differential test of rdrand-check's line reader (tools/conf_walk.c)
 * against OpenSSL's own parser: for every file, the set of (section, key)
 * pairs NCONF holds after loading it must be the set the reader files
 * its key lines under, or the reader must refuse the file (a finding of
 * its own saying it does not model a line).  NCONF is the judge, never
 * our idea of it.
 *
 *   conf_diff FILE...            the given files (the corpus: each must
 *                                load, or it tests nothing)
 *   conf_diff --generate N FIRST LAST
 *                                N files per seed FIRST..LAST, made from tricky
 * fragments (quotes, escapes, comments, sect:: keys, continuations, pragmas,
 * blanks)
 *
 * A generated file NCONF refuses to load is not compared (the check
 * reports NCONF's failure itself) and is counted apart; each file's
 * verdict is printed, then "N passed, N failed".
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/conf.h>
#include <openssl/conftypes.h>
#include <openssl/err.h>

#include "check.h"
#include "conf_walk.h"

struct pairs {
    char (*v)[2][128];
    size_t n;
};

static void add_pair(struct pairs *p, const char *section, const char *key)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i][0], section) == 0 && strcmp(p->v[i][1], key) == 0)
            return;
    p->v = realloc(p->v, (p->n + 1) * sizeof(*p->v));
    if (p->v == NULL)
        abort();
    snprintf(p->v[p->n][0], sizeof(p->v[0][0]), "%s", section);
    snprintf(p->v[p->n][1], sizeof(p->v[0][1]), "%s", key);
    p->n++;
}

static int has_pair(const struct pairs *p, const char *section, const char *key)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i][0], section) == 0 && strcmp(p->v[i][1], key) == 0)
            return 1;
    return 0;
}

static struct pairs *collecting;

static void collect(CONF_VALUE *v)
{
    /* Sections have no name; an empty key ("= v") is left out as above. */
    if (v->name != NULL && v->name[0] != '\0')
        add_pair(collecting, v->section, v->name);
}

/* Every value NCONF holds, in its hash order, as one text. */
static char *dumped;
static size_t dumped_len;

static void dump(CONF_VALUE *v)
{
    size_t need = strlen(v->section) + (v->name ? strlen(v->name) : 0)
                  + (v->value ? strlen(v->value) : 0) + 4;

    if ((dumped = realloc(dumped, dumped_len + need)) == NULL)
        abort();
    dumped_len +=
        (size_t)snprintf(dumped + dumped_len, need, "%s|%s|%s\n", v->section,
                         v->name ? v->name : "", v->value ? v->value : "");
}

/*
 * Does what NCONF reads from path depend on the environment variable
 * RDRAND_DIFF_ENV?  Loaded with two values of it and without it (where a
 * use of it fails the whole load): the texts differ.
 */
static int env_dependent(const char *path)
{
    char *first = NULL;
    int differs = 0;

    for (int round = 0; round < 3 && !differs; round++) {
        long eline = 0;
        CONF *conf = NCONF_new(NULL);

        if (round < 2)
            setenv("RDRAND_DIFF_ENV", round == 0 ? "one" : "two", 1);
        else
            unsetenv("RDRAND_DIFF_ENV");
        dumped = NULL;
        dumped_len = 0;
        if (conf != NULL && NCONF_load(conf, path, &eline) > 0)
            lh_CONF_VALUE_doall(conf->data, dump);
        if (round == 0) {
            first = dumped;
            dumped = NULL;
        } else {
            differs = (first == NULL) != (dumped == NULL)
                      || (first != NULL && strcmp(first, dumped) != 0);
            free(dumped);
        }
        NCONF_free(conf);
        ERR_clear_error();
    }
    free(first);
    dumped = NULL;
    return differs;
}

/* Did the reader say a value reads the environment? */
static int says_env(const struct check_report *r)
{
    for (size_t i = 0; i < r->nproblems; i++)
        if (strstr(r->problems[i].message, "reads $ENV::") != NULL)
            return 1;
    return 0;
}

/* Did the reader refuse the file (say it does not model a line)? */
static int refused(const struct check_report *r)
{
    for (size_t i = 0; i < r->nproblems; i++)
        if (strstr(r->problems[i].message, "does not model") != NULL)
            return 1;
    return 0;
}

/* 1: the same pairs, or refused; 0: a difference (printed); -1: skipped. */
static int compare(const char *path)
{
    static struct check_report r;
    struct pairs nconf = {0}, walk = {0};
    struct conf_lines l;
    CONF *conf = NCONF_new(NULL);
    long eline = 0;
    int same = 1;

    setenv("RDRAND_DIFF_ENV", "one", 1); /* env_dependent unsets it */
    /*
     * NCONF's own object, not CONF_load's: the legacy call drops the
     * CONF it loads with, and with it a .pragma includedir's string.
     */
    if (conf == NULL || NCONF_load(conf, path, &eline) <= 0) {
        ERR_clear_error();
        NCONF_free(conf);
        return -1;
    }
    ERR_clear_error();
    collecting = &nconf;
    lh_CONF_VALUE_doall(conf->data, collect);
    memset(&r, 0, sizeof(r));
    r.config = r.shown = path;
    r.provider = "rdrand";
    conf_walk(&r, conf, &l);
    /* Section headers are the reader's lines with key "": not keys. */
    for (size_t i = 0; i < l.n; i++)
        if (l.v[i].key[0] != '\0')
            add_pair(&walk, l.v[i].section, l.v[i].key);
    if (!refused(&r) && env_dependent(path) != says_env(&r)) {
        printf("# %s: NCONF's values %s on the environment, the reader "
               "says %s\n",
               path, says_env(&r) ? "do not depend" : "depend",
               says_env(&r) ? "they do" : "nothing");
        same = 0;
    }
    if (!refused(&r)) {
        for (size_t i = 0; i < nconf.n; i++)
            if (!has_pair(&walk, nconf.v[i][0], nconf.v[i][1])) {
                printf("# %s: NCONF has [%s] %s, the reader does not\n", path,
                       nconf.v[i][0], nconf.v[i][1]);
                same = 0;
            }
        for (size_t i = 0; i < walk.n; i++)
            if (!has_pair(&nconf, walk.v[i][0], walk.v[i][1])) {
                printf("# %s: the reader has [%s] %s, NCONF does not\n", path,
                       walk.v[i][0], walk.v[i][1]);
                same = 0;
            }
    }
    conf_lines_free(&l);
    NCONF_free(conf);
    free(nconf.v);
    free(walk.v);
    return same;
}

/* Fragments NCONF reads in more than one way; %d is a number. */
static const char *const fragments[] = {
    "[s%d]",
    "[ s%d ]",
    "k%d = v",
    "k%d=v",
    "  k%d = v  # comment",
    "k%d = \"a # b\"",
    "k%d = 'a # b'",
    "k%d = `a # b`",
    "k%d = 'a\\' # b'",
    "k%d = \"a\\\" # b\"",
    "k%d = a\\# b",
    "k%d = a \\\\# b",
    "s%d::k = v",
    "default::k%d = v",
    "k%d = v \\",
    "  continued%d = w",
    "# k%d = commented",
    "#[s%d]",
    "k%d = 'unterminated",
    "k%d = \"unterminated",
    "k%d =",
    "k%d = a=b",
    "k%d.sub = v",
    "k%d = $k0",
    "k%d = ${k0}",
    "x\\=y%d = z",
    "k%d\\ x = v",
    ".pragma dollarid:on",
    "k%d$ = v",
    "",
    "   ",
    "k%d = v\r",
    "k%d = a \\\\",
    "\\",
    "k%d = a # b \\",
    "k%d = 'a \\",
    "k%d = \"a # \\",
    "[s%d] # note",
    "[s%d # note]",
    "[ 's%d' ]",
    "s%d\\:x::k = v",
    "k%d = `a \\` # b`",
    ".include %i",
    ".include=%i",
    "x%d::.include = %i",
    ".includex %i",
    ".include %i # c",
    "e%d = $ENV::RDRAND_DIFF_ENV",
    "e%d = ${ENV::RDRAND_DIFF_ENV}",
    "e%d = $(ENV::RDRAND_DIFF_ENV)",
    "e%d = '$ENV::RDRAND_DIFF_ENV'",
    "e%d = \"$ENV::RDRAND_DIFF_ENV\"",
    "e%d = `$ENV::RDRAND_DIFF_ENV`",
    "e%d = \\$ENV::RDRAND_DIFF_ENV",
    "e%d = `#` $ENV::RDRAND_DIFF_ENV",
    "e%d = 'a\\'#' $ENV::RDRAND_DIFF_ENV",
    "e%d = # $ENV::RDRAND_DIFF_ENV",
    "ENV::RDRAND_DIFF_ENV = fixed",
    "[ENV]",
    /* Include paths as str_copy reads them (%D the directory, %u the seed):
     * quotes, escapes (\t is a tab outside quotes only), variables. */
    ".include \"%i\"",
    ".include '%i'",
    ".include `%i`",
    ".include %D/odd-%u\\t\\\"x.part",
    ".include \"%D/odd-%u\t\\\"x.part\"",
    ".include '%D/odd-%u\t\"x.part'",
    "incdir = %D",
    ".include $incdir/inc-%u.part",
    ".include ${incdir}/inc-%u.part",
    ".include $(default::incdir)/inc-%u.part",
    ".include $default::incdir/inc-%u.part",
    ".pragma includedir:%D",
    ".pragma includedir = %D/incd-%u",
    ".include inc-%u.part",
    ".include = a.cnf",
    ".include %D/incd-%u",
    ".include %D/missing-%u.cnf",
    ".include /dev/null",
    "inc_dir = %D",
    ".include ${inc_dir}/inc-%u.part",
    "inc$dir = %D",
    ".include ${inc$dir}/inc-%u.part",
    ".include $incdir:x",
    ".pragma dollarid:true",
    ".pragma dollarid:off",
    ".pragma abspath:true",
    ".pragma abspath:on",
    ".pragma abspath:off",
    ".pragma includedir:%D/",
    /* %P: a path component longer than PATH_MAX. */
    "longv = %P",
    ".include $longv",
    ".include %D/%P",
    ".include %D/odd-%u\\r\\b\\n",
    ".include \"%D/%P\"",
    ".include $(inc$dir)/inc-%u.part",
    ".pragma unknown:value",
    ".include %i\\ # a trailing escaped blank, then a comment",
    ".include '%i\\ ",
};

/*
 * One fragment as a line, "%d" replaced by n, "%i" by inc, "%D" by dir,
 * "%u" by seed and "%P" by PATH_MAX + 1 'x's.
 */
static void emit(FILE *out, const char *fragment, int n, const char *inc,
                 const char *dir, unsigned seed)
{
    for (const char *c = fragment; *c != '\0'; c++) {
        if (c[0] == '%' && c[1] == 'd') {
            fprintf(out, "%d", n);
            c++;
        } else if (c[0] == '%' && c[1] == 'i') {
            fputs(inc, out);
            c++;
        } else if (c[0] == '%' && c[1] == 'D') {
            fputs(dir, out);
            c++;
        } else if (c[0] == '%' && c[1] == 'u') {
            fprintf(out, "%u", seed);
            c++;
        } else if (c[0] == '%' && c[1] == 'P') {
            for (int x = 0; x <= PATH_MAX; x++)
                fputc('x', out);
            c++;
        } else {
            fputc(*c, out);
        }
    }
    fputc('\n', out);
}

/*
 * The files the include fragments name, dir/PREFIX<seed>SUFFIX: a file with
 * a tab and a quote in its name, and a directory of *.cnf and *.conf files
 * (in readdir order) and one file NCONF does not read, one of them
 * including the directory again (skipped: a directory from a directory),
 * one a missing file; and a dangling symlink z.cnf.  Their text is a fragment
 * (emit).
 */
static const char *const included[][3] = {
    {"odd-", "\t\"x.part", "oddk = 1\n[odd]\nok = 1"},
    {"incd-", "/a.cnf", "ak = 1\n[da]\nak = 1"},
    {"incd-", "/b.CONF", "bk = 1"},
    {"incd-", "/c.txt", "[dc]\nck = 1"},
    {"incd-", "/n.cnf", ".include %D/incd-%u\n[dn]\nnk = 1"},
    {"incd-", "/m.conf", "[dm]\n.include %D/missing-%u.cnf\nmk = 1"},
};

static int make_included(const char *dir, const char *inc, unsigned seed,
                         int remove)
{
    char path[4096];
    size_t n = sizeof(included) / sizeof(included[0]);

    snprintf(path, sizeof(path), "%s/incd-%u", dir, seed);
    if (!remove && mkdir(path, 0700) != 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s%u%s", dir, included[i][0], seed,
                 included[i][1]);
        if (remove) {
            unlink(path);
            continue;
        }
        if ((f = fopen(path, "w")) == NULL)
            return 0;
        emit(f, included[i][2], 0, inc, dir, seed);
        if (fclose(f) != 0)
            return 0;
    }
    /* A dangling symlink among them: stat fails, NCONF's open too. */
    snprintf(path, sizeof(path), "%s/incd-%u/z.cnf", dir, seed);
    if (remove)
        unlink(path);
    else if (symlink("nowhere.cnf", path) != 0)
        return 0;
    snprintf(path, sizeof(path), "%s/incd-%u", dir, seed);
    return !remove || rmdir(path) == 0;
}

static int generate(int count, unsigned seed, const char *dir)
{
    int passed = 0, failed = 0, skipped = 0;
    const size_t nf = sizeof(fragments) / sizeof(fragments[0]);

    char inc[4096];
    FILE *incf;

    /* What the .include fragments include: a header and a key, and a
     * first key that lands in the including file's current section. */
    snprintf(inc, sizeof(inc), "%s/inc-%u.part", dir, seed);
    if ((incf = fopen(inc, "w")) == NULL)
        return 2;
    fputs("early = 1\n[inc]\nik = 1\n", incf);
    fclose(incf);
    if (!make_included(dir, inc, seed, 0))
        return 2;
    /*
     * Relative includes resolved by OPENSSL_CONF_INCLUDE: seeds 2, 5, 8...
     * from dir; 3, 6, 9... from "" (the root); 1, 4, 7... not.
     */
    if (seed % 3 == 0)
        setenv("OPENSSL_CONF_INCLUDE", "", 1);
    else if (seed % 3 == 2)
        setenv("OPENSSL_CONF_INCLUDE", dir, 1);
    else
        unsetenv("OPENSSL_CONF_INCLUDE");
    srand(seed);
    for (int f = 0; f < count; f++) {
        char path[4096];
        FILE *out;
        int lines = 1 + rand() % 12, res;

        snprintf(path, sizeof(path), "%s/gen-%u-%d.cnf", dir, seed, f);
        if ((out = fopen(path, "w")) == NULL)
            return 2;
        for (int i = 0; i < lines; i++) {
            emit(out, fragments[(size_t)rand() % nf], rand() % 4, inc, dir,
                 seed);
        }
        fclose(out);
        res = compare(path);
        if (res == 1)
            passed++;
        else if (res == 0)
            failed++, printf("not ok - generated %s\n", path);
        else
            skipped++;
        if (res != 0)
            unlink(path);
    }
    unlink(inc);
    unsetenv("OPENSSL_CONF_INCLUDE");
    if (failed == 0)
        make_included(dir, inc, seed, 1);
    printf("# generated %d files (seed %u): %d compared, %d NCONF refused\n",
           count, seed, passed + failed, skipped);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0;

    if (argc == 5 && strcmp(argv[1], "--generate") == 0) {
        char dir[] = "/tmp/conf_diff.XXXXXX";
        unsigned first = (unsigned)strtoul(argv[3], NULL, 10);
        unsigned last = (unsigned)strtoul(argv[4], NULL, 10);
        int rc = 0;

        if (mkdtemp(dir) == NULL)
            return 2;
        for (unsigned seed = first; seed <= last && rc == 0; seed++)
            rc = generate(atoi(argv[2]), seed, dir);
        /* Files of failures stay, to be read: the directory then too. */
        if (rc == 0)
            rmdir(dir);
        return rc;
    }
    /* A corpus file NCONF refuses tests nothing: the corpus is wrong. */
    for (int i = 1; i < argc; i++) {
        int res = compare(argv[i]);

        printf("%s - %s%s\n", res == 1 ? "ok" : "not ok", argv[i],
               res < 0 ? " (NCONF refuses it: not a corpus file)" : "");
        if (res == 1)
            passed++;
        else
            failed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
