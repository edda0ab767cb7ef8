/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The plan: what --enable adds to a file it understands (every line
 * inside an operator's section marked, every new section in one block
 * at the end), refusing what it does not; and the strip that removes
 * exactly that (conf_plan.h).
 */
#include "conf_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/conf.h>

#include "check.h"
#include "conf_lex.h"

/* ---- the plan: what --enable adds ---- */

static void add_key(struct plan *pl, size_t after, const char *key,
                    const char *value)
{
    struct addition *a = &pl->add[pl->nadd++];

    a->after = after;
    snprintf(a->text, sizeof(a->text), "%s = %s" MARK, key, value);
}

/* The block of new sections, with why each key is there. */
static void block(const struct plan *pl, struct edit_text *t, const char *eol)
{
    static const char *const rdrand_sect[] = {
        "[" S_RDRAND "]",
        "# The module, in libcrypto's modules directory (rdrand-provider(7)).",
        "module = rdrand.so",
        "activate = 1",
        "# One warning per process when RDRAND fails: syslog | stderr | none.",
        "warn = syslog",
        "# A failed check in a confidential guest fails every seed request,",
        "# naming the reason; \"refuse\" (the default) would make OpenSSL",
        "# 3.0-3.6 skip the provider and seed from the OS without a word.",
        "on_coco_failure = fail-closed",
        NULL};
    const char *lines[40];
    size_t n = 0;

    lines[n++] = BEGIN;
    lines[n++] = "# The seed source of OpenSSL's DRBGs: RDRAND, through "
                 "rdrand.so.";
    lines[n++] = "# Check with: rdrand-check -c THIS_FILE (exit 0: live).";
    if (pl->new_init) {
        lines[n++] = "[" S_INIT "]";
        lines[n++] = "providers = " S_PROVIDERS;
        lines[n++] = "random = " S_RANDOM;
        lines[n++] = "";
    }
    if (pl->new_providers) {
        lines[n++] = "[" S_PROVIDERS "]";
        lines[n++] = "default = " S_DEFAULT;
        lines[n++] = "rdrand = " S_RDRAND;
        lines[n++] = "";
    }
    if (pl->new_default) {
        lines[n++] = "[" S_DEFAULT "]";
        lines[n++] = "# Explicitly: an activate line elsewhere turns off "
                     "OpenSSL's implicit default";
        lines[n++] = "# provider, whose DRBGs this seed source feeds.";
        lines[n++] = "activate = 1";
        lines[n++] = "";
    }
    for (size_t i = 0; rdrand_sect[i] != NULL; i++)
        lines[n++] = rdrand_sect[i];
    if (pl->new_random) {
        lines[n++] = "";
        lines[n++] = "[" S_RANDOM "]";
        lines[n++] = "# Only this provider's RDRAND: without seed_properties "
                     "another";
        lines[n++] = "# provider's algorithm of that name could be chosen.";
        lines[n++] = "seed = RDRAND";
        lines[n++] = "seed_properties = provider=rdrand";
    }
    lines[n++] = END;
    for (size_t i = 0; i < n; i++)
        edit_push(t, lines[i], strlen(lines[i]), eol, 1);
}

/*
 * The plan for a file without our lines.  Refuses (0, why) whatever it
 * does not understand: a live .include anywhere (it could define or
 * reopen the sections edited here, and following it is not this editor's
 * job); openssl_conf outside the default section; and, in each section it
 * reads or edits, what edit_plain_section and edit_plain_value refuse.  A
 * [random] that already names a seed source is the operator's choice: refused.
 */
/*
 * "key = sect" in the init section: sect must be written plainly, exist,
 * and be another section than init (this editor adds lines to both).
 */
static int names_section(const struct edit_parsed *p, const CONF *conf,
                         const struct edit_logical *key, const char *init,
                         struct edit_why *w)
{
    if (!edit_plain_value(conf, key, w))
        return 0;
    if (edit_headers(p, key->value) == 0 || strcmp(key->value, init) == 0)
        return edit_refuse(w,
                           "line %zu: %s = %s, and there is no other section "
                           "[%s]: fix that by hand first",
                           key->first + 1, key->key, key->value, key->value);
    return edit_plain_section(p, key->value, w);
}

