/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-check, step 1: the configuration, read with libcrypto's own
 * parser (NCONF) and checked the way OpenSSL applies it
 * (crypto/provider_conf.c, crypto/rand/rand_lib.c): does it make the
 * provider the live seed source?  Every mistake found is named with the
 * line to fix, which NCONF does not keep: the file is read again for it.
 */
#define _GNU_SOURCE /* secure_getenv */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/conf.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include "rdrand_provider.h"

#include "check.h"
#include "conf_reach.h"
#include "conf_walk.h"
#include "config_rules.h"
#include "errors.h"

#define V3_3 0x30300000UL /* activate is a boolean from here on */
#define V3_5 0x30500000UL /* random_provider exists from here on */

/* Both releases' answer, stated for both: a machine changes release. */
#define UNFETCHED RDRAND_TEXT_UNSERVED " (unable to fetch drbg)"

/* ---- where each key is: conf_walk.c ---- */

/* The line NCONF takes a key from (the last one), or 0. */
static int line_of_key(const struct conf_lines *l, const char *section,
                       const char *key, int nocase)
{
    int found = 0;

    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].section, section) == 0
            && (nocase ? strcasecmp(l->v[i].key, key)
                       : strcmp(l->v[i].key, key))
                   == 0)
            found = l->v[i].pos;
    return found;
}

static int line_of(const struct conf_lines *l, const char *section,
                   const char *key)
{
    return line_of_key(l, section, key, 0);
}

/* A section's header line (its first key's in "default"), or 0. */
static int section_line(const struct conf_lines *l, const char *section)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].section, section) == 0)
            return l->v[i].pos;
    return 0;
}

/*
 * NCONF keeps only the last of a duplicated key ([random]: any case),
 * wherever it is written: in one file, or in a file included into the
 * section.
 */
static void check_duplicates(struct check_report *r, const struct conf_lines *l,
                             const char *section, int nocase)
{
    for (size_t i = 0; i < l->n; i++) {
        int last, line, last_line;

        if (strcmp(l->v[i].section, section) != 0 || l->v[i].key[0] == '\0'
            || (last = line_of_key(l, section, l->v[i].key, nocase))
                   == l->v[i].pos)
            continue;
        if (conf_where(l, l->v[i].pos, &line) == conf_where(l, last, &last_line)
            && line == last_line)
            continue; /* a file read again inside itself: that finding */
        if (conf_where(l, l->v[i].pos, &line)
            == conf_where(l, last, &last_line))
            check_problem(r, SEV_MISCONFIGURED, l->v[i].pos, section,
                          l->v[i].key,
                          "given twice (lines %d and %d): OpenSSL uses only "
                          "line %d and ignores this one without a word; keep "
                          "one",
                          line, last_line, last_line);
        else {
            char here[1200], there[1200];

            check_problem(r, SEV_MISCONFIGURED, l->v[i].pos, section,
                          l->v[i].key,
                          "given twice (%s and %s): OpenSSL uses only %s and "
                          "ignores this one without a word; keep one",
                          conf_pos_text(l, l->v[i].pos, here, sizeof(here)),
                          conf_pos_text(l, last, there, sizeof(there)), there);
        }
    }
}

/* ---- names ---- */

static size_t distance(const char *a, const char *b)
{
    size_t lb = strlen(b), row[128];

    if (lb >= sizeof(row) / sizeof(row[0]) || strlen(a) >= 128)
        return 128;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; a[i - 1] != '\0'; i++) {
        size_t diag = row[0];

        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], best = diag
                                       + (tolower((unsigned char)a[i - 1])
                                          != tolower((unsigned char)b[j - 1]));

            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The known name closest to name (NULL-terminated list). */
static const char *closest(const char *name, const char *const *known)
{
    const char *best = known[0];

    for (const char *const *k = known; *k != NULL; k++)
        if (distance(name, *k) < distance(name, best))
            best = *k;
    return best;
}

