// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: a peer of 'ibpost serve' written from the wire format alone
 * (module/lib/wire.h, Documentation/wire.rst) with libibverbs and librdmacm, to
 * try what a host on the fabric can do to a server.  One mode per run:
 *
 *   hold    a valid client: a session job (one slot, remote read and
 *           write), prints its slot ("slot 0 addr 0x... rkey 0x... length
 *           N"), writes a pattern into it through its own connection, waits
 *           until --until FILE exists, reads the slot back and compares
 *           ("data intact" or "data corrupted: N bytes"), sends the fin and
 *           prints the server's result.  Exit 0 only when the data is
 *           intact and the result has no error.
 *   access  a valid client (the same session job), then one RDMA --op
 *           write|read of --len bytes at --addr with --rkey (someone else's)
 *           through its own connection; prints "access OP: STATUS (N)",
 *           the completion's status.  Exit 0 when the status was printed.
 *   connect a connect request to --port carrying junk private data (not
 *           ibpost's); retried every 100 ms up to --tries times while it is
 *           rejected; prints "connect: established" or "connect: not
 *           rejected" (any other answer than a reject: exit 0), or
 *           "connect: rejected N times (consumer reject N)" (exit 3).
 *
 *   battery every abuse of the wire a host can try, in rounds by category
 *           (hostile-battery.c): mutated hellos, jobs with each field at and
 *           past its limit, lying lengths, messages and data before the
 *           job, accesses past a slot's bounds, stale and neighbouring
 *           rkeys, never-fin, floods of SENDs, hundreds of connections at
 *           once; then a correct job.  Prints a line per round and a
 *           summary; exit 0 only when the server accepted nothing it should
 *           have refused, answered every round, and the last job succeeded.
 *
 * Exit 1: the program itself failed (set-up, a step timed out); 2: usage.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

const char *prog = "hostile";

void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(1);
}

void fail(const char *what)
{
	fprintf(stderr, "%s: %s\n", prog, what);
	exit(1);
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *reason_str(uint32_t reason)
{
	static const char *const texts[IBPOST_R_MAX] = IBPOST_REASON_TEXTS;

	return reason < IBPOST_R_MAX && texts[reason] ? texts[reason] : "?";
}

/*
 * The next rdma_cm event of @c (its channel is non-blocking: waited for
 * with poll(), at most H_STEP_MS); its type and (for a rejection) its
 * status, the rejection's ibpost private data kept in c->rej.  A
 * DISCONNECTED event that comes instead marks the connection dropped.
 */
static enum rdma_cm_event_type cm_next(struct hconn *c, int *status)
{
	struct pollfd pfd = { .fd = c->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type type;
	uint64_t end = now_ms() + H_STEP_MS;

	while (rdma_get_cm_event(c->ch, &ev)) {
		if (errno != EAGAIN)
			die("rdma_get_cm_event");
		if (now_ms() >= end)
			fail("timed out waiting for an rdma_cm event");
		poll(&pfd, 1, 100);
	}
	type = ev->event;
	if (status)
		*status = ev->status;
	if (type == RDMA_CM_EVENT_REJECTED) {
		c->rej_len = ev->param.conn.private_data_len;
		memset(&c->rej, 0, sizeof(c->rej));
		if (ev->param.conn.private_data)
			memcpy(&c->rej, ev->param.conn.private_data,
			       c->rej_len < (int)sizeof(c->rej) ?
			       c->rej_len : (int)sizeof(c->rej));
		else
			c->rej_len = 0;
	}
	if (type == RDMA_CM_EVENT_DISCONNECTED)
		c->dropped = 1;
	rdma_ack_cm_event(ev);
	return type;
}

/* Non-blocking: has the server disconnected?  1 when it has. */
int cm_poll_drop(struct hconn *c)
{
	struct rdma_cm_event *ev;

	while (!c->dropped && !rdma_get_cm_event(c->ch, &ev)) {
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			c->dropped = 1;
		rdma_ack_cm_event(ev);
	}
	return c->dropped;
}

void resolve(struct hconn *c, const char *host, unsigned int port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	char service[16];

	snprintf(service, sizeof(service), "%u", port);
	if (getaddrinfo(host, service, &hints, &ai))
		fail("bad --server address");
	c->ch = rdma_create_event_channel();
	if (!c->ch)
		die("rdma_create_event_channel");
	if (fcntl(c->ch->fd, F_SETFL, fcntl(c->ch->fd, F_GETFL) | O_NONBLOCK))
		die("fcntl");
	if (rdma_create_id(c->ch, &c->id, c, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_resolve_addr(c->id, NULL, ai->ai_addr, H_STEP_MS))
		die("rdma_resolve_addr");
	freeaddrinfo(ai);
	if (cm_next(c, NULL) != RDMA_CM_EVENT_ADDR_RESOLVED)
		fail("address not resolved");
	if (rdma_resolve_route(c->id, H_STEP_MS))
		die("rdma_resolve_route");
	if (cm_next(c, NULL) != RDMA_CM_EVENT_ROUTE_RESOLVED)
		fail("route not resolved");
}

void post_recv(struct hconn *c, unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->rbuf + (size_t)i * c->rsz),
		.length = c->rsz,
		.lkey = c->rmr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = i, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	/* A QP in error (the server dropped us) refuses: nothing to do. */
	if (ibv_post_recv(c->id->qp, &wr, &bad) && !c->dropped)
		die("ibv_post_recv");
}

/* PD, CQ, QP (@sq send WRs), buffers and receives of a connection. */
void setup_qp(struct hconn *c, unsigned int sq)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = sq, .max_recv_wr = H_RECVS,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};
	unsigned int i;

	c->pd = ibv_alloc_pd(c->id->verbs);
	if (!c->pd)
		die("ibv_alloc_pd");
	c->cq = ibv_create_cq(c->id->verbs, sq + H_RECVS, NULL, NULL, 0);
	if (!c->cq)
		die("ibv_create_cq");
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	if (rdma_create_qp(c->id, c->pd, &qa))
		die("rdma_create_qp");
	if (!c->rsz)
		c->rsz = H_BUF;
	c->rbuf = calloc(H_RECVS, c->rsz);
	c->sbuf = calloc(1, H_BUF);
	c->dbuf = calloc(1, H_DBUF);
	if (!c->rbuf || !c->sbuf || !c->dbuf)
		die("calloc");
	c->rmr = ibv_reg_mr(c->pd, c->rbuf, (size_t)H_RECVS * c->rsz,
			    IBV_ACCESS_LOCAL_WRITE);
	c->smr = ibv_reg_mr(c->pd, c->sbuf, H_BUF, 0);
	c->dmr = ibv_reg_mr(c->pd, c->dbuf, H_DBUF, IBV_ACCESS_LOCAL_WRITE);
	if (!c->rmr || !c->smr || !c->dmr)
		die("ibv_reg_mr");
	for (i = 0; i < H_RECVS; i++)
		post_recv(c, i);
}

/*
 * Connect with @priv as private data.  Return 0 when established, else
 * the rejection's status (IB CM reason) as a positive number (the
 * server's own reject, if any, in c->rej), or -1 for another answer.
 */
/* Send the connect request with @priv; cm_connect_end() takes the answer. */
void cm_connect_start(struct hconn *c, const void *priv, uint8_t plen)
{
	struct rdma_conn_param p = {
		.responder_resources = 16, .initiator_depth = 16,
		.retry_count = 7, .rnr_retry_count = 7,
		.private_data = priv, .private_data_len = plen,
	};

	if (rdma_connect(c->id, &p))
		die("rdma_connect");
}

/* The answer to cm_connect_start(), as cm_connect() returns it. */
int cm_connect_end(struct hconn *c)
{
	enum rdma_cm_event_type t;
	int status = 0;

	t = cm_next(c, &status);
	if (t == RDMA_CM_EVENT_ESTABLISHED)
		return 0;
	if (t == RDMA_CM_EVENT_REJECTED)
		return status > 0 ? status : 1;
	fprintf(stderr, "%s: connect: event %s, status %d\n", prog,
		rdma_event_str(t), status);
	return -1;
}

int cm_connect(struct hconn *c, const void *priv, uint8_t plen)
{
	cm_connect_start(c, priv, plen);
	return cm_connect_end(c);
}

void teardown(struct hconn *c)
{
	if (c->id) {
		rdma_disconnect(c->id);
		if (c->id->qp)
			rdma_destroy_qp(c->id);
	}
	if (c->dmr)
		ibv_dereg_mr(c->dmr);
	if (c->smr)
		ibv_dereg_mr(c->smr);
	if (c->rmr)
		ibv_dereg_mr(c->rmr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	free(c->rbuf);
	free(c->sbuf);
	free(c->dbuf);
	memset(c, 0, sizeof(*c));
}

/*
 * Poll until a send completion (@send) or a receive carrying a message
 * arrives; keep-alives (zero-byte SEND_WITH_IMM) are taken and their
 * receive posted again; a message that arrives while a send is awaited is
 * held for the next wait for a message.  Return the completion's status
 * (a receive's buffer index is in c->last.wr_id, reposted by the caller),
 * or -1 when nothing came within @ms.  A failed completion or the
 * server's disconnect marks the connection dropped.
 */
int wait_wc_for(struct hconn *c, int send, uint64_t ms)
{
	uint64_t end = now_ms() + ms;
	struct ibv_wc wc;
	int n;

	if (!send && c->has_held) {
		c->has_held = 0;
		c->last = c->held;
		return c->last.status;
	}
	while (now_ms() < end) {
		n = ibv_poll_cq(c->cq, 1, &wc);
		if (n < 0)
			fail("ibv_poll_cq");
		if (!n) {
			if (cm_poll_drop(c))
				return -1;
			usleep(200);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			c->dropped = 1;
			c->last = wc;
			return wc.status;
		}
		if (wc.opcode & IBV_WC_RECV) {
			if (wc.byte_len == 0 && (wc.wc_flags & IBV_WC_WITH_IMM) &&
			    be32toh(wc.imm_data) == IBPOST_WIRE_IMM_ALIVE) {
				post_recv(c, wc.wr_id);
				continue;
			}
			/* The answer may be reaped before our send's completion. */
			if (send) {
				if (c->has_held)
					fail("two messages while a send was awaited");
				c->held = wc;
				c->has_held = 1;
				continue;
			}
			c->last = wc;
			return wc.status;
		}
		if (send) {
			c->last = wc;
			return wc.status;
		}
	}
	return -1;
}

enum ibv_wc_status wait_wc(struct hconn *c, int send, uint64_t ms)
{
	int s = wait_wc_for(c, send, ms);

	if (s < 0)
		fail("timed out waiting for a completion");
	return s;
}

/* Answer a keep-alive now and then while waiting for @path to exist. */
static void hold_until(struct hconn *c, const char *path)
{
	uint64_t end = now_ms() + 120000;

	while (access(path, F_OK)) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(c->cq, 1, &wc);

		if (n < 0)
			fail("ibv_poll_cq");
		if (n && wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "%s: hold: completion %s\n", prog,
				ibv_wc_status_str(wc.status));
			exit(1);
		}
		if (n && (wc.opcode & IBV_WC_RECV))
			post_recv(c, wc.wr_id);
		if (now_ms() > end)
			fail("hold: --until file never appeared");
		usleep(20000);
	}
}

/*
 * Post @len bytes of @m (NULL: what is in c->sbuf already) as a SEND, or
 * a zero-byte SEND_WITH_IMM carrying @imm when @fin, unsignaled unless
 * waited for; return ibv_post_send()'s result.
 */
int post_msg(struct hconn *c, const void *m, uint32_t len, int fin,
	     uint32_t imm)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->sbuf, .length = len, .lkey = c->smr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = len ? 1 : 0,
		.opcode = fin ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (m && len)
		memcpy(c->sbuf, m, len);
	if (fin)
		wr.imm_data = htobe32(imm);
	return ibv_post_send(c->id->qp, &wr, &bad);
}

