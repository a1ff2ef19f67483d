/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the client side of a job against ``ibpost serve`` (peer.c).
 */
#ifndef _IBPOST_PEER_H
#define _IBPOST_PEER_H

#include "core/client.h"

struct ibpost_job;

/**
 * struct ibpost_peer - the client side of a job against a server (peer.c).
 * @cl: the client of the server (core/client.c): connect parameters,
 *	hello, control channel, the server's number for the connection.
 * @fault: test faults this job injects.
 * @priv: private data of a connect request with bytes past the hello (a
 *	test fault).
 * @t_next: ktime (ns) of the next WR of the trickle fault.
 */
struct ibpost_peer {
	struct ibpost_client cl;
	u32 fault;
	u8 priv[sizeof(struct ibpost_wire_hello) + 4];
	u64 t_next;
};

void ibpost_peer_caps(struct ibpost_job *job, struct ibpost_conn_caps *caps);
void ibpost_peer_rejected(struct ibpost_job *job);
bool ibpost_peer_hold(struct ibpost_job *job);
int ibpost_peer_start(struct ibpost_job *job);
int ibpost_peer_fin(struct ibpost_job *job);
void ibpost_peer_free(struct ibpost_job *job);

#endif /* _IBPOST_PEER_H */