/* The last entry for key (as OpenSSL applies them in order), or NULL. */
static const CONF_VALUE *sect_find(STACK_OF(CONF_VALUE) * sect, const char *key,
                                   int nocase)
{
    const CONF_VALUE *found = NULL;

    for (int i = 0; i < sk_CONF_VALUE_num(sect); i++) {
        const char *name = sk_CONF_VALUE_value(sect, i)->name;

        if ((nocase ? strcasecmp(name, key) : strcmp(name, key)) == 0)
            found = sk_CONF_VALUE_value(sect, i);
    }
    return found;
}

/* The init section's entries run through module, in order (up to max). */
static size_t module_entries(STACK_OF(CONF_VALUE) * init, const char *module,
                             const char **v, size_t max)
{
    size_t n = 0;

    for (int i = 0; i < sk_CONF_VALUE_num(init); i++) {
        const CONF_VALUE *kv = sk_CONF_VALUE_value(init, i);

        if (conf_names_module(kv->name, module) && n < max)
            v[n++] = kv->value;
    }
    return n;
}

/*
 * A provider section's key as provider_conf.c reads it: the name after
 * its first dot ("x.activate" is activate), the last entry winning.
 */
static const char *prov_value(STACK_OF(CONF_VALUE) * sect, const char *key)
{
    const char *found = NULL;

    for (int i = 0; i < sk_CONF_VALUE_num(sect); i++) {
        const CONF_VALUE *kv = sk_CONF_VALUE_value(sect, i);

        if (strcmp(conf_skip_dot(kv->name), key) == 0)
            found = kv->value;
    }
    return found;
}

/* A boolean as OpenSSL 3.3+ reads activate: 1, 0, or -1 (refused). */
static int bool_value(const char *v)
{
    static const char *const yes[] = {"1",    "yes", "YES", "true",
                                      "TRUE", "on",  "ON"};
    static const char *const no[] = {"0",     "no",  "NO", "false",
                                     "FALSE", "off", "OFF"};

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcmp(v, yes[i]) == 0)
            return 1;
        if (strcmp(v, no[i]) == 0)
            return 0;
    }
    return -1;
}

/* activate as the running OpenSSL reads it: 1, 0, or -1 (refused). */
static int activate_value(const struct check_report *r, const char *v)
{
    if (v == NULL)
        return 0;
    /* 3.0-3.2: the key's presence is what counts, whatever its value. */
    return r->openssl_version < V3_3 ? 1 : bool_value(v);
}

/* ---- the provider's section ---- */

/* OpenSSL's own keys, then ours in enum rdrand_config_key order. */
#define OPENSSL_KEYS 4
static const char *const provider_keys[] = {
    "module", "activate",       "identity",        "soft_load",    "warn",
    "coco",   "coco_seed_bits", "on_coco_failure", "conditioning", "mix",
    NULL};

/* Where OpenSSL looks for the module (provider_core.c, DSO_merge). */
static void check_module(struct check_report *r, const struct conf_lines *l,
                         const char *sect_name, const char *name,
                         const char *module)
{
    /* libcrypto reads it through ossl_safe_getenv: so does the check. */
    const char *env = secure_getenv("OPENSSL_MODULES"), *dir = env;
    char path[4096], with_so[4200];
    char why[128];
    struct stat st;
    int hint;

    if (dir == NULL)
        dir = OPENSSL_info(OPENSSL_INFO_MODULES_DIR);
    if (module == NULL)
        snprintf(path, sizeof(path), "%s/%s.so", dir, name);
    else if (module[0] == '/')
        snprintf(path, sizeof(path), "%s", module);
    else
        snprintf(path, sizeof(path), "%s/%s", dir, module);
    /*
     * A directory is not a module, though access() says it is there.
     * Another user's check (the service draw) meets the file's mode.
     */
    if (access(path, R_OK) != 0 && errno != ENOENT && errno != ENOTDIR)
        snprintf(why, sizeof(why), "this user (uid %ld) cannot read (%s)",
                 (long)geteuid(), strerror(errno));
    else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        conf_reach_limits(r, path,
                          module ? line_of(l, sect_name, "module")
                                 : section_line(l, sect_name),
                          sect_name, "module");
        return;
    } else
        snprintf(why, sizeof(why), "no file");
    snprintf(with_so, sizeof(with_so), "%s.so", path);
    hint = module != NULL && access(with_so, R_OK) == 0
           && stat(with_so, &st) == 0 && S_ISREG(st.st_mode);
    check_problem(
        r, SEV_MISCONFIGURED,
        module ? line_of(l, sect_name, "module") : section_line(l, sect_name),
        sect_name, "module",
        "%s%s: %s %s (modules directory %s, from %s); OpenSSL skips "
        "the provider without a word, and where [random] takes its seed "
        "from it, " UNFETCHED "%s%s%s",
        module ? "module = " : "no module line, so OpenSSL looks for ",
        module ? module : strrchr(path, '/') + 1, why, path, dir,
        env != NULL ? "OPENSSL_MODULES" : "libcrypto's built-in",
        hint ? "; did you mean module = " : "", hint ? module : "",
        hint ? ".so?" : "");
}

