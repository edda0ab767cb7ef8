/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One verdict per process, whatever the copy of the module (copies.c):
 * rdrand-sim.so and a byte copy of it under another path, two objects to
 * the loader, each loaded by its path (so under its own provider name)
 * into a library context of its own, through the real libcrypto.  Each
 * copy's simulated CPU is its own (RDRAND_SIM is read as each is
 * loaded), so a copy that meets no fault of its own is served unless
 * the other copy's verdict binds it, as one process's must.
 *
 *  - a copy loaded after another's permanent verdict draws nothing, not
 *    even its self-test, and refuses every request with that reason;
 *  - a verdict the first copy reaches binds a copy already loaded, and
 *    one a later copy reaches binds the first;
 *  - the same when the later copy was mapped (dlopen) before the first
 *    copy loaded: the first to load holds the verdict, wherever the
 *    loader's list has it; and when both load at once, on two threads;
 *  - CoCo rules one copy enforces are the other's (its trip permanent at
 *    once);
 *  - the control: a copy of another build (here, the same bytes with
 *    another build id) keeps its own verdict, and is served.
 *
 * Each scenario runs in a process of its own: a verdict cannot be reset.
 * argv[1]: the path of rdrand-sim.so; the copies go in a directory beside
 * it (not /tmp, which may be mounted noexec), removed at the end.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "rdrand_provider.h"

#include "check_line.h"

/* Every word the same: the load's self-test meets a repeat, permanent. */
#define STUCK "value=0123456789abcdef"
#define CLEAN ""

static char first[4096];  /* rdrand-sim.so */
static char copy[4096];   /* the same bytes under another path */
static char other[4096];  /* another build: its build id changed */
static char broken[4096]; /* fail-while=: the CPU fails while it exists */
static char fail_while[4096];

struct loaded {
    OSSL_LIB_CTX *libctx;
    OSSL_PROVIDER *prov;
};

/*
 * The module at path into a library context of its own, on sim's CPU
 * (NULL: RDRAND_SIM as it is).
 */
static struct loaded load(const char *path, const char *sim)
{
    struct loaded l = {OSSL_LIB_CTX_new(), NULL};

    if (sim != NULL)
        setenv("RDRAND_SIM", sim, 1); /* read when the module is mapped */
    if (l.libctx != NULL)
        l.prov = OSSL_PROVIDER_load(l.libctx, path);
    if (l.prov == NULL)
        ERR_print_errors_fp(stdout);
    ERR_clear_error();
    return l;
}

/* The same, from a configuration file with the section's keys. */
static struct loaded load_configured(const char *path, const char *sim,
                                     const char *keys)
{
    char conf[] = "/tmp/rdrand-copies-XXXXXX";
    struct loaded l = {OSSL_LIB_CTX_new(), NULL};
    FILE *f;
    int fd;

    setenv("RDRAND_SIM", sim, 1);
    if (l.libctx == NULL || (fd = mkstemp(conf)) < 0)
        return l;
    if ((f = fdopen(fd, "w")) != NULL) {
        fprintf(f,
                "openssl_conf = init\n[init]\nproviders = provs\n"
                "[provs]\ncopy = sect\n[sect]\nmodule = %s\nactivate = 1\n"
                "warn = none\n%s",
                path, keys);
        if (fclose(f) == 0 && OSSL_LIB_CTX_load_config(l.libctx, conf))
            l.prov = OSSL_PROVIDER_load(l.libctx, "copy");
    }
    unlink(conf);
    if (l.prov == NULL)
        ERR_print_errors_fp(stdout);
    ERR_clear_error();
    return l;
}

static const char *text_param(const struct loaded *l, const char *name)
{
    const char *v = NULL;
    OSSL_PARAM p[] = {OSSL_PARAM_utf8_ptr(name, (char **)&v, 0),
                      OSSL_PARAM_END};

    if (l->prov == NULL || !OSSL_PROVIDER_get_params(l->prov, p) || v == NULL)
        return "(unreadable)";
    return v;
}

static long long int_param(const struct loaded *l, const char *name)
{
    int v = -1;
    OSSL_PARAM p[] = {OSSL_PARAM_int(name, &v), OSSL_PARAM_END};

    return l->prov != NULL && OSSL_PROVIDER_get_params(l->prov, p) ? v : -1;
}

