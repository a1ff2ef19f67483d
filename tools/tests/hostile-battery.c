// SPDX-License-Identifier: GPL-2.0
/*
 * hostile battery: every abuse of the wire format a host on the fabric can
 * try against 'ibpost serve', in rounds by category, each round on a
 * connection of its own.  What each round must get:
 *
 *   hello      a rejection carrying the reason the server's check gives
 *              for it (struct ibpost_wire_reject); a connection, or
 *              another reason, is wrong.
 *   job        a ready with a refusal (err and the field's reason); a job
 *              accepted, another reason, or a connection dropped without a
 *              word, is wrong.  Among them
 *              a session's region of 0 bytes, of more chunks than the wire
 *              allows, past the server's budget, region bytes on a job
 *              that is not a session, a session whose hello did not say so.
 *   at-limit   jobs with a field exactly at its limit: accepted (or refused
 *              with the one reason of the server's budget or the device the
 *              round names), then ended by a fin with a result.
 *   order      messages and RDMA before the job, a second job while one
 *              runs, a job in two pieces: refused with the reason, and RDMA
 *              with no job has nothing to reach (an error completion).
 *   bounds     a valid slot's neighbourhood: one byte before or past it
 *              fails, the slot itself works; a session's region of two
 *              chunks: a WRITE across a chunk's end, or with the other
 *              chunk's rkey, fails, each chunk itself works.
 *   rkeys      neighbouring rkeys of a live slot, the rkey of a finished
 *              job, and another live connection's slot: all fail, and that
 *              connection's data and job are untouched.
 *   never-fin  no job, or a job without its fin: the server drops the
 *              connection (idle time, job time).
 *   flood      SENDs far past the declared depth, a burst of fins: a
 *              result; junk on the control receive while a job runs: a
 *              refusal with PEER_ORDER.
 *   conns      --conns connections at once (some, at most --max-per-addr,
 *              get through and stay held, the rest are rejected with the
 *              server's busy reason), then a churn of connections opened
 *              and closed one after another (more than --max-per-addr get
 *              through: a closed one's slot comes back).
 *   join       other queues joining a victim's session: a wrong token, an
 *              unknown session, a job that is not a session, a session at
 *              its connection cap (--max-per-addr connections), a session
 *              whose fin came: each rejected with its own reason; the
 *              joins with the right token reach the victim's region, and
 *              the victim's data and job are untouched.
 *
 * A round whose set-up (its connection, the job it needs running) is not
 * accepted never sent what it tests: it is wrong.  Then a correct job must
 * succeed (a slot written, read back, its fin answered without error).  A
 * line per round, a summary per category.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

/* What a round must get. */
enum want {
	W_REFUSE,	/* a refusal with the reason expected */
	W_FAIL,		/* an error completion of our RDMA */
	W_WORK,		/* our RDMA succeeds (a control) */
	W_VALID,	/* a result, or refused with the budget's reason given */
	W_DROP,		/* the server disconnects */
	W_RESULT,	/* a result without error */
	W_ACCEPT,	/* the connection is accepted */
};

/* What it got. */
enum got {
	G_REFUSED, G_ACCEPTED, G_RESULT, G_DROPPED, G_SILENT, G_OP_FAILED,
	G_OP_DONE, G_BUSY, G_SETUP, G_MAX
};

static const char *const got_name[G_MAX] = {
	[G_REFUSED] = "refused", [G_ACCEPTED] = "accepted",
	[G_RESULT] = "result", [G_DROPPED] = "dropped",
	[G_SILENT] = "silent", [G_OP_FAILED] = "error completion",
	[G_OP_DONE] = "completed", [G_BUSY] = "busy",
	[G_SETUP] = "set-up not accepted",
};

enum cat { C_HELLO, C_JOB, C_LIMIT, C_ORDER, C_BOUNDS, C_RKEYS, C_NOFIN,
	   C_FLOOD, C_CONNS, C_JOIN, C_MAX };

static const char *const cat_name[C_MAX] = {
	"hello", "job", "at-limit", "order", "bounds", "rkeys", "never-fin",
	"flood", "conns", "join",
};

static struct {
	unsigned int rounds, wrong, got[G_MAX];
} tally[C_MAX];
static unsigned int busy_waits;

/* An answer of the server on the control channel. */
struct answer {
	enum got got;
	uint32_t err, reason;
	uint64_t value, limit;
	uint32_t nslots;
	uint32_t chunk;		/* a session's: bytes of each chunk */
	struct ibpost_wire_slot slot;	/* the first slot */
	struct ibpost_wire_slot slot1;	/* the second, if any */
	uint32_t verify_errors;
	uint32_t conn;		/* a ready's: the server's connection number */
	uint32_t session;	/* a session's ready: its number and token */
	uint8_t token[IBPOST_WIRE_TOKEN_LEN];
	/*
	 * W_REFUSE: the reason the server must give (0: none can be right,
	 * the round is wrong); W_VALID: the one refusal of a budget or of
	 * the device the round may get instead of a result (0: none).
	 */
	uint32_t expect;
};

static int busy_reason(uint32_t r)
{
	return r == IBPOST_R_PEER_BUSY || r == IBPOST_R_SRV_PER_ADDR;
}

/* Judge and print one round. */
static void verdict(enum cat cat, const char *round, enum want want,
		    const struct answer *a)
{
	int ok;

	switch (want) {
	case W_REFUSE:
		ok = a->got == G_REFUSED && a->err && a->expect &&
		     a->reason == a->expect;
		break;
	case W_FAIL:
		ok = a->got == G_OP_FAILED;
		break;
	case W_WORK:
		ok = a->got == G_OP_DONE;
		break;
	case W_VALID:
		ok = a->got == G_RESULT ||
		     (a->got == G_REFUSED && a->expect &&
		      a->reason == a->expect);
		break;
	case W_DROP:
		ok = a->got == G_DROPPED;
		break;
	case W_RESULT:
		ok = a->got == G_RESULT;
		break;
	case W_ACCEPT:
		ok = a->got == G_ACCEPTED;
		break;
	default:
		ok = 0;
		break;
	}
	tally[cat].rounds++;
	tally[cat].got[a->got]++;
	tally[cat].wrong += !ok;
	printf("battery: %s: %s: %s", cat_name[cat], round, got_name[a->got]);
	if (a->got == G_REFUSED || a->got == G_SETUP ||
	    (a->got == G_RESULT && a->err))
		printf(" (err %u, reason %u %s, value %llu, limit %llu)",
		       a->err, a->reason, reason_str(a->reason),
		       (unsigned long long)a->value,
		       (unsigned long long)a->limit);
	if (!ok && want == W_VALID && !a->expect)
		printf("  <-- WRONG (a result expected)");
	else if (!ok && (want == W_REFUSE || want == W_VALID))
		printf("  <-- WRONG (%s reason %u %s)",
		       want == W_VALID ? "a result, or" : "expected",
		       a->expect, a->expect ? reason_str(a->expect) : "unset");
	else if (!ok)
		printf("  <-- WRONG");
	printf("\n");
	fflush(stdout);
}

/*
 * Resolve and connect with @priv; a busy server (our address at its
 * limit while earlier rounds are reaped) is waited for.  Return as
 * cm_connect().
 */
static int h_open(struct hconn *c, const struct hopts *o, const void *priv,
		  uint8_t plen, unsigned int sq, uint32_t rsz)
{
	uint64_t end = now_ms() + 30000;
	int ret;

	for (;;) {
		c->rsz = rsz;
		resolve(c, o->server, o->port);
		setup_qp(c, sq);
		ret = cm_connect(c, priv, plen);
		if (ret <= 0 || be32toh(c->rej.magic) != IBPOST_WIRE_MAGIC ||
		    !busy_reason(be32toh(c->rej.reason)) || now_ms() > end)
			return ret;
		teardown(c);
		busy_waits++;
		usleep(200000);
	}
}

/* A valid hello of @depth; exit when even that is not accepted. */
static void h_open_valid(struct hconn *c, const struct hopts *o,
			 uint32_t depth, uint32_t rsge, unsigned int sq,
			 uint32_t rsz)
{
	struct ibpost_wire_hello h;
	int ret;

	hello_init(&h, depth, rsge);
	ret = h_open(c, o, &h, sizeof(h), sq, rsz);
	if (ret) {
		fprintf(stderr, "%s: a valid hello was not accepted (%d, reason %u)\n",
			prog, ret, be32toh(c->rej.reason));
		exit(1);
	}
}