/* One of our own keys: the same rules as the provider (config_rules.c). */
static void check_own_key(struct check_report *r, const CONF *conf,
                          const struct conf_lines *l, const char *sect_name,
                          enum rdrand_config_key key, const char *value)
{
    const char *name = rdrand_config_key_names[key];
    int line = line_of(l, sect_name, name);
    unsigned int parsed;
    char why[256];

    if (NCONF_get_section(conf, value) != NULL)
        check_problem(r, SEV_MISCONFIGURED, line, sect_name, name,
                      "%s = %s: %s is a section name, not a value (OpenSSL "
                      "passes that section's keys, %s.*, instead); write "
                      "the value itself",
                      name, value, name, name);
    else if (!rdrand_config_parse(key, value, &parsed, why, sizeof(why)))
        check_problem(r, SEV_MISCONFIGURED, line, sect_name, name,
                      "%s: the provider fails every request", why);
}

/*
 * A spelling of one of the provider's own keys that it asks the core for
 * itself (all upper case, or capitalised: provider/config.c) and refuses,
 * latching: unlike any other unknown key, it does reach the provider.
 */
static int probed_spelling(const char *key, const char *near)
{
    size_t n = strlen(near);
    int upper = 1, capital = 1, own = 0;

    for (int k = OPENSSL_KEYS; provider_keys[k] != NULL; k++)
        own |= strcmp(near, provider_keys[k]) == 0;
    if (!own || strlen(key) != n || strcasecmp(key, near) != 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        upper &= key[i] == toupper((unsigned char)near[i]);
        capital &=
            key[i] == (i == 0 ? toupper((unsigned char)near[i]) : near[i]);
    }
    return upper || capital;
}

static void check_provider_section(struct check_report *r, const CONF *conf,
                                   const struct conf_lines *l,
                                   const char *sect_name, const char *name)
{
    STACK_OF(CONF_VALUE) *sect = NCONF_get_section(conf, sect_name);
    const char *activate;

    if (sect == NULL) {
        check_problem(r, SEV_MISCONFIGURED, 0, sect_name, NULL,
                      "no section [%s]: provider %s is never loaded", sect_name,
                      name);
        return;
    }
    check_duplicates(r, l, sect_name, 0);
    for (int i = 0; i < sk_CONF_VALUE_num(sect); i++) {
        const CONF_VALUE *kv = sk_CONF_VALUE_value(sect, i);
        const char *key = conf_skip_dot(kv->name), *near;
        int known = -1;

        for (int k = 0; provider_keys[k] != NULL; k++)
            if (strcmp(key, provider_keys[k]) == 0)
                known = k;
        if (known >= OPENSSL_KEYS)
            check_own_key(r, conf, l, sect_name,
                          (enum rdrand_config_key)(known - OPENSSL_KEYS),
                          kv->value);
        if (known >= 0)
            continue;
        near = closest(key, provider_keys);
        if (probed_spelling(key, near))
            check_problem(r, SEV_MISCONFIGURED, line_of(l, sect_name, kv->name),
                          sect_name, kv->name,
                          "%s = \"%s\" is not accepted (keys are "
                          "case-sensitive): the provider sees this spelling "
                          "and fails every request; write %s",
                          kv->name, kv->value, near);
        else
            check_problem(
                r, SEV_MISCONFIGURED, line_of(l, sect_name, kv->name),
                sect_name, kv->name,
                "unknown key %s%s: the provider never sees it; did "
                "you mean %s?",
                kv->name,
                strcasecmp(key, near) == 0 ? " (keys are case-sensitive)" : "",
                near);
    }
    activate = prov_value(sect, "activate");
    switch (activate_value(r, activate)) {
    case 1:
        if (bool_value(activate) != 1)
            check_problem(r, SEV_WARNING, line_of(l, sect_name, "activate"),
                          sect_name, "activate",
                          "activate = %s loads the provider on this OpenSSL "
                          "(before 3.3 any value does) but not on 3.3 and "
                          "later; write activate = 1",
                          activate);
        break;
    case 0:
        check_problem(r, SEV_MISCONFIGURED,
                      activate ? line_of(l, sect_name, "activate")
                               : section_line(l, sect_name),
                      sect_name, "activate",
                      "%s%s: provider %s is configured but never loaded; "
                      "write activate = 1",
                      activate ? "activate = " : "no activate line",
                      activate ? activate : "", name);
        break;
    default:
        check_problem(r, SEV_MISCONFIGURED, line_of(l, sect_name, "activate"),
                      sect_name, "activate",
                      "activate = %s is not a boolean to OpenSSL 3.3 and "
                      "later: the provider is not loaded; write activate = 1",
                      activate);
    }
    check_module(r, l, sect_name, name, prov_value(sect, "module"));
}

