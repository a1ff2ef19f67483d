// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: the control channel of a peer connection.
 *
 * Both sides of `ibpost run --connect` / `ibpost serve` keep a few
 * receives posted on their QP and send one message at a time from a send
 * slot: jobs, answers and results (wire.h), and zero-byte SEND_WITH_IMM
 * messages (fin, keep-alive).  Buffers are ordinary ibpost slots, so they
 * are counted in debugfs like every other page ibpost holds.  Completions
 * are reaped by the owner's thread polling its CQ; handlers only record.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <kunit/visibility.h>

#include "lib/abi.h"
#include "core/ctl.h"

static void ibpost_ctl_rx_record(struct ibpost_ctl *ctl,
				 struct ibpost_ctl_rx *rx, struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS) {
		if (ibpost_ep_wc_error(ctl->ep, wc) &&
		    ctl->wc_status == IB_WC_SUCCESS)
			ctl->wc_status = wc->status;
		return;
	}
	if (!wc->byte_len) {
		/* fin or keep-alive: note it and receive the next one */
		ctl->zimm = wc->wc_flags & IB_WC_WITH_IMM ?
			    be32_to_cpu(wc->ex.imm_data) : 0;
		ctl->zcount++;
		if (!READ_ONCE(ctl->ep->draining))
			ibpost_ctl_post_rx(ctl, rx->idx);
		return;
	}
	if (ctl->msg >= 0) {
		/* one message at a time: the peer broke the protocol */
		if (ctl->wc_status == IB_WC_SUCCESS)
			ctl->wc_status = IB_WC_GENERAL_ERR;
		return;
	}
	ctl->msg_len = wc->byte_len;
	WRITE_ONCE(ctl->msg, rx->idx);
}

static void ibpost_ctl_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_ctl_rx *rx = container_of(wc->wr_cqe,
						struct ibpost_ctl_rx, cqe);
	struct ibpost_ctl *ctl = rx->ctl;

	ibpost_ctl_rx_record(ctl, rx, wc);
	ibpost_ep_wake(ctl->ep);
}

static void ibpost_ctl_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_ctl *ctl = container_of(wc->wr_cqe, struct ibpost_ctl,
					      scqe);

	WRITE_ONCE(ctl->sends_out, ctl->sends_out - 1);
	ibpost_ep_credit_give(ctl->ep, 1);
	if (wc->status != IB_WC_SUCCESS && ibpost_ep_wc_error(ctl->ep, wc) &&
	    ctl->wc_status == IB_WC_SUCCESS)
		WRITE_ONCE(ctl->wc_status, wc->status);
	ibpost_ep_wake(ctl->ep);
}

/**
 * ibpost_ctl_size() - slot size for messages of a job of @nslots slots.
 * @nslots: remote slots the job may be given.
 *
 * Return: bytes of each control slot, a multiple of PAGE_SIZE.
 */
size_t ibpost_ctl_size(u32 nslots)
{
	size_t n = max3(ibpost_wire_ready_size(nslots), IBPOST_WIRE_JOB_MAX,
			ibpost_wire_result_size(IBPOST_WIRE_CPU));

	return PAGE_ALIGN(n);
}

/**
 * ibpost_ctl_init() - allocate the slots and post every receive.
 * @ctl: zeroed channel.
 * @ep: an endpoint with @nrx receive WRs free.
 * @size: bytes per slot (ibpost_ctl_size()).
 * @nrx: receives to post, 1..IBPOST_CTL_RX.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno; on failure ibpost_ctl_free() cleans up
 * (after the QP was drained when a receive had been posted).
 */
