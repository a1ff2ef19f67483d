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
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "lib/abi.h"
#include "lib/wire.h"

/* The layouts Documentation/wire.rst gives, byte for byte. */
static_assert(offsetof(struct ibpost_wire_job, reserved2) == 52);
static_assert(offsetof(struct ibpost_wire_job, region_bytes) == 56);
static_assert(sizeof(struct ibpost_wire_job) == 64);
static_assert(sizeof(struct ibpost_wire_result) == 88);
static_assert(sizeof(struct ibpost_wire_cpu) == 32);
static_assert(offsetof(struct ibpost_wire_job, keep_s) == 48);
static_assert(offsetof(struct ibpost_wire_ready, keep_s) == 80);
static_assert(offsetof(struct ibpost_wire_ready, slot) == 88);

static int ibpost_wirechk_fail(struct ibpost_status *st, int err, u32 reason,
			       u64 value, u64 limit)
{
	ibpost_status_set(st, reason, value, limit);
	return err;
}

/*
 * The fields of a join or a resume: a join that asks for a region, a
 * resume that also joins or asks for one, a join with a generation or a
 * resume without, a token cut short or zero.
 */
static int ibpost_wire_join_fields(const struct ibpost_wire_join *j, u32 len,
				   struct ibpost_status *st)
{
	u16 flags = be16_to_cpu(j->hello.flags);
	bool resume = flags & IBPOST_WIRE_HELLO_RESUME;
	u16 bad = resume ? IBPOST_WIRE_HELLO_REGION | IBPOST_WIRE_HELLO_JOIN :
			   IBPOST_WIRE_HELLO_REGION;

	if (flags & bad)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_FLAGS, flags,
					   resume ? IBPOST_WIRE_HELLO_RESUME :
					   IBPOST_WIRE_HELLO_JOIN);
	if (len < sizeof(*j))
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO, len,
					   sizeof(*j));
	if (!j->generation != !resume)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO,
					   offsetof(struct ibpost_wire_join,
						    generation), sizeof(*j));
	/* No server gives a zero token: a join whose token was lost. */
	if (ibpost_mem_is_zero(j->token, sizeof(j->token)))
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO,
					   offsetof(struct ibpost_wire_join,
						    token), sizeof(*j));
	return 0;
}

/**
 * ibpost_wire_hello_check() - check the private data of a connect request.
 * @priv: what arrived (may be NULL).
 * @len: its bytes.  RoCE and IB pad the private data to 56 bytes, so
 *	every byte past the hello (or the join) must be zero: a longer or
 *	garbled hello is refused, not cut.  (A hello cut short is seen as one
 *	whose last fields are zero there; the job's own checks bound them.)
 * @max_rsge: most SGEs per receive the device gives a QP.
 * @j: out: the hello (@j->hello) and, with IBPOST_WIRE_HELLO_JOIN or
 *	IBPOST_WIRE_HELLO_RESUME, the session, token (and generation) named;
 *	zero past the hello otherwise.
 * @st: the refusal: IBPOST_R_PEER_PROTO (length, magic, a non-zero byte
 *	past the hello or the join: @value its offset, @limit the size; a
 *	join shorter than struct ibpost_wire_join: @value the length; a join
 *	whose @pad is not zero or whose token is zero: @value the field's
 *	offset), IBPOST_R_PEER_VERSION, IBPOST_R_FLAGS (a flag other than
 *	IBPOST_WIRE_HELLO_FLAGS, or a join that asks for a region),
 *	IBPOST_R_DEPTH or IBPOST_R_NUM_SGE (a join's must be 0).
 *
 * Return: 0, -EPROTO or -EINVAL.
 */
int ibpost_wire_hello_check(const void *priv, u32 len, u32 max_rsge,
			    struct ibpost_wire_join *j,
			    struct ibpost_status *st)
{
	struct ibpost_wire_hello *h = &j->hello;
	const u8 *p = priv;
	u32 i, size = sizeof(*h);
	bool join;
	int ret;