/*
 * The provider entries: each "name = section", name overridden by an
 * identity key.  Finds ours, and whether default (or fips) is activated
 * where some activate has turned OpenSSL's implicit default off.
 */
/*
 * Is this entry an instance of r->provider's module?  Every instance
 * registers the same provider= property whatever its entry is called, so
 * the seed fetch may pick any of them: module's file name is
 * r->provider.so, or there is no module line and the name is r->provider.
 */
static int is_instance(const struct check_report *r, const char *name,
                       const char *module)
{
    const char *base;
    size_t n = strlen(r->provider);

    if (module == NULL)
        return strcmp(name, r->provider) == 0;
    base = strrchr(module, '/') != NULL ? strrchr(module, '/') + 1 : module;
    return strncmp(base, r->provider, n) == 0 && strcmp(base + n, ".so") == 0;
}

/*
 * The instance the file loads: under which name (the live check asks
 * OpenSSL for that one), and the property its module registers (its
 * file name without .so: rdrand.so registers provider=rdrand whatever
 * the entry is called).
 */
static void instance_names(struct check_report *r, const char *name,
                           const char *module)
{
    const char *base = module == NULL                 ? name
                       : strrchr(module, '/') != NULL ? strrchr(module, '/') + 1
                                                      : module;
    size_t n = strlen(base);

    snprintf(r->entry, sizeof(r->entry), "%s", name);
    if (n > 3 && strcmp(base + n - 3, ".so") == 0)
        n -= 3;
    snprintf(r->property, sizeof(r->property), "%.*s", (int)n, base);
}

/* Where an instance's module is named, for --loads. */
static void record_load(struct check_report *r, const struct conf_lines *l,
                        const char *sect_name, int has_module, int active)
{
    struct check_load *at;
    const char *file;
    int line = 0;

    if (r->nloads == CHECK_MAX_LOADS)
        return;
    at = &r->loads[r->nloads++];
    file = conf_where(l,
                      has_module ? line_of(l, sect_name, "module")
                                 : section_line(l, sect_name),
                      &line);
    snprintf(at->file, sizeof(at->file), "%s", file != NULL ? file : "");
    at->line = line;
    at->active = active;
    snprintf(at->section, sizeof(at->section), "%s", sect_name);
}

/* --enable adds this provider, to a file whose path quotes plainly. */
static int enable_advice(const struct check_report *r)
{
    return strcmp(r->provider, RDRAND_PROVIDER_NAME) == 0
           && strpbrk(r->shown, "'\n") == NULL;
}

