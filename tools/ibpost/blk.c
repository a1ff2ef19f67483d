// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost blk: map, unmap and list ibpost_blk devices through
 * /sys/class/ibpost-blk/ctl and /dev/ibpost-blk (Documentation/blk.rst).
 * Values go to the kernel as given: it checks them and says why it
 * refuses.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blklimits.h"
#include "ibpost.h"
#include "json.h"
#include "opt.h"

#define BLK_CTL		"/sys/class/ibpost-blk/ctl"
/* A map answered on its own open file (module/blk/ctlfd.c). */
#define BLK_DEV		"/dev/ibpost-blk"
#define BLK_DEV_SYS	"/sys/class/misc/ibpost-blk"
#define BLK_SYS		"/sys/block"
#define BLK_MODULE	"ibpost_blk"
/*
 * How long 'unmap --force' retries while the device is still open: the
 * holder's I/O fails at once, unless a reconnect attempt is under way; that
 * one ends within its rdma_cm steps (address, route, connect: up to
 * IBPOST_CM_TIMEOUT_MS, 5 s, each) and fails the device then.
 */
#define BLK_FORCE_WAIT_S	30

static void blk_about(FILE *f)
{
	fprintf(f,
		"RAM block devices (ibpost_blk.ko) whose backing store is a region\n"
		"of this host's memory, or with --connect of the memory of '%s serve'\n"
		"on another host, registered on an RDMA device and reached by\n"
		"one-sided RDMA READ and WRITE.  The contents live only as long as\n"
		"the mapping: unmapping (or removing the RDMA device, or the server\n"
		"ending) loses them; 'unmap --keep' leaves a server's region kept\n"
		"for the next map of the same serial (a reboot).\n", prog);
}

enum { BLK_CONFIG = OPT_LONG, BLK_CHECK_CONFIG, BLK_PRINT, BLK_KEEP };

static const struct opt blk_map_opts[] = {
	{ .name = "dev", .letter = 'd', .arg = "NAME", .flags = OPT_REQUIRED,
	  .help = "RDMA device" },
	{ .name = "size", .letter = 's', .arg = "SIZE",
	  .flags = OPT_REQUIRED,
	  .help = "device size, a multiple of 4 KiB" },
	{ .name = "queues", .letter = 'q', .arg = "N",
	  .help = "hardware queues, capped by the device's\n"
		  "completion vectors and the CPUs (default: CPUs;\n"
		  "with --connect at most 8)" },
	{ .name = "depth", .letter = 't', .key = 'D', .arg = "D",
	  .help = "requests per queue, 1..1024 (default 64)" },
	{ .name = "port", .letter = 'i', .key = 'p', .arg = "P",
	  .help = "port of the RDMA device (default: its first)" },
	{ .name = "connect", .letter = 'c', .arg = "HOST[:PORT]",
	  .help = "the server: an IPv4 or IPv6 address or a\n"
		  "host name ([V6]:PORT with a port; default port\n"
		  OPT_STR(IBPOST_PEER_PORT) "); the region in the server's budget, one\n"
		  "connection per queue (the server allows a\n"
		  "session its --max-per-addr connections)" },
	{ .name = "io-timeout", .key = 'T', .arg = "TIME",
	  .help = "how long a request may take before the\n"
		  "device's session is failed (bare: seconds;\n"
		  "1..600 s, default: the module's io_timeout, 30)" },
	{ .name = "serial", .letter = 'S', .arg = "ID",
	  .help = "the device's serial: /dev/disk/by-id/ibpost-ID\n"
		  "(1..36 of A-Z a-z 0-9 . _ -; default: a random\n"
		  "UUID)" },
	{ .name = "read-only", .letter = 'r',
	  .help = "refused: a new region holds only zeros\n"
		  "(read-only is for exported data; 'blockdev\n"
		  "--setro' makes a mapped device read-only)" },
	{ .name = "reconnect-delay", .key = 'R', .arg = "TIME",
	  .help = "with --connect: the time between attempts to\n"
		  "reconnect after the session failed (bare:\n"
		  "seconds; 1..3600 s, default 10)" },
	{ .name = "ctrl-loss-tmo", .letter = 'L', .arg = "TIME",
	  .help = "with --connect: how long after the loss the\n"
		  "device keeps trying before it fails for good\n"
		  "(bare: seconds; default 600; 0: never\n"
		  "reconnect; -1: forever)" },
	{ .name = "fast-io-fail-tmo", .key = 'F', .arg = "TIME",
	  .help = "with --connect: how long after the loss I/O\n"
		  "waits while reconnecting goes on, then fails\n"
		  "(bare: seconds; default -1: I/O waits)" },
	{ .name = "config", .key = BLK_CONFIG, .arg = "FILE",
	  .help = "map every device of FILE (/etc/ibpost/blk.conf:\n"
		  "a line of these options each, with --serial;\n"
		  "'#' comments) whose serial is not mapped yet;\n"
		  "no other option (but --check-config)" },
	{ .name = "check-config", .key = BLK_CHECK_CONFIG,
	  .help = "with --config: check FILE, print the 'blk map'\n"
		  "command line of each device and exit (0, or 2\n"
		  "naming the bad line)" },
	{ .name = "print-options", .key = BLK_PRINT, .flags = OPT_HIDDEN },
	{ .name = "help", .letter = 'h', .help = "this text", .flags = OPT_HELP },
};