	memset(j, 0, sizeof(*j));
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
	if (be16_to_cpu(h->flags) & ~IBPOST_WIRE_HELLO_FLAGS)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_FLAGS,
					   be16_to_cpu(h->flags),
					   IBPOST_WIRE_HELLO_FLAGS);
	join = be16_to_cpu(h->flags) &
	       (IBPOST_WIRE_HELLO_JOIN | IBPOST_WIRE_HELLO_RESUME);
	if (join) {
		memcpy(j, priv, min_t(u32, len, sizeof(*j)));
		ret = ibpost_wire_join_fields(j, len, st);
		if (ret)
			return ret;
		size = sizeof(*j);
	}
	for (i = size; i < len; i++)
		if (p[i])
			return ibpost_wirechk_fail(st, -EPROTO,
						   IBPOST_R_PEER_PROTO, i,
						   size);
	if (!h->depth || be32_to_cpu(h->depth) > IBPOST_WIRE_MAX_DEPTH)
		return ibpost_wirechk_fail(st, -EINVAL, IBPOST_R_DEPTH,
					   be32_to_cpu(h->depth),
					   IBPOST_WIRE_MAX_DEPTH);
	if (be32_to_cpu(h->recv_sge) > (join ? 0 : max_rsge)) {
		ibpost_wirechk_fail(st, -EINVAL, IBPOST_R_NUM_SGE,
				    be32_to_cpu(h->recv_sge),
				    join ? 0 : max_rsge);
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
 *	fixed part; IBPOST_R_RESERVED with the keep time of a job that is
 *	not a session or bytes 52-55 (not 0).
 *
 * The counts and the SGEs are the server's to check against its limits
 * (serve/conn.c); the length must then also be what they need.
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
	if (m->keep_s && !(be32_to_cpu(m->flags) & IBPOST_WIRE_SESSION))
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_RESERVED,
					   be32_to_cpu(m->keep_s), 0);
	if (m->reserved2)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_RESERVED,
					   be32_to_cpu(m->reserved2), 0);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_job_check);

/**
 * ibpost_wire_region_check() - check the region a job asks for.
 * @m: a job whose envelope was checked (ibpost_wire_job_check()).
 * @hello_flags: the flags of the connection's hello.
 * @chunk: bytes of each chunk the server would register (a power of two,
 *	ibpost_target_chunk()), 0 when the device has no MRs for one.
 * @st: the refusal: IBPOST_R_BUF_SIZE with region_bytes and 0 (a job that
 *	is not a session), or with region_bytes and the most the chunks can
 *	hold (0 bytes, or more than IBPOST_WIRE_MAX_CHUNKS chunks);
 *	IBPOST_R_FLAGS with the hello's flags and IBPOST_WIRE_HELLO_REGION (a
 *	session whose hello did not say so: the server's control slots are
 *	too small for its answer); IBPOST_R_FRPL (@chunk 0).
 *
 * What the region may hold at most of the server's memory is its budget's
 * to say (ibpost_srv_charge()), counted as allocated.
 *
 * Return: 0, -EINVAL or -EPROTO.
 */
int ibpost_wire_region_check(const struct ibpost_wire_job *m, u16 hello_flags,
			     u32 chunk, struct ibpost_status *st)
{
	u64 bytes = be64_to_cpu(m->region_bytes);
	u64 max = (u64)chunk * IBPOST_WIRE_MAX_CHUNKS;

	if (!(be32_to_cpu(m->flags) & IBPOST_WIRE_SESSION))
		return bytes ? ibpost_wirechk_fail(st, -EINVAL,
						   IBPOST_R_BUF_SIZE, bytes, 0)
			     : 0;
	if (!(hello_flags & IBPOST_WIRE_HELLO_REGION))
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_FLAGS,
					   hello_flags,
					   IBPOST_WIRE_HELLO_REGION);
	if (!chunk)
		return ibpost_wirechk_fail(st, -EINVAL, IBPOST_R_FRPL, bytes, 0);
	if (!bytes || bytes > max)
		return ibpost_wirechk_fail(st, -EINVAL, IBPOST_R_BUF_SIZE,
					   bytes, max);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_region_check);

