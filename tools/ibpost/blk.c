// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost blk: map, unmap and list ibpost_blk devices through
 * /sys/class/ibpost-blk/ctl (Documentation/blk.rst).  Values go to the
 * kernel as given: it checks them and says why it refuses.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibpost.h"
#include "json.h"
#include "opt.h"

#define BLK_CTL		"/sys/class/ibpost-blk/ctl"
#define BLK_SYS		"/sys/block"

static void blk_about(FILE *f)
{
	fprintf(f,
		"RAM block devices (ibpost_blk.ko) whose backing store is a region\n"
		"of this host's memory, or with --connect of the memory of '%s serve'\n"
		"on another host, registered on an RDMA device and reached by\n"
		"one-sided RDMA READ and WRITE.  The contents live only as long as\n"
		"the mapping: unmapping (or removing the RDMA device, or the server\n"
		"ending) loses them.\n", prog);
}

static const struct opt blk_map_opts[] = {
	{ .name = "dev", .letter = 'd', .arg = "NAME", .flags = OPT_REQUIRED,
	  .help = "RDMA device" },
	{ .name = "size", .letter = 's', .arg = "BYTES[K|M|G]",
	  .flags = OPT_REQUIRED,
	  .help = "device size, a multiple of 4 KiB" },
	{ .name = "queues", .letter = 'q', .arg = "N",
	  .help = "hardware queues, capped by the device's\n"
		  "completion vectors and the CPUs (default: CPUs;\n"
		  "with --connect at most 8)" },
	{ .name = "depth", .letter = 'D', .arg = "D",
	  .help = "requests per queue, 1..1024 (default 64)" },
	{ .name = "port", .letter = 'p', .arg = "P",
	  .help = "port of the RDMA device (default: its first)" },
	{ .name = "connect", .letter = 'c', .arg = "HOST[:PORT]",
	  .help = "the server: an IPv4 or IPv6 address or a\n"
		  "host name ([V6]:PORT with a port; default port\n"
		  OPT_STR(IBPOST_PEER_PORT) "); the region in the server's budget, one\n"
		  "connection per queue (the server allows a\n"
		  "session its --max-per-addr connections)" },
	{ .name = "io-timeout", .letter = 't', .arg = "SEC",
	  .help = "seconds a request may take before the\n"
		  "device's session is failed, 1..600 (default:\n"
		  "the module's io_timeout, 30)" },
	{ .name = "serial", .letter = 'S', .arg = "ID",
	  .help = "the device's serial: /dev/disk/by-id/ibpost-ID\n"
		  "(1..36 of A-Z a-z 0-9 . _ -; default: a random\n"
		  "UUID)" },
	{ .name = "read-only", .letter = 'r',
	  .help = "a read-only device: writes, discards and\n"
		  "write zeroes are refused" },
	{ .name = "reconnect-delay", .letter = 'R', .arg = "SEC",
	  .help = "with --connect: seconds between attempts to\n"
		  "reconnect after the session failed, 1..3600\n"
		  "(default 10)" },
	{ .name = "ctrl-loss-tmo", .letter = 'L', .arg = "SEC",
	  .help = "with --connect: seconds after the loss the\n"
		  "device keeps trying before it fails for good\n"
		  "(default 600; 0: never reconnect; -1: forever)" },
	{ .name = "fast-io-fail-tmo", .letter = 'F', .arg = "SEC",
	  .help = "with --connect: seconds after the loss from\n"
		  "which I/O fails while reconnecting goes on\n"
		  "(default -1: I/O waits)" },
	{ .name = "help", .letter = 'h', .help = "this text", .flags = OPT_HELP },
};

static const struct opt blk_unmap_opts[] = {
	{ .name = "help", .letter = 'h', .help = "this text", .flags = OPT_HELP },
};

static const struct opt blk_list_opts[] = {
	{ .name = "json", .letter = 'j', .help = "JSON" },
	{ .name = "help", .letter = 'h', .help = "this text", .flags = OPT_HELP },
};