/* The next message from the server within @ms, as an answer. */
static void await_answer(struct hconn *c, uint64_t ms, struct answer *a)
{
	const struct ibpost_wire_ready *r;
	int s;

	memset(a, 0, sizeof(*a));
	s = wait_wc_for(c, 0, ms);
	if (s < 0) {
		a->got = cm_poll_drop(c) ? G_DROPPED : G_SILENT;
		return;
	}
	if (s != IBV_WC_SUCCESS) {
		a->got = G_DROPPED;
		return;
	}
	r = (const void *)(c->rbuf + c->last.wr_id * c->rsz);
	if (c->last.byte_len < sizeof(r->hdr) + sizeof(r->st)) {
		a->got = G_SILENT;
		post_recv(c, c->last.wr_id);
		return;
	}
	a->err = be32toh(r->st.err);
	a->reason = be32toh(r->st.reason);
	a->value = be64toh(r->st.value);
	a->limit = be64toh(r->st.limit);
	if (be16toh(r->hdr.type) == IBPOST_WIRE_RESULT) {
		const struct ibpost_wire_result *res = (const void *)r;

		a->got = a->err ? G_REFUSED : G_RESULT;
		if (c->last.byte_len >= sizeof(*res))
			a->verify_errors = be32toh(res->verify_errors);
	} else if (a->err) {
		a->got = G_REFUSED;
	} else {
		a->got = G_ACCEPTED;
		a->nslots = be32toh(r->nslots);
		a->chunk = be32toh(r->chunk);
		a->conn = be32toh(r->hdr.conn);
		if (c->last.byte_len >= sizeof(*r)) {
			a->session = be32toh(r->session);
			memcpy(a->token, r->token, sizeof(a->token));
		}
		if (a->nslots &&
		    c->last.byte_len >= sizeof(*r) + sizeof(r->slot[0]))
			a->slot = r->slot[0];
		if (a->nslots > 1 &&
		    c->last.byte_len >= sizeof(*r) + 2 * sizeof(r->slot[0]))
			a->slot1 = r->slot[1];
	}
	post_recv(c, c->last.wr_id);
}

/* Send @len bytes of @m and take the server's answer within @ms. */
static void exchange_ms(struct hconn *c, const void *m, uint32_t len,
			uint64_t ms, struct answer *a)
{
	int s;

	if (post_msg(c, m, len, 0, 0))
		die("ibv_post_send");
	s = wait_wc_for(c, 1, H_STEP_MS);
	if (s != IBV_WC_SUCCESS) {
		memset(a, 0, sizeof(*a));
		a->got = s < 0 && !c->dropped ? G_SILENT : G_DROPPED;
		return;
	}
	await_answer(c, ms, a);
}

static void exchange(struct hconn *c, const void *m, uint32_t len,
		     struct answer *a)
{
	exchange_ms(c, m, len, 2 * H_STEP_MS, a);
}

/* The fin of a job of c->wrs WRs, and the server's answer. */
static void finish(struct hconn *c, struct answer *a)
{
	if (post_msg(c, NULL, 0, 1, c->wrs))
		die("ibv_post_send");
	if (wait_wc_for(c, 1, H_STEP_MS) != IBV_WC_SUCCESS) {
		memset(a, 0, sizeof(*a));
		a->got = G_DROPPED;
		return;
	}
	await_answer(c, 2 * H_STEP_MS, a);
}

/* A session job (one slot of @size, remote read and write) on @c. */
static void session_job(struct hconn *c, uint32_t size, uint32_t duration,
			struct answer *a)
{
	struct ibpost_wire_job *job = (void *)c->dbuf;
	uint32_t len = job_build(job, IBPOST_OP_WRITE, IBPOST_WIRE_SESSION,
				 size, 1, 1, 0);

	job->duration_ms = htobe32(duration);
	exchange(c, job, len, a);
}

/* Wait up to @ms for the server to drop @c, answering keep-alives. */
static uint64_t await_drop(struct hconn *c, uint64_t ms, struct answer *a)
{
	uint64_t t0 = now_ms(), end = t0 + ms;
	struct answer m;

	memset(a, 0, sizeof(*a));
	a->got = G_SILENT;
	while (now_ms() < end) {
		await_answer(c, end - now_ms(), &m);
		if (m.got == G_DROPPED) {
			a->got = G_DROPPED;
			break;
		}
		if (m.got == G_REFUSED)	/* said why first: keep it */
			*a = m;
		a->got = G_SILENT;
	}
	return now_ms() - t0;
}

/*
 * The set-up a round needs (a connection, a job running) was not
 * accepted: the round never sent what it tests, so it is wrong whatever
 * came.  The refusal's reason, if any, is kept for the line.
 */
static void setup_failed(struct answer *a)
{
	a->got = G_SETUP;
}

/* --- hello ---------------------------------------------------------------- */

/* Is @c's device iWARP (whose CM does not pad the private data)? */
static int h_iwarp(const struct hconn *c)
{
	return c->id && c->id->verbs &&
	       c->id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
}

static void hello_round(const struct hopts *o, const char *name,
			const void *priv, uint8_t plen, uint32_t reason)
{
	struct hconn c = {};
	struct answer a = {};
	int ret = h_open(&c, o, priv, plen, 8, 0);

	if (!ret) {
		a.got = G_ACCEPTED;
	} else if (ret > 0 && c.rej_len >= (int)sizeof(c.rej) &&
		   be32toh(c.rej.magic) == IBPOST_WIRE_MAGIC) {
		a.got = G_REFUSED;
		a.err = be32toh(c.rej.err);
		a.reason = be32toh(c.rej.reason);
		a.value = be64toh(c.rej.value);
		a.limit = be64toh(c.rej.limit);
	} else {
		a.got = ret > 0 ? G_DROPPED : G_SILENT;
	}
	/*
	 * A hello cut short: RoCE and InfiniBand pad the private data to 56
	 * zero bytes, so its missing fields read as zero (a depth of 0); on
	 * iWARP the length is the client's, refused as such (wire.rst).
	 */
	if (reason == IBPOST_R_DEPTH && plen < sizeof(struct ibpost_wire_hello) &&
	    h_iwarp(&c))
		reason = IBPOST_R_PEER_PROTO;
	a.expect = reason;
	verdict(C_HELLO, name, W_REFUSE, &a);
	teardown(&c);
}

static void cat_hello(const struct hopts *o)
{
	struct ibpost_wire_hello h;
	uint8_t raw[56];

	hello_init(&h, 1, 0);
	h.magic = htobe32(0x12345678);
	hello_round(o, "magic 0x12345678", &h, sizeof(h), IBPOST_R_PEER_PROTO);
	hello_init(&h, 1, 0);
	h.version = htobe16(IBPOST_WIRE_VERSION + 1);
	hello_round(o, "the next version", &h, sizeof(h),
		    IBPOST_R_PEER_VERSION);
	hello_init(&h, 1, 0);
	h.version = htobe16(1);
	hello_round(o, "version 1 (before regions)", &h, sizeof(h),
		    IBPOST_R_PEER_VERSION);
	hello_init(&h, 1, 0);
	h.flags = htobe16(8);
	hello_round(o, "flags 8 (only 1, 2 and 4 are known)", &h, sizeof(h),
		    IBPOST_R_FLAGS);
	/* A join or a resume cut short reads as one whose token is zero. */
	hello_init(&h, 1, 0);
	h.flags = htobe16(IBPOST_WIRE_HELLO_RESUME);
	hello_round(o, "a resume of 16 bytes (no session, generation, token)",
		    &h, sizeof(h), IBPOST_R_PEER_PROTO);
	hello_init(&h, 1, 0);
	h.flags = htobe16(IBPOST_WIRE_HELLO_JOIN);
	hello_round(o, "a join of 16 bytes (no session, no token)", &h,
		    sizeof(h), IBPOST_R_PEER_PROTO);
	hello_init(&h, 0, 0);
	hello_round(o, "depth 0", &h, sizeof(h), IBPOST_R_DEPTH);
	hello_init(&h, IBPOST_WIRE_MAX_DEPTH + 1, 0);
	hello_round(o, "depth 4097 (limit 4096)", &h, sizeof(h),
		    IBPOST_R_DEPTH);
	hello_init(&h, 0xffffffff, 0);
	hello_round(o, "depth 0xffffffff", &h, sizeof(h), IBPOST_R_DEPTH);
	hello_init(&h, 1, 0xffffffff);
	hello_round(o, "recv_sge 0xffffffff", &h, sizeof(h),
		    IBPOST_R_NUM_SGE);
	hello_init(&h, 1, 0);
	hello_round(o, "8 bytes (no depth)", &h, 8, IBPOST_R_DEPTH);
	hello_round(o, "no private data", NULL, 0, IBPOST_R_PEER_PROTO);
	memset(raw, 0, sizeof(raw));
	hello_init(&h, 1, 0);
	memcpy(raw, &h, sizeof(h));
	raw[sizeof(h) + 3] = 1;
	hello_round(o, "a non-zero byte past the hello", raw, sizeof(raw),
		    IBPOST_R_PEER_PROTO);
	memset(raw, 0xff, sizeof(raw));
	hello_round(o, "56 bytes of 0xff", raw, sizeof(raw),
		    IBPOST_R_PEER_PROTO);
}