/**
 * ibpost_wire_ready_region_check() - check the server's answer to a session.
 * @m: a ready message whose header and status were checked, no refusal.
 * @len: its bytes (at least ibpost_wire_ready_size(0)).
 * @bytes: the region the client asked for.
 * @chunk: out: bytes of each chunk.
 * @n: out: chunks.
 * @st: the refusal, IBPOST_R_PEER_PROTO with: the chunk size and 0 (not a
 *	power of two of at least 4 KiB); the chunk count and what @bytes
 *	needs in such chunks (also: more than IBPOST_WIRE_MAX_CHUNKS); @len and
 *	what that many chunks take; a chunk's length and the chunk size.
 *
 * The client trusts the server with its data, not with its memory: the
 * table it keeps is what its request sized.
 *
 * Return: 0 or -EPROTO.
 */
int ibpost_wire_ready_region_check(const struct ibpost_wire_ready *m, u32 len,
				   u64 bytes, u32 *chunk, u32 *n,
				   struct ibpost_status *st)
{
	u32 c = be32_to_cpu(m->chunk), k = be32_to_cpu(m->nslots), i;
	u64 want;

	if (c < SZ_4K || !is_power_of_2(c))
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO, c,
					   0);
	want = div_u64(bytes, c) + !!(bytes & (c - 1));
	if (!bytes || k != want || k > IBPOST_WIRE_MAX_CHUNKS)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO, k,
					   want);
	if (len != ibpost_wire_ready_size(k))
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO,
					   len, ibpost_wire_ready_size(k));
	for (i = 0; i < k; i++)
		if (be32_to_cpu(m->slot[i].length) != c)
			return ibpost_wirechk_fail(st, -EPROTO,
						   IBPOST_R_PEER_PROTO,
						   be32_to_cpu(m->slot[i].length),
						   c);
	*chunk = c;
	*n = k;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_ready_region_check);

/**
 * ibpost_wire_ready_keep_check() - the keep time the server granted.
 * @m: a session's ready whose header and status were checked, no refusal.
 * @asked: what the job asked (struct ibpost_wire_job.keep_s).
 * @keep_s: out: the seconds granted.
 * @st: the refusal, IBPOST_R_PEER_PROTO with: the grant and @asked (more
 *	than asked: the client's timers were not made for it); the pad and 0.
 *
 * Return: 0 or -EPROTO.
 */
int ibpost_wire_ready_keep_check(const struct ibpost_wire_ready *m,
				 u32 asked, u32 *keep_s,
				 struct ibpost_status *st)
{
	u32 keep = be32_to_cpu(m->keep_s);

	if (keep > asked)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO,
					   keep, asked);
	if (m->pad)
		return ibpost_wirechk_fail(st, -EPROTO, IBPOST_R_PEER_PROTO,
					   be32_to_cpu(m->pad), 0);
	*keep_s = keep;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_ready_keep_check);

/**
 * ibpost_wire_cpu_put() - the server's CPU time over a job, on the wire.
 * @w: out.
 * @wall_ns: the window.
 * @busy_ns: the non-idle time of every CPU in it (clamped to
 *	@wall_ns * @ncpus: the idle counters and the clock are read apart).
 * @thread_ns: the connection thread's CPU time in it (clamped to @wall_ns:
 *	a task's runtime is brought up to date at ticks).
 * @ncpus: the CPUs counted.
 */
