// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: drive /dev/ibpost with random and mutated ioctls.
 *
 * usage: fuzz [-n ITERATIONS] [-t SECONDS] [-r PERMILLE] [-s SEED]
 *             [-d DEVICE]
 *
 * Each iteration picks a command (the real ones, neighbours with other
 * sizes or directions, or random numbers), builds an argument (a valid
 * request with a few fields mutated, random bytes, or a bad pointer) and
 * calls ioctl().  A timer interrupts any transfer that runs long (EINTR).
 * Every call must succeed or fail with an errno from the documented set;
 * the kernel must stay silent (checked by the guest harness).  Prints the
 * seed first so a failure can be replayed; exits 1 on an unexpected errno.
 *
 * It stops after ITERATIONS (default 2000; 0 with -t: no limit), after
 * SECONDS of wall time (-t, default none), or on SIGINT/SIGTERM, and in
 * each case prints its summary: iterations, why it stopped, and how many
 * calls ended with each errno (0 for success).  Exit status: 0, 1 on an
 * unexpected errno, 3 when stopped by a signal.
 *
 * -r PERMILLE lets only that share of the run requests that name the
 * device reach it (the others name a device that does not exist, so they
 * are refused after the checks that need no device).  Real transfers cost
 * hundreds of milliseconds under TCG and a debug kernel: long runs use it
 * to spend their calls on the argument checks (default 1000: all).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <uapi/ibpost.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t pick(const uint64_t *v, size_t n)
{
	return v[rnd() % n];
}

/* Values that break things: edges of every width. */
static const uint64_t edges[] = {
	0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 255, 256, 511, 512, 513,
	1023, 1024, 4095, 4096, 4097, 65535, 65536, 1 << 20, 4 << 20,
	(4 << 20) + 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	0x100000000ULL, 0x7fffffffffffffffULL, 0xffffffffffffffffULL,
};

static uint64_t pick_edge(void)
{
	return pick(edges, ARRAY_SIZE(edges));
}

static void *unmapped;
/*
 * Pointers into here stay inside it: the kernel may write a whole argument
 * struct at any offset handed out (up to 8 KiB in, structs below 2 KiB).
 */
static unsigned char scratch[16384];

/*
 * Memory the kernel may write records into.  A mutated record pointer that
 * lands in the fuzzer's own live memory would let the kernel (correctly)
 * overwrite it: such pointers are redirected to an unmapped page.
 */
#define ARENA_SIZE	(64 * 1024)
static unsigned char *arena;

static int page_mapped(uint64_t addr)
{
	unsigned char v;

	return mincore((void *)(uintptr_t)(addr & ~4095ULL), 4096, &v) == 0;
}

/* A pointer the kernel writes @len bytes at: the arena or unmapped. */
static void sanitize_ptr(__u64 *ptr, uint64_t len)
{
	uint64_t a = *ptr, p, end;

	if (a >= (uintptr_t)arena && a + len <= (uintptr_t)arena + ARENA_SIZE)
		return;
	end = a + len < a ? UINT64_MAX : a + len;
	for (p = a & ~4095ULL; p < end; p += 4096)
		if (page_mapped(p)) {
			*ptr = (uintptr_t)unmapped;
			return;
		}
}

static void sanitize_records(struct ibpost_dev_list *l)
{
	sanitize_ptr(&l->devs, 16384);
}

static uint64_t bad_pointer(void)
{
	static const uint64_t p[] = {
		0, 1, 4096, 0xffff800000000000ULL, 0xffffffffffffff00ULL,
		0x00007ffffffff000ULL,
	};

	switch (rnd() % 4) {
	case 0:
		return (uintptr_t)unmapped;
	case 1:
		return (uintptr_t)scratch + rnd() % (sizeof(scratch) / 2);
	default:
		return pick(p, ARRAY_SIZE(p));
	}
}

static void mutate(void *buf, size_t len)
{
	unsigned char *b = buf;
	unsigned int n = 1 + rnd() % 4, i;

	for (i = 0; i < n; i++) {
		size_t at = rnd() % len;

		switch (rnd() % 4) {
		case 0:
			b[at] = (unsigned char)rnd();
			break;
		case 1:
			if (at + 4 <= len) {
				uint32_t v = (uint32_t)pick_edge();

				memcpy(b + at - at % 4, &v, 4);
			}
			break;
		case 2:
			if (at + 8 <= len) {
				uint64_t v = pick_edge();

				memcpy(b + at - at % 8, &v, 8);
			}
			break;
		default:
			b[at] ^= 1 << (rnd() % 8);
			break;
		}
	}
}

