/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pieces of a line NCONF reads (conf_lex.h), one reading of each,
 * shared by the check's walk (conf_walk.c) and the --enable editor
 * (conf_text.c), and proven against NCONF by tests/tools/conf_diff.
 */
#include "conf_lex.h"

#include <ctype.h>
#include <string.h>

void conf_trim(char *s)
{
    size_t len = strlen(s), start = strspn(s, " \t\r\n");

    while (len > start && isspace((unsigned char)s[len - 1]))
        s[--len] = '\0';
    memmove(s, s + start, len - start + 1);
}

const char *conf_skip_dot(const char *name)
{
    const char *dot = strchr(name, '.');

    return dot != NULL ? dot + 1 : name;
}

/*
 * Cut a comment off as NCONF does (clear_comments): "#" outside quotes
 * and unescaped; its three quotes, ", ' and `, each escaped inside by \.
 */
void conf_strip_comment(char *s)
{
    for (; *s != '\0'; s++) {
        if (*s == '\\' && s[1] != '\0') {
            s++;
        } else if (*s == '"' || *s == '\'' || *s == '`') {
            char q = *s;

            while (s[1] != '\0' && s[1] != q)
                s += s[1] == '\\' && s[2] != '\0' ? 2 : 1;
            if (s[1] == '\0')
                return;
            s++;
        } else if (*s == '#') {
            *s = '\0';
            return;
        }
    }
}

int conf_line_continues(const char *s, size_t len)
{
    return len > 0 && s[len - 1] == '\\' && (len < 2 || s[len - 2] != '\\');
}

/* NCONF's name characters: ALNUM and PUNCT (its default table). */
static int name_char(unsigned char c)
{
    return isalnum(c) || c == '_'
           || (c != '\0' && strchr("!%&*+,-./;?@^|~", c));
}

/*
 * The "=" after a key line's key as NCONF finds it: the key is the
 * longest run of name characters and \x pairs ("x\=y" is one key), an
 * optional "::" and a second run, then blanks; NULL when what follows
 * is not "=" (NCONF fails the load there, and reports it).
 */
static char *name_run(char *s, int dollarid)
{
    while (name_char((unsigned char)*s) || (dollarid && *s == '$')
           || (*s == '\\' && s[1] != '\0'))
        s += *s == '\\' ? 2 : 1;
    return s;
}

char *conf_key_equals(char *s, int dollarid)
{
    s = name_run(s, dollarid);
    if (s[0] == ':' && s[1] == ':')
        s = name_run(s + 2, dollarid);
    s += strspn(s, " \t");
    return *s == '=' ? s : NULL;
}

const char *conf_key_start(const char *s)
{
    const char *p = s;

    while (name_char((unsigned char)*p) || (*p == '\\' && p[1] != '\0'))
        p += *p == '\\' ? 2 : 1;
    return p[0] == ':' && p[1] == ':' ? p + 2 : s;
}

int conf_names_module(const char *entry, const char *module)
{
    const char *dot = strrchr(entry, '.');
    size_t len = dot != NULL ? (size_t)(dot - entry) : strlen(entry);

    return len > 0 && len <= strlen(module) && strncmp(entry, module, len) == 0;
}