static const struct opt blk_unmap_opts[] = {
	{ .name = "force", .letter = 'f',
	  .help = "for a device whose server is gone: set its\n"
		  "ctrl_loss_tmo and fast_io_fail_tmo to 0 first (I/O\n"
		  "waiting for a reconnect fails with EIO from the\n"
		  "next attempt), then retry the unmap for up to\n"
		  OPT_STR(BLK_FORCE_WAIT_S) " s while the device is still open (the\n"
		  "values are put back if it stays mapped)" },
	{ .name = "keep", .key = BLK_KEEP,
	  .help = "a device on a server's memory goes without\n"
		  "ending its session: the server keeps the region\n"
		  "for its grant (the device's keep), and the next\n"
		  "'blk map' of the same --serial takes it back\n"
		  "(the token in /var/lib/ibpost/blk, root's)" },
	{ .name = "config", .key = BLK_CONFIG, .arg = "FILE",
	  .help = "unmap every mapped device whose serial a line of\n"
		  "FILE has (the file of 'blk map --config'),\n"
		  "instead of NAME" },
	{ .name = "help", .letter = 'h', .help = "this text", .flags = OPT_HELP },
};

static const struct opt blk_list_opts[] = {
	{ .name = "json", .letter = 'j', .help = "JSON" },
	{ .name = "help", .letter = 'h', .help = "this text", .flags = OPT_HELP },
};

/*
 * A letter is one option everywhere in the tool (run's perftest letters
 * first): 'blk map' gave -D, -p, -R, -F and -t other meanings before.
 * Those now refused name what they mean here instead.
 */
static void blk_map_unknown(int c, int letter, const char *arg)
{
	static const struct {
		char letter;
		const char *now;
	} moved[] = {
		{ 'D', "the depth is -t, --depth (-D is run's --duration)" },
		{ 'p', "the RDMA port is -i, --port (-p is a TCP port: run's --cm-port, serve's --port)" },
		{ 'R', "--reconnect-delay has no letter (-R is run's --rdma-cm)" },
		{ 'F', "--fast-io-fail-tmo has no letter (-F is run's --CPU-freq)" },
	};
	size_t i;

	for (i = 0; c == '?' && i < ARRAY_SIZE(moved); i++) {
		if (letter == moved[i].letter) {
			fprintf(stderr, "%s: blk map: unknown option '-%c': %s\n",
				prog, letter, moved[i].now);
			return;
		}
	}
	if (c == ':')
		fprintf(stderr, "%s: blk map: option '%s' needs a value\n",
			prog, arg);
	else if (letter)
		fprintf(stderr, "%s: blk map: unknown option '-%c'\n", prog,
			letter);
	else
		fprintf(stderr, "%s: blk map: unknown option '%s'\n", prog, arg);
}

static const struct opt_cmd blk_map_cmd = {
	.name = "blk map", .opts = blk_map_opts,
	.nopts = ARRAY_SIZE(blk_map_opts), .col = 21, .help = help_blk,
	.unknown = blk_map_unknown,
};

static const struct opt_cmd blk_unmap_cmd = {
	.name = "blk unmap", .opts = blk_unmap_opts,
	.nopts = ARRAY_SIZE(blk_unmap_opts), .operands = "[NAME|/dev/NAME]", .col = 21,
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
	fprintf(f,
		"\n"
		"A TIME is a number with ns, us, ms, s, m or h (" OPT_TIME_FORMS ",\n"
		"1.5s) that is a whole number of seconds, or bare in seconds.  A\n"
		"SIZE is a number of bytes, or with K, M, G or T, 1024-based\n"
		"(" OPT_SIZE_FORMS ").\n");
}

