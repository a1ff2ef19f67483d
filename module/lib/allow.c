// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: who may connect to `ibpost serve` (struct ibpost_serve.allow).
 *
 * The list is copied and checked once, when the server starts; each
 * connect request's source address is then matched against it before a
 * byte of the client's hello is looked at.  An empty list lets every
 * address connect (the default).  Matching is by prefix only: the address
 * rdma_cm reports for the request (the IP header's source on RoCE and
 * iWARP), no name lookups.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>
#include <net/ipv6.h>

#include "lib/abi.h"
#include "lib/allow.h"

/**
 * ibpost_allow_check() - check the entries of an allow list.
 * @al: the entries.
 * @n: their number (at most IBPOST_SERVE_ALLOW_MAX, checked by the caller).
 * @st: the refusal: IBPOST_R_CM_ADDR (family or prefix; @value the entry's
 *	index, @limit its largest prefix) or IBPOST_R_RESERVED (@value the
 *	index).
 *
 * Return: 0 or -EINVAL.
 */
int ibpost_allow_check(const struct ibpost_serve_allow *al, u32 n,
		       struct ibpost_status *st)
{
	u32 i, max;

	for (i = 0; i < n; i++) {
		if (al[i].family != AF_INET && al[i].family != AF_INET6) {
			ibpost_status_set(st, IBPOST_R_CM_ADDR, i, 0);
			return -EINVAL;
		}
		max = al[i].family == AF_INET ? 32 : 128;
		if (al[i].prefix > max) {
			ibpost_status_set(st, IBPOST_R_CM_ADDR, i, max);
			return -EINVAL;
		}
		if (!ibpost_mem_is_zero(al[i].reserved,
					sizeof(al[i].reserved))) {
			ibpost_status_set(st, IBPOST_R_RESERVED, i, 0);
			return -EINVAL;
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_allow_check);

/* The first @bits bits of @a and @b are equal. */
static bool ibpost_allow_prefix_eq(const u8 *a, const u8 *b, u32 bits)
{
	u32 bytes = bits / 8, rest = bits % 8;
	u8 mask;

	if (memcmp(a, b, bytes))
		return false;
	if (!rest)
		return true;
	mask = (u8)(0xff << (8 - rest));
	return !((a[bytes] ^ b[bytes]) & mask);
}

/**
 * ibpost_allow_match() - may a client of this address connect?
 * @al: the allow list (checked with ibpost_allow_check()).
 * @n: its entries; 0 lets every address connect.
 * @sa: the client's address (AF_INET or AF_INET6; an IPv4-mapped IPv6
 *	address is taken as the IPv4 address it holds).
 *
 * Return: true when @n is 0 or an entry holds the address.
 */
bool ibpost_allow_match(const struct ibpost_serve_allow *al, u32 n,
			const struct sockaddr *sa)
{
	const struct sockaddr_in6 *in6 = (const void *)sa;
	const struct sockaddr_in *in4 = (const void *)sa;
	u16 family = sa->sa_family;
	const u8 *addr;
	u32 i;

	if (!n)
		return true;
	if (family == AF_INET) {
		addr = (const u8 *)&in4->sin_addr;
	} else if (family == AF_INET6) {
		addr = in6->sin6_addr.s6_addr;
		if (ipv6_addr_v4mapped(&in6->sin6_addr)) {
			family = AF_INET;
			addr += 12;
		}
	} else {
		return false;
	}
	for (i = 0; i < n; i++)
		if (al[i].family == family &&
		    ibpost_allow_prefix_eq(al[i].addr, addr, al[i].prefix))
			return true;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_allow_match);

/**
 * ibpost_allow_get() - copy and check the allow list of a server's start.
 * @a: the arguments (@a->allow a user pointer to @a->nallow entries).
 * @out: out: the list, kfree() it (NULL when empty).
 * @st: the refusal: IBPOST_R_COUNT, IBPOST_R_FAULT, IBPOST_R_CM_ADDR or
 *	IBPOST_R_RESERVED.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL, -EFAULT or -ENOMEM.
 */
int ibpost_allow_get(const struct ibpost_serve *a,
		     struct ibpost_serve_allow **out, struct ibpost_status *st)
{
	struct ibpost_serve_allow *al;
	int ret;

	*out = NULL;
	if (a->nallow > IBPOST_SERVE_ALLOW_MAX) {
		ibpost_status_set(st, IBPOST_R_COUNT, a->nallow,
				  IBPOST_SERVE_ALLOW_MAX);
		return -EINVAL;
	}
	if (!a->nallow) {
		if (!a->allow)
			return 0;
		/* a list without entries is a caller's mistake */
		ibpost_status_set(st, IBPOST_R_CM_ADDR, 0, 0);
		return -EINVAL;
	}
	al = memdup_user(u64_to_user_ptr(a->allow),
			 array_size(a->nallow, sizeof(*al)));
	if (IS_ERR(al)) {
		ret = PTR_ERR(al);
		ibpost_status_set(st, ret == -EFAULT ? IBPOST_R_FAULT :
				  IBPOST_R_NOMEM, a->nallow, 0);
		return ret;
	}
	ret = ibpost_allow_check(al, a->nallow, st);
	if (ret) {
		kfree(al);
		return ret;
	}
	*out = al;
	return 0;
}