void send_msg(struct hconn *c, uint32_t len, int fin)
{
	enum ibv_wc_status s;

	if (post_msg(c, NULL, len, fin, c->wrs))
		die("ibv_post_send");
	s = wait_wc(c, 1, H_STEP_MS);
	if (s != IBV_WC_SUCCESS) {
		fprintf(stderr, "%s: send: %s\n", prog, ibv_wc_status_str(s));
		exit(1);
	}
}

/*
 * After the connection dropped (wait_wc_for() returned -1): the failed
 * op's own completion may come just after the peer's disconnect (the
 * server disconnects a client whose access failed, and its DREQ can
 * beat the NAK's completion to us: seen on 6.12's rxe).  Within 2 s, the
 * first error that is not a flush, else a flush's status, else -1.
 */
static int wc_after_drop(struct hconn *c)
{
	uint64_t end = now_ms() + 2000;
	struct ibv_wc wc;
	int got = -1, n;

	while (now_ms() < end) {
		n = ibv_poll_cq(c->cq, 1, &wc);
		if (n < 0)
			fail("ibv_poll_cq");
		if (!n) {
			usleep(200);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS &&
		    wc.status != IBV_WC_WR_FLUSH_ERR) {
			c->last = wc;
			return wc.status;
		}
		if (wc.status == IBV_WC_WR_FLUSH_ERR)
			got = wc.status;
	}
	return got;
}