static struct ibpost_sge_desc sges[300];

static void valid_run(struct ibpost_run *r, const char *dev)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	snprintf(r->dev, sizeof(r->dev), "%s", dev);
	r->op = rnd() % IBPOST_OP_MAX;
	r->num_sge = 1 + rnd() % 4;
	r->msg_size = 64 << (rnd() % 8);
	r->layout = rnd() % IBPOST_LAYOUT_MAX;
	r->recv_layout = 1 + rnd() % (IBPOST_LAYOUT_MAX - 1);
	r->iters = 1 + rnd() % 32;
	r->warmup = rnd() % 4;
	r->depth = 4 + rnd() % 16;
	r->batch = 1;
	r->signal_every = 1 + rnd() % 4;
	r->flags = rnd() % 2 ? IBPOST_RUN_VERIFY : 0;
	for (i = 0; i < ARRAY_SIZE(sges); i++) {
		sges[i].offset = (uint32_t)(rnd() % 8192);
		sges[i].length = (uint32_t)(1 + rnd() % 2048);
	}
	r->sges = (uintptr_t)sges;
	r->recv_sges = (uintptr_t)sges;
}

static void valid_list(struct ibpost_dev_list *l, void *recs, unsigned int n)
{
	memset(l, 0, sizeof(*l));
	l->size = sizeof(*l);
	l->attr_size = sizeof(struct ibpost_dev_attr);
	l->count = n;
	l->devs = (uintptr_t)recs;
}

static unsigned long pick_cmd(void)
{
	switch (rnd() % 10) {
	case 0:
		return _IOC(rnd() % 4, IBPOST_IOC_MAGIC, rnd() % 8, rnd() % 2048);
	case 1:
		return (unsigned long)rnd();
	case 2:
		return _IOWR(IBPOST_IOC_MAGIC, 0x01, struct ibpost_run);
	case 3:
	case 4:
	case 5:
		return IBPOST_IOC_DEV_LIST;
	default:
		return IBPOST_IOC_RUN;
	}
}

static int allowed(int e)
{
	switch (e) {
	case 0: case EINVAL: case EFAULT: case ENOTTY: case E2BIG:
	case EOVERFLOW: case ENODEV: case EIO: case EINTR: case ETIMEDOUT:
	case ENOMEM: case EXDEV: case EADDRNOTAVAIL: case ECONNREFUSED:
	case EOPNOTSUPP:	/* a capability the device lacks (iWARP) */
	case ENOENT:		/* IBPOST_IOC_PROGRESS: no job on the file */
		return 1;
	default:
		return 0;
	}
}

static void on_alarm(int sig)
{
	(void)sig;
}

static sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	__atomic_store_n(&stop_sig, sig, __ATOMIC_RELAXED);
}