/* The module is missing: say what to run. */
static void blk_not_loaded(void)
{
	fprintf(stderr, "%s: %s is not loaded (no %s): run 'modprobe %s'\n",
		prog, BLK_MODULE, BLK_CTL, BLK_MODULE);
}

/*
 * 'blk map' without the module: modprobe it (it loads ibpost.ko with it),
 * as nvme connect loads nvme-fabrics.  0 when the control files are there.
 */
static int blk_load(void)
{
	char *const argv[] = { "modprobe", BLK_MODULE, NULL };
	static const char *const paths[] = { "/usr/sbin/modprobe",
					     "/sbin/modprobe" };
	struct stat st;
	size_t i;
	pid_t pid;
	int status;

	if (!stat(BLK_CTL, &st))
		return 0;
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (access(paths[i], X_OK))
			continue;
		fflush(NULL);
		pid = fork();
		if (pid < 0)
			break;
		if (!pid) {
			execv(paths[i], argv);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid)
			break;
		if (WIFEXITED(status) && !WEXITSTATUS(status) &&
		    !stat(BLK_CTL, &st))
			return 0;
		break;
	}
	blk_not_loaded();
	return -1;
}

/* Write @line to @path; 0 or the errno of the open or the write. */
static int blk_write_path(const char *path, const char *line)
{
	size_t len = strlen(line);
	int fd, err = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	if (write(fd, line, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/* Write @line to a control file; 0, the errno of the write, -1 said. */
static int blk_write(const char *file, const char *line)
{
	char path[256];
	int err;

	snprintf(path, sizeof(path), "%s/%s", BLK_CTL, file);
	if (access(path, F_OK)) {
		blk_not_loaded();
		return -1;
	}
	err = blk_write_path(path, line);
	if (err == EACCES) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(err));
		return -1;
	}
	return err;
}

/* The kernel's word on the last control write. */
static const char *blk_result(char *buf, size_t len)
{
	if (sysfs_read(BLK_CTL "/last_result", buf, len))
		snprintf(buf, len, "(no result)");
	return buf;
}

/*
 * Map with @line through BLK_DEV, whose answer is this open file's alone
 * (last_result is the last writer's, whoever it was).  0 with the kernel's
 * answer in @res and the write's errno in *@err; 1 when the node does not
 * open: map_device then, which says what a caller may not do.  A module
 * from before the node goes without a word; a node the module has but
 * this /dev lacks (a unit's private /dev), or one that does not open (a
 * device ACL without it, no CAP_SYS_ADMIN), is said.
 */
static int blk_map_fd(const char *line, char *res, size_t len, int *err)
{
	size_t n = strlen(line);
	ssize_t got;
	int fd;

	fd = open(BLK_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e != ENOENT || !access(BLK_DEV_SYS, F_OK))
			fprintf(stderr, "%s: blk map: %s: %s: mapping through %s/map_device (whose answer is the last writer's)\n",
				prog, BLK_DEV, strerror(e), BLK_CTL);
		return 1;
	}
	*err = write(fd, line, n) == (ssize_t)n ? 0 : errno ? errno : EIO;
	got = read(fd, res, len - 1);
	close(fd);
	if (got <= 0) {
		snprintf(res, len, "(no result)");
		return 0;
	}
	res[got] = '\0';
	res[strcspn(res, "\n")] = '\0';
	return 0;
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
static const char blk_keys[] = "dsqDpcPTrSRLF";
static const char *const blk_names[] = { "dev", "size", "queues", "depth",
					 "port", "connect", "server_port",
					 "io_timeout", "ro", "serial",
					 "reconnect_delay", "ctrl_loss_tmo",
					 "fast_io_fail_tmo" };

/* Where blk_names[] (and blk_map_args.val[]) hold what the code names. */
enum {
	BLK_V_DEV, BLK_V_SIZE, BLK_V_QUEUES, BLK_V_DEPTH, BLK_V_CONNECT = 5,
	BLK_V_SERVER_PORT, BLK_V_IO_TIMEOUT, BLK_V_SERIAL = 9,
	BLK_V_RECONNECT_DELAY, BLK_V_CTRL_LOSS_TMO, BLK_V_FAST_IO_FAIL_TMO,
};

struct blk_map_args {
	const char *val[ARRAY_SIZE(blk_names)];
	const char *arg[ARRAY_SIZE(blk_names)];	/* as given */
	char num[ARRAY_SIZE(blk_names)][24];	/* a value converted */
	char host[64], port[16];
	struct opt_conf conf;		/* --config, --check-config */
	bool others;			/* an option but those two */
	bool print;			/* --print-options: the line, no map */
};

/*
 * A time of 'blk map' (opt_time()) to the kernel in seconds, which checks
 * its range; -1 and the like for -L and -F (-1: for ever) as given.
 */
static int blk_time(struct blk_map_args *m, unsigned int i, int key,
		    const char *arg)
{
	struct opt_val val = { .cmd = "blk map", .bare = OPT_S,
			       .unit = OPT_S, .max = INT_MAX,
			       .neg = key == 'L' || key == 'F' };
	const struct opt *o = opt_primary(&blk_map_cmd, key);
	char name[32] = "";
	long long v;

	if (o)
		snprintf(name, sizeof(name), "--%s", o->name);
	val.name = name;
	if (opt_time(&val, arg, &v))
		return -1;
	snprintf(m->num[i], sizeof(m->num[i]), "%lld", v);
	m->val[i] = m->num[i];
	return 0;
}

/* --size (opt_size()) to the kernel in bytes, which checks the rest. */
static int blk_size(struct blk_map_args *m, const char *arg)
{
	const struct opt_val val = { .cmd = "blk map", .name = "--size",
				     .bare = OPT_B, .unit = OPT_B,
				     .max = ULLONG_MAX };
	unsigned long long v;

	if (opt_size(&val, arg, &v))
		return -1;
	snprintf(m->num[BLK_V_SIZE], sizeof(m->num[BLK_V_SIZE]), "%llu", v);
	m->val[BLK_V_SIZE] = m->num[BLK_V_SIZE];
	return 0;
}

static int blk_map_set(void *ctx, int key, const char *arg)
{
	struct blk_map_args *m = ctx;
	const char *k = strchr(blk_keys, key);

	if (key == BLK_CONFIG || key == BLK_CHECK_CONFIG)
		return opt_conf_set(&m->conf, &blk_map_cmd, key == BLK_CONFIG,
				    arg);
	m->others = true;
	if (key == BLK_PRINT) {
		m->print = true;
		return 0;
	}
	if (key == 'c') {
		if (blk_word("connect", arg) ||
		    blk_connect(arg, m->host, sizeof(m->host), m->port,
				sizeof(m->port)))
			return -1;
		m->val[BLK_V_CONNECT] = m->host;
		m->val[BLK_V_SERVER_PORT] = m->port[0] ? m->port : NULL;
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
	m->arg[k - blk_keys] = arg;
	if (strchr("TRLF", key))
		return blk_time(m, k - blk_keys, key, arg);
	if (key == 's')
		return blk_size(m, arg);
	return 0;
}

/*
 * The server keeps a device's region after a loss for the time it granted
 * (the device asks its ctrl_loss_tmo): say so when that is less, for a cut
 * longer than the grant then loses the data while the device still tries.
 */
static void blk_keep_warn(const char *name)
{
	char path[320], v[64];
	long keep, tmo;

	snprintf(path, sizeof(path), "%s/%s/ibpost/server", BLK_SYS, name);
	if (sysfs_read(path, v, sizeof(v)) || !strcmp(v, "local"))
		return;
	snprintf(path, sizeof(path), "%s/%s/ibpost/keep", BLK_SYS, name);
	if (sysfs_read(path, v, sizeof(v)))
		return;
	keep = strtol(v, NULL, 10);
	snprintf(path, sizeof(path), "%s/%s/ibpost/ctrl_loss_tmo", BLK_SYS,
		 name);
	if (sysfs_read(path, v, sizeof(v)))
		return;
	tmo = strtol(v, NULL, 10);
	if (tmo && (tmo < 0 || keep < tmo))
		fprintf(stderr, "%s: blk map: warning: %s: the server keeps the region %ld s after a loss, less than ctrl_loss_tmo (%ld): a longer cut loses the data (its serve --max-keep)\n",
			prog, name, keep, tmo);
}

/* @m's line of map_device into @line: 0, or 2 having said why not. */
static int blk_map_line(const struct blk_map_args *m, char *line, size_t len)
{
	const char *const *val = m->val;
	size_t n = 0;
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(blk_names); i++)
		if (val[i] && n < len)
			n += snprintf(line + n, len - n, "%s%s=%s",
				      n ? " " : "", blk_names[i], val[i]);
	if (n >= len) {
		fprintf(stderr, "%s: blk map: arguments too long\n", prog);
		return 2;
	}
	return 0;
}

/*
 * Write @m's line to map_device: 0 with the name printed, or 1.  A serial
 * whose region a 'blk unmap --keep' left kept maps with resume= (its line
 * kept in the state directory, blkstate.c), which goes once taken.
 */
static int blk_map_write(const struct blk_map_args *m)
{
	const char *serial = m->val[BLK_V_SERIAL];
	char line[640], res[256], resume[128];
	bool resuming = false;
	size_t n;
	int err;

	if (blk_map_line(m, line, sizeof(line) - sizeof(resume) - 8))
		return 2;
	if (serial && m->val[BLK_V_CONNECT] &&
	    !blk_state_load(serial, resume, sizeof(resume))) {
		n = strlen(line);
		snprintf(line + n, sizeof(line) - n, " resume=%s", resume);
		explicit_bzero(resume, sizeof(resume));
		resuming = true;
	}
	if (blk_map_fd(line, res, sizeof(res), &err)) {
		err = blk_write("map_device", line);
		if (err >= 0)
			blk_result(res, sizeof(res));
	}
	explicit_bzero(line, sizeof(line));
	if (err < 0)
		return 1;
	if (err) {
		fprintf(stderr, "%s: blk map refused: %s: %s\n", prog,
			strerror(err), strncmp(res, "refused: ", 9) ? res :
			res + 9);
		if (resuming)
			fprintf(stderr, "%s: blk map: serial %s: the region a 'blk unmap --keep' left is not taken back; its token stays in the state directory (remove it to map a new, empty device)\n",
				prog, serial);
		return 1;
	}
	if (resuming)
		blk_state_drop(serial);
	printf("%s\n", strncmp(res, "mapped ", 7) ? res : res + 7);
	if (!strncmp(res, "mapped ", 7))
		blk_keep_warn(res + 7);
	return 0;
}

/*
 * What map_device refuses of a value (module/blk/ctl.c), for the lines of
 * a config file: their --check-config says so before boot does.  The
 * limits are the module's (blklimits.h); the command line's values go to
 * the kernel as given, which says the same.
 */
static const struct {
	unsigned int v;			/* index in blk_names[] */
	const char *opt;
	long long min, max;
} blk_limits[] = {
	{ BLK_V_QUEUES, "--queues", 1, IBPOST_SESSION_QUEUES_MAX },
	{ BLK_V_DEPTH, "--depth", 1, IBPOST_BLK_MAX_DEPTH },
	{ BLK_V_IO_TIMEOUT, "--io-timeout", 1, IBPOST_BLK_MAX_TIMEOUT },
	{ BLK_V_RECONNECT_DELAY, "--reconnect-delay", 1,
	  IBPOST_BLK_MAX_RECONNECT_DELAY },
	{ BLK_V_CTRL_LOSS_TMO, "--ctrl-loss-tmo", -1, IBPOST_BLK_MAX_TMO },
	{ BLK_V_FAST_IO_FAIL_TMO, "--fast-io-fail-tmo", -1, IBPOST_BLK_MAX_TMO },
};

/* What a serial may hold (the name of its /dev/disk/by-id link). */
#define BLK_SERIAL_CHARS \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

/* @v as the kernel reads a number (any base C reads); false: not one. */
static bool blk_ll(const char *v, long long *n)
{
	char *end;

	errno = 0;
	*n = strtoll(v, &end, 0);
	return *v && !errno && !*end;
}

/*
 * --size, in bytes since blk_size(): a non-zero multiple of the page
 * size; 0 or why not in @why.
 */
static int blk_size_ok(const char *v, char *why, size_t len)
{
	unsigned long long n = strtoull(v, NULL, 10),
			   page = sysconf(_SC_PAGESIZE);

	if (!n || n % page) {
		snprintf(why, len, "give a non-zero multiple of %llu bytes",
			 page);
		return -1;
	}
	return 0;
}

/* A line's values against blk_limits[]: 0, or 2 with FILE:LINE and why. */
static int blk_conf_limits(const struct blk_map_args *m, const char *file,
			   unsigned int lineno)
{
	const char *opt = "--size", *v = m->val[BLK_V_SIZE], *given;
	unsigned int vi = BLK_V_SIZE;
	char why[96];
	long long n;
	size_t i;

	if (blk_size_ok(v, why, sizeof(why)))
		goto refuse;
	for (i = 0; i < ARRAY_SIZE(blk_limits); i++) {
		opt = blk_limits[i].opt;
		vi = blk_limits[i].v;
		v = m->val[vi];
		if (!v || (blk_ll(v, &n) && n >= blk_limits[i].min &&
			   n <= blk_limits[i].max))
			continue;
		snprintf(why, sizeof(why), "%lld to %lld", blk_limits[i].min,
			 blk_limits[i].max);
		goto refuse;
	}
	opt = "--serial";
	vi = BLK_V_SERIAL;
	v = m->val[vi];
	if (strlen(v) < IBPOST_BLK_SERIAL_LEN &&
	    strspn(v, BLK_SERIAL_CHARS) == strlen(v))
		return 0;
	snprintf(why, sizeof(why), "1 to %u of A-Z a-z 0-9 . _ -",
		 IBPOST_BLK_SERIAL_LEN - 1);
refuse:
	/* as given, and what it came to when the tool converted it */
	given = m->arg[vi] ? m->arg[vi] : v;
	fprintf(stderr, "%s: %s:%u: %s %s%s%s%s: %s (the kernel refuses it)\n",
		prog, file, lineno, opt, given, strcmp(given, v) ? " (" : "",
		strcmp(given, v) ? v : "", strcmp(given, v) ? ")" : "", why);
	return 2;
}

/* The mapped device whose serial is @serial into @name; false: none. */
static bool blk_by_serial(const char *serial, char *name, size_t len)
{
	char names[4096], path[256], v[64], *n, *save = NULL;

	if (sysfs_read(BLK_CTL "/devices", names, sizeof(names)))
		return false;
	for (n = strtok_r(names, "\n", &save); n;
	     n = strtok_r(NULL, "\n", &save)) {
		snprintf(path, sizeof(path), "%s/%s/ibpost/serial", BLK_SYS, n);
		if (!sysfs_read(path, v, sizeof(v)) && !strcmp(v, serial)) {
			snprintf(name, len, "%s", n);
			return true;
		}
	}
	return false;
}

/* What a line of a config file does (blk_conf_line()). */
enum blk_conf_do { BLK_CONF_CHECK, BLK_CONF_PRINT, BLK_CONF_MAP,
		   BLK_CONF_UNMAP };

struct blk_conf {
	enum blk_conf_do what;
	bool force;
	bool keep;
	int rc;				/* 1 when a map or unmap failed */
	unsigned int children;		/* unmaps under way (BLK_CONF_UNMAP) */
};

static int blk_unmap_name(const char *name, bool force, bool keep);

/*
 * Unmap @name in a child process: the devices of a file are unmapped all
 * at once, so that the stop of ibpost-blk.service takes as long as the
 * slowest (BLK_FORCE_WAIT_S), not their sum.  Without a child, here.
 */
static void blk_unmap_child(struct blk_conf *c, const char *name)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (!pid)
		_exit(blk_unmap_name(name, c->force, c->keep));
	if (pid > 0)
		c->children++;
	else if (blk_unmap_name(name, c->force, c->keep))
		c->rc = 1;
}