/* --- job ------------------------------------------------------------------ */

/* Byte offsets of a job's fields (struct ibpost_wire_job). */
#define J_MAGIC		0
#define J_VERSION	4
#define J_TYPE		6
#define J_LENGTH	8
#define J_CONN		12
#define J_OP		16
#define J_FLAGS		20
#define J_MSG		24
#define J_DEPTH		28
#define J_NSGE		32
#define J_RNSGE		36
#define J_IMM		40
#define J_DURATION	44
#define J_KEEP		48
#define J_RESERVED2	52
#define J_REGION	56
#define J_SGE0_OFF	64
#define J_SGE0_LEN	68
#define J_SGE1_OFF	72

/* One malformed job: a field of the base job set, or its length lied. */
struct jcase {
	const char *name;
	int send_op;		/* base: a SEND job (one receive SGE) */
	int off, width;		/* field to set (width 0: none) */
	uint64_t value;
	int len_delta;		/* the header's length minus the built one */
	int sent_delta;		/* the bytes sent minus the built ones */
	uint32_t num_sge;	/* built with this many send SGEs (0: 1) */
	uint32_t reason;	/* the refusal's reason (module/serve/conn.c) */
};

/*
 * A case that sets a field of the base job (a SEND job when @send),
 * refused with @r.
 */
#define JF(n, send, o, w, v, r) \
	{ .name = (n), .send_op = (send), .off = (o), .width = (w), \
	  .value = (v), .reason = (r) }

static const struct jcase job_cases[] = {
	JF("magic 0x12345678", 0, J_MAGIC, 4, 0x12345678, IBPOST_R_PEER_PROTO),
	JF("the next version", 0, J_VERSION, 2, IBPOST_WIRE_VERSION + 1,
	   IBPOST_R_PEER_VERSION),
	JF("version 1 (before regions)", 0, J_VERSION, 2, 1,
	   IBPOST_R_PEER_VERSION),
	JF("version 0", 0, J_VERSION, 2, 0, IBPOST_R_PEER_VERSION),
	JF("type ready", 0, J_TYPE, 2, IBPOST_WIRE_READY, IBPOST_R_PEER_PROTO),
	JF("type result", 0, J_TYPE, 2, IBPOST_WIRE_RESULT,
	   IBPOST_R_PEER_PROTO),
	JF("type 0xffff", 0, J_TYPE, 2, 0xffff, IBPOST_R_PEER_PROTO),
	{ "length 8 more than sent",
	  .len_delta = 8, .reason = IBPOST_R_PEER_PROTO },
	{ "length 8 less than sent",
	  .len_delta = -8, .reason = IBPOST_R_PEER_PROTO },
	JF("length 0", 0, J_LENGTH, 4, 0, IBPOST_R_PEER_PROTO),
	JF("length 0xffffffff", 0, J_LENGTH, 4, 0xffffffff,
	   IBPOST_R_PEER_PROTO),
	{ "12 bytes sent (half a header)",
	  .sent_delta = -60, .reason = IBPOST_R_PEER_PROTO },
	{ "SGE cut off (length says all of it)",
	  .sent_delta = -8, .reason = IBPOST_R_PEER_PROTO },
	{ "8 junk bytes after the SGEs, counted", .len_delta = 8,
	  .sent_delta = 8, .reason = IBPOST_R_PEER_PROTO },
	JF("conn 7", 0, J_CONN, 4, 7, IBPOST_R_PEER_PROTO),
	JF("op 5 (past the last)", 0, J_OP, 4, IBPOST_OP_MAX, IBPOST_R_OPCODE),
	JF("op 0xffffffff", 0, J_OP, 4, 0xffffffff, IBPOST_R_OPCODE),
	JF("flags bit 3", 0, J_FLAGS, 4, 8, IBPOST_R_FLAGS),
	JF("CPU time asked for a session", 0, J_FLAGS, 4,
	   IBPOST_WIRE_SESSION | IBPOST_WIRE_CPU, IBPOST_R_FLAGS),
	JF("flags 0xffffffff", 0, J_FLAGS, 4, 0xffffffff, IBPOST_R_FLAGS),
	JF("session flag on a READ", 0, J_OP, 4, IBPOST_OP_READ,
	   IBPOST_R_OPCODE),
	JF("msg_size 0", 0, J_MSG, 4, 0, IBPOST_R_MSG_SIZE),
	JF("msg_size 4 MiB + 1", 0, J_MSG, 4, IBPOST_MAX_MSG + 1,
	   IBPOST_R_MSG_SIZE),
	JF("msg_size 0xffffffff", 0, J_MSG, 4, 0xffffffff, IBPOST_R_MSG_SIZE),
	JF("depth 2 (the hello said 1)", 0, J_DEPTH, 4, 2, IBPOST_R_PEER_PROTO),
	JF("depth 0", 0, J_DEPTH, 4, 0, IBPOST_R_PEER_PROTO),
	JF("num_sge 0", 0, J_NSGE, 4, 0, IBPOST_R_NUM_SGE),
	{ "num_sge 33 (limit 32), SGEs for 33",
	  .num_sge = 33, .reason = IBPOST_R_NUM_SGE },
	JF("num_sge 0xffffffff", 0, J_NSGE, 4, 0xffffffff, IBPOST_R_NUM_SGE),
	JF("recv_num_sge 1 on a WRITE", 0, J_RNSGE, 4, 1, IBPOST_R_NUM_SGE),
	JF("imm_data on a WRITE", 0, J_IMM, 4, 0x1234, IBPOST_R_IMM_OP),
	JF("SGE length 0", 0, J_SGE0_LEN, 4, 0, IBPOST_R_SGE_ZERO),
	JF("SGE ending a byte past the 4 MiB slot limit", 0, J_SGE0_OFF, 4,
	   IBPOST_MAX_MSG - 4095, IBPOST_R_SGE_RANGE),
	JF("SGE offset 0xffffffff", 0, J_SGE0_OFF, 4, 0xffffffff,
	   IBPOST_R_SGE_RANGE),
	JF("SGE length 0xffffffff", 0, J_SGE0_LEN, 4, 0xffffffff,
	   IBPOST_R_SGE_RANGE),
	JF("duration 0xffffffff ms", 0, J_DURATION, 4, 0xffffffff,
	   IBPOST_R_SRV_JOB_TIME),
	JF("keep time 1 on a job that is not a session", 1, J_KEEP, 4, 1,
	   IBPOST_R_RESERVED),
	JF("bytes 52-55 (reserved2) 1", 0, J_RESERVED2, 4, 1,
	   IBPOST_R_RESERVED),
	JF("session region of 0 bytes", 0, J_REGION, 8, 0, IBPOST_R_BUF_SIZE),
	JF("session region of 2^64 - 1 bytes", 0, J_REGION, 8, ~0ULL,
	   IBPOST_R_BUF_SIZE),
	JF("session region of 2^63 bytes", 0, J_REGION, 8, 1ULL << 63,
	   IBPOST_R_BUF_SIZE),
	JF("session region of 8 GiB (8192 chunks, past the budget)", 0,
	   J_REGION, 8, 8ULL << 30, IBPOST_R_SRV_MEM),
	JF("session region of 1 TiB (past 8192 chunks)", 0, J_REGION, 8,
	   1ULL << 40, IBPOST_R_BUF_SIZE),
	JF("region bytes on a SEND job", 1, J_REGION, 8, 4096,
	   IBPOST_R_BUF_SIZE),
	JF("SEND without a receive layout", 1, J_RNSGE, 4, 0, IBPOST_R_NUM_SGE),
	JF("SEND with 33 receive SGEs", 1, J_RNSGE, 4, 33, IBPOST_R_NUM_SGE),
	JF("SEND receive SGE past the 4 MiB slot limit", 1, J_SGE1_OFF, 4,
	   IBPOST_MAX_MSG, IBPOST_R_SGE_RANGE),
};

static void set_field(uint8_t *m, int off, int width, uint64_t v)
{
	if (width == 8) {
		uint64_t be = htobe64(v);

		memcpy(m + off, &be, 8);
	} else if (width == 2) {
		uint16_t be = htobe16((uint16_t)v);

		memcpy(m + off, &be, 2);
	} else if (width == 4) {
		uint32_t be = htobe32((uint32_t)v);

		memcpy(m + off, &be, 4);
	}
}

static void job_round(const struct hopts *o, const struct jcase *jc)
{
	uint8_t m[H_BUF];
	struct hconn c = {};
	struct answer a;
	uint32_t nsge = jc->num_sge ? jc->num_sge : 1, len;
	int flags = jc->send_op ? 0 : IBPOST_WIRE_SESSION;

	memset(m, 0, sizeof(m));
	len = job_build(m, jc->send_op ? IBPOST_OP_SEND : IBPOST_OP_WRITE,
			flags, 4096, 1, nsge, jc->send_op ? 1 : 0);
	set_field(m, J_LENGTH, 4, len + jc->len_delta);
	set_field(m, jc->off, jc->width, jc->value);
	h_open_valid(&c, o, 1, 1, 8, 0);
	exchange(&c, m, len + jc->sent_delta, &a);
	a.expect = jc->reason;
	verdict(C_JOB, jc->name, W_REFUSE, &a);
	teardown(&c);
}

