/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: latency statistics (pure).
 */
#ifndef _IBPOST_STATS_H
#define _IBPOST_STATS_H

#include <linux/types.h>
#include <uapi/ibpost.h>

u32 ibpost_hist_bucket(u64 ns);
void ibpost_lat_summarize(u64 *samples, u64 n, struct ibpost_result *res);

#endif /* _IBPOST_STATS_H */
