/* SPDX-License-Identifier: Apache-2.0 */
/* The pieces of a line NCONF reads (conf_lex.c). */
#ifndef RDRAND_CONF_LEX_H
#define RDRAND_CONF_LEX_H

#include <stddef.h>

/*
 * The pieces of a line NCONF reads, shared by the check's walk and the
 * --enable editor (one reading of each, proven against NCONF by
 * tests/tools/conf_diff): a comment cut off in place ("#" outside its
 * three quotes and unescaped); whether a physical line of len bytes goes
 * on to the next (a last "\" not itself escaped); and the "=" after a key
 * (NULL when what follows the key is not one).
 */
void conf_strip_comment(char *s);
int conf_line_continues(const char *s, size_t len);
char *conf_key_equals(char *s, int dollarid);

/*
 * Where NCONF's key starts on a line s (blanks trimmed): past a
 * "sect::" prefix (a run of name characters and \x pairs, then "::"),
 * which names another section for a key and only the $-section for a
 * directive: "sect::.include = f" includes f.  The --enable editor reads
 * directives through it too.
 */
const char *conf_key_start(const char *s);

/* s without its leading and trailing white space, in place. */
void conf_trim(char *s);
/*
 * A provider section's key as provider_conf.c reads it: the name after
 * its first dot ("x.activate" is activate).
 */
const char *conf_skip_dot(const char *name);

/*
 * Does OpenSSL run the init-section entry named entry through the
 * configuration module named module?  Its module_find takes the name up
 * to the last '.' and the first built-in module whose name starts with
 * that (strncmp): "providers.2" and even "prov" name providers (no other
 * built-in module starts with 'p', or with 'r' for random).
 */
int conf_names_module(const char *entry, const char *module);

#endif