/* Wait for the unmaps blk_unmap_child() started; 1 when one failed. */
static int blk_unmap_wait(struct blk_conf *c)
{
	int status;

	for (; c->children; c->children--) {
		if (wait(&status) < 0)
			return 1;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			c->rc = 1;
	}
	return c->rc;
}

/*
 * One device of the file: its line checked as 'blk map' checks its
 * command line, --serial required (the unmap at shutdown finds the device
 * by it), then checked only, printed, mapped (unless mapped already) or
 * unmapped.
 */
static int blk_conf_line(void *ctx, unsigned int lineno, int argc,
			 char **argv)
{
	struct blk_map_args m = { .conf.in_file = true };
	struct blk_conf *c = ctx;
	char name[64];
	int rc;

	rc = opt_parse_line(&blk_map_cmd, argv[0], lineno, argc, argv,
			    blk_map_set, &m);
	if (rc)
		return rc;
	if (!m.val[BLK_V_DEV] || !m.val[BLK_V_SIZE] || !m.val[BLK_V_SERIAL]) {
		fprintf(stderr, "%s: %s:%u: a device needs --dev, --size and --serial\n",
			prog, argv[0], lineno);
		return 2;
	}
	rc = blk_conf_limits(&m, argv[0], lineno);
	if (rc)
		return rc;
	switch (c->what) {
	case BLK_CONF_CHECK:
		break;
	case BLK_CONF_PRINT:
		opt_print_line(stdout, &blk_map_cmd, argc, argv);
		break;
	case BLK_CONF_MAP:
		if (blk_by_serial(m.val[BLK_V_SERIAL], name, sizeof(name)))
			printf("%s (serial %s, mapped already)\n", name,
			       m.val[BLK_V_SERIAL]);
		else if (blk_map_write(&m))
			c->rc = 1;
		break;
	case BLK_CONF_UNMAP:
		if (blk_by_serial(m.val[BLK_V_SERIAL], name, sizeof(name)))
			blk_unmap_child(c, name);
		break;
	}
	return 0;
}

