// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost_blk: the control interface, /sys/class/ibpost-blk/ctl/ (as rnbd's
 * /sys/class/rnbd-client/ctl/; Documentation/blk.rst):
 *
 *  map_device    write "dev=RDMA size=BYTES[K|M|G] [queues=N] [depth=D]
 *                [port=P] [connect=ADDR [server_port=P]] [io_timeout=S]
 *                [ro=1] [serial=ID] [reconnect_delay=S]
 *                [ctrl_loss_tmo=S] [fast_io_fail_tmo=S]
 *                [resume=SESSION:GENERATION:TOKEN]": map a new device
 *                (connect=: on the memory of `ibpost serve` at ADDR,
 *                IPv4 or IPv6; resume=: the region the server keeps for
 *                a device unmapped with keep, not a new one); read: this
 *                usage
 *  unmap_device  write "ibpostbN": unmap it (-EBUSY while open or
 *                mounted); "ibpostbN keep": a device on a server's memory
 *                goes without the fin, so that the server keeps its
 *                region for its grant (read its resume attribute first:
 *                a client's reboot, ibpost-blk.service's stop)
 *  last_result   the outcome of the last write to either: "mapped
 *                ibpostbN" or "refused: REASON" (writes serialize on one
 *                lock: a tool that writes and then reads it sees its own
 *                unless another writer came in between)
 *  devices       the mapped devices, one name a line
 *
 * Every refusal is also an errno of the write and a line in the kernel log.
 * /dev/ibpost-blk (ctlfd.c) maps with the same line and answers on the
 * writer's own open file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/inet.h>
#include <linux/parser.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uuid.h>

#include "blk.h"

static struct class *ibpost_blk_class;
static struct device *ibpost_blk_ctl_dev;
static char ibpost_blk_result[IBPOST_BLK_RESULT_LEN] = "none";

enum {
	IBPOST_BLK_OPT_DEV,
	IBPOST_BLK_OPT_SIZE,
	IBPOST_BLK_OPT_QUEUES,
	IBPOST_BLK_OPT_DEPTH,
	IBPOST_BLK_OPT_PORT,
	IBPOST_BLK_OPT_CONNECT,
	IBPOST_BLK_OPT_SERVER_PORT,
	IBPOST_BLK_OPT_IO_TIMEOUT,
	IBPOST_BLK_OPT_RO,
	IBPOST_BLK_OPT_SERIAL,
	IBPOST_BLK_OPT_RECONNECT_DELAY,
	IBPOST_BLK_OPT_CTRL_LOSS_TMO,
	IBPOST_BLK_OPT_FAST_IO_FAIL_TMO,
	IBPOST_BLK_OPT_RESUME,
	IBPOST_BLK_OPT_ERR,
};

static const match_table_t ibpost_blk_opts = {
	{ IBPOST_BLK_OPT_DEV, "dev=%s" },
	{ IBPOST_BLK_OPT_SIZE, "size=%s" },
	{ IBPOST_BLK_OPT_QUEUES, "queues=%u" },
	{ IBPOST_BLK_OPT_DEPTH, "depth=%u" },
	{ IBPOST_BLK_OPT_PORT, "port=%u" },
	{ IBPOST_BLK_OPT_CONNECT, "connect=%s" },
	{ IBPOST_BLK_OPT_SERVER_PORT, "server_port=%u" },
	{ IBPOST_BLK_OPT_IO_TIMEOUT, "io_timeout=%u" },
	{ IBPOST_BLK_OPT_RO, "ro=%u" },
	{ IBPOST_BLK_OPT_SERIAL, "serial=%s" },
	{ IBPOST_BLK_OPT_RECONNECT_DELAY, "reconnect_delay=%d" },
	{ IBPOST_BLK_OPT_CTRL_LOSS_TMO, "ctrl_loss_tmo=%d" },
	{ IBPOST_BLK_OPT_FAST_IO_FAIL_TMO, "fast_io_fail_tmo=%d" },
	{ IBPOST_BLK_OPT_RESUME, "resume=%s" },
	{ IBPOST_BLK_OPT_ERR, NULL },
};

#define IBPOST_BLK_USAGE \
	"dev=RDMA_DEVICE size=BYTES[K|M|G] [queues=N (default: one per CPU; with connect=, at most 8)] [depth=1..1024 (64)] [port=P] [connect=SERVER_ADDR [server_port=P (18520)]] [io_timeout=1..600 s (30)] [ro=0|1] [serial=ID (1..36 of A-Z a-z 0-9 . _ -; default: a random UUID)] [reconnect_delay=1..3600 s (10)] [ctrl_loss_tmo=S (600; 0: no reconnect; -1: forever)] [fast_io_fail_tmo=S (-1: off)] [resume=SESSION:GENERATION:TOKEN (with connect=: the kept region of a device unmapped with keep, its resume attribute)]\n"