/* One RDMA WRITE or READ of @len bytes of the data buffer; its status. */
enum ibv_wc_status rdma_op(struct hconn *c, int write, uint64_t raddr,
			   uint32_t rkey, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->dbuf, .length = len, .lkey = c->dmr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1,
		.opcode = write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;
	int s;

	if (ibv_post_send(c->id->qp, &wr, &bad))
		die("ibv_post_send");
	c->wrs++;
	s = wait_wc_for(c, 1, H_STEP_MS);
	if (s < 0)
		s = wc_after_drop(c);
	if (s < 0)
		fail("no RDMA completion: timed out, or the connection dropped without one");
	return s;
}

void hello_init(struct ibpost_wire_hello *h, uint32_t depth,
		uint32_t recv_sge)
{
	memset(h, 0, sizeof(*h));
	h->magic = htobe32(IBPOST_WIRE_MAGIC);
	h->version = htobe16(IBPOST_WIRE_VERSION);
	/* Session jobs need it; it costs others nothing. */
	h->flags = htobe16(IBPOST_WIRE_HELLO_REGION);
	h->depth = htobe32(depth);
	h->recv_sge = htobe32(recv_sge);
}

/*
 * A well-formed job message in @buf: @num_sge send SGEs splitting
 * @msg_size evenly (the last takes the rest), then @recv_num_sge receive
 * SGEs the same way; a session (IBPOST_WIRE_SESSION) asks for a region of
 * @msg_size bytes.  Return its length.
 */
