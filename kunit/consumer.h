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
 * @peer_port: with @peer: the server's port (NULL: ibpost serve's default).
 * @resume: with @region: once the workload ran, close the session (the
 *	caller has set the session_test_nofin hook: no fin, the server sees
 *	the connection lost), open one with &ibpost_session_attr.resume,
 *	read back what each thread wrote last, then check that the token
 *	of the first session no longer takes the region back.
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
	const char *peer_port;
	bool resume;
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
 * @resumed: @resume: the region was taken back.
 * @resume_reason: IBPOST_R_* of a resume that failed to open.
 * @resume_bad: bytes read back after the resume that differ.
 * @stale_reason: IBPOST_R_* of the refused open with the old token (0:
 *	it opened, a failure).
 * @keep_s: @resume: the keep time the server granted the session
 *	(it asks CONS_KEEP_S).
 */
struct ibpost_consumer_result {
	u64 bytes;
	u64 elapsed_ns;
	u64 requests;
	u64 errors;
	int first_error;
	u64 bad_bytes;
	struct ibpost_session_stats stats;
	bool resumed;
	u32 resume_reason;
	u64 resume_bad;
	u32 stale_reason;
	u32 keep_s;
};

/* The keep time a consumer's session that will be resumed asks for. */
#define CONS_KEEP_S	60

int ibpost_consumer_run(const struct ibpost_consumer_cfg *cfg,
			struct ibpost_consumer_result *res);

#endif /* _IBPOST_CONSUMER_H */