/* Every device of @file: the file checked whole first. */
static int blk_conf(const char *file, enum blk_conf_do what, bool force,
		    bool keep)
{
	struct blk_conf c = { .what = BLK_CONF_CHECK, .force = force,
			      .keep = keep };
	int rc;

	rc = opt_config(file, blk_conf_line, &c);
	if (rc || what == BLK_CONF_CHECK)
		return rc;
	c.what = what;
	rc = opt_config(file, blk_conf_line, &c);
	if (blk_unmap_wait(&c) && !rc)
		rc = 1;
	return rc ? rc : c.rc;
}

static int blk_map(int argc, char **argv)
{
	struct blk_map_args m = { .val = { NULL } };
	int rc;

	rc = opt_parse(&blk_map_cmd, argc, argv, blk_map_set, &m);
	if (rc != OPT_GO)
		return rc;
	if (m.conf.file || m.conf.check) {
		if (!m.conf.file || m.others || optind != argc) {
			fprintf(stderr, "%s: blk map: --config FILE [--check-config], no other option\n",
				prog);
			return 2;
		}
		if (m.conf.check)
			return blk_conf(m.conf.file, BLK_CONF_PRINT, false, false);
		if (blk_conf(m.conf.file, BLK_CONF_CHECK, false, false))
			return 2;
		if (blk_load())
			return 1;
		return blk_conf(m.conf.file, BLK_CONF_MAP, false, false);
	}
	if (optind != argc || !m.val[BLK_V_DEV] || !m.val[BLK_V_SIZE]) {
		fprintf(stderr, "%s: blk map: --dev and --size are required, nothing else\n",
			prog);
		return 2;
	}
	if (m.print) {
		/* the tests': what map_device would get, a value a line */
		char line[512], *w, *save;

		if (blk_map_line(&m, line, sizeof(line)))
			return 2;
		for (w = strtok_r(line, " ", &save); w;
		     w = strtok_r(NULL, " ", &save))
			printf("%s\n", w);
		return 0;
	}
	if (blk_load())
		return 1;
	return blk_map_write(&m);
}