static const struct opt_cmd blk_map_cmd = {
	.name = "blk map", .opts = blk_map_opts,
	.nopts = ARRAY_SIZE(blk_map_opts), .col = 21, .help = help_blk,
};

static const struct opt_cmd blk_unmap_cmd = {
	.name = "blk unmap", .opts = blk_unmap_opts,
	.nopts = ARRAY_SIZE(blk_unmap_opts), .operands = "NAME|/dev/NAME", .col = 21,
	.help = help_blk,
};

static const struct opt_cmd blk_list_cmd = {
	.name = "blk list", .opts = blk_list_opts,
	.nopts = ARRAY_SIZE(blk_list_opts), .col = 21, .help = help_blk,
};

void help_blk(FILE *f)
{
	opt_synopsis(f, &blk_map_cmd, true, false);
	opt_synopsis(f, &blk_unmap_cmd, false, false);
	opt_synopsis(f, &blk_list_cmd, false, false);
	fputc('\n', f);
	blk_about(f);
	fprintf(f, "\nmap:\n");
	opt_options(f, &blk_map_cmd);
	fprintf(f, "\nunmap:\n");
	opt_options(f, &blk_unmap_cmd);
	fprintf(f, "\nlist:\n");
	opt_options(f, &blk_list_cmd);
}

