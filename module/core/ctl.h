/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the control channel of a peer connection (both sides).
 */
#ifndef _IBPOST_CTL_H
#define _IBPOST_CTL_H

#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <uapi/ibpost.h>

#include "core/buf.h"
#include "core/ep.h"
#include "core/pair.h"
#include "lib/wire.h"

/* Control receives each side keeps posted. */
#define IBPOST_CTL_RX		4

struct ibpost_ctl;

/**
 * struct ibpost_ctl_rx - one control receive.
 * @cqe: completion entry.
 * @ctl: the channel.
 * @idx: its buffer slot.
 */
struct ibpost_ctl_rx {
	struct ib_cqe cqe;
	struct ibpost_ctl *ctl;
	u32 idx;
};

/**
 * struct ibpost_ctl - messages over SEND on a connected endpoint.
 * @ep: the endpoint (its drain state, its first error, its wake-ups).
 * @buf: slot i < IBPOST_CTL_RX receives, slot IBPOST_CTL_RX sends.
 * @nrx: receives posted by ibpost_ctl_init() (at most IBPOST_CTL_RX).
 * @rx: the receives.
 * @scqe: completion entry of the sends.
 * @sends_out: sends posted and not completed.
 * @msg: slot of a message received and not yet taken, -1 for none.
 * @msg_len: its bytes.
 * @zimm: immediate data of the last zero-byte message.
 * @zcount: zero-byte messages received.
 * @wc_status: first error completion of the channel's WRs, or
 *	IB_WC_GENERAL_ERR when the peer broke the protocol (IB_WC_SUCCESS:
 *	none).
 */
struct ibpost_ctl {
	struct ibpost_ep *ep;
	struct ibpost_buf buf;
	u32 nrx;
	struct ibpost_ctl_rx rx[IBPOST_CTL_RX];
	struct ib_cqe scqe;
	u32 sends_out;
	int msg;
	u32 msg_len;
	u32 zimm;
	u32 zcount;
	enum ib_wc_status wc_status;
};

int ibpost_ctl_init(struct ibpost_ctl *ctl, struct ibpost_ep *ep, size_t size,
		    u32 nrx);
void ibpost_ctl_free(struct ibpost_ctl *ctl);
int ibpost_ctl_post_rx(struct ibpost_ctl *ctl, u32 idx);
void *ibpost_ctl_sbuf(struct ibpost_ctl *ctl);
int ibpost_ctl_send(struct ibpost_ctl *ctl, u32 len, bool zero_imm, u32 imm);
const void *ibpost_ctl_take(struct ibpost_ctl *ctl, u32 *len);
void ibpost_ctl_release(struct ibpost_ctl *ctl, const void *msg, bool repost);
size_t ibpost_ctl_size(u32 nslots);

void ibpost_ctl_connect_caps(struct ibpost_conn_peer *cp,
			     struct ibpost_wire_hello *hello, u32 depth,
			     u32 recv_sge, u16 port, u32 timeout_ms,
			     struct ibpost_conn_caps *caps);

#endif /* _IBPOST_CTL_H */