void ibpost_wire_cpu_put(struct ibpost_wire_cpu *w, u64 wall_ns,
			 u64 busy_ns, u64 thread_ns, u32 ncpus)
{
	u64 all;

	ncpus = clamp_t(u32, ncpus, 1, IBPOST_WIRE_MAX_CPUS);
	if (check_mul_overflow(wall_ns, (u64)ncpus, &all))
		all = U64_MAX;
	memset(w, 0, sizeof(*w));
	w->wall_ns = cpu_to_be64(wall_ns);
	w->busy_ns = cpu_to_be64(min(busy_ns, all));
	w->thread_ns = cpu_to_be64(min(thread_ns, wall_ns));
	w->ncpus = cpu_to_be32(ncpus);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_cpu_put);

/**
 * ibpost_wire_cpu_get() - the server's CPU time from its result, checked.
 * @w: what the server sent.
 * @res: out: its peer_cpu_* fields, set only when every field holds.
 * @st: out: the field that does not (IBPOST_R_PEER_PROTO: value and limit).
 *
 * Return: 0, or -EPROTO: a CPU count of 0 or above IBPOST_WIRE_MAX_CPUS,
 * busy time above the window times the CPUs, the thread's above the
 * window, or a pad that is not zero.
 */
int ibpost_wire_cpu_get(const struct ibpost_wire_cpu *w,
			struct ibpost_result *res, struct ibpost_status *st)
{
	u64 wall = be64_to_cpu(w->wall_ns), busy = be64_to_cpu(w->busy_ns);
	u64 thread = be64_to_cpu(w->thread_ns), all;
	u32 ncpus = be32_to_cpu(w->ncpus);

	if (!ncpus || ncpus > IBPOST_WIRE_MAX_CPUS) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, ncpus,
				  IBPOST_WIRE_MAX_CPUS);
		return -EPROTO;
	}
	if (check_mul_overflow(wall, (u64)ncpus, &all))
		all = U64_MAX;
	if (busy > all) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, busy, all);
		return -EPROTO;
	}
	if (thread > wall) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, thread, wall);
		return -EPROTO;
	}
	if (w->pad) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, be32_to_cpu(w->pad),
				  0);
		return -EPROTO;
	}
	res->peer_cpu_wall_ns = wall;
	res->peer_cpu_busy_ns = busy;
	res->peer_cpu_thread_ns = thread;
	res->peer_cpu_ncpus = ncpus;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_cpu_get);

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

/**
 * ibpost_wire_hdr_init() - fill a message header.
 * @h: the header.
 * @type: IBPOST_WIRE_*.
 * @len: bytes of the whole message.
 * @conn: the server's connection number (0 from the client).
 */
void ibpost_wire_hdr_init(struct ibpost_wire_hdr *h, u16 type, u32 len,
			  u32 conn)
{
	h->magic = cpu_to_be32(IBPOST_WIRE_MAGIC);
	h->version = cpu_to_be16(IBPOST_WIRE_VERSION);
	h->type = cpu_to_be16(type);
	h->length = cpu_to_be32(len);
	h->conn = cpu_to_be32(conn);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_wire_hdr_init);

/**
 * ibpost_wire_hdr_check() - check a received header.
 * @h: the header.
 * @len: bytes that arrived.
 * @type: the message type expected.
 * @st: refusal reason.
 *
 * Return: 0, or -EPROTO (IBPOST_R_PEER_VERSION with the version seen and
 * ours, or IBPOST_R_PEER_PROTO with the bad field's value and limit).
 */
int ibpost_wire_hdr_check(const struct ibpost_wire_hdr *h, u32 len, u16 type,
			  struct ibpost_status *st)
{
	if (len < sizeof(*h) || be32_to_cpu(h->magic) != IBPOST_WIRE_MAGIC) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, len, sizeof(*h));
		return -EPROTO;
	}
	if (be16_to_cpu(h->version) != IBPOST_WIRE_VERSION) {
		ibpost_status_set(st, IBPOST_R_PEER_VERSION,
				  be16_to_cpu(h->version), IBPOST_WIRE_VERSION);
		return -EPROTO;
	}
	if (be16_to_cpu(h->type) != type) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO,
				  be16_to_cpu(h->type), type);
		return -EPROTO;
	}
	if (be32_to_cpu(h->length) > len) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO,
				  be32_to_cpu(h->length), len);
		return -EPROTO;
	}
	return 0;
}

