// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: checks of what a peer sends `ibpost serve` (Documentation/wire.rst).
 *
 * Pure functions over the bytes that arrived: no connection, device or
 * allocation is needed, so the KUnit suite ibpost_wire feeds them every
 * malformed case.  Each refusal names its reason, the offending value and
 * the limit it broke, as the server reports them to the client and in its
 * events.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "abi.h"
#include "ctl.h"

static int ibpost_wirechk_fail(struct ibpost_status *st, int err, u32 reason,
			       u64 value, u64 limit)
{
	ibpost_status_set(st, reason, value, limit);
	return err;
}

/**
 * ibpost_wire_hello_check() - check the private data of a connect request.
 * @priv: what arrived (may be NULL).
 * @len: its bytes.  RoCE and IB pad the private data to 56 bytes, so
 *	every byte past the hello must be zero: a longer or garbled hello
 *	is refused, not cut.  (A hello cut short is seen as one whose last
 *	fields are zero there; the job's own checks bound them.)
 * @max_rsge: most SGEs per receive the device gives a QP.
 * @h: out: the hello.
 * @st: the refusal: IBPOST_R_PEER_PROTO (length, magic, a non-zero byte
 *	past the hello: @value its offset, @limit the hello's size),
 *	IBPOST_R_PEER_VERSION, IBPOST_R_FLAGS, IBPOST_R_DEPTH or
 *	IBPOST_R_NUM_SGE.
 *
 * Return: 0, -EPROTO or -EINVAL.
 */
int ibpost_wire_hello_check(const void *priv, u32 len, u32 max_rsge,
			    struct ibpost_wire_hello *h,
			    struct ibpost_status *st)
{
	const u8 *p = priv;
	u32 i;

	if (!priv || len < sizeof(*h))
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO,
					   priv ? len : 0, sizeof(*h));
	memcpy(h, priv, sizeof(*h));
	if (be32_to_cpu(h->magic) != IBPOST_WIRE_MAGIC)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO,
					   be32_to_cpu(h->magic),
					   IBPOST_WIRE_MAGIC);
	if (be16_to_cpu(h->version) != IBPOST_WIRE_VERSION)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_VERSION,
					   be16_to_cpu(h->version),
					   IBPOST_WIRE_VERSION);
	if (h->flags)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_FLAGS,
					   be16_to_cpu(h->flags), 0);
	for (i = sizeof(*h); i < len; i++)
		if (p[i])
			return ibpost_wirechk_fail(st, -EPROTO,
						   IBPOST_R_PEER_PROTO, i,
						   sizeof(*h));
	if (!h->depth || be32_to_cpu(h->depth) > IBPOST_WIRE_MAX_DEPTH)
		return ibpost_wirechk_fail(st, -EINVAL, IBPOST_R_DEPTH,
					   be32_to_cpu(h->depth),
					   IBPOST_WIRE_MAX_DEPTH);
	if (be32_to_cpu(h->recv_sge) > max_rsge) {
		ibpost_wirechk_fail(st, -EINVAL, IBPOST_R_NUM_SGE,
				    be32_to_cpu(h->recv_sge), max_rsge);
		st->wr = IBPOST_STATUS_RECV_WR;
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_hello_check);

/**
 * ibpost_wire_job_check() - check the envelope of a job message.
 * @m: what arrived.
 * @len: its bytes.
 * @st: the refusal: IBPOST_R_PEER_PROTO or IBPOST_R_PEER_VERSION (the
 *	header), IBPOST_R_PEER_PROTO with the header's conn (not 0: the
 *	client has no number yet) or with the header's length and the bytes
 *	that arrived (they must be equal), or with @len and the size of the
 *	fixed part.
 *
 * The counts and the SGEs are the server's to check against its limits
 * (sconn.c); the length must then also be what they need.
 *
 * Return: 0 or -EPROTO.
 */
int ibpost_wire_job_check(const struct ibpost_wire_job *m, u32 len,
			  struct ibpost_status *st)
{
	int ret = ibpost_wire_hdr_check(&m->hdr, len, IBPOST_WIRE_JOB, st);

	if (ret)
		return ret;
	if (m->hdr.conn)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO,
					   be32_to_cpu(m->hdr.conn), 0);
	if (be32_to_cpu(m->hdr.length) != len)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO,
					   be32_to_cpu(m->hdr.length), len);
	if (len < sizeof(*m))
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO,
					   len, sizeof(*m));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_job_check);

/**
 * ibpost_wire_order_check() - may this control message come now?
 * @job_running: the server answered a job and waits for its fin.
 * @m: what arrived (NULL or anything for a zero-byte message).
 * @len: its bytes; 0 for a zero-byte SEND (a fin).
 * @st: the refusal: IBPOST_R_PEER_ORDER with the type that came (0: a
 *	fin; a message too short for a header counts as its length) and
 *	the type waited for (IBPOST_WIRE_JOB, or 0: the fin).
 *
 * Before a job the only message is the job; while it runs, only its fin
 * (zero bytes).  The server has a single control receive, so a message
 * that is neither would take the place of the one it waits for.
 *
 * Return: 0 or -EPROTO.
 */
int ibpost_wire_order_check(bool job_running, const void *m, u32 len,
			    struct ibpost_status *st)
{
	const struct ibpost_wire_hdr *h = m;
	u64 type = 0;

	if (len >= sizeof(*h))
		type = be16_to_cpu(h->type);
	else if (len)
		type = len;
	if (!job_running && !len)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_ORDER,
					   0, IBPOST_WIRE_JOB);
	if (job_running && len)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_ORDER,
					   type, 0);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_order_check);