static void check_providers(struct check_report *r, const CONF *conf,
                            const struct conf_lines *l, const char *list)
{
    STACK_OF(CONF_VALUE) *providers = NCONF_get_section(conf, list);
    int found = 0, any_activate = 0, base_ok = 0, active = 0;
    const char *first = NULL;

    if (providers == NULL) {
        check_problem(r, SEV_MISCONFIGURED, 0, list, NULL,
                      "no section [%s]: no provider is loaded from this file",
                      list);
        return;
    }
    check_duplicates(r, l, list, 0);
    for (int i = 0; i < sk_CONF_VALUE_num(providers); i++) {
        const CONF_VALUE *kv = sk_CONF_VALUE_value(providers, i);
        STACK_OF(CONF_VALUE) *sect = NCONF_get_section(conf, kv->value);
        const char *name = conf_skip_dot(kv->name), *id, *act;

        if (sect != NULL && (id = prov_value(sect, "identity")) != NULL)
            name = id;
        act = sect != NULL ? prov_value(sect, "activate") : NULL;
        any_activate |= act != NULL;
        if ((strcmp(name, "default") == 0 || strcmp(name, "fips") == 0)
            && activate_value(r, act) == 1)
            base_ok = 1;
        if (strcmp(name, r->provider) == 0
            || (sect != NULL
                && is_instance(r, name, prov_value(sect, "module")))) {
            found = 1;
            record_load(r, l, kv->value,
                        sect != NULL && prov_value(sect, "module") != NULL,
                        activate_value(r, act) == 1);
            check_provider_section(r, conf, l, kv->value, name);
            if (activate_value(r, act) == 1 && active++ == 0) {
                first = kv->value;
                instance_names(r, name, prov_value(sect, "module"));
            } else if (activate_value(r, act) == 1)
                check_problem(
                    r, SEV_MISCONFIGURED, section_line(l, kv->value), kv->value,
                    NULL,
                    "[%s] and [%s] both load %s.so: seeds may come from "
                    "either instance (both register provider=%s), and the "
                    "counters, shared by all instances, cannot tell them "
                    "apart; keep one",
                    first, kv->value, r->provider, r->provider);
        }
    }
    if (!found)
        check_problem(
            r, SEV_MISCONFIGURED, section_line(l, list), list, NULL,
            "no provider %s: %s%s%sadd \"%s = %s_sect\" here and "
            "a [%s_sect] section with module = %s.so and "
            "activate = 1",
            r->provider, enable_advice(r) ? "rdrand-check --enable '" : "",
            enable_advice(r) ? r->shown : "",
            enable_advice(r) ? "' makes the edit and checks it, or " : "",
            r->provider, r->provider, r->provider, r->provider);
    if (any_activate && !base_ok)
        check_problem(r, SEV_MISCONFIGURED, section_line(l, list), list,
                      "default",
                      "default is not activated: an activate line turns off "
                      "OpenSSL's implicit default provider, whose DRBGs the "
                      "seed feeds; add \"default = default_sect\" and "
                      "[default_sect] activate = 1");
}

/* ---- [random] ---- */

static const char *const random_keys[] = {
    "random", "cipher",          "digest",          "properties",
    "seed",   "seed_properties", "random_provider", NULL};

/* Does the property query select provider=NAME? */
static int selects_provider(const char *query, const char *name)
{
    char buf[256], *save = NULL;

    snprintf(buf, sizeof(buf), "%s", query);
    for (char *c = strtok_r(buf, ",", &save); c;
         c = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(c, '=');

        if (eq == NULL)
            continue;
        *eq = '\0';
        conf_trim(c);
        conf_trim(eq + 1);
        if (strcasecmp(c, "provider") == 0)
            return strcasecmp(eq + 1, name) == 0;
    }
    return 0;
}

