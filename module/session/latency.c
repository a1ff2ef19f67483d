// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: latency of a session's requests.
 *
 * Each completed request's submit-to-callback time goes into a ring of
 * its queue's last latencies (each queue keeps its share of
 * &ibpost_session_attr.lat_samples) and into its queue's log-linear
 * histogram (both taken at open, nothing allocated per request), under
 * its queue's lock: queues never share a lock on the I/O path.  A query
 * copies the rings and sorts them (ibpost_lat_summarize(), the jobs' own
 * summary): percentiles exact over that window.  The histograms count the
 * session's whole life, to 2 significant digits, added up when read
 * (ibpost_session_get_stats()).
 *
 * Readers never take a queue's lock (a world-readable sysfs file of
 * ibpost_blk reads them): the completion path writes each slot and count
 * with WRITE_ONCE() under its queue's lock, readers copy with READ_ONCE().  A
 * reader racing with completions sees a window some slots of which are a
 * few requests newer, and histogram counts a moment apart: figures of
 * the same requests give or take those, at no cost to the I/O path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>

#include "session/session.h"
#include "lib/stats.h"

/* A ring of @size latencies and its histogram; 0 or -ENOMEM. */
static int ibpost_lat_ring_init(struct ibpost_lat_ring *r, u32 size)
{
	r->ns = kvcalloc(size, sizeof(*r->ns), GFP_KERNEL);
	if (!r->ns)
		return -ENOMEM;
	r->hist = kvmalloc(sizeof(*r->hist), GFP_KERNEL);
	if (!r->hist) {
		kvfree(r->ns);
		r->ns = NULL;
		return -ENOMEM;
	}
	ibpost_llhist_init(r->hist);
	r->size = size;
	r->n = 0;
	return 0;
}

static void ibpost_lat_ring_free(struct ibpost_lat_ring *r)
{
	kvfree(r->hist);
	kvfree(r->ns);
	memset(r, 0, sizeof(*r));
}

/**
 * ibpost_session_lat_init() - the latency rings of a session's queues.
 * @s: the session, its queues made.
 * @samples: the latencies kept in all, at least 1: each queue keeps its
 *	share (rounded up), so that the memory is the session's whatever its
 *	queues, and a request records into its own queue's ring under its own
 *	queue's lock.
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM (ibpost_session_lat_free() frees what was taken).
 */
int ibpost_session_lat_init(struct ibpost_session *s, u32 samples)
{
	u32 i, each = DIV_ROUND_UP(samples, s->nr_queues);
	int ret;

	s->lat_sum = kvmalloc(sizeof(*s->lat_sum), GFP_KERNEL);
	if (!s->lat_sum)
		return -ENOMEM;
	for (i = 0; i < s->nr_queues; i++) {
		ret = ibpost_lat_ring_init(&s->queues[i].lat, each);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * ibpost_session_lat_free() - free the rings of ibpost_session_lat_init().
 * @s: the session (rings may be missing).
 */
void ibpost_session_lat_free(struct ibpost_session *s)
{
	u32 i;

	for (i = 0; i < s->nr_queues; i++)
		ibpost_lat_ring_free(&s->queues[i].lat);
	kvfree(s->lat_sum);
	s->lat_sum = NULL;
}

/**
 * ibpost_lat_ring_add() - record one latency (over the oldest when full).
 * @r: a queue's ring (its queue's lock held); without capacity, nothing.
 * @ns: the latency.
 */
void ibpost_lat_ring_add(struct ibpost_lat_ring *r, u64 ns)
{
	u32 slot;

	if (!r->size)
		return;
	ibpost_llhist_add(r->hist, ns);
	div_u64_rem(r->n, r->size, &slot);
	WRITE_ONCE(r->ns[slot], ns);
	WRITE_ONCE(r->n, r->n + 1);
}

/**
 * ibpost_session_lat_stats() - the lifetime figures into a session's stats.
 * @s: the session; without latencies, nothing.
 * @out: its log2 histogram and percentiles are written.
 *
 * The median, p99 and p99.9 of every request so far, to 2 significant
 * digits (ibpost_llhist_percentile()), over the queues' histograms added
 * up in @s->lat_sum (the readers' lock; the queues' own locks are not
 * taken: see the top of this file).
 */
void ibpost_session_lat_stats(struct ibpost_session *s,
			      struct ibpost_session_stats *out)
{
	struct ibpost_llhist *sum = s->lat_sum;
	unsigned long flags;
	u32 i;

	if (!sum)
		return;
	spin_lock_irqsave(&s->lat_lock, flags);
	ibpost_llhist_init(sum);
	for (i = 0; i < s->nr_queues; i++)
		if (s->queues[i].lat.hist)
			ibpost_llhist_merge(sum, s->queues[i].lat.hist);
	memcpy(out->lat_hist, sum->log2, sizeof(out->lat_hist));
	out->lat_p50_ns = ibpost_llhist_percentile(sum, 500);
	out->lat_p99_ns = ibpost_llhist_percentile(sum, 990);
	out->lat_p999_ns = ibpost_llhist_percentile(sum, 999);
	spin_unlock_irqrestore(&s->lat_lock, flags);
}

/**
 * ibpost_session_get_latency() - exact latency figures of a session's last
 *	completed requests.
 * @s: the session (open; also after its device went away).
 * @out: filled; all 0 when nothing completed yet.
 *
 * Over the last &ibpost_session_attr.lat_samples requests that completed
 * without error (each queue's share of them): min, max, mean and
 * nearest-rank percentiles of their submit-to-callback time.
 *
 * Context: process context, may sleep (the copy is allocated).
 * Return: 0 or -ENOMEM.
 */
int ibpost_session_get_latency(struct ibpost_session *s,
			       struct ibpost_session_lat *out)
{
	struct ibpost_result *res;
	u64 *copy, n = 0, size = 0;
	u32 i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < s->nr_queues; i++)
		size += s->queues[i].lat.size;
	if (!size)
		return 0;
	copy = kvcalloc(size, sizeof(*copy), GFP_KERNEL);
	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!copy || !res) {
		kvfree(copy);
		kfree(res);
		return -ENOMEM;
	}
	for (i = 0; i < s->nr_queues; i++) {
		const struct ibpost_lat_ring *r = &s->queues[i].lat;
		u64 k, kept = min_t(u64, READ_ONCE(r->n), r->size);

		for (k = 0; k < kept; k++)
			copy[n++] = READ_ONCE(r->ns[k]);
	}
	ibpost_lat_summarize(copy, n, res);
	out->samples = n;
	out->min_ns = res->lat_min_ns;
	out->max_ns = res->lat_max_ns;
	out->avg_ns = res->lat_avg_ns;
	out->p50_ns = res->lat_median_ns;
	out->p99_ns = res->lat_p99_ns;
	out->p999_ns = res->lat_p999_ns;
	kvfree(copy);
	kfree(res);
	return 0;
}
EXPORT_SYMBOL_GPL(ibpost_session_get_latency);