/*
 * The init section names the providers and random modules only as
 * "providers" and "random": an entry OpenSSL also runs through either
 * (conf_names_module: "prov.x") would be a second list beside the one
 * --enable edits.  0 (refused, why in w) if there is one.
 */
static int plain_module_names(const struct edit_parsed *p, const char *init,
                              struct edit_why *w)
{
    static const char *const modules[] = {"providers", "random"};

    for (size_t i = 0; i < p->n; i++)
        for (size_t m = 0; m < 2; m++)
            if (p->v[i].kind == K_KEY && strcmp(p->v[i].section, init) == 0
                && strcmp(p->v[i].key, modules[m]) != 0
                && conf_names_module(p->v[i].key, modules[m]))
                return edit_refuse(
                    w,
                    "line %zu: [%s] %s: OpenSSL reads this entry "
                    "as a %s line too; name it %s by hand first",
                    p->v[i].first + 1, init, p->v[i].key, modules[m],
                    modules[m]);
    return 1;
}

/* What --enable refuses outright: 0 (refused, why in w) or 1. */
static int plan_refusals(const struct edit_parsed *p, struct edit_why *w)
{
    /* The block goes at the end: a last line continued would swallow it. */
    if (p->last_continued)
        return edit_refuse(w,
                           "the last line ends in a backslash (continued): the "
                           "lines added after it would join it; remove the "
                           "backslash by hand");
    for (size_t i = 0; i < p->n; i++) {
        if (p->v[i].kind == K_INCLUDE)
            return edit_refuse(w,
                               "line %zu: .include: the included file could "
                               "define or reopen the sections --enable edits; "
                               "make the edit by hand (docs/operations.md)",
                               p->v[i].first + 1);
        if (p->v[i].kind == K_KEY && strcmp(p->v[i].key, "openssl_conf") == 0
            && strcmp(p->v[i].section, "default") != 0)
            return edit_refuse(
                w,
                "line %zu: openssl_conf in [%s]: OpenSSL reads it "
                "only before the first section; move it there by "
                "hand",
                p->v[i].first + 1, p->v[i].section);
    }
    return 1;
}

/*
 * An existing providers section (prov): our entry added, and default
 * activated where nothing was.  0 (refused, why in w) or 1.
 */
static int plan_providers(const struct edit_parsed *p, const CONF *conf,
                          struct plan *pl, const struct edit_logical *prov,
                          const char *init, struct edit_why *w)
{
    const struct edit_logical *def = NULL;
    STACK_OF(CONF_VALUE) * list;
    int any_active = 0;

    if (!names_section(p, conf, prov, init, w))
        return 0;
    list = NCONF_get_section(conf, prov->value);
    for (int i = 0; i < sk_CONF_VALUE_num(list); i++) {
        const CONF_VALUE *kv = sk_CONF_VALUE_value(list, i);
        const struct edit_logical *l;
        const char *bad = NULL;
        int on;

        if (!edit_read_key(p, prov->value, kv->name, 0, &l, w))
            return 0;
        if (l == NULL)
            return edit_refuse(w, "[%s] %s: not found as written", prov->value,
                               kv->name);
        if (!edit_plain_value(conf, l, w))
            return 0;
        if (NCONF_get_section(conf, kv->value) == NULL)
            return edit_refuse(w,
                               "line %zu: %s = %s, and there is no section "
                               "[%s] (OpenSSL fails to apply this file): fix "
                               "that by hand first",
                               l->first + 1, kv->name, kv->value, kv->value);
        if ((on = edit_activates(conf, kv->value, &bad)) < 0)
            return edit_refuse(w,
                               "[%s] activate = %s: OpenSSL 3.0-3.2 load the "
                               "provider whatever the value, 3.3 and later "
                               "do not (only 1, yes, true, on are true) or "
                               "refuse the section: a dist-upgrade would "
                               "change which providers load; by hand, remove "
                               "the line to leave it unloaded or write "
                               "activate = 1 to load it",
                               kv->value, bad);
        any_active |= on;
        if (strcmp(conf_skip_dot(kv->name), "default") == 0)
            def = l;
    }
    add_key(pl, edit_insert_point(p, prov->value), "rdrand", S_RDRAND);
    /*
     * Nothing activated: OpenSSL loaded default implicitly, and our
     * activate would turn that off, so default is activated too.
     * Something activated (a FIPS-only system, say): left as it is.
     */
    if (!any_active && def == NULL) {
        pl->new_default = 1;
        add_key(pl, edit_insert_point(p, prov->value), "default", S_DEFAULT);
    } else if (!any_active) {
        const struct edit_logical *act;

        if (!edit_plain_section(p, def->value, w)
            || !edit_read_key(p, def->value, "activate", 0, &act, w))
            return 0;
        if (act != NULL)
            return edit_refuse(w,
                               "line %zu: [%s] activate = %s does not "
                               "activate the default provider on this "
                               "OpenSSL; write activate = 1 by hand",
                               act->first + 1, def->value, act->value);
        add_key(pl, edit_insert_point(p, def->value), "activate", "1");
    }
    return 1;
}