int ibpost_ctl_init(struct ibpost_ctl *ctl, struct ibpost_ep *ep, size_t size,
		    u32 nrx)
{
	u32 i;
	int ret;

	ctl->ep = ep;
	ctl->msg = -1;
	ctl->nrx = min_t(u32, nrx, IBPOST_CTL_RX);
	ctl->scqe.done = ibpost_ctl_send_done;
	ret = ibpost_buf_alloc(&ctl->buf, ep->ibdev, IBPOST_CTL_RX + 1, size);
	if (ret)
		return ret;
	for (i = 0; i < ctl->nrx; i++) {
		ctl->rx[i].ctl = ctl;
		ctl->rx[i].idx = i;
		ctl->rx[i].cqe.done = ibpost_ctl_rx_done;
		ret = ibpost_ctl_post_rx(ctl, i);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * ibpost_ctl_free() - free the slots (the QP drained, nothing in flight).
 * @ctl: the channel (may be unallocated).
 */
void ibpost_ctl_free(struct ibpost_ctl *ctl)
{
	ibpost_buf_free(&ctl->buf);
}

/**
 * ibpost_ctl_post_rx() - post the receive of slot @idx.
 * @ctl: the channel.
 * @idx: slot below IBPOST_CTL_RX.
 *
 * Return: 0 or the provider's errno.
 */
int ibpost_ctl_post_rx(struct ibpost_ctl *ctl, u32 idx)
{
	struct ib_sge sge = {
		.addr = ctl->buf.dma[idx],
		.length = ctl->buf.slot_size,
		.lkey = ctl->ep->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &ctl->rx[idx].cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	ibpost_buf_for_device(&ctl->buf, idx);
	return ibpost_ep_post_recv(ctl->ep, &wr);
}

/**
 * ibpost_ctl_sbuf() - the send slot, to build the next message in.
 * @ctl: the channel, with no send in flight.
 *
 * Return: its kernel address.
 */
void *ibpost_ctl_sbuf(struct ibpost_ctl *ctl)
{
	return ibpost_buf_va(&ctl->buf, IBPOST_CTL_RX);
}

/**
 * ibpost_ctl_send() - send the message in the send slot.
 * @ctl: the channel.
 * @len: its bytes, 0 for a zero-byte SEND_WITH_IMM.
 * @zero_imm: send a zero-byte message with immediate data @imm instead.
 * @imm: the immediate data.
 *
 * Return: 0, -ENOSPC when the send queue has no slot for it, or the
 * provider's errno; the completion is reaped by the owner's polling
 * (@ctl->sends_out drops back).
 */
int ibpost_ctl_send(struct ibpost_ctl *ctl, u32 len, bool zero_imm, u32 imm)
{
	struct ib_sge sge = {
		.addr = ctl->buf.dma[IBPOST_CTL_RX],
		.length = len,
		.lkey = ctl->ep->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &ctl->scqe,
		.sg_list = &sge,
		.num_sge = zero_imm ? 0 : 1,
		.opcode = zero_imm ? IB_WR_SEND_WITH_IMM : IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	int ret;

	if (zero_imm)
		wr.ex.imm_data = cpu_to_be32(imm);
	else
		ibpost_buf_for_device(&ctl->buf, IBPOST_CTL_RX);
	if (!ibpost_ep_credit_take(ctl->ep, 1))
		return -ENOSPC;
	/* counted first: with a softirq CQ the completion may come at once */
	WRITE_ONCE(ctl->sends_out, ctl->sends_out + 1);
	ret = ibpost_ep_post(ctl->ep, &wr, NULL);
	if (ret) {
		WRITE_ONCE(ctl->sends_out, ctl->sends_out - 1);
		ibpost_ep_credit_give(ctl->ep, 1);
	}
	return ret;
}

/**
 * ibpost_ctl_take() - the message received, if any.
 * @ctl: the channel.
 * @len: out: its bytes.
 *
 * Return: the message (give it back with ibpost_ctl_release()) or NULL.
 */
const void *ibpost_ctl_take(struct ibpost_ctl *ctl, u32 *len)
{
	if (ctl->msg < 0)
		return NULL;
	ibpost_buf_for_cpu(&ctl->buf, ctl->msg);
	*len = ctl->msg_len;
	return ibpost_buf_va(&ctl->buf, ctl->msg);
}

/**
 * ibpost_ctl_release() - done with a message taken.
 * @ctl: the channel.
 * @msg: what ibpost_ctl_take() returned.
 * @repost: post its receive again (else the channel has one less).
 */
void ibpost_ctl_release(struct ibpost_ctl *ctl, const void *msg, bool repost)
{
	int idx = ctl->msg;

	if (!msg || idx < 0)
		return;
	ctl->msg = -1;
	if (repost && !READ_ONCE(ctl->ep->draining) &&
	    ibpost_ctl_post_rx(ctl, idx) &&
	    ctl->wc_status == IB_WC_SUCCESS)
		ctl->wc_status = IB_WC_GENERAL_ERR;
}

/**
 * ibpost_ctl_connect_caps() - the hello and the initiator's queues of a
 *	connection to ``ibpost serve`` (jobs and sessions alike).
 * @cp: connect parameters to fill (they point at @hello).
 * @hello: the connect request's private data to fill.
 * @depth: the client's send-queue depth.
 * @recv_sge: SGEs per receive WR the server must give the QP.
 * @port: the server's port, 0 for IBPOST_PEER_PORT.
 * @timeout_ms: rdma_cm step timeout, 0 for IBPOST_CM_TIMEOUT_MS.
 * @caps: the initiator's queue sizes, completed for the control channel.
 */
void ibpost_ctl_connect_caps(struct ibpost_conn_peer *cp,
			     struct ibpost_wire_hello *hello, u32 depth,
			     u32 recv_sge, u16 port, u32 timeout_ms,
			     struct ibpost_conn_caps *caps)
{
	hello->magic = cpu_to_be32(IBPOST_WIRE_MAGIC);
	hello->version = cpu_to_be16(IBPOST_WIRE_VERSION);
	hello->depth = cpu_to_be32(depth);
	hello->recv_sge = cpu_to_be32(recv_sge);
	cp->port = port ? port : IBPOST_PEER_PORT;
	cp->timeout_ms = timeout_ms ? timeout_ms : IBPOST_CM_TIMEOUT_MS;
	cp->priv = hello;
	cp->priv_len = sizeof(*hello);
	caps->peer = cp;
	caps->recv_wr = IBPOST_CTL_RX;
	caps->recv_sge = 1;
	caps->target_send_wr = 0;
	caps->cm_timeout_ms = cp->timeout_ms;
}