/* The outcome of a control write, kept for last_result and logged. */
static __printf(2, 3) void ibpost_blk_set_result(int err, const char *fmt, ...)
{
	char text[IBPOST_BLK_RESULT_LEN - 16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (err) {
		snprintf(ibpost_blk_result, sizeof(ibpost_blk_result),
			 "refused: %s", text);
		pr_warn("refused: %s (%d)\n", text, err);
	} else {
		strscpy(ibpost_blk_result, text, sizeof(ibpost_blk_result));
	}
}

/* What a serial= may hold. */
#define IBPOST_BLK_SERIAL_CHARS \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

/* Where a numeric option's value goes. */
static u32 *ibpost_blk_opt_uint(struct ibpost_blk_map *m, int token)
{
	switch (token) {
	case IBPOST_BLK_OPT_QUEUES:
		return &m->queues;
	case IBPOST_BLK_OPT_DEPTH:
		return &m->depth;
	case IBPOST_BLK_OPT_PORT:
		return &m->port;
	case IBPOST_BLK_OPT_SERVER_PORT:
		return &m->server_port;
	case IBPOST_BLK_OPT_IO_TIMEOUT:
		return &m->io_timeout;
	default:
		return &m->ro;
	}
}

/*
 * resume=SESSION:GENERATION:TOKEN, as a device's ``resume`` attribute
 * gives it (attr.c): the numbers in decimal, the token in 32 hex digits,
 * not all zero (no server gives that token: the server would refuse the
 * connect request as malformed, and the map would say so, not this);
 * 0 or -EINVAL.
 */
static int ibpost_blk_parse_resume(struct ibpost_blk_map *m, substring_t *arg)
{
	struct ibpost_session_resume *r = &m->resume;
	char *v, *p, *gen, *tok;
	int ret = -EINVAL;

	v = match_strdup(arg);
	if (!v)
		return -ENOMEM;
	p = v;
	gen = strchr(p, ':');
	tok = gen ? strchr(gen + 1, ':') : NULL;
	if (!tok)
		goto out;
	*gen++ = '\0';
	*tok++ = '\0';
	if (kstrtou32(p, 10, &r->session) || kstrtou32(gen, 10, &r->generation) ||
	    !r->generation || strlen(tok) != 2 * IBPOST_SESSION_TOKEN_LEN ||
	    hex2bin(r->token, tok, IBPOST_SESSION_TOKEN_LEN) ||
	    !memchr_inv(r->token, 0, sizeof(r->token)))
		goto out;
	m->has_resume = true;
	ret = 0;
out:
	/* The token is a secret: not left in freed memory. */
	kfree_sensitive(v);
	if (ret)
		memzero_explicit(r, sizeof(*r));
	return ret;
}

/* One option's value (@opt: the whole option); 0 or -EINVAL with the reason. */
static int ibpost_blk_opt(struct ibpost_blk_map *m, int token,
			  substring_t *arg, const char *opt, char *why,
			  size_t len)
{
	char *end, *v;
	int n;

	switch (token) {
	case IBPOST_BLK_OPT_DEV:
		n = match_strlcpy(m->rdma, arg, sizeof(m->rdma));
		if (!n || n >= sizeof(m->rdma))
			goto bad;
		return 0;
	case IBPOST_BLK_OPT_CONNECT:
		n = match_strlcpy(m->server, arg, sizeof(m->server));
		if (!n || n >= sizeof(m->server))
			goto bad;
		return 0;
	case IBPOST_BLK_OPT_SERIAL:
		/* A udev link's name: nothing a path or a shell would read. */
		n = match_strlcpy(m->serial, arg, sizeof(m->serial));
		if (!n || n >= sizeof(m->serial) ||
		    strspn(m->serial, IBPOST_BLK_SERIAL_CHARS) != n)
			goto bad;
		return 0;
	case IBPOST_BLK_OPT_SIZE:
		v = match_strdup(arg);
		if (!v)
			return -ENOMEM;
		m->size = memparse(v, &end);
		n = *end || end == v;
		kfree(v);
		if (n)
			goto bad;
		return 0;
	case IBPOST_BLK_OPT_QUEUES:
	case IBPOST_BLK_OPT_DEPTH:
	case IBPOST_BLK_OPT_PORT:
	case IBPOST_BLK_OPT_SERVER_PORT:
	case IBPOST_BLK_OPT_IO_TIMEOUT:
	case IBPOST_BLK_OPT_RO:
		if (match_uint(arg, ibpost_blk_opt_uint(m, token)))
			goto bad;
		return 0;
	case IBPOST_BLK_OPT_RECONNECT_DELAY:
		if (match_int(arg, &m->reconnect_delay))
			goto bad;
		return 0;
	case IBPOST_BLK_OPT_CTRL_LOSS_TMO:
		if (match_int(arg, &m->ctrl_loss_tmo))
			goto bad;
		return 0;
	case IBPOST_BLK_OPT_FAST_IO_FAIL_TMO:
		if (match_int(arg, &m->fast_io_fail_tmo))
			goto bad;
		return 0;
	case IBPOST_BLK_OPT_RESUME:
		n = ibpost_blk_parse_resume(m, arg);
		/* Not the value: it is a secret, kept out of the log. */
		if (n == -EINVAL)
			snprintf(why, len,
				 "bad value in resume=: SESSION:GENERATION:TOKEN as the resume attribute gives it");
		return n;
	}
bad:
	snprintf(why, len, "bad value in '%s'", opt);
	return -EINVAL;
}

/* The server's address (connect=, server_port=); 0 or -EINVAL. */
static int ibpost_blk_parse_server(struct ibpost_blk_map *m, char *why,
				   size_t len)
{
	char port[12];

	if (!m->server[0] && !m->server_port)
		return 0;
	if (!m->server[0]) {
		snprintf(why, len, "server_port= needs connect=");
		return -EINVAL;
	}
	if (m->server_port > U16_MAX) {
		snprintf(why, len, "server_port=%u: 1 to 65535",
			 m->server_port);
		return -EINVAL;
	}
	snprintf(port, sizeof(port), "%u", m->server_port);
	if (inet_pton_with_scope(&init_net, AF_UNSPEC, m->server, port,
				 &m->peer)) {
		snprintf(why, len, "connect=%s: not an IPv4 or IPv6 address",
			 m->server);
		return -EINVAL;
	}
	return 0;
}

/**
 * ibpost_blk_check_reconnect() - check the reconnect options (nvme-rdma's)
 *	of a map, or the ones a sysfs write would leave.
 * @m: the map.
 * @why: out: the reason of a refusal.
 * @len: bytes of @why.
 *
 * Return: 0 or -EINVAL.
 */
int ibpost_blk_check_reconnect(const struct ibpost_blk_map *m, char *why,
			       size_t len)
{
	if (m->reconnect_delay < 1 ||
	    m->reconnect_delay > IBPOST_BLK_MAX_RECONNECT_DELAY) {
		snprintf(why, len, "reconnect_delay=%d: 1 to %u seconds",
			 m->reconnect_delay, IBPOST_BLK_MAX_RECONNECT_DELAY);
		return -EINVAL;
	}
	if (m->ctrl_loss_tmo < -1 || m->ctrl_loss_tmo > IBPOST_BLK_MAX_TMO) {
		snprintf(why, len, "ctrl_loss_tmo=%d: -1 (forever), 0 (no reconnect) or up to %u seconds",
			 m->ctrl_loss_tmo, IBPOST_BLK_MAX_TMO);
		return -EINVAL;
	}
	if (m->fast_io_fail_tmo < -1 ||
	    m->fast_io_fail_tmo > IBPOST_BLK_MAX_TMO) {
		snprintf(why, len, "fast_io_fail_tmo=%d: -1 (off) or 0 to %u seconds",
			 m->fast_io_fail_tmo, IBPOST_BLK_MAX_TMO);
		return -EINVAL;
	}
	return 0;
}

/* Parse and check a map_device line; 0 or -EINVAL with the reason. */
static int ibpost_blk_parse(char *buf, struct ibpost_blk_map *m, char *why,
			    size_t len)
{
	substring_t args[MAX_OPT_ARGS];
	bool queues_given = false;
	char *p;
	int token, ret;

	memset(m, 0, sizeof(*m));
	m->queues = nr_cpu_ids;
	m->depth = IBPOST_BLK_DEPTH;
	m->io_timeout = ibpost_blk_io_timeout;
	m->reconnect_delay = IBPOST_BLK_RECONNECT_DELAY;
	m->ctrl_loss_tmo = IBPOST_BLK_CTRL_LOSS_TMO;
	m->fast_io_fail_tmo = -1;
	while ((p = strsep(&buf, " \t\n"))) {
		if (!*p)
			continue;
		token = match_token(p, ibpost_blk_opts, args);
		if (token == IBPOST_BLK_OPT_ERR) {
			/* The list: the usage (a read of map_device). */
			snprintf(why, len, "unknown option '%s' (%s)", p,
				 "the options: cat map_device");
			return -EINVAL;
		}
		ret = ibpost_blk_opt(m, token, args, p, why, len);
		if (ret)
			return ret;
		queues_given |= token == IBPOST_BLK_OPT_QUEUES;
	}
	/* Within what a default server allows one session, unless asked. */
	if (m->server[0] && !queues_given)
		m->queues = min_t(u32, m->queues, IBPOST_BLK_PEER_QUEUES);
	if (!m->rdma[0]) {
		snprintf(why, len, "dev= (the RDMA device) is required");
		return -EINVAL;
	}
	if (!m->size || m->size & (PAGE_SIZE - 1)) {
		snprintf(why, len, "size=%llu: give a non-zero multiple of %lu bytes",
			 (unsigned long long)m->size, PAGE_SIZE);
		return -EINVAL;
	}
	if (!m->queues || m->queues > IBPOST_SESSION_QUEUES_MAX) {
		snprintf(why, len, "queues=%u: 1 to %u", m->queues,
			 IBPOST_SESSION_QUEUES_MAX);
		return -EINVAL;
	}
	if (!m->depth || m->depth > IBPOST_BLK_MAX_DEPTH) {
		snprintf(why, len, "depth=%u: 1 to %u", m->depth,
			 IBPOST_BLK_MAX_DEPTH);
		return -EINVAL;
	}
	if (!m->io_timeout || m->io_timeout > IBPOST_BLK_MAX_TIMEOUT) {
		snprintf(why, len, "io_timeout=%u: 1 to %u seconds",
			 m->io_timeout, IBPOST_BLK_MAX_TIMEOUT);
		return -EINVAL;
	}
	if (m->ro > 1) {
		snprintf(why, len, "ro=%u: 0 or 1", m->ro);
		return -EINVAL;
	}
	/*
	 * Every map makes a new region, zeroed: read-only it could only ever
	 * read zeros.  Read-only is for data that outlives the mapping (an
	 * export), which a map cannot name yet.
	 */
	if (m->ro) {
		snprintf(why, len,
			 "ro=1: a new region holds only zeros, so a read-only device could read nothing else (read-only is for exported data)");
		return -EINVAL;
	}
	ret = ibpost_blk_check_reconnect(m, why, len);
	if (ret)
		return ret;
	if (m->has_resume && !m->server[0]) {
		snprintf(why, len,
			 "resume= needs connect=: only a server keeps a region");
		return -EINVAL;
	}
	if (!m->serial[0]) {
		uuid_t u;

		uuid_gen(&u);
		snprintf(m->serial, sizeof(m->serial), "%pUb", &u);
	}
	return ibpost_blk_parse_server(m, why, len);
}

/*
 * Mapping and unmapping are privileged as running a job is (the ioctls of
 * /dev/ibpost, Documentation/security.rst): the files are root's (0644,
 * 0200), and the writer must also hold CAP_SYS_ADMIN, so that root in a
 * container without it, or a process that dropped it, cannot map.
 */
static bool ibpost_blk_ctl_allowed(void)
{
	if (capable(CAP_SYS_ADMIN))
		return true;
	mutex_lock(&ibpost_blk_lock);
	ibpost_blk_set_result(-EPERM, "needs CAP_SYS_ADMIN");
	mutex_unlock(&ibpost_blk_lock);
	return false;
}

static ssize_t map_device_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, IBPOST_BLK_USAGE);
}

