/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the client of ``ibpost serve`` (client.c), for jobs (job/peer.c)
 * and sessions (session/peer.c) alike.
 */
#ifndef _IBPOST_CLIENT_H
#define _IBPOST_CLIENT_H

#include <uapi/ibpost.h>

#include "core/ctl.h"
#include "core/pair.h"
#include "lib/wire.h"

/**
 * struct ibpost_client - the client side of one connection to a server.
 * @cp: connect parameters, and the rejection's words.
 * @hello: private data of the connect request.
 * @ctl: the control channel on the connection's QP.
 * @conn: the server's number for the connection (the ready's header).
 */
struct ibpost_client {
	struct ibpost_conn_peer cp;
	struct ibpost_wire_hello hello;
	struct ibpost_ctl ctl;
	u32 conn;
};

void ibpost_client_caps(struct ibpost_client *c, u32 depth, u32 recv_sge,
			u16 port, u32 timeout_ms,
			struct ibpost_conn_caps *caps);
bool ibpost_client_rejected(const struct ibpost_client *c,
			    struct ibpost_status *st);
int ibpost_client_open(struct ibpost_client *c, struct ibpost_ep *ep,
		       size_t slot_size);
int ibpost_client_send(struct ibpost_client *c, u32 len);
int ibpost_client_fin(struct ibpost_client *c, u32 imm);
const void *ibpost_client_answer(struct ibpost_client *c, struct ibpost_ep *ep,
				 u16 type, u32 min, u32 ms,
				 int (*stop)(void *arg), void *arg, u32 *len,
				 struct ibpost_status *st, int *err);
void ibpost_client_release(struct ibpost_client *c, const void *msg,
			   bool repost);
void ibpost_client_close(struct ibpost_client *c);

/**
 * ibpost_client_sbuf() - where the next message to the server is built.
 * @c: the client, open.
 *
 * Return: the send slot of the control channel.
 */
static inline void *ibpost_client_sbuf(struct ibpost_client *c)
{
	return ibpost_ctl_sbuf(&c->ctl);
}

#endif /* _IBPOST_CLIENT_H */