uint32_t job_build(void *buf, uint32_t op, uint32_t flags, uint32_t msg_size,
		   uint32_t depth, uint32_t num_sge, uint32_t recv_num_sge)
{
	struct ibpost_wire_job *job = buf;
	uint32_t len = sizeof(*job) +
		       (num_sge + recv_num_sge) * sizeof(job->sge[0]);
	uint32_t i, n, off, part;

	memset(job, 0, len);
	job->hdr.magic = htobe32(IBPOST_WIRE_MAGIC);
	job->hdr.version = htobe16(IBPOST_WIRE_VERSION);
	job->hdr.type = htobe16(IBPOST_WIRE_JOB);
	job->hdr.length = htobe32(len);
	job->op = htobe32(op);
	job->flags = htobe32(flags);
	job->msg_size = htobe32(msg_size);
	job->depth = htobe32(depth);
	job->num_sge = htobe32(num_sge);
	job->recv_num_sge = htobe32(recv_num_sge);
	if (flags & IBPOST_WIRE_SESSION)
		job->region_bytes = htobe64(msg_size);
	for (i = 0; i < num_sge + recv_num_sge; i++) {
		n = i < num_sge ? num_sge : recv_num_sge;
		part = msg_size / n;
		off = (i < num_sge ? i : i - num_sge) * part;
		job->sge[i].offset = htobe32(off);
		job->sge[i].length = htobe32(off + part * 2 > msg_size ?
					     msg_size - off : part);
	}
	return len;
}

/*
 * Connect as a valid client and run the job of a session (one slot of
 * @size bytes, remote read and write).  Fills @slot from ready.
 */
static void valid_session(struct hconn *c, const struct hopts *o,
			  struct ibpost_wire_slot *slot)
{
	struct ibpost_wire_hello hello;
	const struct ibpost_wire_ready *r;
	uint32_t jlen;
	enum ibv_wc_status s;
	int ret;