struct blk_unmap_args {
	bool force;
	bool keep;
	const char *config;
};

static int blk_unmap_set(void *ctx, int key, const char *arg)
{
	struct blk_unmap_args *u = ctx;

	if (key == 'f')
		u->force = true;
	else if (key == BLK_KEEP)
		u->keep = true;
	else if (key == BLK_CONFIG)
		u->config = arg;
	else
		return -1;
	return 0;
}

/*
 * --force: a device on a server's memory gives the server up now (the
 * reconnect's attributes, as nvme-rdma's: the next attempt, or the one
 * under way, fails it for good and fails its waiting I/O); a local device
 * has none.  The unmap itself never waits for the server: the kernel fails
 * the session before it removes the disk (Documentation/blk.rst).  The
 * attributes --force sets to 0, and their values before (put back when the
 * device stays mapped):
 */
static const char *const blk_tmo_attrs[] = { "fast_io_fail_tmo",
					     "ctrl_loss_tmo" };
struct blk_tmo {
	char val[ARRAY_SIZE(blk_tmo_attrs)][32];	/* "": not changed */
};

/*
 * Write @set (or, @set NULL, the saved value) to each reconnect attribute
 * of device @name that has a server; the old values into @t when setting.
 */
static void blk_tmo_write(const char *name, const char *set,
			  struct blk_tmo *t)
{
	char path[256], server[128];
	const char *v;
	size_t i;
	int err;