static void cat_job(const struct hopts *o)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(job_cases); i++)
		job_round(o, &job_cases[i]);
}

/* --- at the limits -------------------------------------------------------- */

/*
 * A job with a field at its limit: a result, or the refusal @budget (0:
 * none) of a limit that is the server's or its device's, not the wire's.
 */
static void limit_round(const struct hopts *o, const char *name, uint32_t op,
			uint32_t msg, uint32_t depth, uint32_t nsge,
			uint32_t duration, uint32_t budget)
{
	uint8_t m[H_BUF];
	struct ibpost_wire_job *job = (void *)m;
	struct hconn c = {};
	struct answer a;
	uint32_t len, rsz;

	len = job_build(m, op, 0, msg, depth, nsge, 0);
	job->duration_ms = htobe32(duration);
	/* Receives that hold a ready of 2 x depth slots. */
	rsz = ibpost_wire_ready_size(2 * depth);
	h_open_valid(&c, o, depth, 1, 8, rsz > H_BUF ? rsz : H_BUF);
	/* 8192 slots and MRs take a debug kernel more than 10 s. */
	exchange_ms(&c, m, len, 120000, &a);
	if (a.got == G_ACCEPTED)
		finish(&c, &a);
	a.expect = budget;
	verdict(C_LIMIT, name, W_VALID, &a);
	teardown(&c);
}

/*
 * The battery's servers are on rxe, whose fast-reg MR maps 512 pages
 * (2 MiB).  A job at a limit of the wire itself must be served; the
 * limit the server's MR budget sets (security.rst: at most half the
 * device's max_mr) may refuse 8192 MRs with SRV_MEM.
 */
static void cat_limit(const struct hopts *o)
{
	limit_round(o, "num_sge 32 (the limit)", IBPOST_OP_WRITE, 4096, 1,
		    IBPOST_WIRE_MAX_SGE, 0, 0);
	limit_round(o, "depth 4096 (the limit), 4 KiB WRITE_IMM slots",
		    IBPOST_OP_WRITE_IMM, 4096, IBPOST_WIRE_MAX_DEPTH, 1, 0,
		    IBPOST_R_SRV_MEM);
	limit_round(o, "msg_size 4 MiB (the wire's limit), past rxe's fast-reg MR",
		    IBPOST_OP_WRITE, IBPOST_MAX_MSG, 1, 1, 0, IBPOST_R_FRPL);
	limit_round(o, "msg_size 2 MiB (rxe's fast-reg limit)", IBPOST_OP_WRITE,
		    IBPOST_MAX_MSG / 2, 1, 1, 0, 0);
	limit_round(o, "duration = the server's job time limit",
		    IBPOST_OP_WRITE, 4096, 1, 1, o->max_job_ms, 0);
}

/* --- order ---------------------------------------------------------------- */

/* A finished job's slot, for the stale-rkey rounds. */
static struct ibpost_wire_slot stale;
static int have_stale;

static void op_answer(struct answer *a, enum ibv_wc_status s)
{
	memset(a, 0, sizeof(*a));
	a->got = s == IBV_WC_SUCCESS ? G_OP_DONE : G_OP_FAILED;
}

static void cat_order(const struct hopts *o)
{
	uint8_t m[H_BUF];
	struct hconn c = {};
	struct answer a;
	uint32_t len, i;

	/* wire.rst: value 0 (a fin), limit 1 (the job waited for). */
	h_open_valid(&c, o, 1, 0, 8, 0);
	finish(&c, &a);
	a.expect = IBPOST_R_PEER_ORDER;
	verdict(C_ORDER, "a fin before any job", W_REFUSE, &a);
	teardown(&c);

	for (i = 0; i < 2; i++) {
		h_open_valid(&c, o, 1, 0, 8, 0);
		op_answer(&a, rdma_op(&c, !i, have_stale ?
				      be64toh(stale.addr) : 0x1000,
				      have_stale ? be32toh(stale.rkey) : 0x100,
				      64));
		verdict(C_ORDER, i ? "RDMA READ before the job (a finished job's key)" :
			"RDMA WRITE before the job (a finished job's key)",
			W_FAIL, &a);
		teardown(&c);
	}

	/* The result of the running job ends it: the second is no job. */
	h_open_valid(&c, o, 1, 0, 8, 0);
	session_job(&c, 4096, 0, &a);
	if (a.got == G_ACCEPTED) {
		len = job_build(m, IBPOST_OP_WRITE, IBPOST_WIRE_SESSION, 4096,
				1, 1, 0);
		exchange(&c, m, len, &a);
	} else {
		setup_failed(&a);
	}
	a.expect = IBPOST_R_PEER_ORDER;
	verdict(C_ORDER, "a second job while one runs", W_REFUSE, &a);
	teardown(&c);

	/* The header alone is taken as the job: its length is not there. */
	h_open_valid(&c, o, 1, 0, 8, 0);
	len = job_build(m, IBPOST_OP_WRITE, IBPOST_WIRE_SESSION, 4096, 1, 1, 0);
	exchange(&c, m, sizeof(struct ibpost_wire_hdr), &a);
	a.expect = IBPOST_R_PEER_PROTO;
	verdict(C_ORDER, "a job in two SENDs (its header first)", W_REFUSE,
		&a);
	teardown(&c);

	/* 16 junk messages at once; the first, no header, is answered. */
	h_open_valid(&c, o, 1, 0, 16, 0);
	memset(c.sbuf, 0x5a, 64);
	for (i = 0; i < 16; i++)
		if (post_msg(&c, NULL, 64, 0, 0))
			die("ibv_post_send");
	await_answer(&c, 2 * H_STEP_MS, &a);
	a.expect = IBPOST_R_PEER_PROTO;
	verdict(C_ORDER, "16 junk SENDs before the job", W_REFUSE, &a);
	teardown(&c);
}

/* --- bounds --------------------------------------------------------------- */

/* A session slot of 4096 bytes on a new connection (exit if none). */
static void open_slot(struct hconn *c, const struct hopts *o,
		      struct ibpost_wire_slot *slot)
{
	struct answer a;

	h_open_valid(c, o, 1, 0, 8, 0);
	session_job(c, 4096, 0, &a);
	if (a.got != G_ACCEPTED || !a.nslots) {
		fprintf(stderr, "%s: a session job was not accepted (%s, reason %u)\n",
			prog, got_name[a.got], a.reason);
		exit(1);
	}
	*slot = a.slot;
}

static void bounds_round(const struct hopts *o, const char *name, int write,
			 int64_t delta, uint32_t len, enum want want)
{
	struct ibpost_wire_slot s;
	struct hconn c = {};
	struct answer a;

	open_slot(&c, o, &s);
	op_answer(&a, rdma_op(&c, write, be64toh(s.addr) + delta,
			      be32toh(s.rkey), len));
	verdict(C_BOUNDS, name, want, &a);
	teardown(&c);
}

/*
 * A session's region of @bytes: the answer must be its chunks, as many as
 * @bytes needs, each of the chunk's length.  0 and the answer in @a, else
 * 1 (@a: what came).
 */
static int open_region(struct hconn *c, const struct hopts *o, uint64_t bytes,
		       struct answer *a)
{
	uint8_t m[H_BUF];
	struct ibpost_wire_job *job = (void *)m;
	uint32_t len = job_build(m, IBPOST_OP_WRITE, IBPOST_WIRE_SESSION, 4096,
				 1, 1, 0);

	job->region_bytes = htobe64(bytes);
	h_open_valid(c, o, 1, 0, 8, 0);
	exchange(c, m, len, a);
	return a->got != G_ACCEPTED || !a->chunk ||
	       a->nslots != (bytes + a->chunk - 1) / a->chunk ||
	       be32toh(a->slot.length) != a->chunk;
}

/*
 * A region of two chunks: each reached with its own rkey only.  A WRITE
 * of @len bytes at @delta from the start of chunk 0 or 1 (@second), or
 * from its end (@at_end), with its own rkey or the other chunk's
 * (@other_key).
 */
static void region_round(const struct hopts *o, const char *name, int second,
			 int at_end, int64_t delta, uint32_t len, int other_key,
			 enum want want)
{
	const struct ibpost_wire_slot *s, *k;
	struct hconn c = {};
	struct answer a;
	uint64_t bytes = 2ULL << 20;