static void check_random(struct check_report *r, const CONF *conf,
                         const struct conf_lines *l, const char *sect_name)
{
    STACK_OF(CONF_VALUE) *sect = NCONF_get_section(conf, sect_name);
    const CONF_VALUE *seed, *props;
    int sl = section_line(l, sect_name);

    if (sect == NULL) {
        check_problem(r, SEV_MISCONFIGURED, 0, sect_name, NULL,
                      "no section [%s]: OpenSSL keeps its default seed "
                      "source",
                      sect_name);
        return;
    }
    check_duplicates(r, l, sect_name, 1); /* OpenSSL ignores case here */
    for (int i = 0; i < sk_CONF_VALUE_num(sect); i++) {
        const char *key = sk_CONF_VALUE_value(sect, i)->name;
        int known = 0;

        /* OpenSSL compares [random] keys ignoring case (rand_lib.c). */
        for (int k = 0; random_keys[k] != NULL; k++)
            known |= strcasecmp(key, random_keys[k]) == 0;
        if (!known)
            check_problem(r, SEV_MISCONFIGURED, line_of(l, sect_name, key),
                          sect_name, key,
                          "unknown key %s: OpenSSL ignores it; did you mean "
                          "%s?",
                          key, closest(key, random_keys));
    }
    /* Algorithm names are case-insensitive to EVP_RAND_fetch. */
    if ((seed = sect_find(sect, "seed", 1)) == NULL)
        check_problem(r, SEV_MISCONFIGURED, sl, sect_name, "seed",
                      "no seed line: OpenSSL seeds from its default source "
                      "(the OS); write seed = %s",
                      RDRAND_ALGORITHM_NAME);
    else if (strcasecmp(seed->value, RDRAND_ALGORITHM_NAME) != 0)
        check_problem(r, SEV_MISCONFIGURED, line_of(l, sect_name, seed->name),
                      sect_name, seed->name,
                      "seed = %s: no seed source of that name here: " UNFETCHED
                      "; did you mean %s?",
                      seed->value, RDRAND_ALGORITHM_NAME);
    if ((props = sect_find(sect, "seed_properties", 1)) == NULL)
        check_problem(r, SEV_MISCONFIGURED, sl, sect_name, "seed_properties",
                      "no seed_properties line: any provider's %s could be "
                      "fetched; write seed_properties = provider=%s",
                      RDRAND_ALGORITHM_NAME, r->provider);
    else if (!selects_provider(props->value, r->property))
        check_problem(
            r, SEV_MISCONFIGURED, line_of(l, sect_name, props->name), sect_name,
            props->name,
            "seed_properties = %s does not select provider %s: " UNFETCHED
            "; did you mean provider=%s?",
            props->value, r->property, r->property);
}

/* ---- random_provider (3.5+): where RAND_bytes goes ---- */

/*
 * The provider an entry of the providers section loads (its name, or its
 * identity key), and whether the file activates it.
 */
static const char *entry_name(const struct check_report *r, const CONF *conf,
                              const CONF_VALUE *kv, int *active)
{
    STACK_OF(CONF_VALUE) *sect = NCONF_get_section(conf, kv->value);
    const char *id;

    *active = 0;
    if (sect == NULL)
        return conf_skip_dot(kv->name);
    *active = activate_value(r, prov_value(sect, "activate")) == 1;
    return (id = prov_value(sect, "identity")) != NULL
               ? id
               : conf_skip_dot(kv->name);
}

/*
 * From 3.5, random_provider (default "fips") sends RAND_bytes to a loaded
 * provider of that name, past libcrypto's DRBGs and so past this seed
 * source; naming a provider that is never loaded keeps them (what
 * conf/rdrand-fips.cnf does).  It is read when [random] is applied, so it
 * only counts if random comes before providers: activating "fips" first
 * claims RAND_bytes for good.  Before 3.5 the key is unknown.
 */