	hello_init(&hello, 1, 0);
	resolve(c, o->server, o->port);
	setup_qp(c, 8);
	ret = cm_connect(c, &hello, sizeof(hello));
	if (ret) {
		fprintf(stderr, "%s: the server did not accept (%d)\n", prog, ret);
		exit(1);
	}
	jlen = job_build(c->sbuf, IBPOST_OP_WRITE, IBPOST_WIRE_SESSION,
			 o->size, 1, 1, 0);
	send_msg(c, jlen, 0);
	s = wait_wc(c, 0, H_STEP_MS);
	if (s != IBV_WC_SUCCESS) {
		fprintf(stderr, "%s: ready: %s\n", prog, ibv_wc_status_str(s));
		exit(1);
	}
	r = (const void *)(c->rbuf + c->last.wr_id * c->rsz);
	if (c->last.byte_len < sizeof(*r) + sizeof(r->slot[0]) ||
	    be16toh(r->hdr.type) != IBPOST_WIRE_READY || r->st.err ||
	    be32toh(r->nslots) < 1) {
		fprintf(stderr, "%s: no slots in the answer (%u bytes, type %u, err %u, reason %u)\n",
			prog, c->last.byte_len, be16toh(r->hdr.type),
			be32toh(r->st.err), be32toh(r->st.reason));
		exit(1);
	}
	*slot = r->slot[0];
	post_recv(c, c->last.wr_id);
}

static int mode_hold(const struct hopts *o)
{
	struct ibpost_wire_slot slot;
	const struct ibpost_wire_result *res;
	struct hconn c = {};
	uint8_t pat = (uint8_t)(0x40 | (getpid() & 0x3f));
	uint32_t i, len = o->size, bad = 0;
	enum ibv_wc_status s;

	if (!o->until || len > H_BUF)
		fail("hold needs --until FILE and --size at most 4096");
	valid_session(&c, o, &slot);
	printf("slot 0 addr 0x%llx rkey 0x%x length %u\n",
	       (unsigned long long)be64toh(slot.addr), be32toh(slot.rkey),
	       be32toh(slot.length));
	fflush(stdout);
	for (i = 0; i < len; i++)
		c.dbuf[i] = (uint8_t)(pat + i);
	s = rdma_op(&c, 1, be64toh(slot.addr), be32toh(slot.rkey), len);
	if (s != IBV_WC_SUCCESS) {
		printf("hold: own write: %s (%d)\n", ibv_wc_status_str(s), s);
		return 1;
	}
	printf("hold: wrote pattern 0x%02x+i, holding\n", pat);
	fflush(stdout);
	hold_until(&c, o->until);
	memset(c.dbuf, 0, len);
	s = rdma_op(&c, 0, be64toh(slot.addr), be32toh(slot.rkey), len);
	if (s != IBV_WC_SUCCESS) {
		printf("hold: own read: %s (%d)\n", ibv_wc_status_str(s), s);
		return 1;
	}
	for (i = 0; i < len; i++)
		bad += c.dbuf[i] != (uint8_t)(pat + i);
	if (bad)
		printf("hold: data corrupted: %u bytes\n", bad);
	else
		printf("hold: data intact\n");
	send_msg(&c, 0, 1);
	s = wait_wc(&c, 0, H_STEP_MS);
	if (s != IBV_WC_SUCCESS) {
		printf("hold: result: %s (%d)\n", ibv_wc_status_str(s), s);
		return 1;
	}
	res = (const void *)(c.rbuf + c.last.wr_id * c.rsz);
	if (c.last.byte_len < sizeof(*res) ||
	    be16toh(res->hdr.type) != IBPOST_WIRE_RESULT) {
		printf("hold: result: bad message (%u bytes)\n", c.last.byte_len);
		return 1;
	}
	printf("hold: result err %u reason %u verify_errors %u\n",
	       be32toh(res->st.err), be32toh(res->st.reason),
	       be32toh(res->verify_errors));
	teardown(&c);
	return bad || res->st.err ? 1 : 0;
}