/* The [random] part: a new section, or seed lines in rand's. */
static int plan_random(const struct edit_parsed *p, const CONF *conf,
                       struct plan *pl, const struct edit_logical *rand,
                       const char *init, struct edit_why *w)
{
    size_t count;

    if (rand == NULL) {
        pl->new_random = 1;
        add_key(pl, edit_insert_point(p, init), "random", S_RANDOM);
        return 1;
    }
    if (!names_section(p, conf, rand, init, w))
        return 0;
    for (size_t i = 0; i < p->n; i++) {
        const struct edit_logical *l = &p->v[i];

        /* rand_lib.c matches [random] keys ignoring case. */
        if (l->kind == K_KEY && strcmp(l->section, rand->value) == 0
            && (strcasecmp(l->key, "seed") == 0
                || strcasecmp(l->key, "seed_properties") == 0))
            return edit_refuse(
                w,
                "line %zu: [%s] %s = %s: this file already "
                "chooses a seed source; --enable does not replace "
                "the operator's choice: edit by hand",
                l->first + 1, rand->value, l->key, l->value);
        if (l->kind == K_KEY && strcmp(l->section, rand->value) == 0
            && edit_key_line(p, rand->value, l->key, 1, &count) != l)
            return edit_refuse(
                w,
                "line %zu: [%s] %s is given twice (OpenSSL "
                "ignores case here and keeps the last); keep one "
                "by hand",
                l->first + 1, rand->value, l->key);
    }
    add_key(pl, edit_insert_point(p, rand->value), "seed", "RDRAND");
    add_key(pl, edit_insert_point(p, rand->value), "seed_properties",
            "provider=rdrand");
    return 1;
}

/*
 * --enable's edit of the file as read line by line (p) and by NCONF
 * (conf), into pl: 1, or 0 (refused, why in w).
 */
int plan_enable(const struct edit_parsed *p, const CONF *conf, struct plan *pl,
                struct edit_why *w)
{
    const struct edit_logical *oc, *prov, *rand;

    memset(pl, 0, sizeof(*pl));
    if (!plan_refusals(p, w))
        return 0;
    if (!edit_plain_section(p, "default", w))
        return 0;
    if (!edit_read_key(p, "default", "openssl_conf", 0, &oc, w))
        return 0;
    if (oc == NULL) {
        pl->new_init = pl->new_providers = pl->new_default = 1;
        pl->new_random = 1;
        add_key(pl, edit_insert_point(p, "default"), "openssl_conf", S_INIT);
        return 1;
    }
    if (!edit_plain_value(conf, oc, w))
        return 0;
    if (edit_headers(p, oc->value) == 0 || strcmp(oc->value, "default") == 0)
        return edit_refuse(
            w,
            "line %zu: openssl_conf = %s, and there is no section "
            "[%s]: fix that by hand first",
            oc->first + 1, oc->value, oc->value);
    if (!edit_plain_section(p, oc->value, w))
        return 0;
    if (!plain_module_names(p, oc->value, w))
        return 0;

