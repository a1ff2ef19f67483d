// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: the client of `ibpost serve`, the one conversation jobs
 * (job/peer.c) and sessions (session/peer.c) hold with a server
 * (Documentation/wire.rst).
 *
 * The connect request carries the hello; once connected the client sends
 * one message (a job's description, or a session's region request), the
 * server answers READY, and at the end a zero-byte fin (its immediate the
 * WRs posted) is answered with a RESULT.  Every answer is waited for with
 * ibpost_ep_poll_until() (the endpoint's CQ polled, or its handlers
 * waited on) under a bound, a stop test of the caller's and the control
 * channel's first error, and its header checked before the caller reads
 * a field of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>

#include "lib/abi.h"
#include "core/client.h"

/**
 * ibpost_client_caps() - the hello and the connect parameters of a client.
 * @c: the client, zeroed.
 * @depth: the client's send-queue depth.
 * @recv_sge: SGEs per receive WR the server must give its QP.
 * @port: the server's port, 0 for IBPOST_PEER_PORT.
 * @timeout_ms: rdma_cm step timeout, 0 for IBPOST_CM_TIMEOUT_MS.
 * @caps: the initiator's queue sizes, completed for the control channel.
 */
void ibpost_client_caps(struct ibpost_client *c, u32 depth, u32 recv_sge,
			u16 port, u32 timeout_ms,
			struct ibpost_conn_caps *caps)
{
	ibpost_ctl_connect_caps(&c->cp, &c->hello, depth, recv_sge, port,
				timeout_ms, caps);
}

/**
 * ibpost_client_rejected() - the server's reason for rejecting the connect
 *	request.
 * @c: the client whose connect failed.
 * @st: out: the server's reason, value and limit.
 *
 * Return: true when the rejection carried an ibpost server's words
 * (@st untouched otherwise).
 */
bool ibpost_client_rejected(const struct ibpost_client *c,
			    struct ibpost_status *st)
{
	return ibpost_wire_reject_get(c->cp.rej, c->cp.rej_len, st);
}

/**
 * ibpost_client_open() - the control channel on a connected endpoint.
 * @c: the client.
 * @ep: its endpoint, connected to the server.
 * @slot_size: bytes of each control slot (room for the answer).
 *
 * Return: 0 or -ENOMEM.
 */
int ibpost_client_open(struct ibpost_client *c, struct ibpost_ep *ep,
		       size_t slot_size)
{
	return ibpost_ctl_init(&c->ctl, ep, slot_size, IBPOST_CTL_RX);
}

/**
 * ibpost_client_send() - send the message built in ibpost_client_sbuf().
 * @c: the client.
 * @len: its bytes.
 *
 * Return: 0 or the post's negative errno.
 */
int ibpost_client_send(struct ibpost_client *c, u32 len)
{
	return ibpost_ctl_send(&c->ctl, len, false, 0);
}

/**
 * ibpost_client_fin() - send the zero-byte fin.
 * @c: the client.
 * @imm: its immediate data (a job's WRs posted, modulo 2^32).
 *
 * Return: 0 or the post's negative errno.
 */
int ibpost_client_fin(struct ibpost_client *c, u32 imm)
{
	return ibpost_ctl_send(&c->ctl, 0, true, imm);
}

/* What ibpost_client_answer() waits with. */
struct ibpost_client_wait {
	struct ibpost_client *c;
	int (*stop)(void *arg);
	void *arg;
};

static bool ibpost_client_have_msg(void *arg)
{
	struct ibpost_ctl *ctl = &((struct ibpost_client_wait *)arg)->c->ctl;

	return READ_ONCE(ctl->msg) >= 0 && !READ_ONCE(ctl->sends_out);
}

static int ibpost_client_stop(void *arg)
{
	struct ibpost_client_wait *cw = arg;
	int ret = cw->stop ? cw->stop(cw->arg) : 0;

	if (!ret && READ_ONCE(cw->c->ctl.wc_status) != IB_WC_SUCCESS)
		ret = -EIO;
	return ret;
}