static long long words_param(const struct loaded *l)
{
    uint64_t v = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_uint64(RDRAND_PARAM_RDRAND_WORDS, &v),
                      OSSL_PARAM_END};

    return l->prov != NULL && OSSL_PROVIDER_get_params(l->prov, p)
               ? (long long)v
               : -1;
}

static int permanent(const struct loaded *l)
{
    return strcmp(text_param(l, RDRAND_PARAM_HEALTH_VERDICT), "permanent") == 0;
}

/*
 * One request to the copy's seed source: 1 if served.  A failure's
 * details (the error queue's data) in why, if given.
 */
static int request(const struct loaded *l, char *why, size_t why_len)
{
    unsigned char buf[32];
    EVP_RAND *rand = EVP_RAND_fetch(l->libctx, RDRAND_ALGORITHM_NAME, NULL);
    EVP_RAND_CTX *ctx = rand != NULL ? EVP_RAND_CTX_new(rand, NULL) : NULL;
    int ok = ctx != NULL && EVP_RAND_instantiate(ctx, 256, 0, NULL, 0, NULL)
             && EVP_RAND_generate(ctx, buf, sizeof(buf), 256, 0, NULL, 0);
    const char *data;
    int flags;

    if (why != NULL && why_len > 0)
        why[0] = '\0';
    while (ERR_get_error_all(NULL, NULL, NULL, &data, &flags) != 0)
        if (why != NULL && (flags & ERR_TXT_STRING) && data != NULL
            && strlen(why) + strlen(data) + 3 < why_len)
            strcat(strcat(why, data), "; ");
    EVP_RAND_CTX_free(ctx);
    EVP_RAND_free(rand);
    return ok;
}

/* Requests until the copy's verdict is permanent (two trips, at most 4). */
static int trip_until_permanent(const struct loaded *l)
{
    for (int i = 0; i < 4 && !permanent(l); i++)
        if (request(l, NULL, 0))
            return 0; /* served: its CPU is not failing */
    return permanent(l);
}