	/* Not accepted, or not two chunks: nothing to cross. */
	if (open_region(&c, o, bytes, &a) || a.nslots != 2) {
		setup_failed(&a);
		verdict(C_BOUNDS, name, want, &a);
		teardown(&c);
		return;
	}
	s = second ? &a.slot1 : &a.slot;
	k = other_key ? (second ? &a.slot : &a.slot1) : s;
	delta += at_end ? a.chunk : 0;
	op_answer(&a, rdma_op(&c, 1, be64toh(s->addr) + delta,
			      be32toh(k->rkey), len));
	verdict(C_BOUNDS, name, want, &a);
	teardown(&c);
}

static void cat_region(const struct hopts *o)
{
	struct ibpost_wire_hello h;
	struct hconn c = {};
	struct answer a;
	uint8_t m[H_BUF];
	uint32_t len;

	/*
	 * The answer's chunks for a region of 2 MiB + 1 byte: 3 MiB of the
	 * budget, which the battery's servers have, so no refusal passes.
	 */
	if (open_region(&c, o, (2ULL << 20) + 1, &a) && a.got == G_ACCEPTED)
		a.got = G_SILENT;
	if (a.got == G_ACCEPTED)
		finish(&c, &a);
	verdict(C_LIMIT, "region of 2 MiB + 1: its chunks in the answer, then its fin answered",
		W_RESULT, &a);
	teardown(&c);
	region_round(o, "region: WRITE 16 bytes at the start of chunk 1", 1, 0,
		     0, 16, 0, W_WORK);
	region_round(o, "region: WRITE across the end of chunk 0", 0, 1, -8, 16,
		     0, W_FAIL);
	region_round(o, "region: chunk 1 with chunk 0's rkey", 1, 0, 0, 16, 1,
		     W_FAIL);
	/* A session whose hello did not ask for a region's answer. */
	memset(&c, 0, sizeof(c));
	hello_init(&h, 1, 0);
	h.flags = 0;
	len = job_build(m, IBPOST_OP_WRITE, IBPOST_WIRE_SESSION, 4096, 1, 1, 0);
	if (!h_open(&c, o, &h, sizeof(h), 8, 0)) {
		exchange(&c, m, len, &a);
	} else {
		memset(&a, 0, sizeof(a));
		a.reason = be32toh(c.rej.reason);
		setup_failed(&a);
	}
	a.expect = IBPOST_R_FLAGS;
	verdict(C_JOB, "session without the hello's region flag", W_REFUSE,
		&a);
	teardown(&c);
}

static void cat_bounds(const struct hopts *o)
{
	bounds_round(o, "WRITE of the whole slot", 1, 0, 4096, W_WORK);
	bounds_round(o, "READ of the whole slot", 0, 0, 4096, W_WORK);
	bounds_round(o, "WRITE of 4097 bytes", 1, 0, 4097, W_FAIL);
	bounds_round(o, "WRITE of 16 bytes, 8 past the end", 1, 4088, 16,
		     W_FAIL);
	bounds_round(o, "WRITE of 16 bytes, 8 before the start", 1, -8, 16,
		     W_FAIL);
	bounds_round(o, "READ of 1 byte just past the end", 0, 4096, 1,
		     W_FAIL);
	bounds_round(o, "READ of 1 byte just before the start", 0, -1, 1,
		     W_FAIL);
	bounds_round(o, "WRITE 1 MiB past the start", 1, 1 << 20, 64, W_FAIL);
}

/* --- rkeys ---------------------------------------------------------------- */

static void cat_rkeys(const struct hopts *o)
{
	static const int32_t nb[] = { 1, -1, 0x100, -0x100, 0x80, 0x200 };
	struct ibpost_wire_slot xs, ys;
	struct hconn x = {}, y = {};
	struct answer a;
	uint32_t i, bad = 0, k;
	uint8_t pat = 0x3c;
	char name[96];

	/* A finished job's slot: its rkey must be dead afterwards. */
	open_slot(&x, o, &xs);
	finish(&x, &a);
	teardown(&x);
	stale = xs;
	have_stale = 1;
	open_slot(&y, o, &ys);
	if (ys.rkey == stale.rkey && ys.addr == stale.addr) {
		printf("battery: rkeys: the new slot has the finished job's key and address (not a round)\n");
	} else {
		op_answer(&a, rdma_op(&y, 1, be64toh(stale.addr),
				      be32toh(stale.rkey), 64));
		verdict(C_RKEYS, "a finished job's rkey and address", W_FAIL,
			&a);
	}
	teardown(&y);

	/* Connection X holds a slot with its data in it. */
	open_slot(&x, o, &xs);
	for (i = 0; i < 4096; i++)
		x.dbuf[i] = (uint8_t)(pat + i);
	if (rdma_op(&x, 1, be64toh(xs.addr), be32toh(xs.rkey), 4096))
		fail("X could not write its own slot");
	for (i = 0; i < 2 * ARRAY_SIZE(nb) + 2; i++) {
		int write = i & 1;

		k = be32toh(xs.rkey);
		if (i < 2) {
			snprintf(name, sizeof(name), "%s of another connection's slot with its rkey",
				 write ? "WRITE" : "READ");
		} else {
			k += nb[i / 2 - 1];
			snprintf(name, sizeof(name), "%s with its rkey %+d",
				 write ? "WRITE" : "READ", nb[i / 2 - 1]);
		}
		open_slot(&y, o, &ys);
		if (k == be32toh(ys.rkey)) {	/* our own: not a round */
			teardown(&y);
			continue;
		}
		memset(y.dbuf, 0xee, 4096);
		op_answer(&a, rdma_op(&y, write, be64toh(xs.addr), k, 4096));
		verdict(C_RKEYS, name, W_FAIL, &a);
		teardown(&y);
	}
	memset(x.dbuf, 0, 4096);
	op_answer(&a, rdma_op(&x, 0, be64toh(xs.addr), be32toh(xs.rkey), 4096));
	for (i = 0; i < 4096; i++)
		bad += x.dbuf[i] != (uint8_t)(pat + i);
	if (a.got == G_OP_DONE && bad) {
		a.got = G_OP_FAILED;
		printf("battery: rkeys: X's slot has %u bytes that are not X's\n",
		       bad);
	}
	verdict(C_RKEYS, "X reads its slot back: intact", W_WORK, &a);
	finish(&x, &a);
	verdict(C_RKEYS, "X's job ends normally", W_RESULT, &a);
	teardown(&x);
}

/* --- never-fin ------------------------------------------------------------ */

static void cat_nofin(const struct hopts *o)
{
	uint8_t m[H_BUF];
	struct hconn c = {};
	struct answer a;
	uint32_t len;
	uint64_t ms;
	char name[96];

	h_open_valid(&c, o, 1, 0, 8, 0);
	ms = await_drop(&c, 60000, &a);
	snprintf(name, sizeof(name), "connected, no job: dropped after %llu ms",
		 (unsigned long long)ms);
	verdict(C_NOFIN, name, W_DROP, &a);
	teardown(&c);

	/*
	 * A one-sided job whose client answers every keep-alive: only the
	 * job time (declared + at least the idle time) ends it.  (A session
	 * has no time limit: Documentation/security.rst.)
	 */
	h_open_valid(&c, o, 1, 0, 8, 0);
	len = job_build(m, IBPOST_OP_WRITE, 0, 4096, 1, 1, 0);
	((struct ibpost_wire_job *)m)->duration_ms = htobe32(500);
	exchange(&c, m, len, &a);
	ms = 0;
	if (a.got == G_ACCEPTED)
		ms = await_drop(&c, 60000, &a);
	else
		setup_failed(&a);
	snprintf(name, sizeof(name), "a WRITE job declaring 500 ms, keep-alives answered, no fin: dropped after %llu ms",
		 (unsigned long long)ms);
	verdict(C_NOFIN, name, W_DROP, &a);
	/* wire.rst: ended with the reason, in a result before the drop. */
	a.got = a.got == G_DROPPED && a.err ? G_REFUSED : G_SILENT;
	a.expect = IBPOST_R_SRV_JOB_TIME;
	verdict(C_NOFIN, "that job's result came first, with the time limit's reason",
		W_REFUSE, &a);
	teardown(&c);
}

/* --- flood ---------------------------------------------------------------- */

