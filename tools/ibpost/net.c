// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost tool: IPv4/IPv6 addresses and host names, with or without a port,
 * as 'run --connect', 'serve --addr' and 'blk map --connect' take them and
 * the events name them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ibpost.h"

/* An IPv4 or IPv6 address alone, numeric; false when it is neither. */
bool net_parse_addr(const char *s, struct net_addr *a)
{
	memset(a->addr, 0, sizeof(a->addr));
	if (inet_pton(AF_INET, s, a->addr) == 1) {
		a->family = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, s, a->addr) == 1) {
		a->family = AF_INET6;
		return true;
	}
	memset(a->addr, 0, sizeof(a->addr));
	return false;
}

/*
 * A host name through getaddrinfo(): its first IPv4 address (perftest's
 * default family, and what rdma_cm on rxe resolves best), else its first
 * IPv6 one.  NULL when it resolved, else why not.
 */
static const char *lookup_name(const char *host, struct net_addr *a)
{
	const struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai, *v4 = NULL, *v6 = NULL;
	static char why[160];
	int ret;

	/* getaddrinfo() takes inet_aton()'s "4096" (0.0.16.0): not here */
	if (host[strspn(host, "0123456789.")] == '\0')
		return "not an IPv4 address";
	ret = getaddrinfo(host, NULL, &hints, &res);
	if (ret) {
		snprintf(why, sizeof(why), "cannot resolve the host name: %s",
			 gai_strerror(ret));
		return why;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		if (ai->ai_family == AF_INET && !v4)
			v4 = ai;
		if (ai->ai_family == AF_INET6 && !v6)
			v6 = ai;
	}
	memset(a->addr, 0, sizeof(a->addr));
	if (v4) {
		a->family = AF_INET;
		memcpy(a->addr, &((struct sockaddr_in *)v4->ai_addr)->sin_addr, 4);
	} else if (v6) {
		a->family = AF_INET6;
		memcpy(a->addr, &((struct sockaddr_in6 *)v6->ai_addr)->sin6_addr, 16);
	}
	freeaddrinfo(res);
	return a->family ? NULL : "the host name has no IPv4 or IPv6 address";
}

/* An address or a host name (resolved); NULL when it is one, else why not. */
const char *net_parse_host(const char *s, struct net_addr *a)
{
	if (!*s)
		return "empty";
	if (net_parse_addr(s, a))
		return NULL;
	if (strchr(s, ':'))
		return "not an IPv6 address";
	return lookup_name(s, a);
}

/*
 * "ADDR[/PREFIX]" (IPv4 or IPv6; no prefix: the address alone) into @a and
 * @prefix, the bits past the prefix cleared; the reason when it is not.
 */
const char *net_parse_cidr(const char *s, struct net_addr *a,
			   unsigned int *prefix)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(s, '/');
	unsigned long v, max, i;
	char *end;

	if (strlen(s) >= sizeof(buf))
		return "too long";
	strcpy(buf, s);
	if (slash)
		buf[slash - s] = '\0';
	if (!net_parse_addr(buf, a))
		return "not an IPv4 or IPv6 address";
	max = a->family == AF_INET ? 32 : 128;
	if (!slash) {
		*prefix = max;
		return NULL;
	}
	if (slash[1] < '0' || slash[1] > '9')
		return "the prefix is not a number";
	errno = 0;
	v = strtoul(slash + 1, &end, 10);
	if (errno || *end)
		return "the prefix is not a number";
	if (v > max)
		return a->family == AF_INET ? "the prefix is above 32" :
		       "the prefix is above 128";
	*prefix = v;
	for (i = v; i < max; i++)
		a->addr[i / 8] &= ~(0x80 >> (i % 8));
	return NULL;
}

/* "1..65535" into @a->port; the reason when it is not. */
static const char *parse_port(const char *s, struct net_addr *a)
{
	unsigned long v;
	char *end;

	if (!*s)
		return "no port after ':'";
	if (*s < '0' || *s > '9')
		return "the port is not a number";
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end)
		return "the port is not a number";
	if (!v || v > 65535)
		return "the port must be 1 to 65535";
	a->port = v;
	return NULL;
}

/* "[V6]" or "[V6]:PORT". */
static const char *parse_bracketed(const char *s, struct net_addr *a)
{
	const char *close = strchr(s, ']');
	char host[INET6_ADDRSTRLEN + 1];
	size_t len;

	if (!close)
		return "no ']' after the IPv6 address";
	len = close - (s + 1);
	if (!len || len >= sizeof(host))
		return "not an IPv6 address between [ and ]";
	memcpy(host, s + 1, len);
	host[len] = '\0';
	if (inet_pton(AF_INET6, host, a->addr) != 1)
		return "not an IPv6 address between [ and ]";
	a->family = AF_INET6;
	if (!close[1])
		return NULL;
	if (close[1] != ':')
		return "only ':PORT' may follow ']'";
	return parse_port(close + 2, a);
}

/* "A.B.C.D", "A.B.C.D:PORT", "NAME" or "NAME:PORT". */
static const char *parse_v4(const char *s, const char *colon,
			    struct net_addr *a)
{
	size_t len = colon ? (size_t)(colon - s) : strlen(s);
	char host[256];
	const char *why;

	if (!len)
		return "no host before ':'";
	if (len >= sizeof(host))
		return "the host name is too long";
	memcpy(host, s, len);
	host[len] = '\0';
	if (colon) {
		why = parse_port(colon + 1, a);
		if (why)
			return why;
	}
	if (inet_pton(AF_INET, host, a->addr) == 1) {
		a->family = AF_INET;
		return NULL;
	}
	return lookup_name(host, a);
}

/*
 * HOST[:PORT]: "A.B.C.D", "A.B.C.D:PORT", "NAME", "NAME:PORT", "[V6]",
 * "[V6]:PORT" or a bare IPv6 address (no port); a NAME through
 * getaddrinfo().  NULL when it parsed, else why not; @a->port is 0 when no
 * port was given.
 */
const char *net_parse_hostport(const char *s, struct net_addr *a)
{
	const char *colon = strchr(s, ':');

	memset(a, 0, sizeof(*a));
	if (!*s)
		return "empty";
	if (*s == '[')
		return parse_bracketed(s, a);
	if (!colon || !strchr(colon + 1, ':'))
		return parse_v4(s, colon, a);
	if (inet_pton(AF_INET6, s, a->addr) != 1) {
		memset(a->addr, 0, sizeof(a->addr));
		return "not an IPv6 address (with a port, write [ADDR]:PORT)";
	}
	a->family = AF_INET6;
	return NULL;
}

/* @addr of @family as text; "?" for an unknown family. */
const char *net_addr_str(char *buf, size_t len, unsigned int family,
			 const unsigned char *addr)
{
	int af = family == AF_INET ? AF_INET : AF_INET6;

	if ((family != AF_INET && family != AF_INET6) ||
	    !inet_ntop(af, addr, buf, len))
		snprintf(buf, len, "?");
	return buf;
}