static int set_broken(int on)
{
    int fd;

    if (!on)
        return unlink(broken) == 0;
    fd = open(broken, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    return fd >= 0 && close(fd) == 0;
}

/* The copy refuses a request, saying the process will not use RDRAND. */
static int refuses(const struct loaded *l, const char *says)
{
    char why[2048];
    int served = request(l, why, sizeof(why));

    if (served)
        return 0;
    printf("# refused: %s\n", why);
    return strstr(why, "the process will not use it again") != NULL
           && (says == NULL || strstr(why, says) != NULL);
}

/* A copy loaded after the first copy's verdict: bound, nothing drawn. */
static void after_verdict(void)
{
    struct loaded a = load(first, STUCK), b;
    char state[320];

    check(a.prov != NULL && permanent(&a),
          "the first copy meets a repeat at its load: permanent");
    snprintf(state, sizeof(state), "%s",
             text_param(&a, RDRAND_PARAM_HEALTH_STATE));
    b = load(copy, CLEAN);
    check(b.prov != NULL, "a copy under another path loads afterwards");
    check(words_param(&b) == 0,
          "the copy draws nothing, not even its self-test");
    check(permanent(&b), "the copy's health-verdict is permanent");
    check(int_param(&b, OSSL_PROV_PARAM_STATUS) == 0, "the copy's status is 0");
    check(strcmp(text_param(&b, RDRAND_PARAM_HEALTH_STATE), state) == 0,
          "the copy's health-state is the first copy's reason");
    check(refuses(&b, "repeated a 64-bit word"),
          "the copy refuses a request, with the first copy's reason");
    check(refuses(&b, NULL), "and the next");
}

/* Both loaded and served; then trip at makes the verdict, bound binds. */
static void both_loaded(int later_trips, int mapped_first)
{
    struct loaded a, b, *at, *bound;

    if (mapped_first) {
        /* The copy mapped first, not loaded: the loader lists it first. */
        setenv("RDRAND_SIM", later_trips ? fail_while : CLEAN, 1);
        check(dlopen(copy, RTLD_NOW | RTLD_LOCAL) != NULL,
              "the copy is mapped (dlopen) before the first copy loads");
    }
    a = load(first, later_trips ? CLEAN : fail_while);
    b = load(copy, later_trips ? fail_while : CLEAN);
    at = later_trips ? &b : &a;
    bound = later_trips ? &a : &b;
    check(a.prov != NULL && b.prov != NULL, "both copies load");
    check(request(&a, NULL, 0) && request(&b, NULL, 0),
          "both copies serve a request");
    check(set_broken(1), "the tripping copy's CPU fails from now on");
    check(trip_until_permanent(at),
          later_trips ? "the later copy trips twice: permanent"
                      : "the first copy trips twice: permanent");
    check(set_broken(0), "its CPU works again");
    check(refuses(bound, NULL), "the other copy refuses its next request");
    check(permanent(bound), "its health-verdict is permanent");
    check(int_param(bound, OSSL_PROV_PARAM_STATUS) == 0, "its status is 0");
    check(strcmp(text_param(bound, RDRAND_PARAM_HEALTH_STATE),
                 text_param(at, RDRAND_PARAM_HEALTH_STATE))
              == 0,
          "its health-state is the tripping copy's reason");
}

static void first_trips(void)
{
    both_loaded(0, 0);
}

static void later_trips(void)
{
    both_loaded(1, 0);
}

static void later_mapped_first_trips(void)
{
    both_loaded(1, 1);
}

static struct loaded at_once[2];
static pthread_barrier_t at_once_start;

static void *load_at_once(void *arg)
{
    struct loaded *l = arg;

    pthread_barrier_wait(&at_once_start);
    *l = load(l == &at_once[0] ? first : copy, NULL);
    return NULL;
}

/* Both loading at once, each on a thread: still one verdict. */
static void loaded_at_once(void)
{
    pthread_t t[2];
    int ok = pthread_barrier_init(&at_once_start, NULL, 2) == 0;

    setenv("RDRAND_SIM", fail_while, 1); /* both, before either maps */
    for (int i = 0; ok && i < 2; i++)
        ok = pthread_create(&t[i], NULL, load_at_once, &at_once[i]) == 0;
    for (int i = 0; ok && i < 2; i++)
        ok = pthread_join(t[i], NULL) == 0;
    check(ok && at_once[0].prov != NULL && at_once[1].prov != NULL,
          "both copies load at once, on two threads");
    check(request(&at_once[0], NULL, 0) && request(&at_once[1], NULL, 0),
          "both copies serve a request");
    check(set_broken(1), "both CPUs fail from now on");
    check(trip_until_permanent(&at_once[1]), "one copy trips twice: permanent");
    check(set_broken(0), "both CPUs work again");
    check(refuses(&at_once[0], NULL),
          "the other copy refuses its next request");
}

/* CoCo rules, set by the first copy's section, bind the copy. */
static void coco_rules(void)
{
    struct loaded a = load_configured(first, CLEAN, "coco = require\n"), b;

    check(a.prov != NULL && int_param(&a, RDRAND_PARAM_COCO_ENFORCED) == 1,
          "the first copy loads with coco = require: CoCo rules");
    b = load(copy, fail_while);
    check(b.prov != NULL, "a copy loads from code, no section");
    check(int_param(&b, RDRAND_PARAM_COCO_ENFORCED) == 1,
          "CoCo rules are the copy's too");
    check(set_broken(1), "the copy's CPU fails from now on");
    check(!request(&b, NULL, 0) && permanent(&b),
          "the copy's first trip is permanent (no recovery under CoCo "
          "rules)");
    check(set_broken(0), "its CPU works again");
    check(!request(&a, NULL, 0) && permanent(&a),
          "the first copy refuses its next request");
}

/* The control: another build keeps its own verdict. */
static void other_build(void)
{
    struct loaded a = load(first, STUCK), c, b;

    check(a.prov != NULL && permanent(&a),
          "the first copy meets a repeat at its load: permanent");
    c = load(other, CLEAN);
    check(c.prov != NULL, "a module of another build loads afterwards");
    check(request(&c, NULL, 0), "it serves a request");
    check(strcmp(text_param(&c, RDRAND_PARAM_HEALTH_VERDICT), "ok") == 0
              && int_param(&c, OSSL_PROV_PARAM_STATUS) == 1,
          "its health-verdict is ok, its status 1");
    b = load(copy, CLEAN);
    check(b.prov != NULL && refuses(&b, NULL),
          "while a copy of the first's build, loaded after it, refuses");
}

typedef void scenario_fn(void);

static void in_child(scenario_fn *fn, const char *what)
{
    int status = 0;
    pid_t pid;

    printf("# %s\n", what);
    fflush(stdout);
    if ((pid = fork()) == 0) {
        failed = 0; /* the child's own checks */
        fn();
        fflush(stdout);
#ifdef RDRAND_COVERAGE
        /*
         * The copies' counts: each module writes its own from its
         * destructor (its __gcov_dump is not exported), which _exit
         * skips.  The parent's stdio was flushed before the fork.
         */
        exit(failed != 0);
#else
        _exit(failed != 0);
#endif
    }
    check(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)
              && WEXITSTATUS(status) == 0,
          what);
}