static void cat_flood(const struct hopts *o)
{
	uint8_t m[H_BUF];
	struct hconn c = {};
	struct answer a;
	uint32_t len, i, posted = 0, done = 0;
	const uint32_t n = 400, window = 32;
	uint64_t t0;
	char name[128];

	/*
	 * A SEND job of depth 4: 400 SENDs, 32 in flight at once.  Those
	 * past the server's receives wait (RNR retry): every one lands, and
	 * the fin gets a result without error.
	 */
	h_open_valid(&c, o, 4, 1, window, 0);
	len = job_build(m, IBPOST_OP_SEND, 0, 64, 4, 1, 1);
	exchange(&c, m, len, &a);
	if (a.got == G_ACCEPTED) {
		t0 = now_ms();
		memset(c.sbuf, 0xa5, 64);
		while (done < n && now_ms() < t0 + 60000) {
			while (posted < n && posted - done < window - 1) {
				if (post_msg(&c, NULL, 64, 0, 0))
					die("ibv_post_send");
				posted++;
			}
			if (wait_wc_for(&c, 1, H_STEP_MS) != IBV_WC_SUCCESS)
				break;
			done++;
		}
		c.wrs = done;
		if (done == n)
			finish(&c, &a);
		else
			a.got = G_DROPPED;
		snprintf(name, sizeof(name),
			 "400 SENDs on a job of depth 4, 32 in flight (%u sent in %llu ms)",
			 done, (unsigned long long)(now_ms() - t0));
	} else {
		setup_failed(&a);
		snprintf(name, sizeof(name), "400 SENDs on a job of depth 4");
	}
	verdict(C_FLOOD, name, W_RESULT, &a);
	teardown(&c);

	/*
	 * 31 fins at once on a one-sided job: the first ends it (its result,
	 * no error); the others come after it and change nothing.
	 */
	h_open_valid(&c, o, 1, 0, window, 0);
	session_job(&c, 4096, 0, &a);
	if (a.got == G_ACCEPTED) {
		for (i = 0; i < window - 1; i++)
			if (post_msg(&c, NULL, 0, 1, 0))
				die("ibv_post_send");
		await_answer(&c, 2 * H_STEP_MS, &a);
	} else {
		setup_failed(&a);
	}
	verdict(C_FLOOD, "31 fins at once", W_RESULT, &a);
	teardown(&c);

	/*
	 * Junk on the control receive while a one-sided job runs: the first
	 * ends the job (wire.rst: PEER_ORDER, the type that came, limit 0).
	 */
	h_open_valid(&c, o, 1, 0, window, 0);
	session_job(&c, 4096, 0, &a);
	if (a.got == G_ACCEPTED) {
		memset(c.sbuf, 0x5a, 64);
		for (i = 0; i < window - 1; i++)
			if (post_msg(&c, NULL, 64, 0, 0))
				die("ibv_post_send");
		await_answer(&c, 2 * H_STEP_MS, &a);
	} else {
		setup_failed(&a);
	}
	a.expect = IBPOST_R_PEER_ORDER;
	verdict(C_FLOOD, "31 junk SENDs while a job runs", W_REFUSE, &a);
	teardown(&c);
}

/* --- connections ---------------------------------------------------------- */

/* Take the completions of the connections held, their receives posted again. */
static void conns_poll(struct hconn *cs, unsigned int n)
{
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < n; i++)
		while (cs[i].cq && !cs[i].dropped &&
		       ibv_poll_cq(cs[i].cq, 1, &wc) == 1) {
			if (wc.status != IBV_WC_SUCCESS)
				cs[i].dropped = 1;
			else if (wc.opcode & IBV_WC_RECV)
				post_recv(&cs[i], wc.wr_id);
		}
}

/*
 * --conns connections at once on one event channel.  Each one that gets
 * through sends a session job at once (a session has no time limit, and
 * its keep-alives are answered here), so that the server holds all of
 * them to the end: at most --max-per-addr may get through, the others
 * must be rejected with the server's reason.
 */
static void conns_at_once(const struct hopts *o)
{
	struct rdma_event_channel *ch;
	struct ibpost_wire_hello h;
	struct rdma_cm_event *ev;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	struct pollfd pfd;
	struct hconn *cs;
	struct answer a = {};
	unsigned int n = o->conns, i, est = 0, rej = 0, noreason = 0, other = 0;
	unsigned int settled = 0, lost = 0, cmrej = 0, per_addr = 0, busy = 0;
	uint32_t jlen, r;
	uint64_t t0 = now_ms(), end = t0 + 120000;
	char service[16], name[320];
	uint8_t *up;		/* established */

	cs = calloc(n, sizeof(*cs));
	up = calloc(n, 1);
	ch = rdma_create_event_channel();
	if (!cs || !up || !ch)
		die("connections");
	if (fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK))
		die("fcntl");
	snprintf(service, sizeof(service), "%u", o->port);
	if (getaddrinfo(o->server, service, &hints, &ai))
		fail("bad --server address");
	hello_init(&h, 1, 0);
	for (i = 0; i < n; i++) {
		cs[i].ch = ch;
		if (rdma_create_id(ch, &cs[i].id, &cs[i], RDMA_PS_TCP))
			die("rdma_create_id");
		if (rdma_resolve_addr(cs[i].id, NULL, ai->ai_addr, H_STEP_MS))
			die("rdma_resolve_addr");
	}
	freeaddrinfo(ai);
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	while (settled < n && now_ms() < end) {
		struct rdma_conn_param p = {
			.responder_resources = 1, .initiator_depth = 1,
			.retry_count = 7, .rnr_retry_count = 7,
			.private_data = &h, .private_data_len = sizeof(h),
		};
		struct ibpost_wire_reject rj;
		struct hconn *c;

		if (rdma_get_cm_event(ch, &ev)) {
			if (errno != EAGAIN)
				die("rdma_get_cm_event");
			conns_poll(cs, n);
			poll(&pfd, 1, 50);
			continue;
		}
		c = ev->id->context;
		switch (ev->event) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			if (rdma_resolve_route(ev->id, H_STEP_MS))
				die("rdma_resolve_route");
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			setup_qp(c, 2);
			if (rdma_connect(ev->id, &p))
				die("rdma_connect");
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			up[c - cs] = 1;
			est++;
			settled++;
			jlen = job_build(c->sbuf, IBPOST_OP_WRITE,
					 IBPOST_WIRE_SESSION, 4096, 1, 1, 0);
			if (post_msg(c, NULL, jlen, 0, 0))
				die("ibv_post_send");
			break;
		case RDMA_CM_EVENT_REJECTED:
			rej++;
			settled++;
			memset(&rj, 0, sizeof(rj));
			if (ev->param.conn.private_data &&
			    ev->param.conn.private_data_len >= sizeof(rj))
				memcpy(&rj, ev->param.conn.private_data,
				       sizeof(rj));
			/* IB CM reason 28: the server's own reject. */
			r = be32toh(rj.reason);
			if (ev->status != 28)
				cmrej++;
			else if (be32toh(rj.magic) != IBPOST_WIRE_MAGIC || !r)
				noreason++;
			else if (r == IBPOST_R_SRV_PER_ADDR)
				per_addr++;
			else if (r == IBPOST_R_PEER_BUSY)
				busy++;
			else if (!a.reason)
				a.reason = r;	/* the first wrong one */
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			c->dropped = 1;
			break;
		default:
			other++;
			settled++;
			break;
		}
		rdma_ack_cm_event(ev);
	}
	/* The held ones must still be held. */
	for (i = 0; i < 10; i++) {
		conns_poll(cs, n);
		usleep(100000);
	}
	while (!rdma_get_cm_event(ch, &ev)) {
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			((struct hconn *)ev->id->context)->dropped = 1;
		rdma_ack_cm_event(ev);
	}
	for (i = 0; i < n; i++)
		lost += up[i] && cs[i].dropped;
	snprintf(name, sizeof(name),
		 "%u at once in %llu ms: %u connected and held (limit %u, %u of them dropped), %u rejected (%u with %s, %u with %s, %u with another reason, %u without a reason, %u by the CM), %u other, %u unsettled",
		 n, (unsigned long long)(now_ms() - t0), est, o->max_per_addr,
		 lost, rej, per_addr, reason_str(IBPOST_R_SRV_PER_ADDR), busy,
		 reason_str(IBPOST_R_PEER_BUSY),
		 rej - per_addr - busy - noreason - cmrej, noreason, cmrej,
		 other, n - settled);
	/*
	 * Some connected, no more than the address's limit, each held to
	 * the end; every other one rejected by the server with its reason:
	 * SRV_PER_ADDR, or PEER_BUSY, which the server checks first
	 * (wire.rst, security.rst): earlier rounds' connections that ended
	 * but are not reaped yet count against --max-conns, no longer
	 * against the address.  Nothing else: no CM-level reject, no
	 * unreachable or failed connection, none left unsettled.
	 */
	if (est > o->max_per_addr)
		a.got = G_ACCEPTED;
	else if (lost)
		a.got = G_DROPPED;
	else if (!est || per_addr + busy != rej)
		a.got = G_REFUSED;
	else if (other || settled < n)
		a.got = G_SILENT;
	else
		a.got = G_RESULT;
	verdict(C_CONNS, name, W_RESULT, &a);
	free(up);
	for (i = 0; i < n; i++) {
		cs[i].ch = NULL;	/* shared: destroyed below */
		teardown(&cs[i]);
	}
	rdma_destroy_event_channel(ch);
	free(cs);
}

