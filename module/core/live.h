/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: counts of what the module holds right now (debugfs "live").
 */
#ifndef _IBPOST_LIVE_H
#define _IBPOST_LIVE_H

#include <linux/atomic.h>

struct dentry;

/**
 * struct ibpost_live - resources ibpost holds at this moment.
 * @pages: pages of buffer slots allocated and not yet freed.
 * @mrs: fast-registration MRs allocated and not yet deregistered.
 * @jobs: runs between ibpost_run() entry and return.
 *
 * All three are zero whenever no run is active; the hardening tests read
 * them after every fault they inject.
 */
struct ibpost_live {
	atomic_long_t pages;
	atomic_long_t mrs;
	atomic_long_t jobs;
};

extern struct ibpost_live ibpost_live;

void ibpost_live_init(void);
void ibpost_live_exit(void);
struct dentry *ibpost_live_dir(void);

#endif /* _IBPOST_LIVE_H */