    if (!edit_read_key(p, oc->value, "providers", 0, &prov, w)
        || !edit_read_key(p, oc->value, "random", 0, &rand, w))
        return 0;
    if (prov == NULL) {
        pl->new_providers = pl->new_default = 1;
        add_key(pl, edit_insert_point(p, oc->value), "providers", S_PROVIDERS);
    } else if (!plan_providers(p, conf, pl, prov, oc->value, w))
        return 0;
    return plan_random(p, conf, pl, rand, oc->value, w);
}

/* The file with the plan applied: lines added, then the block at the end. */
void edit_apply(const struct edit_text *in, const struct plan *pl,
                struct edit_text *out)
{
    const char *eol =
        in->n > 0 && strcmp(in->v[0].eol, "\r\n") == 0 ? "\r\n" : "\n";
    int unterminated = in->n > 0 && in->v[in->n - 1].eol[0] == '\0';

    out->v = NULL;
    out->n = 0;
    for (size_t a = 0; a < pl->nadd; a++)
        if (pl->add[a].after == SIZE_MAX)
            edit_push(out, pl->add[a].text, strlen(pl->add[a].text), eol, 1);
    for (size_t i = 0; i < in->n; i++) {
        edit_push(out, in->v[i].text, strlen(in->v[i].text),
                  in->v[i].eol[0] != '\0' ? in->v[i].eol : eol, 0);
        for (size_t a = 0; a < pl->nadd; a++)
            if (pl->add[a].after == i)
                edit_push(out, pl->add[a].text, strlen(pl->add[a].text), eol,
                          1);
    }
    block(pl, out, eol);
    /* Unterminated before, unterminated after: --disable reads it here. */
    if (unterminated)
        out->v[out->n - 1].eol = "";
}

/*
 * The file without our lines (marked, and the block), as it was before
 * --enable.  0 if the markers are not ours as --enable writes them.
 */
static int strip_marked(const struct edit_text *in, struct edit_text *out,
                        int *ours, struct edit_why *w)
{
    int inside = 0, begins = 0, ends = 0, end_unterminated = 0;

    out->v = NULL;
    out->n = 0;
    *ours = 0;
    for (size_t i = 0; i < in->n; i++) {
        const char *s = in->v[i].text;

        if (strcmp(s, BEGIN) == 0) {
            if (begins++ > 0 || ends > 0)
                return edit_refuse(
                    w, "line %zu: a second BEGIN rdrand-provider line", i + 1);
            inside = 1;
        }
        if (inside || edit_ends_with(s, MARK)) {
            *ours = 1;
            edit_push(out, s, strlen(s), in->v[i].eol,
                      1); /* kept, as removed */
        } else {
            edit_push(out, s, strlen(s), in->v[i].eol, 0);
        }
        if (strcmp(s, END) == 0) {
            if (!inside)
                return edit_refuse(w,
                                   "line %zu: END rdrand-provider without its "
                                   "BEGIN line",
                                   i + 1);
            ends++;
            inside = 0;
            end_unterminated = in->v[i].eol[0] == '\0';
        }
    }
    if (inside || (*ours && begins == 0))
        return edit_refuse(
            w,
            "%s: the file was edited since --enable; revert the "
            "rdrand lines by hand",
            inside ? "BEGIN rdrand-provider without its END line"
                   : "marked lines without the BEGIN rdrand-provider "
                     "block");
    /* Drop what is ours; the last line kept loses the end we gave it. */
    {
        size_t k = 0;

        for (size_t i = 0; i < out->n; i++) {
            if (out->v[i].added) {
                free(out->v[i].text);
                continue;
            }
            out->v[k++] = out->v[i];
        }
        out->n = k;
        if (end_unterminated && out->n > 0)
            out->v[out->n - 1].eol = "";
    }
    return 1;
}

/* strip_marked, and nothing kept when it refuses. */
int edit_strip(const struct edit_text *in, struct edit_text *out, int *ours,
               struct edit_why *w)
{
    if (strip_marked(in, out, ours, w))
        return 1;
    edit_text_free(out);
    return 0;
}
