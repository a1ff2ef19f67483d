/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost_consumer: a thin end-to-end test of the ibpost session API.
 */
#ifndef _IBPOST_CONSUMER_H
#define _IBPOST_CONSUMER_H

#include <linux/types.h>
#include <ibpost.h>

/**
 * struct ibpost_consumer_cfg - one workload.
 * @dev: RDMA device name.
 * @threads: kthreads submitting at once.
 * @reqs: requests per thread; each is a WRITE then a READ back.
 * @req_pages: pages per request (32: 128 KiB).
 * @depth: the session's send-queue depth.
 * @max_sge: SGEs per WR, 0 for the device's.
 * @peer: NULL: the disk is local pages registered with ibpost_reg(); else
 *	the IPv4 or IPv6 address of ``ibpost serve`` on another host, whose
 *	memory (ibpost_session_remote()) is the disk.
 * @region: with @peer: the disk is a region of the server's memory
 *	(&ibpost_session_attr.region_bytes, in as many chunks as it needs),
 *	reached with IBPOST_REQ_REGION; requests must not cross a chunk.
 */
struct ibpost_consumer_cfg {
	const char *dev;
	u32 threads;
	u32 reqs;
	u32 req_pages;
	u32 depth;
	u32 max_sge;
	const char *peer;
	bool region;
};

/**
 * struct ibpost_consumer_result - what a workload did.
 * @bytes: bytes moved (written and read back).
 * @elapsed_ns: from the first submission to the last completion.
 * @requests: requests completed.
 * @errors: requests completed with an error.
 * @first_error: the first such error.
 * @bad_bytes: bytes read back that differ from what was written.
 * @stats: the session's counters at the end.
 */
struct ibpost_consumer_result {
	u64 bytes;
	u64 elapsed_ns;
	u64 requests;
	u64 errors;
	int first_error;
	u64 bad_bytes;
	struct ibpost_session_stats stats;
};

int ibpost_consumer_run(const struct ibpost_consumer_cfg *cfg,
			struct ibpost_consumer_result *res);

#endif /* _IBPOST_CONSUMER_H */