static void check_routing(struct check_report *r, const CONF *conf,
                          const struct conf_lines *l, const char *init,
                          const char *providers, const char *random)
{
    STACK_OF(CONF_VALUE) *list =
        providers != NULL ? NCONF_get_section(conf, providers) : NULL;
    /* [random] keys are matched ignoring case, as OpenSSL does. */
    STACK_OF(CONF_VALUE) *rsect =
        random != NULL ? NCONF_get_section(conf, random) : NULL;
    const CONF_VALUE *routed_kv =
        rsect != NULL ? sect_find(rsect, "random_provider", 1) : NULL;
    const char *routed = routed_kv != NULL ? routed_kv->value : NULL;
    int rl = routed != NULL ? line_of_key(l, random, "random_provider", 1) : 0;
    int fips_active = 0, routed_entry = 0;

    if (r->openssl_version >= V3_5)
        snprintf(r->random_provider, sizeof(r->random_provider), "%s",
                 routed != NULL ? routed : "fips");

    for (int i = 0; list != NULL && i < sk_CONF_VALUE_num(list); i++) {
        int active;
        const char *name =
            entry_name(r, conf, sk_CONF_VALUE_value(list, i), &active);

        fips_active |= active && strcmp(name, "fips") == 0;
        routed_entry |= routed != NULL && strcmp(name, routed) == 0;
    }
    if (r->openssl_version < V3_5) {
        if (routed != NULL)
            check_problem(r, SEV_WARNING, rl, random, "random_provider",
                          "random_provider is unknown before OpenSSL 3.5: "
                          "with config_diagnostics = 1 OpenSSL refuses this "
                          "file; from 3.5 on it decides where RAND_bytes "
                          "goes");
        return;
    }
    if (routed_entry)
        check_problem(r, SEV_MISCONFIGURED, rl, random, "random_provider",
                      "random_provider = %s names a provider of this file: "
                      "RAND_bytes goes to its own generator (or fails if it "
                      "has none), bypassing libcrypto's DRBGs and this seed "
                      "source; name a provider that is never loaded, e.g. "
                      "random_provider = libcrypto-drbgs",
                      routed);
    else if (fips_active && routed == NULL)
        check_problem(r, SEV_MISCONFIGURED,
                      random != NULL ? section_line(l, random)
                                     : section_line(l, init),
                      random != NULL ? random : init, "random_provider",
                      "the fips provider is activated and no "
                      "random_provider names an unloaded provider: its "
                      "default is fips, so RAND_bytes goes to the FIPS "
                      "provider's own DRBGs, seeded from the OS; add "
                      "random_provider = libcrypto-drbgs to [%s]",
                      random != NULL ? random : "random");
    else if (fips_active
             && line_of(l, init, "random") > line_of(l, init, "providers"))
        check_problem(r, SEV_MISCONFIGURED, line_of(l, init, "random"), init,
                      "random",
                      "random comes after providers: the fips provider is "
                      "activated first and claims RAND_bytes, and "
                      "random_provider = %s is then ignored; move this line "
                      "above providers =",
                      routed);
    if (fips_active)
        check_problem(r, SEV_WARNING, section_line(l, providers), providers,
                      "fips",
                      "the FIPS provider's own DRBGs (key generation, "
                      "signatures, nonces) seed from %s only if the "
                      "application first calls RAND_status(), RAND_bytes() "
                      "or RAND_get0_primary(); otherwise from the OS until "
                      "they reseed (docs/compatibility.md)",
                      r->provider);
}

/* ---- keys an .include moved ---- */

/* A section this check reads: what a key there decides is the seed. */
static int read_here(const CONF *conf, const char *init, const char *providers,
                     const char *random, const char *section)
{
    STACK_OF(CONF_VALUE) *list =
        providers != NULL ? NCONF_get_section(conf, providers) : NULL;

    if ((init != NULL && strcmp(section, init) == 0)
        || (providers != NULL && strcmp(section, providers) == 0)
        || (random != NULL && strcmp(section, random) == 0))
        return 1;
    for (int i = 0; list != NULL && i < sk_CONF_VALUE_num(list); i++)
        if (strcmp(sk_CONF_VALUE_value(list, i)->value, section) == 0)
            return 1;
    return 0;
}

/*
 * A key written after an .include whose file ends in another section is
 * filed in that section (conf_walk.c): it is no longer where it is
 * written.  Moved out of or into a section this check reads, it changes
 * what the provider, the providers list or [random] get: misconfigured;
 * between other sections it is a warning (not about seeding, still not
 * what the file says).
 */
static void check_displaced(struct check_report *r, const CONF *conf,
                            const struct conf_lines *l, const char *init,
                            const char *providers, const char *random)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct conf_line *v = &l->v[i];
        char opened[1200];
        int line;
        const char *file;

        if (v->key[0] == '\0' || strcmp(v->section, v->written) == 0)
            continue;
        file = conf_where(l, v->opened, &line);
        check_problem(
            r,
            read_here(conf, init, providers, random, v->written)
                    || read_here(conf, init, providers, random, v->section)
                ? SEV_MISCONFIGURED
                : SEV_WARNING,
            v->pos, v->section, v->key,
            "key '%s' lands in section [%s] (the included %s ends in [%s], "
            "opened at %s), not in [%s] where it is written: OpenSSL files "
            "every key after an .include in the section the included file "
            "ends in; repeat the header [%s] after the .include line",
            v->key, v->section, file != NULL ? file : r->shown, v->section,
            conf_pos_text(l, v->opened, opened, sizeof(opened)), v->written,
            v->written);
    }
}