/**
 * ibpost_wire_st_put() - a status on the wire.
 * @w: out.
 * @err: negative errno, 0 for none.
 * @st: the reason.
 */
void ibpost_wire_st_put(struct ibpost_wire_status *w, int err,
			const struct ibpost_status *st)
{
	w->err = cpu_to_be32(-err);
	w->reason = cpu_to_be32(st->reason);
	w->wr = cpu_to_be32(st->wr);
	w->sge = cpu_to_be32(st->sge);
	w->value = cpu_to_be64(st->value);
	w->limit = cpu_to_be64(st->limit);
}

/**
 * ibpost_wire_reject_get() - the server's reason for rejecting a connect
 *	request, bounded.
 * @rej: the rejection's private data (struct ibpost_conn_peer's @rej).
 * @rej_len: its bytes.
 * @st: out: the reason, value and limit the server gave.
 *
 * Return: true when the rejection carried an ibpost server's words (an
 * unknown reason reads as IBPOST_R_PEER_PROTO), false otherwise (@st
 * untouched).
 */
bool ibpost_wire_reject_get(const void *rej, u32 rej_len,
			    struct ibpost_status *st)
{
	const struct ibpost_wire_reject *r = rej;
	u32 reason;

	if (rej_len < sizeof(*r) ||
	    be32_to_cpu(r->magic) != IBPOST_WIRE_MAGIC)
		return false;
	reason = be32_to_cpu(r->reason);
	if (reason >= IBPOST_R_MAX)
		reason = IBPOST_R_PEER_PROTO;
	ibpost_status_set(st, reason, be64_to_cpu(r->value),
			  be64_to_cpu(r->limit));
	return true;
}

/**
 * ibpost_wire_st_get() - a status from the wire, bounded.
 * @w: what the peer sent.
 * @st: out.
 *
 * Return: the peer's negative errno (-EPROTO for one out of range, with
 * IBPOST_R_PEER_PROTO), or 0 when it reported none.
 */
int ibpost_wire_st_get(const struct ibpost_wire_status *w,
		       struct ibpost_status *st)
{
	u32 err = be32_to_cpu(w->err), reason = be32_to_cpu(w->reason);

	if (!err)
		return 0;
	if (err >= MAX_ERRNO || reason >= IBPOST_R_MAX) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, err, MAX_ERRNO);
		return -EPROTO;
	}
	ibpost_status_set(st, reason, be64_to_cpu(w->value),
			  be64_to_cpu(w->limit));
	st->wr = be32_to_cpu(w->wr);
	st->sge = be32_to_cpu(w->sge);
	return -(int)err;
}

/**
 * ibpost_wire_layout_put() - SGE descriptors on the wire.
 * @w: out, @n entries.
 * @d: the layout.
 * @n: its SGEs.
 */
void ibpost_wire_layout_put(struct ibpost_wire_sge *w,
			    const struct ibpost_sge_desc *d, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		w[i].offset = cpu_to_be32(d[i].offset);
		w[i].length = cpu_to_be32(d[i].length);
	}
}

/**
 * ibpost_wire_layout_get() - SGE descriptors from the wire (unchecked).
 * @d: out, @n entries.
 * @w: what arrived.
 * @n: its SGEs.
 */
void ibpost_wire_layout_get(struct ibpost_sge_desc *d,
			    const struct ibpost_wire_sge *w, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		d[i].offset = be32_to_cpu(w[i].offset);
		d[i].length = be32_to_cpu(w[i].length);
	}
}