	snprintf(path, sizeof(path), "%s/%s/ibpost/server", BLK_SYS, name);
	if (sysfs_read(path, server, sizeof(server)) || !strcmp(server, "local"))
		return;
	for (i = 0; i < ARRAY_SIZE(blk_tmo_attrs); i++) {
		snprintf(path, sizeof(path), "%s/%s/ibpost/%s", BLK_SYS, name,
			 blk_tmo_attrs[i]);
		if (set && sysfs_read(path, t->val[i], sizeof(t->val[i])))
			t->val[i][0] = '\0';
		v = set ? set : t->val[i];
		if (!t->val[i][0])
			continue;
		err = blk_write_path(path, v);
		if (err)
			fprintf(stderr, "%s: blk unmap --force: %s: %s\n",
				prog, path, strerror(err));
	}
}

/*
 * Unmap @name (--force: blk_tmo_write() of 0 first, then retry while
 * open; --keep: its resume line kept first, then "NAME keep").
 */
static int blk_unmap_name(const char *name, bool force, bool keep)
{
	const struct timespec tick = { .tv_nsec = 200 * 1000 * 1000 };
	struct blk_tmo tmo = { .val = { "" } };
	char res[256], line[96], path[256], serial[64] = "";
	int err, tries;

	/* Attributes of a device name only, never of a path into sysfs. */
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		force = false;
		keep = false;
	}
	if (keep) {
		snprintf(path, sizeof(path), "%s/%s/ibpost/serial", BLK_SYS,
			 name);
		if (sysfs_read(path, serial, sizeof(serial)) ||
		    blk_state_save(name, serial))
			return 1;
	}
	snprintf(line, sizeof(line), "%s%s", name, keep ? " keep" : "");
	if (force)
		blk_tmo_write(name, "0", &tmo);
	tries = force ? BLK_FORCE_WAIT_S * 5 : 0;
	while ((err = blk_write("unmap_device", line)) == EBUSY && tries--)
		nanosleep(&tick, NULL);
	if (err && force)	/* still mapped: its settings back */
		blk_tmo_write(name, NULL, &tmo);
	if (err && keep)	/* still mapped: nothing to take back later */
		blk_state_drop(serial);
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