/**
 * ibpost_blk_ctl_map() - map a device from a map_device line.
 * @buf: the line (a write's bytes, not NUL-terminated).
 * @count: its bytes.
 * @result: out: "mapped ibpostbN" or "refused: REASON", as last_result
 *	then says unless another write came in between (ctlfd.c keeps it
 *	for its own open file); NULL: last_result only (map_device).
 * @len: bytes of @result.
 *
 * The caller has checked CAP_SYS_ADMIN.
 *
 * Return: 0 or a negative errno.
 */
int ibpost_blk_ctl_map(const char *buf, size_t count, char *result,
		       size_t len)
{
	struct ibpost_blk_map m;
	char why[IBPOST_BLK_RESULT_LEN - 16] = "";
	char *copy;
	int ret, id;

	copy = kstrndup(buf, count, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	mutex_lock(&ibpost_blk_lock);
	ret = ibpost_blk_parse(copy, &m, why, sizeof(why));
	if (!ret)
		ret = ibpost_blk_map_dev(&m, why, sizeof(why), &id);
	if (ret)
		ibpost_blk_set_result(ret, "%s", why);
	else
		ibpost_blk_set_result(0, "mapped " IBPOST_BLK_NAME "%d", id);
	if (result)
		strscpy(result, ibpost_blk_result, len);
	mutex_unlock(&ibpost_blk_lock);
	/* resume='s token: a secret, in the line and in @m. */
	kfree_sensitive(copy);
	memzero_explicit(&m, sizeof(m));
	return ret;
}

static ssize_t map_device_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	int ret;

	if (!ibpost_blk_ctl_allowed())
		return -EPERM;
	ret = ibpost_blk_ctl_map(buf, count, NULL, 0);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(map_device);

static ssize_t unmap_device_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct ibpost_blk_dev *d;
	char line[DISK_NAME_LEN + 8], *name, *word;
	bool keep;
	int ret;

	if (!ibpost_blk_ctl_allowed())
		return -EPERM;
	if (count >= sizeof(line))
		return -EINVAL;
	strscpy(line, buf, sizeof(line));
	word = strim(line);
	name = strsep(&word, " \t");
	if (word)
		word = skip_spaces(word);
	keep = word && !strcmp(word, "keep");
	mutex_lock(&ibpost_blk_lock);
	d = ibpost_blk_find(name);
	if (word && !keep) {
		d = NULL;
		ret = -EINVAL;
		ibpost_blk_set_result(ret, "'%s' after %s: only keep", word,
				      name);
	} else if (!d) {
		ret = -ENODEV;
		ibpost_blk_set_result(ret, "no device %s", name);
	} else if (keep && !d->map.server[0]) {
		ret = -EINVAL;
		ibpost_blk_set_result(ret, "%s is local: only a server keeps a region",
				      name);
	} else {
		ret = ibpost_blk_unlist(d, false);
		if (ret) {
			ibpost_blk_set_result(ret, "%s is open or mounted",
					      name);
		} else {
			d->keep = keep;
			ibpost_blk_set_result(0, "unmapped %s%s", name,
					      keep ? ", its region kept by the server" : "");
		}
	}
	mutex_unlock(&ibpost_blk_lock);
	/* The disk's removal waits for its I/O: not under the lock. */
	if (!ret)
		ibpost_blk_remove(d);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(unmap_device);

static ssize_t last_result_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	ssize_t n;

	mutex_lock(&ibpost_blk_lock);
	n = sysfs_emit(buf, "%s\n", ibpost_blk_result);
	mutex_unlock(&ibpost_blk_lock);
	return n;
}
static DEVICE_ATTR_RO(last_result);

