// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run without --dev: the RDMA device a job uses, found in userspace
 * from sysfs.  With an address (--connect HOST, --cm ADDR) it is the device
 * whose port's GID table lists the netdev the route to that address leaves
 * from (/sys/class/infiniband/DEV/ports/P/gid_attrs/ndevs/I, or RDMA
 * netlink for an iWARP port, rdmanl.c); without one,
 * the first device (by name) with an ACTIVE port, as perftest takes the
 * first device it finds.
 *
 * IBPOST_SYSFS_IB names another directory than /sys/class/infiniband: the
 * host test (tools/tests/host/cli.sh) builds devices there.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ibpost.h"

#define IB_SYSFS	"/sys/class/infiniband"

static const char *ib_root(void)
{
	const char *r = getenv("IBPOST_SYSFS_IB");

	return r && *r ? r : IB_SYSFS;
}

/*
 * "ROOT/@dev/ports[/@port[/@what[/@idx]]]" (a NULL part ends it) into
 * @buf; false when it does not fit.
 */
static bool sys_path(char *buf, size_t len, const char *dev, const char *port,
		     const char *what, const char *idx)
{
	int n;

	n = snprintf(buf, len, "%s/%s/ports", ib_root(), dev);
	if (port && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, "/%s", port);
	if (port && what && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, "/%s", what);
	if (port && what && idx && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, "/%s", idx);
	return n >= 0 && (size_t)n < len;
}

/* @s into @buf of @len; false (and @buf unchanged) when it does not fit. */
static bool copy_name(char *buf, size_t len, const char *s)
{
	if (strlen(s) >= len)
		return false;
	strcpy(buf, s);
	return true;
}

static int not_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* The entries of @path sorted by name (devices) or number (ports); -1. */
static int list_dir(const char *path, struct dirent ***ents)
{
	return scandir(path, ents, not_dot, alphasort);
}

static void free_list(struct dirent **ents, int n)
{
	while (n > 0)
		free(ents[--n]);
	free(ents);
}

/* Is port @port of @dev ACTIVE ("4: ACTIVE" in its state file)? */
static bool port_active(const char *dev, const char *port)
{
	char path[512], st[64];

	return sys_path(path, sizeof(path), dev, port, "state", NULL) &&
	       !sysfs_read(path, st, sizeof(st)) && strstr(st, "ACTIVE");
}

/* Does @dev have an ACTIVE port (@port, when not 0)? */
static bool dev_active(const char *dev, unsigned int port)
{
	struct dirent **ports;
	char path[512], num[16];
	bool active = false;
	int n, i;

	if (port) {
		snprintf(num, sizeof(num), "%u", port);
		return port_active(dev, num);
	}
	if (!sys_path(path, sizeof(path), dev, NULL, NULL, NULL))
		return false;
	n = list_dir(path, &ports);
	for (i = 0; i < n && !active; i++)
		active = port_active(dev, ports[i]->d_name);
	if (n >= 0)
		free_list(ports, n);
	return active;
}

/* The first device by name with an ACTIVE port; 0 or -1 (said why). */
static int pick_first_active(struct run_opts *o)
{
	struct dirent **devs;
	int n, i, found = -1;

	n = list_dir(ib_root(), &devs);
	for (i = 0; i < n && found < 0; i++)
		if (strlen(devs[i]->d_name) < sizeof(o->dev) &&
		    dev_active(devs[i]->d_name, o->port))
			found = i;
	if (found >= 0) {
		copy_name(o->dev, sizeof(o->dev), devs[found]->d_name);
		snprintf(o->dev_why, sizeof(o->dev_why),
			 "the first RDMA device with an ACTIVE port");
	} else {
		fprintf(stderr, "%s: run: no --dev given and no RDMA device has an ACTIVE port%s (%d under %s); see '%s devices'\n",
			prog, o->port ? " of that number" : "", n < 0 ? 0 : n,
			ib_root(), prog);
	}
	if (n >= 0)
		free_list(devs, n);
	return found >= 0 ? 0 : -1;
}

/*
 * The netdev traffic to @a leaves from: the interface holding the source
 * address the kernel's route to @a picks (a UDP socket connected to it
 * sends nothing), as rdma_resolve_addr() binds to it.  0, or -1 said why.
 */