/* ---- the file ---- */

/* Positions (conf_walk.h) of the problems from first on, to file:line. */
static void place(struct check_report *r, const struct conf_lines *l,
                  size_t first)
{
    for (size_t i = first; i < r->nproblems; i++) {
        struct check_problem *p = &r->problems[i];
        int pos = p->line;
        const char *file = conf_where(l, pos, &p->line);

        snprintf(p->file, sizeof(p->file), "%s", file != NULL ? file : "");
    }
}

void check_config(struct check_report *r)
{
    CONF *conf = NCONF_new(NULL);
    struct conf_lines l;
    long eline = 0;
    const char *init, *providers = NULL, *random = NULL, *lists[8];
    size_t nlists;
    STACK_OF(CONF_VALUE) * init_sect;
    size_t first = r->nproblems;
    int loaded;

    snprintf(r->entry, sizeof(r->entry), "%s", r->provider);
    snprintf(r->property, sizeof(r->property), "%s", r->provider);
    /* NCONF_load fails on a NULL conf (NCONF_new out of memory). */
    loaded = NCONF_load(conf, r->config, &eline) > 0;
    ERR_clear_error(); /* NCONF's complaints about skipped includes */
    conf_walk(r, loaded ? conf : NULL, &l);
    if (!loaded) {
        /* NCONF counts lines across the included files, as l does. */
        check_problem(r, SEV_MISCONFIGURED, (int)eline, NULL, NULL,
                      "OpenSSL cannot %s this file: applications run with "
                      "no configuration, seeded from the OS",
                      eline > 0 ? "parse" : "read");
        goto done;
    }
    if ((init = NCONF_get_string(conf, NULL, "openssl_conf")) == NULL) {
        check_problem(r, SEV_MISCONFIGURED, 1, "default", "openssl_conf",
                      "no openssl_conf line before the first section: "
                      "OpenSSL applies nothing in this file%s%s%s",
                      enable_advice(r) ? "; rdrand-check --enable '" : "",
                      enable_advice(r) ? r->shown : "",
                      enable_advice(r) ? "' adds it and checks the result"
                                       : "");
        goto done;
    }
    if ((init_sect = NCONF_get_section(conf, init)) == NULL) {
        check_problem(r, SEV_MISCONFIGURED,
                      line_of(&l, "default", "openssl_conf"), "default",
                      "openssl_conf", "openssl_conf = %s: no section [%s]",
                      init, init);
        goto done;
    }
    check_duplicates(r, &l, init, 0);
    nlists = module_entries(init_sect, "providers", lists, 8);
    providers = nlists > 0 ? lists[0] : NULL;
    for (size_t i = 1; i < nlists; i++)
        check_providers(r, conf, &l, lists[i]);
    if (module_entries(init_sect, "random", &random, 1) == 0)
        random = NULL;
    if (providers == NULL)
        check_problem(
            r, SEV_MISCONFIGURED, section_line(&l, init), init, "providers",
            "no providers line: provider %s is not loaded from "
            "this file%s%s%s",
            r->provider, enable_advice(r) ? "; rdrand-check --enable '" : "",
            enable_advice(r) ? r->shown : "",
            enable_advice(r) ? "' adds it and checks the result" : "");
    else
        check_providers(r, conf, &l, providers);
    if (random == NULL)
        check_problem(r, SEV_MISCONFIGURED, section_line(&l, init), init,
                      "random",
                      "no random line: OpenSSL keeps its default seed "
                      "source (the OS)");
    else
        check_random(r, conf, &l, random);
    check_routing(r, conf, &l, init, providers, random);
    check_displaced(r, conf, &l, init, providers, random);
done:
    ERR_clear_error(); /* NCONF's own complaints are reported above */
    place(r, &l, first);
    NCONF_free(conf);
    conf_lines_free(&l);
}