static void cat_conns(const struct hopts *o)
{
	struct ibpost_wire_hello h;
	struct answer a = {};
	unsigned int i, est = 0, busy = 0, bad = 0, n = 50;
	char name[160];
	uint64_t t0;
	int ret;

	conns_at_once(o);
	t0 = now_ms();
	hello_init(&h, 1, 0);
	for (i = 0; i < n; i++) {
		struct hconn c = {};

		resolve(&c, o->server, o->port);
		setup_qp(&c, 2);
		ret = cm_connect(&c, &h, sizeof(h));
		if (!ret)
			est++;
		else if (ret > 0 && c.rej_len >= (int)sizeof(c.rej) &&
			 be32toh(c.rej.magic) == IBPOST_WIRE_MAGIC &&
			 busy_reason(be32toh(c.rej.reason)))
			busy++;
		else
			bad++;
		teardown(&c);
	}
	/*
	 * Each is accepted, or refused while the server still reaps the
	 * ones before it (its address or its connections at their limit:
	 * SRV_PER_ADDR or PEER_BUSY); nothing else.  More than
	 * --max-per-addr accepted: closed connections give their slots back.
	 */
	if (bad)
		a.got = G_SILENT;
	else if (est <= o->max_per_addr)
		a.got = G_REFUSED;
	else
		a.got = G_RESULT;
	snprintf(name, sizeof(name), "%u opened and closed one after another: %u connected (more than %u), %u refused as busy, %u otherwise, %llu ms",
		 n, est, o->max_per_addr, busy, bad,
		 (unsigned long long)(now_ms() - t0));
	verdict(C_CONNS, name, W_RESULT, &a);
}

/* --- join ---------------------------------------------------------------- */

/* A join of @session with @token, as a queue of a session would send it. */
static void join_init(struct ibpost_wire_join *j, uint32_t session,
		      const uint8_t *token)
{
	memset(j, 0, sizeof(*j));
	hello_init(&j->hello, 1, 0);
	j->hello.flags = htobe16(IBPOST_WIRE_HELLO_JOIN);
	j->session = htobe32(session);
	memcpy(j->token, token, sizeof(j->token));
}

/*
 * Connect @c with @j: 0 when accepted, else @a holds the rejection.  A
 * rejection for a busy server is waited out by h_open(), as elsewhere.
 */
static int join_open(struct hconn *c, const struct hopts *o,
		     const struct ibpost_wire_join *j, struct answer *a)
{
	int ret = h_open(c, o, j, sizeof(*j), 8, 0);

	memset(a, 0, sizeof(*a));
	if (!ret) {
		a->got = G_ACCEPTED;
	} else if (ret > 0 && c->rej_len >= (int)sizeof(c->rej) &&
		   be32toh(c->rej.magic) == IBPOST_WIRE_MAGIC) {
		a->got = G_REFUSED;
		a->err = be32toh(c->rej.err);
		a->reason = be32toh(c->rej.reason);
		a->value = be64toh(c->rej.value);
		a->limit = be64toh(c->rej.limit);
	} else {
		a->got = ret > 0 ? G_DROPPED : G_SILENT;
	}
	return ret;
}

/* Connect @c with @priv once (no wait for a busy server), as join_open(). */
static void open_once(struct hconn *c, const struct hopts *o,
		      const void *priv, uint8_t plen, struct answer *a)
{
	int ret;

	resolve(c, o->server, o->port);
	setup_qp(c, 8);
	ret = cm_connect(c, priv, plen);
	memset(a, 0, sizeof(*a));
	if (!ret) {
		a->got = G_ACCEPTED;
	} else if (ret > 0 && c->rej_len >= (int)sizeof(c->rej) &&
		   be32toh(c->rej.magic) == IBPOST_WIRE_MAGIC) {
		a->got = G_REFUSED;
		a->err = be32toh(c->rej.err);
		a->reason = be32toh(c->rej.reason);
		a->value = be64toh(c->rej.value);
		a->limit = be64toh(c->rej.limit);
	} else {
		a->got = ret > 0 ? G_DROPPED : G_SILENT;
	}
}

/*
 * The victim's session and its joins hold every slot of its address:
 * another session of the address is refused, a join from another address
 * too (the session's address only), and a job from another address is
 * served (o->server2: the server as the client's other address reaches
 * it).
 */
static void join_addr(const struct hopts *o, const struct ibpost_wire_join *j)
{
	struct hopts o2 = *o;
	struct ibpost_wire_hello h;
	struct hconn c = {};
	struct answer a;

	hello_init(&h, 1, 0);
	open_once(&c, o, &h, sizeof(h), &a);
	a.expect = IBPOST_R_SRV_PER_ADDR;
	verdict(C_JOIN, "another session of the address, whose session and joins hold --max-per-addr",
		W_REFUSE, &a);
	teardown(&c);
	if (!o->server2)
		return;
	o2.server = o->server2;
	open_once(&c, &o2, j, sizeof(*j), &a);
	a.expect = IBPOST_R_PEER_DENIED;
	verdict(C_JOIN, "a join with the right token from another address",
		W_REFUSE, &a);
	teardown(&c);
	open_once(&c, &o2, &h, sizeof(h), &a);
	if (a.got == G_ACCEPTED)
		session_job(&c, 4096, 0, &a);
	verdict(C_JOIN, "another address is served meanwhile: its job accepted",
		W_ACCEPT, &a);
	if (a.got == G_ACCEPTED) {
		finish(&c, &a);
		verdict(C_JOIN, "that job ends normally", W_RESULT, &a);
	}
	teardown(&c);
}

/*
 * A joined queue the client drops (@c, torn down) gives its place back at
 * once: the queue joins again within 5 s (the server frees the lost join
 * within a round of its session's wait).
 */
static void join_again(const struct hopts *o, struct hconn *c,
		       const struct ibpost_wire_join *j)
{
	uint64_t t0, end;
	struct answer a;
	char name[96];

	teardown(c);
	memset(c, 0, sizeof(*c));
	t0 = now_ms();
	end = t0 + 5000;
	for (;;) {
		open_once(c, o, j, sizeof(*j), &a);
		if (a.got == G_ACCEPTED || now_ms() > end)
			break;
		teardown(c);
		memset(c, 0, sizeof(*c));
		usleep(100000);
	}
	snprintf(name, sizeof(name), "a dropped join is released: the queue joins again (%llu ms)",
		 (unsigned long long)(now_ms() - t0));
	verdict(C_JOIN, name, W_ACCEPT, &a);
}

/* A join that must be rejected with @reason. */
static void join_refused(const struct hopts *o, const char *name,
			 const struct ibpost_wire_join *j, uint32_t reason)
{
	struct hconn c = {};
	struct answer a;

	join_open(&c, o, j, &a);
	a.expect = reason;
	verdict(C_JOIN, name, W_REFUSE, &a);
	teardown(&c);
}

/* Read 4096 bytes of the victim's chunk 0 on @c: its pattern @pat? */
static void join_read(struct hconn *c, const struct answer *v, uint8_t pat,
		      const char *name)
{
	struct answer a;
	uint32_t i, bad = 0;

	memset(c->dbuf, 0, 4096);
	op_answer(&a, rdma_op(c, 0, be64toh(v->slot.addr),
			      be32toh(v->slot.rkey), 4096));
	for (i = 0; i < 4096; i++)
		bad += c->dbuf[i] != (uint8_t)(pat + 3 * i);
	if (a.got == G_OP_DONE && bad) {
		a.got = G_OP_FAILED;
		printf("battery: join: %u bytes of the victim's region are not its own\n",
		       bad);
	}
	verdict(C_JOIN, name, W_WORK, &a);
}

/*
 * Two sessions of one address and the joins of the first: together they
 * hold at most --max-per-addr connections, so the join past that is
 * refused for the address (SRV_PER_ADDR, value and limit the cap), not
 * let in under its own session's cap (a session's joins count against
 * the address, with its other sessions).
 */
static void join_two(const struct hopts *o)
{
	unsigned int max = o->max_per_addr, n = 0, i;
	struct hconn a = {}, b = {}, *js;
	struct ibpost_wire_join j;
	struct answer aa, ba, r;
	char name[160];

	memset(&r, 0, sizeof(r));
	if (max < 3 || open_region(&a, o, 1 << 20, &aa) || !aa.session ||
	    open_region(&b, o, 1 << 20, &ba) || !ba.session) {
		printf("battery: join: two sessions of one address: set-up refused (--max-per-addr %u)\n",
		       max);
		setup_failed(&r);
		verdict(C_JOIN, "two sessions of one address, joins of one up to --max-per-addr",
			W_REFUSE, &r);
		teardown(&a);
		teardown(&b);
		return;
	}
	js = calloc(max, sizeof(*js));
	if (!js)
		die("calloc");
	join_init(&j, aa.session, aa.token);
	for (i = 0; i < max - 2; i++) {
		join_open(&js[i], o, &j, &r);
		if (r.got != G_ACCEPTED)
			break;
		n++;
	}
	if (n == max - 2) {
		open_once(&js[n], o, &j, sizeof(j), &r);
		r.expect = IBPOST_R_SRV_PER_ADDR;
		if (r.got == G_REFUSED && (r.value != max || r.limit != max))
			r.expect = 0;
	} else {
		printf("battery: join: %u of %u joins beside two sessions accepted\n",
		       n, max - 2);
		setup_failed(&r);
	}
	snprintf(name, sizeof(name), "two sessions of one address and %u joins of one (--max-per-addr %u): the next join refused for the address",
		 n, max);
	verdict(C_JOIN, name, W_REFUSE, &r);
	for (i = 0; i <= n && i < max; i++)
		teardown(&js[i]);
	free(js);
	teardown(&a);
	teardown(&b);
}