/* Waiting for the server: no need to spin. */
static void ibpost_client_idle(void *arg)
{
	ibpost_softirq_flush();
	usleep_range(20, 100);
}

/* The header of an answer of @type, at least @min bytes, checked. */
static int ibpost_client_check(struct ibpost_client *c,
			       const struct ibpost_wire_hdr *h, u32 len,
			       u16 type, u32 min, struct ibpost_status *st)
{
	int ret = ibpost_wire_hdr_check(h, len, type, st);

	if (ret)
		return ret;
	if (len < min) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, len, min);
		return -EPROTO;
	}
	if (type == IBPOST_WIRE_READY) {
		c->conn = be32_to_cpu(h->conn);
		return 0;
	}
	/* The result names the connection the ready named. */
	if (be32_to_cpu(h->conn) != c->conn) {
		ibpost_status_set(st, IBPOST_R_PEER_PROTO, be32_to_cpu(h->conn),
				  c->conn);
		return -EPROTO;
	}
	return 0;
}

/**
 * ibpost_client_answer() - wait for the server's answer and check it.
 * @c: the client, its message or fin sent.
 * @ep: its endpoint (its CQ is reaped, or its handlers waited on).
 * @type: IBPOST_WIRE_READY or IBPOST_WIRE_RESULT.
 * @min: the fewest bytes the answer may have.
 * @ms: how long the server may take.
 * @stop: the caller's stop test (a signal, device removal, a lost
 *	connection): 0 to go on, else the errno that ends the wait; may be
 *	NULL.
 * @arg: its argument.
 * @len: out: the answer's bytes.
 * @st: the reason of a malformed answer (IBPOST_R_PEER_PROTO,
 *	IBPOST_R_PEER_VERSION) or of a timeout (IBPOST_R_TIMEOUT, limit @ms).
 * @err: out: 0, or the negative errno: -ETIMEDOUT, what @stop returned,
 *	-EIO when the control channel failed, -EPROTO for a malformed
 *	answer.
 *
 * Context: process context; sleeps up to @ms.
 * Return: the answer (give it back with ibpost_client_release(), also when
 * @err says it is malformed), or NULL when none came.
 */
const void *ibpost_client_answer(struct ibpost_client *c, struct ibpost_ep *ep,
				 u16 type, u32 min, u32 ms,
				 int (*stop)(void *arg), void *arg, u32 *len,
				 struct ibpost_status *st, int *err)
{
	struct ibpost_client_wait cw = { .c = c, .stop = stop, .arg = arg };
	struct ibpost_ep_wait w = {
		.ep = { ep },
		.done = ibpost_client_have_msg,
		.stop = ibpost_client_stop,
		.idle = ibpost_client_idle,
		.arg = &cw,
		.deadline = jiffies + msecs_to_jiffies(ms),
	};
	const struct ibpost_wire_hdr *h;

	*err = ibpost_ep_poll_until(&w);
	if (*err == -ETIMEDOUT)
		ibpost_status_set(st, IBPOST_R_TIMEOUT, 0, ms);
	if (*err)
		return NULL;
	h = ibpost_ctl_take(&c->ctl, len);
	*err = ibpost_client_check(c, h, *len, type, min, st);
	return h;
}

/**
 * ibpost_client_release() - give an answer's slot back.
 * @c: the client.
 * @msg: from ibpost_client_answer().
 * @repost: receive into the slot again (false at the end).
 */
void ibpost_client_release(struct ibpost_client *c, const void *msg,
			   bool repost)
{
	ibpost_ctl_release(&c->ctl, msg, repost);
}

/**
 * ibpost_client_close() - free the control channel.
 * @c: the client; its QP drained.
 */
void ibpost_client_close(struct ibpost_client *c)
{
	ibpost_ctl_free(&c->ctl);
}