static int route_netdev(const struct net_addr *a, const char *what,
			char *ifname, size_t len)
{
	struct sockaddr_storage dst = { 0 }, src;
	socklen_t slen = sizeof(src);
	struct ifaddrs *ifs, *i;
	char addr[INET6_ADDRSTRLEN];
	int fd, err = 0, found = 0;

	net_addr_str(addr, sizeof(addr), a->family, a->addr);
	if (a->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&dst;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(IBPOST_PEER_PORT);
		memcpy(&s4->sin_addr, a->addr, 4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&dst;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(IBPOST_PEER_PORT);
		memcpy(&s6->sin6_addr, a->addr, 16);
	}
	fd = socket(a->family, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&dst, sizeof(dst)) ||
	    getsockname(fd, (struct sockaddr *)&src, &slen))
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		fprintf(stderr, "%s: run: no --dev given and no route to %s (%s %s): %s; give --dev\n",
			prog, addr, what, addr, strerror(err));
		return -1;
	}
	if (getifaddrs(&ifs)) {
		fprintf(stderr, "%s: run: getifaddrs: %s\n", prog, strerror(errno));
		return -1;
	}
	for (i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != a->family)
			continue;
		if (a->family == AF_INET ?
		    memcmp(&((struct sockaddr_in *)i->ifa_addr)->sin_addr,
			   &((struct sockaddr_in *)&src)->sin_addr, 4) :
		    memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
			   &((struct sockaddr_in6 *)&src)->sin6_addr, 16))
			continue;
		if (found && strcmp(ifname, i->ifa_name)) {
			fprintf(stderr, "%s: run: no --dev given and the route to %s leaves from an address both %s and %s hold; give --dev\n",
				prog, addr, ifname, i->ifa_name);
			freeifaddrs(ifs);
			return -1;
		}
		snprintf(ifname, len, "%s", i->ifa_name);
		found = 1;
	}
	freeifaddrs(ifs);
	if (!found) {
		fprintf(stderr, "%s: run: no --dev given and no interface holds the source address of the route to %s; give --dev\n",
			prog, addr);
		return -1;
	}
	return 0;
}

/*
 * The netdevs of port @port of @dev: its GID table lists those of a RoCE
 * port (and their VLANs); an iWARP port's lists none on 6.1, so then the
 * port's netdev comes from RDMA netlink.  With @want, whether it is one of
 * them; without, the first into @ifname.  0 (found), or -1.
 */
static int port_netdevs(const char *dev, const char *port, const char *want,
			char *ifname, size_t len)
{
	char path[512], nd[IF_NAMESIZE + 2];
	struct dirent **gids;
	bool any = false;
	int n, i, found = -1;

	if (!sys_path(path, sizeof(path), dev, port, "gid_attrs/ndevs", NULL))
		return -1;
	n = list_dir(path, &gids);
	for (i = 0; i < n && found < 0; i++) {
		/* unused entries fail to read (EINVAL) */
		if (!sys_path(path, sizeof(path), dev, port, "gid_attrs/ndevs",
			      gids[i]->d_name) ||
		    sysfs_read(path, nd, sizeof(nd)) || !nd[0])
			continue;
		any = true;
		if (!want || !strcmp(nd, want))
			found = 0;
	}
	if (n >= 0)
		free_list(gids, n);
	if (!any && !rdmanl_port_netdev(dev, strtoul(port, NULL, 10), nd,
					sizeof(nd)))
		found = !want || !strcmp(nd, want) ? 0 : -1;
	if (!found && !want)
		snprintf(ifname, len, "%s", nd);
	return found;
}

/* Is port @port of @dev on @ifname? */
static bool port_has_netdev(const char *dev, const char *port,
			    const char *ifname)
{
	return !port_netdevs(dev, port, ifname, NULL, 0);
}

/* Devices with a port on one netdev: how many, the first two. */
struct dev_match {
	unsigned int n;
	char name[2][IBPOST_NAME_MAX];
	unsigned int port;		/* of the first */
};

static void match_add(struct dev_match *m, const char *dev, const char *port)
{
	if (m->n && !strcmp(m->name[m->n > 1], dev))
		return;		/* another port of the same device */
	if (m->n < 2)
		copy_name(m->name[m->n], sizeof(m->name[0]), dev);
	if (!m->n)
		m->port = strtoul(port, NULL, 10);
	m->n++;
}

/* The ports (@o->port, or all) of @dev whose GID table lists @ifname. */
static void match_dev(const struct run_opts *o, const char *dev,
		      const char *ifname, struct dev_match *all,
		      struct dev_match *active)
{
	struct dirent **ports;
	char path[512];
	int np, j;

	if (strlen(dev) >= IBPOST_NAME_MAX ||
	    !sys_path(path, sizeof(path), dev, NULL, NULL, NULL))
		return;
	np = list_dir(path, &ports);
	for (j = 0; j < np; j++) {
		if (o->port && strtoul(ports[j]->d_name, NULL, 10) != o->port)
			continue;
		if (!port_has_netdev(dev, ports[j]->d_name, ifname))
			continue;
		match_add(all, dev, ports[j]->d_name);
		if (port_active(dev, ports[j]->d_name))
			match_add(active, dev, ports[j]->d_name);
	}
	if (np >= 0)
		free_list(ports, np);
}

/*
 * The device with a port on @ifname: the one with an ACTIVE such port,
 * else the only one with any; 0 or -1 (said why: none, or ambiguous).
 */