static int mode_access(const struct hopts *o)
{
	struct ibpost_wire_slot own;
	struct hconn c = {};
	enum ibv_wc_status s;
	int write;

	if (!o->op || !o->rkey || !o->len || o->len > H_BUF)
		fail("access needs --op, --rkey and --len (1..4096)");
	write = !strcmp(o->op, "write");
	if (!write && strcmp(o->op, "read"))
		fail("--op is write or read");
	valid_session(&c, o, &own);
	memset(c.dbuf, 0xee, o->len);
	s = rdma_op(&c, write, o->addr, o->rkey, o->len);
	printf("access %s: %s (%d)\n", o->op, ibv_wc_status_str(s), s);
	if (!write && s == IBV_WC_SUCCESS)
		printf("access read: first bytes %02x %02x %02x %02x\n",
		       c.dbuf[0], c.dbuf[1], c.dbuf[2], c.dbuf[3]);
	teardown(&c);
	return 0;
}

static int mode_connect(const struct hopts *o)
{
	static const uint8_t junk[16] = "not-your-token!";
	unsigned int i, rejected = 0, consumer = 0;
	int ret;

	for (i = 0; i < o->tries; i++) {
		struct hconn c = {};

		resolve(&c, o->server, o->port);
		setup_qp(&c, 8);
		ret = cm_connect(&c, junk, sizeof(junk));
		teardown(&c);
		if (!ret) {
			printf("connect: established after %u rejections\n",
			       rejected);
			return 0;
		}
		/* Not a rejection: the listener answered, then it failed. */
		if (ret < 0) {
			printf("connect: not rejected (then an error) after %u rejections\n",
			       rejected);
			return 0;
		}
		rejected++;
		/* IB CM reject reason 28: the listener's owner refused. */
		consumer += ret == 28;
		usleep(100000);
	}
	printf("connect: rejected %u times (consumer reject %u)\n", rejected,
	       consumer);
	return 3;
}

static void help(void)
{
	fprintf(stderr,
		"usage: %s hold --server ADDR [--port P] --until FILE [--size N]\n"
		"       %s access --server ADDR [--port P] --op write|read --addr A --rkey K --len N\n"
		"       %s connect --server ADDR --port P [--tries N]\n"
		"       %s join-race --server ADDR [--port P]\n"
		"       %s battery --server ADDR [--port P] [--conns N (200)]\n"
		"               [--max-per-addr N (8)] [--max-job-ms MS (600000)]\n"
		"               [--server2 ADDR (the server reached from another address)]\n",
		prog, prog, prog, prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "server", required_argument, NULL, 's' },
		{ "server2", required_argument, NULL, '2' },
		{ "port", required_argument, NULL, 'p' },
		{ "until", required_argument, NULL, 'u' },
		{ "size", required_argument, NULL, 'S' },
		{ "addr", required_argument, NULL, 'a' },
		{ "rkey", required_argument, NULL, 'k' },
		{ "len", required_argument, NULL, 'l' },
		{ "op", required_argument, NULL, 'o' },
		{ "tries", required_argument, NULL, 't' },
		{ "conns", required_argument, NULL, 'c' },
		{ "max-per-addr", required_argument, NULL, 'm' },
		{ "max-job-ms", required_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct hopts o = {
		.port = IBPOST_PEER_PORT, .size = 4096, .tries = 50,
		.conns = 200, .max_per_addr = 8, .max_job_ms = 600000,
	};
	int c;

	if (argc < 2)
		help();
	o.mode = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			o.server = optarg;
			break;
		case '2':
			o.server2 = optarg;
			break;
		case 'p':
			o.port = strtoul(optarg, NULL, 0);
			break;
		case 'u':
			o.until = optarg;
			break;
		case 'S':
			o.size = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			o.addr = strtoull(optarg, NULL, 0);
			break;
		case 'k':
			o.rkey = strtoul(optarg, NULL, 0);
			break;
		case 'l':
			o.len = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			o.op = optarg;
			break;
		case 't':
			o.tries = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			o.conns = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			o.max_per_addr = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			o.max_job_ms = strtoul(optarg, NULL, 0);
			break;
		default:
			help();
		}
	}
	if (!o.server || !o.port || !o.size)
		help();
	if (!strcmp(o.mode, "hold"))
		return mode_hold(&o);
	if (!strcmp(o.mode, "access"))
		return mode_access(&o);
	if (!strcmp(o.mode, "connect"))
		return mode_connect(&o);
	if (!strcmp(o.mode, "battery"))
		return mode_battery(&o);
	if (!strcmp(o.mode, "join-race"))
		return mode_join_race(&o);
	help();
	return 2;
}
