/* SPDX-License-Identifier: Apache-2.0 */
/* rdrand-check's reports (check_output.c). */
#ifndef RDRAND_CHECK_OUTPUT_H
#define RDRAND_CHECK_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "check.h"

enum format { TEXT, JSON, PROMETHEUS };

/* The report, with its verdict code, in each format. */
void put_text(FILE *out, const struct check_report *r, const struct dynamic *d,
              int code);
void put_json(FILE *out, const struct check_report *r, const struct dynamic *d,
              int code);
void put_prometheus(FILE *out, const struct check_report *r,
                    const struct dynamic *d, int code);
/*
 * -o FILE: a temporary file beside path (its name into tmp), mode 0644,
 * to be renamed over path once written; NULL (and why on stderr).
 */
FILE *open_output(const char *path, char *tmp, size_t tmp_len);

#endif