static int pick_by_netdev(struct run_opts *o, const char *ifname,
			  const char *addr)
{
	struct dev_match all = { 0 }, active = { 0 };
	const struct dev_match *m;
	struct dirent **devs;
	int n, i;

	n = list_dir(ib_root(), &devs);
	for (i = 0; i < n; i++)
		match_dev(o, devs[i]->d_name, ifname, &all, &active);
	if (n >= 0)
		free_list(devs, n);
	m = active.n ? &active : &all;
	if (!m->n) {
		fprintf(stderr, "%s: run: no --dev given and no RDMA device has a GID on %s (the route to %s leaves from it); give --dev, or add one: rdma link add rxe_%s type rxe netdev %s\n",
			prog, ifname, addr, ifname, ifname);
		return -1;
	}
	if (m->n > 1) {
		fprintf(stderr, "%s: run: no --dev given and %s (the route to %s) is under more than one %sRDMA device: %s and %s%s; give --dev\n",
			prog, ifname, addr, active.n ? "ACTIVE " : "",
			m->name[0], m->name[1], m->n > 2 ? " at least" : "");
		return -1;
	}
	copy_name(o->dev, sizeof(o->dev), m->name[0]);
	if (!o->port)
		o->port = m->port;
	snprintf(o->dev_why, sizeof(o->dev_why), "the route to %s leaves from %s",
		 addr, ifname);
	return 0;
}

/* --dev when not given: 0, or -1 having said why there is none. */
int devpick(struct run_opts *o)
{
	const struct net_addr *a = NULL;
	struct net_addr cm;
	char ifname[IF_NAMESIZE + 1], addr[INET6_ADDRSTRLEN];
	const char *what = "--connect";

	if (o->dev[0])
		return 0;
	if (o->peer.family) {
		a = &o->peer;
	} else if (o->cm_family) {
		memset(&cm, 0, sizeof(cm));
		cm.family = o->cm_family;
		memcpy(cm.addr, o->cm_addr, sizeof(cm.addr));
		a = &cm;
		what = "--cm";
	}
	if (!a)
		return pick_first_active(o);
	if (route_netdev(a, what, ifname, sizeof(ifname)))
		return -1;
	return pick_by_netdev(o, ifname,
			      net_addr_str(addr, sizeof(addr), a->family,
					   a->addr));
}

/*
 * The address -R gives the loopback pair: the first IPv4 address of
 * @ifname, else its first IPv6 one that is not link-local; 0 or -1.
 */
static int netdev_addr(const char *ifname, struct run_opts *o)
{
	struct ifaddrs *ifs, *i;
	const struct in6_addr *a6;
	int fam;

	if (getifaddrs(&ifs))
		return -1;
	for (fam = AF_INET; !o->cm_family && fam; fam = fam == AF_INET ? AF_INET6 : 0) {
		for (i = ifs; i && !o->cm_family; i = i->ifa_next) {
			if (!i->ifa_addr || i->ifa_addr->sa_family != fam ||
			    strcmp(i->ifa_name, ifname))
				continue;
			if (fam == AF_INET) {
				memcpy(o->cm_addr,
				       &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
			} else {
				a6 = &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
				if (IN6_IS_ADDR_LINKLOCAL(a6))
					continue;
				memcpy(o->cm_addr, a6, 16);
			}
			o->cm_family = fam;
		}
	}
	freeifaddrs(ifs);
	return o->cm_family ? 0 : -1;
}

/*
 * -R (perftest's rdma_cm) on the loopback pair: connect it through rdma_cm
 * to the first address of the port's netdev, as --cm ADDR would; against a
 * server (--connect) and with --cm there is nothing to do.  0, or -1
 * having said why not.
 */
int devpick_rdma_cm(struct run_opts *o)
{
	unsigned int port = o->port ? o->port : 1;
	char ifname[IF_NAMESIZE + 2], num[16];

	if (!o->rdma_cm || o->peer.family || o->cm_family)
		return 0;
	snprintf(num, sizeof(num), "%u", port);
	if (port_netdevs(o->dev, num, NULL, ifname, sizeof(ifname))) {
		fprintf(stderr, "%s: run: -R/--rdma-cm: no netdev found for %s port %u (its GID table lists none), so no address to connect the loopback pair through rdma_cm; give --cm ADDR, or leave -R out (the pair connects directly)\n",
			prog, o->dev, port);
		return -1;
	}
	if (!strcmp(ifname, "lo")) {
		fprintf(stderr, "%s: run: -R/--rdma-cm: %s port %u is on lo: rdma_cm binds a loopback address to no RDMA device, so it cannot connect the pair there; leave -R out: the loopback pair connects directly\n",
			prog, o->dev, port);
		return -1;
	}
	if (netdev_addr(ifname, o)) {
		fprintf(stderr, "%s: run: -R/--rdma-cm: %s (the netdev of %s port %u) has no IPv4 or global IPv6 address for rdma_cm; add one, or leave -R out (the pair connects directly)\n",
			prog, ifname, o->dev, port);
		return -1;
	}
	return 0;
}
