/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: who may connect to `ibpost serve` (allow.c).
 */
#ifndef _IBPOST_ALLOW_H
#define _IBPOST_ALLOW_H

#include <linux/socket.h>
#include <uapi/ibpost.h>

int ibpost_allow_check(const struct ibpost_serve_allow *al, u32 n,
		       struct ibpost_status *st);
bool ibpost_allow_match(const struct ibpost_serve_allow *al, u32 n,
			const struct sockaddr *sa);
int ibpost_allow_get(const struct ibpost_serve *a,
		     struct ibpost_serve_allow **out, struct ibpost_status *st);

#endif /* _IBPOST_ALLOW_H */