/* Write @line to a control file; 0 or the errno of the write. */
static int blk_write(const char *file, const char *line)
{
	char path[256];
	int fd, err = 0;
	size_t len = strlen(line);

	snprintf(path, sizeof(path), "%s/%s", BLK_CTL, file);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		err = errno;
		if (err == ENOENT)
			fprintf(stderr, "%s: ibpost_blk is not loaded (no %s)\n",
				prog, BLK_CTL);
		else
			fprintf(stderr, "%s: %s: %s\n", prog, path,
				strerror(err));
		return -1;
	}
	if (write(fd, line, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/* The kernel's word on the last control write. */
static const char *blk_result(char *buf, size_t len)
{
	if (sysfs_read(BLK_CTL "/last_result", buf, len))
		snprintf(buf, len, "(no result)");
	return buf;
}

/* A value that goes into a "key=value" line: one word. */
static int blk_word(const char *opt, const char *v)
{
	if (!*v || strpbrk(v, " \t\n=")) {
		fprintf(stderr, "%s: blk map: %s '%s': one word without '='\n",
			prog, opt, v);
		return -1;
	}
	return 0;
}

/*
 * --connect HOST[:PORT] (net_parse_hostport(), as 'run --connect'): the
 * kernel takes the address numeric in @host and the port in @port ("":
 * none given, its default).
 */
static int blk_connect(const char *arg, char *host, size_t len, char *port,
		       size_t plen)
{
	struct net_addr a;
	const char *why = net_parse_hostport(arg, &a);

	if (why) {
		fprintf(stderr, "%s: blk map: --connect %s: %s (want " NET_HOSTPORT_FORMS ")\n",
			prog, arg, why);
		return -1;
	}
	net_addr_str(host, len, a.family, a.addr);
	port[0] = '\0';
	if (a.port)
		snprintf(port, plen, "%u", a.port);
	return 0;
}

/* The values of 'blk map', in the order of the kernel's line. */
static const char blk_keys[] = "dsqDpcPtrSRLF";
static const char *const blk_names[] = { "dev", "size", "queues", "depth",
					 "port", "connect", "server_port",
					 "io_timeout", "ro", "serial",
					 "reconnect_delay", "ctrl_loss_tmo",
					 "fast_io_fail_tmo" };

struct blk_map_args {
	const char *val[ARRAY_SIZE(blk_names)];
	char host[64], port[16];
};

static int blk_map_set(void *ctx, int key, const char *arg)
{
	struct blk_map_args *m = ctx;
	const char *k = strchr(blk_keys, key);

	if (key == 'c') {
		if (blk_word("connect", arg) ||
		    blk_connect(arg, m->host, sizeof(m->host), m->port,
				sizeof(m->port)))
			return -1;
		m->val[5] = m->host;
		m->val[6] = m->port[0] ? m->port : NULL;
		return 0;
	}
	if (!key || !k)
		return -1;
	if (key == 'r') {
		m->val[k - blk_keys] = "1";
		return 0;
	}
	if (blk_word(blk_names[k - blk_keys], arg))
		return -1;
	m->val[k - blk_keys] = arg;
	return 0;
}

static int blk_map(int argc, char **argv)
{
	struct blk_map_args m = { .val = { NULL } };
	const char *const *val = m.val;
	char line[512], res[256];
	size_t n = 0;
	int err, i, rc;

	rc = opt_parse(&blk_map_cmd, argc, argv, blk_map_set, &m);
	if (rc != OPT_GO)
		return rc;
	if (optind != argc || !val[0] || !val[1]) {
		fprintf(stderr, "%s: blk map: --dev and --size are required, nothing else\n",
			prog);
		return 2;
	}
	for (i = 0; i < (int)ARRAY_SIZE(blk_names); i++)
		if (val[i])
			n += snprintf(line + n, sizeof(line) - n, "%s%s=%s",
				      n ? " " : "", blk_names[i], val[i]);
	if (n >= sizeof(line)) {
		fprintf(stderr, "%s: blk map: arguments too long\n", prog);
		return 2;
	}
	err = blk_write("map_device", line);
	if (err < 0)
		return 1;
	blk_result(res, sizeof(res));
	if (err) {
		fprintf(stderr, "%s: blk map refused: %s: %s\n", prog,
			strerror(err), strncmp(res, "refused: ", 9) ? res :
			res + 9);
		return 1;
	}
	printf("%s\n", strncmp(res, "mapped ", 7) ? res : res + 7);
	return 0;
}

static int no_opts(void *ctx, int key, const char *arg)
{
	(void)ctx;
	(void)key;
	(void)arg;
	return -1;
}

static int blk_unmap(int argc, char **argv)
{
	const char *name;
	char res[256];
	int err, rc;

	rc = opt_parse(&blk_unmap_cmd, argc, argv, no_opts, NULL);
	if (rc != OPT_GO)
		return rc;
	if (optind != argc - 1) {
		fprintf(stderr, "%s: blk unmap NAME|/dev/NAME\n", prog);
		return 2;
	}
	/* NAME or its node, as mount and nvme disconnect take either */
	name = argv[optind];
	if (!strncmp(name, "/dev/", 5))
		name += 5;
	err = blk_write("unmap_device", name);
	if (err < 0)
		return 1;
	if (err) {
		blk_result(res, sizeof(res));
		fprintf(stderr, "%s: blk unmap refused: %s: %s\n", prog,
			strerror(err), strncmp(res, "refused: ", 9) ? res :
			res + 9);
		return 1;
	}
	return 0;
}

/* The per-device attributes 'list' shows, in /sys/block/NAME/ibpost/. */
static const char *const blk_attrs[] = {
	"rdma_dev", "size", "queues", "queues_asked", "depth",
	"max_segments", "chunk", "state", "server",
};

/* The number in @v (a sysfs value), false when it is none. */
static bool blk_num(const char *v, unsigned long long *n)
{
	char *end;

	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	*n = strtoull(v, &end, 10);
	return !errno && !*end;
}

/*
 * One device.  A value that cannot be read (the device went away in the
 * middle of the listing) is "?" in the table and null in JSON.
 */
static void blk_list_one(struct json *j, const char *name)
{
	char path[256], v[ARRAY_SIZE(blk_attrs)][64], lat[256];
	bool ok[ARRAY_SIZE(blk_attrs)], lat_ok = false;
	unsigned long long l[7] = { 0 }, n;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(blk_attrs); i++) {
		snprintf(path, sizeof(path), "%s/%s/ibpost/%s", BLK_SYS, name,
			 blk_attrs[i]);
		ok[i] = !sysfs_read(path, v[i], sizeof(v[i]));
		if (!ok[i])
			snprintf(v[i], sizeof(v[i]), "?");
	}
	snprintf(path, sizeof(path), "%s/%s/ibpost/latency", BLK_SYS, name);
	if (!sysfs_read(path, lat, sizeof(lat)))
		lat_ok = sscanf(lat, "%llu %llu %llu %llu %llu %llu %llu",
				&l[0], &l[1], &l[2], &l[3], &l[4], &l[5],
				&l[6]) == 7;
	if (!j) {
		printf("%-10s %-10s %12s %6s %5s %5s %8s %-6s %10llu %10llu\n",
		       name, v[0], v[1], v[2], v[4], v[5], v[6], v[7],
		       l[3] / 1000, l[4] / 1000);
		return;
	}
	json_obj(j, NULL);
	json_str(j, "name", name);
	json_str_or_null(j, "rdma_dev", ok[0] ? v[0] : NULL);
	for (i = 1; i < 7; i++) {
		if (ok[i] && blk_num(v[i], &n))
			json_u64(j, blk_attrs[i], n);
		else
			json_null(j, blk_attrs[i]);
	}
	json_str_or_null(j, "state", ok[7] ? v[7] : NULL);
	json_str_or_null(j, "server", ok[8] ? v[8] : NULL);
	if (lat_ok) {
		json_u64(j, "lat_samples", l[0]);
		json_u64(j, "lat_p50_ns", l[3]);
		json_u64(j, "lat_p99_ns", l[4]);
		json_u64(j, "lat_p999_ns", l[5]);
	} else {
		json_null(j, "lat_samples");
		json_null(j, "lat_p50_ns");
		json_null(j, "lat_p99_ns");
		json_null(j, "lat_p999_ns");
	}
	json_end(j);
}

static int blk_list_set(void *ctx, int key, const char *arg)
{
	bool *json = ctx;

	(void)arg;
	if (key != 'j')
		return -1;
	*json = true;
	return 0;
}

static int blk_list(int argc, char **argv)
{
	char names[4096], *name, *save = NULL;
	struct json js;
	bool json = false;

	int rc;

	rc = opt_parse(&blk_list_cmd, argc, argv, blk_list_set, &json);
	if (rc != OPT_GO)
		return rc;
	if (optind != argc) {
		fprintf(stderr, "%s: blk list [--json]\n", prog);
		return 2;
	}
	if (sysfs_read(BLK_CTL "/devices", names, sizeof(names))) {
		fprintf(stderr, "%s: ibpost_blk is not loaded (no %s)\n", prog,
			BLK_CTL);
		return 1;
	}
	if (json) {
		json_start(&js, stdout);
		json_obj(&js, NULL);
		json_arr_lines(&js, "devices");
	} else {
		printf("%-10s %-10s %12s %6s %5s %5s %8s %-6s %10s %10s\n",
		       "name", "rdma_dev", "size", "queues", "depth", "segs",
		       "chunk", "state", "p50_us", "p99_us");
	}
	for (name = strtok_r(names, "\n", &save); name;
	     name = strtok_r(NULL, "\n", &save))
		blk_list_one(json ? &js : NULL, name);
	if (json)
		json_end_all(&js);
	return 0;
}

int cmd_blk(int argc, char **argv)
{
	if (argc < 2) {
		help_blk(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		help_blk(stdout);
		return 0;
	}
	optind = 1;
	if (!strcmp(argv[1], "map"))
		return blk_map(argc - 1, argv + 1);
	if (!strcmp(argv[1], "unmap"))
		return blk_unmap(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return blk_list(argc - 1, argv + 1);
	fprintf(stderr, "%s: blk: unknown subcommand '%s' (map, unmap, list)\n",
		prog, argv[1]);
	return 2;
}