static void cat_join(const struct hopts *o)
{
	unsigned int n = o->max_per_addr > 1 ? o->max_per_addr - 1 : 0, i;
	struct hconn v = {}, p = {}, *js;
	struct ibpost_wire_join j;
	struct answer va, pa, a;
	uint8_t pat = 0x2d;
	char name[96];

	/* The victim: a session of 1 MiB with its pattern in chunk 0. */
	if (open_region(&v, o, 1 << 20, &va) || !va.session) {
		printf("battery: join: the victim's session was not accepted (%s, session %u)\n",
		       got_name[va.got], va.session);
		va.got = G_SILENT;
		verdict(C_JOIN, "a session gives its number and token", W_WORK,
			&va);
		teardown(&v);
		return;
	}
	for (i = 0; i < 4096; i++)
		v.dbuf[i] = (uint8_t)(pat + 3 * i);
	op_answer(&a, rdma_op(&v, 1, be64toh(va.slot.addr),
			      be32toh(va.slot.rkey), 4096));
	verdict(C_JOIN, "the victim writes its region", W_WORK, &a);

	join_init(&j, va.session, va.token);
	j.token[5] ^= 0x01;
	join_refused(o, "a join with the token one bit off", &j,
		     IBPOST_R_JOIN_TOKEN);
	join_init(&j, va.session + 100000, va.token);
	join_refused(o, "a join of an unknown session", &j,
		     IBPOST_R_JOIN_UNKNOWN);
	/* A plain job's connection has a number but is no session. */
	h_open_valid(&p, o, 1, 0, 8, 0);
	exchange(&p, p.dbuf, job_build(p.dbuf, IBPOST_OP_WRITE, 0, 4096, 1, 1, 0),
		 &pa);
	if (pa.got == G_ACCEPTED && pa.conn) {
		join_init(&j, pa.conn, va.token);
		join_refused(o, "a join of a job that is not a session", &j,
			     IBPOST_R_JOIN_UNKNOWN);
	} else {
		/* No job running, or no number: nothing to join. */
		setup_failed(&pa);
		verdict(C_JOIN, "a join of a job that is not a session",
			W_REFUSE, &pa);
	}
	teardown(&p);

	/* The session's other queues, up to its cap, then one more. */
	js = calloc(n + 1, sizeof(*js));
	if (!js)
		die("calloc");
	join_init(&j, va.session, va.token);
	for (i = 0; i < n; i++) {
		join_open(&js[i], o, &j, &a);
		snprintf(name, sizeof(name), "join %u of %u with the right token",
			 i + 1, n);
		verdict(C_JOIN, name, W_ACCEPT, &a);
		if (a.got != G_ACCEPTED)
			break;
	}
	if (i == n) {
		if (n)
			join_read(&js[0], &va, pat,
				  "a joined queue reads the victim's region");
		join_refused(o, "a join past the session's cap (--max-per-addr)",
			     &j, IBPOST_R_JOIN_MAX);
		join_addr(o, &j);
		if (n)
			join_again(o, &js[n - 1], &j);
	}
	for (i = 0; i < n; i++)
		teardown(&js[i]);
	free(js);

	join_read(&v, &va, pat, "the victim reads its region back: intact");
	finish(&v, &a);
	verdict(C_JOIN, "the victim's session ends normally", W_RESULT, &a);
	/* Its fin came: the session is over, its number still known. */
	join_refused(o, "a join of a session whose fin came", &j,
		     IBPOST_R_JOIN_ENDED);
	teardown(&v);
	join_two(o);
}

/* --- join-race ------------------------------------------------------------- */

/*
 * The failure path of a join against its session's end, with the server's
 * serve_test_join_fail_ms hook set (by the caller, on the server): the
 * join fails after its QP was made and its failure path holds where it
 * wakes the session; meanwhile the session's client sends its fin and
 * disconnects.  Before the fix the session's thread ended and its
 * connection was freed inside that hold, and the wake touched it (KASAN:
 * use-after-free); now the wake is under the server's lock, which the
 * session's end takes.  Pass: the session's result, the join refused with
 * IBPOST_R_CONNECT, and the caller finds the kernel log clean.
 */
int mode_join_race(const struct hopts *o)
{
	struct ibpost_wire_join j;
	struct hconn v = {}, c = {};
	struct answer va, a;
	int ret, ok;

	if (open_region(&v, o, 1 << 20, &va) || !va.session)
		fail("join-race: the session was not accepted");
	join_init(&j, va.session, va.token);
	resolve(&c, o->server, o->port);
	setup_qp(&c, 8);
	cm_connect_start(&c, &j, sizeof(j));
	/* The server is inside the join's failure path by now. */
	usleep(500000);
	finish(&v, &a);
	teardown(&v);
	ret = cm_connect_end(&c);
	ok = a.got == G_RESULT && ret > 0 &&
	     c.rej_len >= (int)sizeof(c.rej) &&
	     be32toh(c.rej.magic) == IBPOST_WIRE_MAGIC &&
	     be32toh(c.rej.reason) == IBPOST_R_CONNECT;
	printf("join-race: the session's end: %s (err %u); the held join: %s (reason %u %s): %s\n",
	       got_name[a.got], a.err, ret > 0 ? "rejected" : "not rejected",
	       ret > 0 ? be32toh(c.rej.reason) : 0,
	       ret > 0 ? reason_str(be32toh(c.rej.reason)) : "-",
	       ok ? "ok" : "FAILED");
	teardown(&c);
	return !ok;
}

/* --- and then a correct job ----------------------------------------------- */

static int correct_job(const struct hopts *o)
{
	struct ibpost_wire_slot s;
	struct hconn c = {};
	struct answer a;
	uint32_t i, bad = 0;

	open_slot(&c, o, &s);
	for (i = 0; i < 4096; i++)
		c.dbuf[i] = (uint8_t)(0x71 + i * 7);
	if (rdma_op(&c, 1, be64toh(s.addr), be32toh(s.rkey), 4096) ||
	    rdma_op(&c, 1, be64toh(s.addr), be32toh(s.rkey), 4096))
		fail("the correct job's write failed");
	memset(c.dbuf, 0, 4096);
	if (rdma_op(&c, 0, be64toh(s.addr), be32toh(s.rkey), 4096))
		fail("the correct job's read failed");
	for (i = 0; i < 4096; i++)
		bad += c.dbuf[i] != (uint8_t)(0x71 + i * 7);
	finish(&c, &a);
	teardown(&c);
	printf("battery: a correct job after it all: %s (%u bytes wrong, answer %s, err %u)\n",
	       !bad && a.got == G_RESULT ? "ok" : "FAILED", bad,
	       got_name[a.got], a.err);
	return !bad && a.got == G_RESULT;
}

int mode_battery(const struct hopts *o)
{
	static void (*const cats[])(const struct hopts *) = {
		cat_hello, cat_job, cat_limit, cat_bounds, cat_region,
		cat_rkeys, cat_order, cat_nofin, cat_flood, cat_conns,
		cat_join,
	};
	unsigned int i, j, wrong = 0, rounds = 0;
	uint64_t t0 = now_ms();
	int ok;

	/* cat_rkeys (a finished job's key) before cat_order uses it. */
	for (i = 0; i < ARRAY_SIZE(cats); i++)
		cats[i](o);
	ok = correct_job(o);
	printf("battery summary (%llu s, %u waits for a busy server):\n",
	       (unsigned long long)(now_ms() - t0) / 1000, busy_waits);
	for (i = 0; i < C_MAX; i++) {
		printf("  %-9s %3u rounds:", cat_name[i], tally[i].rounds);
		for (j = 0; j < G_MAX; j++)
			if (tally[i].got[j])
				printf(" %s %u,", got_name[j], tally[i].got[j]);
		printf(" wrong %u\n", tally[i].wrong);
		wrong += tally[i].wrong;
		rounds += tally[i].rounds;
	}
	printf("battery: %u rounds, %u wrong, correct job %s\n", rounds, wrong,
	       ok ? "ok" : "FAILED");
	return wrong || !ok;
}