/* The file at from, bytes at to (mode 0755); change_id: its build id. */
static int copy_module(const char *from, const char *to, int change_id)
{
    FILE *in = fopen(from, "rb"), *out = NULL;
    unsigned char *bytes = NULL;
    long size = -1;
    int ok = in != NULL && fseek(in, 0, SEEK_END) == 0
             && (size = ftell(in)) > (long)sizeof(Elf64_Ehdr)
             && fseek(in, 0, SEEK_SET) == 0
             && (bytes = malloc((size_t)size)) != NULL
             && fread(bytes, 1, (size_t)size, in) == (size_t)size;

    if (ok && change_id) {
        const Elf64_Ehdr *eh = (const Elf64_Ehdr *)bytes;
        int changed = 0;

        for (size_t i = 0; i < eh->e_phnum && !changed; i++) {
            const Elf64_Phdr *ph =
                (const Elf64_Phdr *)(bytes + eh->e_phoff + i * sizeof(*ph));
            size_t at = ph->p_offset, end = at + ph->p_filesz;

            while (ph->p_type == PT_NOTE && at + sizeof(Elf64_Nhdr) <= end) {
                const Elf64_Nhdr *n = (const Elf64_Nhdr *)(bytes + at);
                size_t name = (n->n_namesz + 3) & ~3u;

                if (n->n_type == NT_GNU_BUILD_ID && n->n_descsz > 0) {
                    bytes[at + sizeof(*n) + name] ^= 0xff;
                    changed = 1;
                    break;
                }
                at += sizeof(*n) + name + ((n->n_descsz + 3) & ~3u);
            }
        }
        ok = changed;
    }
    ok = ok && (out = fopen(to, "wb")) != NULL
         && fwrite(bytes, 1, (size_t)size, out) == (size_t)size;
    if (out != NULL)
        ok = fclose(out) == 0 && ok;
    if (in != NULL)
        fclose(in);
    free(bytes);
    return ok && chmod(to, 0755) == 0;
}

/* dir/name into to: 1 if it fits. */
static int path_in(char *to, size_t len, const char *dir, const char *name)
{
    int n = snprintf(to, len, "%s/%s", dir, name);

    return n > 0 && (size_t)n < len;
}

int main(int argc, char **argv)
{
    char dir[4096], parent[4096];

    if (argc < 2 || realpath(argv[1], first) == NULL) {
        fprintf(stderr, "usage: test_copies PATH-OF-rdrand-sim.so\n");
        return 2;
    }
    snprintf(parent, sizeof(parent), "%s", first);
    if (!path_in(dir, sizeof(dir), dirname(parent), "copies-XXXXXX")
        || mkdtemp(dir) == NULL) {
        perror(dir);
        return 1;
    }
    if (check(path_in(copy, sizeof(copy), dir, "rdrand-sim-copy.so")
                  && path_in(other, sizeof(other), dir, "rdrand-sim-other.so")
                  && path_in(broken, sizeof(broken), dir, "broken")
                  && snprintf(fail_while, sizeof(fail_while), "fail-while=%s",
                              broken)
                         < (int)sizeof(fail_while),
              "the copies' paths")
        && check(copy_module(first, copy, 0), "a byte copy of the module")
        && check(copy_module(first, other, 1),
                 "a copy with another build id (another build)")) {
        in_child(after_verdict, "a copy loaded after the first copy's "
                                "permanent verdict is bound by it");
        in_child(first_trips, "a verdict the first copy reaches binds a "
                              "copy already loaded");
        in_child(later_trips, "a verdict a later copy reaches binds the "
                              "first copy");
        in_child(later_mapped_first_trips,
                 "the same with the later copy mapped before the first "
                 "loaded");
        in_child(loaded_at_once, "two copies loading at once are bound alike");
        in_child(coco_rules,
                 "CoCo rules the first copy enforces are the copy's");
        in_child(other_build, "control: a module of another build keeps its "
                              "own verdict");
    }
    unlink(copy);
    unlink(other);
    unlink(broken);
    rmdir(dir);
    printf("%d failed\n", failed);
    return failed != 0;
}
