/* SPDX-License-Identifier: Apache-2.0 */
/* rdrand-check's live check (check_live.c) and what it found. */
#ifndef RDRAND_CHECK_LIVE_H
#define RDRAND_CHECK_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "check.h"

#define MAX_PARAMS 64

/* A provider's seed counters at one moment. */
struct seeds {
    uint64_t requests, failures;
};

struct dynamic {
    int loaded;            /* the provider is active in this process */
    int drew;              /* RAND_bytes and every PR request succeeded */
    int requests;          /* prediction-resistant requests made */
    uint64_t seed_delta;   /* seed-requests during the draws */
    uint64_t failed_delta; /* seed-failures during the draws */
    struct seeds rand;     /* ... during RAND_bytes alone */
    struct seeds pr;       /* ... during the prediction-resistant requests */
    int rand_drew;         /* RAND_bytes succeeded */
    int bypassed;          /* RAND_bytes goes to provider rand_to */
    char rand_to[64];
    int parts;          /* rand and pr were read around each part */
    int live;           /* the verdict on the seed source */
    int coco_refused;   /* the provider refused to load: CoCo check */
    int seed_unfetched; /* OpenSSL 4.0 could not fetch the seed source */
    char errors[1024];  /* the error queue after a failed draw */
    struct check_value params[MAX_PARAMS];
    size_t nparams;
};

/* The parameter key among those d read, or NULL. */
const struct check_value *check_param(const struct dynamic *d, const char *key);

/*
 * Steps 1 to 3 in this process: load the configuration as an application
 * would, before any other libcrypto use, check it, then draw (1 + more
 * prediction-resistant requests).
 */
void check_in_process(struct check_report *r, struct dynamic *d,
                      const char *config, long more);

/*
 * The check in a child, whose stderr passes through this process:
 * returns -1 in the child (go on and report), the child's exit status if
 * it exited (*reported: 1, it printed its report), or CHECK_UNHEALTHY
 * with the signal as a problem in r.
 */
int check_run_in_child(struct check_report *r, int *reported);

#endif
