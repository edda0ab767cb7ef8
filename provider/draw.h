/* SPDX-License-Identifier: Apache-2.0 */
#ifndef RDRAND_DRAW_H
#define RDRAND_DRAW_H

#include <stddef.h>

#include "health.h"

/*
 * Fill out[0..len) with RDRAND output: one instruction per 64-bit word,
 * no retry, each word through the continuous health tests of h (or none
 * when h is NULL).  Where a word would open an APT window, one more word
 * is drawn first as the window's reference and never delivered.  Returns
 * RDRAND_R_OK, or the reason for the first bad word; then out is wiped
 * and no RDRAND was executed after a CF=0, at most one (requested before
 * the bad word was judged, never delivered) after a failed test.
 */
int rdrand_draw(struct rdrand_health *h, unsigned char *out, size_t len);

/*
 * Overwrite the 1 KiB of dead stack below the caller's frame, where the
 * functions it just called kept their frames (rdrand_draw calls it after
 * every draw; draw.c says why).  Call it from the frame whose callees
 * held raw words.
 */
void rdrand_wipe_draw_frame(void);

#endif