static ssize_t devices_show(struct device *dev,
			    struct device_attribute *attr, char *buf)
{
	struct ibpost_blk_dev *d;
	ssize_t n = 0;

	mutex_lock(&ibpost_blk_lock);
	list_for_each_entry(d, &ibpost_blk_devs, node)
		n += sysfs_emit_at(buf, n, "%s\n", d->disk->disk_name);
	mutex_unlock(&ibpost_blk_lock);
	return n;
}
static DEVICE_ATTR_RO(devices);

static struct attribute *ibpost_blk_ctl_attrs[] = {
	&dev_attr_map_device.attr,
	&dev_attr_unmap_device.attr,
	&dev_attr_last_result.attr,
	&dev_attr_devices.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ibpost_blk_ctl);

/**
 * ibpost_blk_ctl_init() - create /sys/class/ibpost-blk/ctl.
 *
 * Return: 0 or a negative errno.
 */
int ibpost_blk_ctl_init(void)
{
	ibpost_blk_class = ibpost_compat_class_create("ibpost-blk");
	if (IS_ERR(ibpost_blk_class))
		return PTR_ERR(ibpost_blk_class);
	ibpost_blk_ctl_dev = device_create_with_groups(ibpost_blk_class, NULL,
						       MKDEV(0, 0), NULL,
						       ibpost_blk_ctl_groups,
						       "ctl");
	if (IS_ERR(ibpost_blk_ctl_dev)) {
		class_destroy(ibpost_blk_class);
		return PTR_ERR(ibpost_blk_ctl_dev);
	}
	return 0;
}

/**
 * ibpost_blk_ctl_exit() - remove the control files (writers gone after).
 */
void ibpost_blk_ctl_exit(void)
{
	device_destroy(ibpost_blk_class, MKDEV(0, 0));
	class_destroy(ibpost_blk_class);
}