static int stopped(void)
{
	return __atomic_load_n(&stop_sig, __ATOMIC_RELAXED);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Errnos are below this; one count for any other value. */
#define NERR	160

/* The summary: iterations, why the loop ended, calls per errno. */
static void summary(unsigned long long done, const char *why, double secs,
		    const unsigned long long *per_errno, int bad)
{
	const char *name;
	int e;

	printf("fuzz: %s after %llu iterations in %.1f s (%.0f/s): %d unexpected\n",
	       why, done, secs, secs > 0 ? done / secs : 0.0, bad);
	printf("fuzz: outcomes:");
	for (e = 0; e <= NERR; e++) {
		if (!per_errno[e])
			continue;
		name = e == 0 ? "ok" : e == NERR ? "other" : strerrorname_np(e);
		printf(" %s %llu", name ? name : "?", per_errno[e]);
	}
	printf("\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct ibpost_dev_attr *recs;
	unsigned long long iters = 2000, seed = 0, i, counts[3] = {};
	unsigned long long per_errno[NERR + 1] = {};
	unsigned long budget = 0, permille = 1000;
	const char *why = "done";
	bool iters_set = false;
	double t0;
	const char *dev = "rxe_lo";
	struct itimerval it = { { 0, 100000 }, { 0, 100000 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	struct sigaction sst = { .sa_handler = on_stop };
	union {
		struct ibpost_run run;
		struct ibpost_dev_list list;
		unsigned char raw[2048];
	} arg;
	int fd, c, bad = 0;

	while ((c = getopt(argc, argv, "n:t:r:s:d:")) != -1) {
		switch (c) {
		case 'n':
			iters = strtoull(optarg, NULL, 0);
			iters_set = true;
			break;
		case 't':
			budget = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			permille = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			dev = optarg;
			break;
		default:
			fprintf(stderr, "usage: fuzz [-n ITERS] [-t SECONDS] [-r PERMILLE] [-s SEED] [-d DEV]\n");
			return 2;
		}
	}
	/* A budget alone: as many iterations as fit in it. */
	if (budget && !iters_set)
		iters = 0;
	if (!seed)
		seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
	rng = seed | 1;
	printf("fuzz: seed %llu, %llu iterations (0: no limit), budget %lu s (0: none), device %s, %lu per mille of runs reach it\n",
	       seed, iters, budget, dev, permille);
	fflush(stdout);
	fd = open(IBPOST_DEVICE_PATH, O_RDWR);
	if (fd < 0) {
		perror(IBPOST_DEVICE_PATH);
		return 1;
	}
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	arena = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (unmapped == MAP_FAILED || arena == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	recs = (struct ibpost_dev_attr *)arena;
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: ioctl gets EINTR */
	sigaction(SIGINT, &sst, NULL);
	sigaction(SIGTERM, &sst, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	t0 = now_s();

	for (i = 0; !iters || i < iters; i++) {
		unsigned long cmd = pick_cmd();
		void *p = &arg;
		int ret, e;

		memset(&arg, 0, sizeof(arg));
		if (rnd() % 2)
			valid_run(&arg.run, dev);
		else
			valid_list(&arg.list, recs, rnd() % 9);
		switch (rnd() % 8) {
		case 0:
			p = (void *)(uintptr_t)bad_pointer();
			break;
		case 1:
			for (c = 0; c < (int)sizeof(arg.raw); c++)
				arg.raw[c] = (unsigned char)rnd();
			break;
		case 2:
			arg.run.size = (uint32_t)pick_edge();
			break;
		default:
			mutate(&arg, rnd() % 3 ? sizeof(arg.run) : sizeof(arg.list));
			break;
		}
		if (stopped()) {
			why = stopped() == SIGINT ? "stopped by SIGINT" :
			      "stopped by SIGTERM";
			break;
		}
		if (budget && now_s() - t0 >= budget) {
			why = "stopped by the time budget";
			break;
		}
		if (cmd == IBPOST_IOC_DEV_LIST && p == &arg)
			sanitize_records(&arg.list);
		/* The histogram of IBPOST_RUN_HIST is written there too. */
		if (cmd == IBPOST_IOC_RUN && p == &arg)
			sanitize_ptr(&arg.run.hist,
				     IBPOST_HIST_LL_BUCKETS * sizeof(uint64_t));
		/* Only a share of the runs on the device reach it (-r). */
		if (cmd == IBPOST_IOC_RUN && p == &arg && permille < 1000 &&
		    !strncmp(arg.run.dev, dev, sizeof(arg.run.dev)) &&
		    rnd() % 1000 >= permille)
			snprintf(arg.run.dev, sizeof(arg.run.dev), "nosuch_fuzz");
		/* Bound real transfers: a few WRs, or a short duration. */
		if (cmd == IBPOST_IOC_RUN && p == &arg && arg.run.iters > 4096)
			arg.run.iters = rnd() % 4096;
		ret = ioctl(fd, cmd, p);
		e = ret ? errno : 0;
		counts[e == 0 ? 0 : e == EINTR ? 1 : 2]++;
		per_errno[e >= 0 && e < NERR ? e : NERR]++;
		if (!allowed(e)) {
			printf("fuzz: iteration %llu: cmd 0x%lx returned errno %d (%s)\n",
			       i, cmd, e, strerror(e));
			bad++;
		}
	}
	it.it_value.tv_usec = 0;
	it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	close(fd);
	printf("fuzz: done: %llu ok, %llu interrupted, %llu refused, %d unexpected\n",
	       counts[0], counts[1], counts[2], bad);
	summary(i, why, now_s() - t0, per_errno, bad);
	if (bad)
		return 1;
	return stopped() ? 3 : 0;
}