static int blk_unmap(int argc, char **argv)
{
	struct blk_unmap_args u = { .force = false };
	const char *name;
	int rc;

	rc = opt_parse(&blk_unmap_cmd, argc, argv, blk_unmap_set, &u);
	if (rc != OPT_GO)
		return rc;
	if (u.config) {
		if (optind != argc) {
			fprintf(stderr, "%s: blk unmap --config FILE takes no NAME\n",
				prog);
			return 2;
		}
		if (access(BLK_CTL, F_OK))
			return blk_conf(u.config, BLK_CONF_CHECK, false, false);
		return blk_conf(u.config, BLK_CONF_UNMAP, u.force, u.keep);
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: blk unmap [--force] [--keep] NAME|/dev/NAME\n", prog);
		return 2;
	}
	/* NAME or its node, as mount and nvme disconnect take either */
	name = argv[optind];
	if (!strncmp(name, "/dev/", 5))
		name += 5;
	if (!*name) {
		fprintf(stderr, "%s: blk unmap: no device name\n", prog);
		return 2;
	}
	return blk_unmap_name(name, u.force, u.keep);
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
	char path[256], v[ARRAY_SIZE(blk_attrs)][64], lat[256], size[16];
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
		if (ok[1] && blk_num(v[1], &n))
			out_human_bytes(size, sizeof(size), n);
		else
			snprintf(size, sizeof(size), "?");
		printf("%-10s %-10s %9s %6s %5s %-12s ", name, v[0], size,
		       v[2], v[4], v[7]);
		if (lat_ok)
			printf("%8llu %8llu", l[3] / 1000, l[4] / 1000);
		else
			printf("%8s %8s", "-", "-");
		printf(" %s\n", v[8]);
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
		blk_not_loaded();
		return 1;
	}
	if (json) {
		json_start(&js, stdout);
		json_obj(&js, NULL);
		json_arr_lines(&js, "devices");
	} else {
		printf("%-10s %-10s %9s %6s %5s %-12s %8s %8s %s\n",
		       "name", "rdma_dev", "size", "queues", "depth", "state",
		       "p50_us", "p99_us", "server");
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
