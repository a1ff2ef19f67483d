// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost tool: the netdev of an RDMA device's port from RDMA netlink
 * (NETLINK_RDMA, RDMA_NLDEV_CMD_PORT_GET: what 'rdma link show' prints).
 * devpick.c asks it when no GID table in sysfs names the netdev: iWARP
 * devices (siw) keep none there on 6.1 (config_non_roce_gid_cache()).
 */
#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "ibpost.h"

#define NL_BUF	16384

struct nl_req {
	struct nlmsghdr h;
	char attrs[64];
};

/* Append a u32 attribute to @r. */
static void put_u32(struct nl_req *r, unsigned short type, uint32_t v)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->h.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + sizeof(v);
	memcpy((char *)a + NLA_HDRLEN, &v, sizeof(v));
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* The attribute @type of message @h, NULL when absent. */
static const struct nlattr *get_attr(const struct nlmsghdr *h,
				     unsigned short type)
{
	const char *p = (const char *)NLMSG_DATA(h);
	const char *end = (const char *)h + h->nlmsg_len;
	const struct nlattr *a;

	while (p + NLA_HDRLEN <= end) {
		a = (const struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		p += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

/* A string attribute into @buf; false when absent or not terminated. */
static bool attr_str(const struct nlmsghdr *h, unsigned short type, char *buf,
		     size_t len)
{
	const struct nlattr *a = get_attr(h, type);
	size_t n;

	if (!a)
		return false;
	n = a->nla_len - NLA_HDRLEN;
	if (!n || n > len || ((const char *)a + NLA_HDRLEN)[n - 1])
		return false;
	memcpy(buf, (const char *)a + NLA_HDRLEN, n);
	return true;
}

static bool attr_u32(const struct nlmsghdr *h, unsigned short type,
		     uint32_t *v)
{
	const struct nlattr *a = get_attr(h, type);

	if (!a || a->nla_len < NLA_HDRLEN + sizeof(*v))
		return false;
	memcpy(v, (const char *)a + NLA_HDRLEN, sizeof(*v));
	return true;
}

/*
 * Send @r and read its answers into @buf until NLMSG_DONE, an error or,
 * without NLM_F_DUMP, the first answer; @match is called on each and
 * stops the walk when it returns true.  0 when one matched, -1 else.
 */
static int nl_ask(int fd, struct nl_req *r, char *buf,
		  bool (*match)(const struct nlmsghdr *h, void *arg),
		  void *arg)
{
	const struct nlmsghdr *h;
	ssize_t n;
	int len;

	if (send(fd, r, r->h.nlmsg_len, 0) < 0)
		return -1;
	for (;;) {
		n = recv(fd, buf, NL_BUF, 0);
		if (n <= 0)
			return -1;
		len = n;
		for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE ||
			    h->nlmsg_type == NLMSG_ERROR)
				return -1;
			if (match(h, arg))
				return 0;
			if (!(r->h.nlmsg_flags & NLM_F_DUMP))
				return -1;
		}
	}
}

struct dev_find {
	const char *name;
	uint32_t index;
};

static bool match_dev(const struct nlmsghdr *h, void *arg)
{
	struct dev_find *f = arg;
	char name[IBPOST_NAME_MAX];

	return attr_str(h, RDMA_NLDEV_ATTR_DEV_NAME, name, sizeof(name)) &&
	       !strcmp(name, f->name) &&
	       attr_u32(h, RDMA_NLDEV_ATTR_DEV_INDEX, &f->index);
}

struct ndev_find {
	char *name;
	size_t len;
};

static bool match_ndev(const struct nlmsghdr *h, void *arg)
{
	struct ndev_find *f = arg;

	return attr_str(h, RDMA_NLDEV_ATTR_NDEV_NAME, f->name, f->len);
}

static void req_init(struct nl_req *r, unsigned int cmd, unsigned short flags)
{
	memset(r, 0, sizeof(*r));
	r->h.nlmsg_len = NLMSG_LENGTH(0);
	r->h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	r->h.nlmsg_flags = NLM_F_REQUEST | flags;
	r->h.nlmsg_seq = 1;
}

/* A NETLINK_RDMA socket whose reads give up after 2 s; -1 on error. */
static int nl_open(void)
{
	const struct timeval tv = { .tv_sec = 2 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);

	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The netdev of port @port of @dev into @ifname: 0, or -1 (none known). */
int rdmanl_port_netdev(const char *dev, unsigned int port, char *ifname,
		       size_t len)
{
	static union {
		struct nlmsghdr h;	/* aligns the messages */
		char b[NL_BUF];
	} buf;
	struct dev_find df = { .name = dev };
	struct ndev_find nf = { .name = ifname, .len = len };
	struct nl_req r;
	int fd, ret = -1;

	fd = nl_open();
	if (fd < 0)
		return -1;
	req_init(&r, RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
	if (nl_ask(fd, &r, buf.b, match_dev, &df))
		goto out;
	/* the rest of the dump is not read: a new socket for the port */
	close(fd);
	fd = nl_open();
	if (fd < 0)
		return -1;
	req_init(&r, RDMA_NLDEV_CMD_PORT_GET, 0);
	put_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, df.index);
	put_u32(&r, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	ret = nl_ask(fd, &r, buf.b, match_ndev, &nf);
out:
	close(fd);
	return ret;
}
