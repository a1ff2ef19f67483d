// SPDX-License-Identifier: GPL-2.0
/*
 * abi_test: raw ioctls against /dev/ibpost that a well-behaved tool never
 * makes.  Each case checks the exact errno, the reason code and the words
 * the tool prints for it (IBPOST_REASON_TEXTS, spelled out again here).
 * Prints TAP lines; exits 1 if any case failed.
 *
 * abi_test --iwarp DEV ADDR: instead, the capability refusals of an iWARP
 * device (siw) DEV whose rdma_cm address is ADDR (IPv4): its record shows
 * IBPOST_DEV_NO_IMM, IBPOST_DEV_CM_ONLY and IBPOST_DEV_WRITE_UNPLACED;
 * SEND and WRITE with immediate, a loopback job without rdma_cm and a
 * verified WRITE outside ping-pong are refused with EOPNOTSUPP and their
 * reasons, posting nothing; a verified SEND through rdma_cm runs.
 *
 * abi_test --nocaps (as root): a descriptor opened with CAP_SYS_ADMIN and
 * kept across a drop of every capability lists devices but cannot run or
 * serve (EPERM with IBPOST_R_PRIV): the check is made at each ioctl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <grp.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <uapi/ibpost.h>

static int ncase, nfail;
static const char *const reason_text[IBPOST_R_MAX] = IBPOST_REASON_TEXTS;

static void report(const char *name, int ok, const char *fmt, int a, int b)
{
	ncase++;
	if (!ok)
		nfail++;
	printf("%sok %d - abi: %s", ok ? "" : "not ", ncase, name);
	if (!ok) {
		printf(" # ");
		printf(fmt, a, b);
	}
	printf("\n");
}

static const char *text_of(unsigned int reason)
{
	return reason < IBPOST_R_MAX && reason_text[reason] ?
	       reason_text[reason] : "(no text)";
}

/*
 * Compare the reason code and the words the tool prints for it
 * (IBPOST_REASON_TEXTS) with what the case expects, spelled out here so a
 * code that moves or a text that changes is noticed.
 */
static void check_reason(const char *name, unsigned int reason,
			 int want_reason, const char *want_text)
{
	const char *got = text_of(reason);

	ncase++;
	if ((int)reason == want_reason && !strcmp(got, want_text)) {
		printf("ok %d - abi: %s: \"%s\"\n", ncase, name, got);
		return;
	}
	nfail++;
	printf("not ok %d - abi: %s # reason %u \"%s\", want %d \"%s\"\n",
	       ncase, name, reason, got, want_reason, want_text);
}

/*
 * Run one ioctl and compare errno and reason (code and text) in @st, the
 * status inside @arg.  @want_reason -1: the kernel cannot answer with a
 * reason; when @arg is readable its status must then be left as the
 * caller set it.
 */
static void expect_st(int fd, const char *name, unsigned long cmd, void *arg,
		      const struct ibpost_status *st, int want_errno,
		      int want_reason, const char *want_text)
{
	int ret, e;

	ret = ioctl(fd, cmd, arg);
	e = ret ? errno : 0;
	if (e != want_errno) {
		report(name, 0, "errno %d, want %d", e, want_errno);
		return;
	}
	if (want_reason < 0 || !st) {
		report(name, 1, "", 0, 0);
		return;
	}
	check_reason(name, st->reason, want_reason, want_text);
}

/* DEV_LIST (or another number) with a struct ibpost_dev_list, maybe bad. */
static void expect(int fd, const char *name, unsigned long cmd, void *arg,
		   int want_errno, int want_reason, const char *want_text)
{
	struct ibpost_dev_list *l = arg;
	bool readable = arg && (unsigned long)arg >= 4096;

	expect_st(fd, name, cmd, arg, readable ? &l->status : NULL, want_errno,
		  want_reason, want_text);
}

static void expect_run(int fd, const char *name, struct ibpost_run *r,
		       int want_errno, int want_reason, const char *want_text)
{
	expect_st(fd, name, IBPOST_IOC_RUN, r, &r->status, want_errno,
		  want_reason, want_text);
}

/*
 * The reasons the cases expect, each with its words spelled out here (not
 * taken from the header), so a renumbered code or a changed text fails.
 */
/* No reason to compare: the kernel cannot or must not write one. */
enum { NO_WANT = -1 };
#define NO_REASON	NO_WANT, "(none)"
#define R_NONE		IBPOST_R_NONE, "no error"
#define R_ARG_TAIL	IBPOST_R_ARG_TAIL, \
	"argument has non-zero bytes this kernel does not know"
#define R_RESERVED	IBPOST_R_RESERVED, "reserved field is not zero"
#define R_FLAGS		IBPOST_R_FLAGS, "unknown flag bits set"
#define R_REC_SIZE	IBPOST_R_REC_SIZE, "record size out of range"
#define R_COUNT		IBPOST_R_COUNT, "record count above the limit"
#define R_OVERFLOW	IBPOST_R_OVERFLOW, "count * size overflows"
#define R_FAULT		IBPOST_R_FAULT, "user buffer not accessible"
#define R_NO_DEVICE	IBPOST_R_NO_DEVICE, "no such RDMA device"
#define R_OPCODE	IBPOST_R_OPCODE, "unknown opcode"
#define R_LAYOUT	IBPOST_R_LAYOUT, "unknown SGE layout"
#define R_NUM_SGE	IBPOST_R_NUM_SGE, \
	"num_sge is 0 or above the device limit"
#define R_DEPTH		IBPOST_R_DEPTH, "queue depth 0 or above the device limit"
#define R_ITERS		IBPOST_R_ITERS, "give iterations or a duration"
#define R_CM_ADDR	IBPOST_R_CM_ADDR, \
	"rdma_cm fields: family AF_INET or AF_INET6, port, timeout at most IBPOST_CM_TIMEOUT_MAX, set only with IBPOST_RUN_CM or IBPOST_RUN_PEER"
#define R_PEER_FLAG	IBPOST_R_PEER_FLAG, "option not available against a peer"
#define R_HIST		IBPOST_R_HIST, \
	"IBPOST_RUN_HIST and the histogram pointer (hist) go together"
#define R_NO_JOB	IBPOST_R_NO_JOB, "no job runs on this file descriptor"
#define R_CAP_IMM	IBPOST_R_CAP_IMM, \
	"device has no immediate data: no SEND or RDMA WRITE with immediate (IBPOST_DEV_NO_IMM)"
#define R_CAP_CM_ONLY	IBPOST_R_CAP_CM_ONLY, \
	"device connects QPs only through rdma_cm (IBPOST_DEV_CM_ONLY): give an address of the device (IBPOST_RUN_CM)"
#define R_CAP_WRITE_VERIFY	IBPOST_R_CAP_WRITE_VERIFY, \
	"device completes RDMA WRITE before the data is placed (IBPOST_DEV_WRITE_UNPLACED): verify WRITE with ping-pong"

#define R_PRIV		IBPOST_R_PRIV, \
	"needs CAP_SYS_ADMIN: running jobs and serving are privileged, listing devices is not"
#define R_GID_RANGE	IBPOST_R_GID_RANGE, "GID index past the port's GID table"
#define R_GID_EMPTY	IBPOST_R_GID_EMPTY, \
	"no GID at this index of the port's GID table"
#define R_GID_CM	IBPOST_R_GID_CM, \
	"a GID index is for QPs connected directly: rdma_cm takes the GID of the address"

static void run_base(struct ibpost_run *r)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	strcpy(r->dev, "rxe_lo");
	r->op = IBPOST_OP_WRITE;
	r->msg_size = 4096;
	r->num_sge = 1;
	r->layout = IBPOST_LAYOUT_EQUAL;
	r->iters = 10;
	r->depth = 4;
	r->batch = 1;
	r->signal_every = 1;
}

/*
 * IBPOST_RUN_GID on rxe_lo: an index past the port's GID table, an empty
 * entry (the table's last: rxe has 1024, lo a handful of addresses), and
 * the flag with rdma_cm.  Each names the index and the table's size;
 * nothing is posted.
 */
static void gid_cases(int fd)
{
	struct ibpost_run r;
	unsigned int len;

	run_base(&r);
	r.flags = IBPOST_RUN_GID;
	r.gid_index = 1U << 20;
	expect_run(fd, "RUN GID index past the table", &r, EINVAL,
		   R_GID_RANGE);
	len = (unsigned int)r.status.limit;
	report("RUN GID index past the table: value the index, limit the table's size",
	       r.status.value == 1U << 20 && len > 0 && len < 1U << 20 &&
	       !r.result.posted, "value %d, limit %d", (int)r.status.value,
	       (int)len);
	run_base(&r);
	r.flags = IBPOST_RUN_GID;
	r.gid_index = len;
	expect_run(fd, "RUN GID index = the table's size", &r, EINVAL,
		   R_GID_RANGE);
	run_base(&r);
	r.flags = IBPOST_RUN_GID;
	r.gid_index = len - 1;
	expect_run(fd, "RUN GID index of an empty entry (the last)", &r,
		   EINVAL, R_GID_EMPTY);
	report("RUN empty GID entry: value the index, limit the table's size",
	       r.status.value == len - 1 && r.status.limit == len,
	       "value %d, limit %d", (int)r.status.value,
	       (int)r.status.limit);
	run_base(&r);
	r.flags = IBPOST_RUN_GID | IBPOST_RUN_CM;
	r.cm_family = AF_INET;
	r.gid_index = 1;
	expect_run(fd, "RUN GID index with rdma_cm", &r, EINVAL, R_GID_CM);
	report("RUN GID index with rdma_cm names the index",
	       r.status.value == 1, "value %d, want %d", (int)r.status.value,
	       1);
}

/*
 * IBPOST_RUN_HIST and run.hist (reserved before): one without the other
 * is refused; a run with both writes its log-linear histogram, which
 * counts every latency sample; an unmapped one fails a run that went well.
 */
static void hist_cases(int fd, void *unmapped)
{
	static __u64 hist[IBPOST_HIST_LL_BUCKETS];
	unsigned long long sum = 0;
	struct ibpost_run r;
	unsigned int i;

	run_base(&r);
	r.hist = (uintptr_t)hist;
	expect_run(fd, "RUN hist pointer without IBPOST_RUN_HIST", &r, EINVAL,
		   R_HIST);
	run_base(&r);
	r.flags = IBPOST_RUN_HIST;
	expect_run(fd, "RUN IBPOST_RUN_HIST without a hist pointer", &r,
		   EINVAL, R_HIST);
	run_base(&r);
	r.flags = IBPOST_RUN_HIST;
	r.hist = (uintptr_t)hist;
	memset(hist, 0xff, sizeof(hist));
	expect_run(fd, "RUN IBPOST_RUN_HIST", &r, 0, R_NONE);
	for (i = 0; i < IBPOST_HIST_LL_BUCKETS; i++)
		sum += hist[i];
	report("RUN IBPOST_RUN_HIST: the histogram counts every sample",
	       sum == r.result.lat_samples && sum == 10 &&
	       !r.result.lat_samples_capped, "sum %d, samples %d",
	       (int)sum, (int)r.result.lat_samples);
	run_base(&r);
	r.flags = IBPOST_RUN_HIST;
	r.hist = (uintptr_t)unmapped;
	expect_run(fd, "RUN IBPOST_RUN_HIST, unmapped hist", &r, EFAULT,
		   R_FAULT);
	report("RUN unmapped hist: the run itself was done, results back",
	       r.result.wrs == 10, "wrs %d, want %d", (int)r.result.wrs, 10);
}

static void run_cases(int fd, void *unmapped)
{
	unsigned char big[sizeof(struct ibpost_run) + 32];
	struct ibpost_run r;

	run_base(&r);
	expect_run(fd, "RUN valid write", &r, 0, R_NONE);
	report("RUN valid write completes its WRs", r.result.wrs == 10,
	       "wrs %d, want %d", (int)r.result.wrs, 10);
	run_base(&r);
	r.size = IBPOST_RUN_SIZE_VER0 - 8;
	r.status.reason = 0xdead;
	expect_run(fd, "RUN size below VER0", &r, EINVAL, NO_REASON);
	/* ARG_SIZE: the caller's struct may not even hold a status. */
	report("RUN size below VER0 leaves the status alone (ARG_SIZE is not reported)",
	       r.status.reason == 0xdead, "reason %d, want %d",
	       (int)r.status.reason, 0xdead);
	memset(big, 0, sizeof(big));
	run_base(&r);
	r.size = sizeof(big);
	memcpy(big, &r, sizeof(r));
	big[sizeof(big) - 3] = 9;
	expect_run(fd, "RUN non-zero tail", (struct ibpost_run *)big, E2BIG,
		   R_ARG_TAIL);
	hist_cases(fd, unmapped);
	run_base(&r);
	r.cm_timeout_ms = 1;
	expect_run(fd, "RUN cm_timeout_ms without rdma_cm", &r, EINVAL,
		   R_CM_ADDR);
	run_base(&r);
	r.cm_port = 1;
	expect_run(fd, "RUN cm_port without the PEER flag", &r, EINVAL,
		   R_CM_ADDR);
	run_base(&r);
	r.flags = IBPOST_RUN_PEER | IBPOST_RUN_CM;
	r.cm_family = 2;
	expect_run(fd, "RUN PEER and CM flags together", &r, EINVAL,
		   R_PEER_FLAG);
	run_base(&r);
	r.cm_family = 2;
	expect_run(fd, "RUN cm_family without the CM flag", &r, EINVAL,
		   R_CM_ADDR);
	run_base(&r);
	r.gid_index = 1;
	expect_run(fd, "RUN gid_index (was reserved0) without IBPOST_RUN_GID",
		   &r, EINVAL, R_RESERVED);
	gid_cases(fd);
	run_base(&r);
	r.flags = 1U << 31;
	expect_run(fd, "RUN unknown flag", &r, EINVAL, R_FLAGS);
	run_base(&r);
	r.op = 99;
	expect_run(fd, "RUN unknown opcode", &r, EINVAL, R_OPCODE);
	run_base(&r);
	r.layout = 77;
	expect_run(fd, "RUN unknown layout", &r, EINVAL, R_LAYOUT);
	run_base(&r);
	r.op = IBPOST_OP_SEND;
	r.recv_layout = 9;
	expect_run(fd, "RUN unknown receive layout", &r, EINVAL, R_LAYOUT);
	run_base(&r);
	r.flags = IBPOST_RUN_CM;
	r.cm_family = 99;
	expect_run(fd, "RUN CM flag with an unknown address family", &r,
		   EINVAL, R_CM_ADDR);
	run_base(&r);
	strcpy(r.dev, "nosuch0");
	expect_run(fd, "RUN unknown device", &r, ENODEV, R_NO_DEVICE);
	run_base(&r);
	memset(r.dev, 'x', sizeof(r.dev));
	expect_run(fd, "RUN unterminated device name", &r, ENODEV,
		   R_NO_DEVICE);
	run_base(&r);
	r.layout = IBPOST_LAYOUT_EXPLICIT;
	r.num_sge = 2;
	expect_run(fd, "RUN explicit layout, NULL sges", &r, EFAULT,
		   R_FAULT);
	run_base(&r);
	r.layout = IBPOST_LAYOUT_EXPLICIT;
	r.num_sge = 2;
	r.sges = (unsigned long)unmapped;
	expect_run(fd, "RUN explicit layout, unmapped sges", &r, EFAULT,
		   R_FAULT);
	run_base(&r);
	r.op = IBPOST_OP_SEND;
	r.recv_layout = IBPOST_LAYOUT_EXPLICIT;
	r.recv_num_sge = 2;
	r.recv_sges = (unsigned long)unmapped;
	expect_run(fd, "RUN explicit receive layout, unmapped recv_sges", &r,
		   EFAULT, R_FAULT);
	report("RUN unmapped recv_sges names the receive WRs",
	       r.status.wr == IBPOST_STATUS_RECV_WR, "wr %d, want %d",
	       (int)r.status.wr, (int)IBPOST_STATUS_RECV_WR);
	run_base(&r);
	r.layout = IBPOST_LAYOUT_EXPLICIT;
	r.num_sge = 1U << 30;
	r.sges = (unsigned long)&r;
	expect_run(fd, "RUN explicit layout, huge num_sge", &r, EINVAL,
		   R_NUM_SGE);
	run_base(&r);
	r.iters = ~0ULL;
	expect_run(fd, "RUN iters * size overflow", &r, EOVERFLOW,
		   R_OVERFLOW);
	run_base(&r);
	r.depth = 0;
	expect_run(fd, "RUN depth 0", &r, EINVAL, R_DEPTH);
	run_base(&r);
	r.iters = 0;
	expect_run(fd, "RUN neither iters nor duration", &r, EINVAL,
		   R_ITERS);
	expect_run(fd, "RUN NULL argument", NULL, EFAULT, NO_REASON);
}

static void base(struct ibpost_dev_list *l, void *recs, unsigned int count)
{
	memset(l, 0, sizeof(*l));
	l->size = sizeof(*l);
	l->attr_size = sizeof(struct ibpost_dev_attr);
	l->count = count;
	l->devs = (unsigned long)recs;
	l->status.reason = 0xdead;
}

#define R_CM_FIELDS	R_CM_ADDR
#define R_TIMEOUT	IBPOST_R_TIMEOUT, "no completion within the timeout"
#define R_SRV_MEM	IBPOST_R_SRV_MEM, \
	"the server's budget of pinned memory or MRs would be exceeded"

static void progress_base(struct ibpost_progress *p)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
}

static void expect_progress(int fd, const char *name, struct ibpost_progress *p,
			    int want_errno, int want_reason,
			    const char *want_text)
{
	expect_st(fd, name, IBPOST_IOC_PROGRESS, p, p ? &p->status : NULL,
		  want_errno, want_reason, want_text);
}

/* The jobs the hammer watches: short ones, one after another on one file. */
#define HAMMER_JOBS	6
#define HAMMER_ITERS	3000

struct hammer {
	int fd;
	int err[HAMMER_JOBS];
	unsigned long long wrs[HAMMER_JOBS];	/* each job's final count */
	unsigned int qpn[HAMMER_JOBS];
	int done;
};

static void *hammer_runs(void *arg)
{
	struct hammer *h = arg;
	struct ibpost_run r;
	int i;

	for (i = 0; i < HAMMER_JOBS; i++) {
		run_base(&r);
		r.iters = HAMMER_ITERS;
		r.depth = 16;
		r.signal_every = 4;
		h->err[i] = ioctl(h->fd, IBPOST_IOC_RUN, &r) ? errno : 0;
		h->wrs[i] = r.result.wrs;
		h->qpn[i] = r.result.qpn;
	}
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The most WRs a progress read showed of the job of QP @qpn. */
static unsigned long long seen_of(const unsigned int *qpn,
				  const unsigned long long *seen,
				  unsigned int n, unsigned int q)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (qpn[i] == q)
			return seen[i];
	return 0;
}

/*
 * PROGRESS read as fast as it goes while jobs start and end on the same
 * file in another thread (the link of a job to its file against the job's
 * end; the debug kernel's KASAN and lockdep watch): every answer is a
 * job's live counts or ENOENT with its reason; a job's counts never go
 * back; one was caught mid-run; none is above the job's final result.
 */
static void progress_hammer(void)
{
	unsigned int qpn[256] = { 0 }, n = 0, i, bad_state = 0, bad_err = 0;
	unsigned long long seen[256] = { 0 }, back = 0, mid = 0, reads = 0;
	unsigned long long above = 0, bad_bytes = 0;
	struct hammer h = { 0 };
	struct ibpost_progress p;
	pthread_t tid;
	int jobs_ok = 1;

	h.fd = open(IBPOST_DEVICE_PATH, O_RDWR);
	if (h.fd < 0 || pthread_create(&tid, NULL, hammer_runs, &h)) {
		report("PROGRESS hammered while jobs start and end", 0,
		       "cannot start: %d %d", h.fd, errno);
		return;
	}
	while (!__atomic_load_n(&h.done, __ATOMIC_ACQUIRE)) {
		progress_base(&p);
		reads++;
		if (ioctl(h.fd, IBPOST_IOC_PROGRESS, &p)) {
			bad_err += errno != ENOENT || p.status.reason != IBPOST_R_NO_JOB;
			continue;
		}
		bad_state += p.state < IBPOST_JOB_SETUP || p.state > IBPOST_JOB_ENDING;
		bad_bytes += p.bytes != p.wrs * 4096;
		if (!p.qpn)
			continue;
		for (i = 0; i < n && qpn[i] != p.qpn; i++)
			;
		if (i == n && n < 256)
			qpn[n++] = p.qpn;
		if (i == 256)
			continue;
		back += p.wrs < seen[i];
		if (p.wrs > seen[i])
			seen[i] = p.wrs;
		mid += p.state == IBPOST_JOB_MEASURE && p.wrs > 0 &&
		       p.wrs < HAMMER_ITERS;
	}
	pthread_join(tid, NULL);
	for (i = 0; i < HAMMER_JOBS; i++) {
		jobs_ok &= !h.err[i] && h.wrs[i] == HAMMER_ITERS;
		above += seen_of(qpn, seen, n, h.qpn[i]) > h.wrs[i];
	}
	report("PROGRESS hammered: the jobs on the file ran to their end",
	       jobs_ok, "first errno %d, wrs %d", h.err[0], (int)h.wrs[0]);
	report("PROGRESS hammered: 0 or ENOENT (no job) only, valid states",
	       !bad_err && !bad_state, "bad errno %d, bad state %d", bad_err,
	       bad_state);
	report("PROGRESS hammered: bytes are wrs * size", !bad_bytes,
	       "%d of %d reads", (int)bad_bytes, (int)reads);
	report("PROGRESS hammered: a job's count never goes back", !back,
	       "%d times (%d reads)", (int)back, (int)reads);
	report("PROGRESS hammered: counts seen mid-run, live", mid > 0,
	       "%d reads mid-run of %d", (int)mid, (int)reads);
	report("PROGRESS hammered: no count above the job's final result",
	       !above, "%d jobs, %d", (int)above, 0);
	progress_base(&p);
	expect_progress(h.fd, "PROGRESS after the jobs ended", &p, ENOENT,
			R_NO_JOB);
	close(h.fd);
}

static void progress_cases(void *unmapped)
{
	unsigned char big[sizeof(struct ibpost_progress) + 16];
	struct ibpost_progress p;
	int fd;

	fd = open(IBPOST_DEVICE_PATH, O_RDWR);
	progress_base(&p);
	expect_progress(fd, "PROGRESS on a file with no job", &p, ENOENT,
			R_NO_JOB);
	progress_base(&p);
	p.size = IBPOST_PROGRESS_SIZE_VER0 - 8;
	p.status.reason = 0xdead;
	expect_progress(fd, "PROGRESS size below VER0", &p, EINVAL, NO_REASON);
	report("PROGRESS size below VER0 leaves the status alone",
	       p.status.reason == 0xdead, "reason %d, want %d",
	       (int)p.status.reason, 0xdead);
	memset(big, 0, sizeof(big));
	progress_base(&p);
	p.size = sizeof(big);
	memcpy(big, &p, sizeof(p));
	expect_progress(fd, "PROGRESS larger struct, zero tail: no job", (void *)big,
			ENOENT, R_NO_JOB);
	big[sizeof(big) - 1] = 1;
	expect_progress(fd, "PROGRESS non-zero tail", (void *)big, E2BIG,
			R_ARG_TAIL);
	progress_base(&p);
	p.flags = 1;
	expect_progress(fd, "PROGRESS unknown flag", &p, EINVAL, R_FLAGS);
	progress_base(&p);
	p.reserved0 = 1;
	expect_progress(fd, "PROGRESS reserved0", &p, EINVAL, R_RESERVED);
	progress_base(&p);
	p.reserved[1] = 1;
	expect_progress(fd, "PROGRESS reserved field", &p, EINVAL, R_RESERVED);
	expect_progress(fd, "PROGRESS NULL argument", NULL, EFAULT, NO_REASON);
	expect_progress(fd, "PROGRESS unmapped argument", unmapped, EFAULT,
			NO_REASON);
	close(fd);
	progress_hammer();
}

static void serve_base(struct ibpost_serve *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->port = 18597;
}

static void expect_serve(int fd, const char *name, struct ibpost_serve *a,
			 int want_errno, int want_reason, const char *want_text)
{
	expect_st(fd, name, IBPOST_IOC_SERVE, a, &a->status, want_errno,
		  want_reason, want_text);
}

/* The allow list (version 1): every entry checked before anything starts. */
static void serve_allow_cases(int fd)
{
	struct ibpost_serve_allow al[2] = {};
	struct ibpost_serve a;

	al[0].family = AF_INET;
	al[0].prefix = 24;
	al[1].family = AF_INET6;
	al[1].prefix = 64;
	serve_base(&a);
	a.allow = (uintptr_t)al;
	a.nallow = IBPOST_SERVE_ALLOW_MAX + 1;
	expect_serve(fd, "SERVE allow list above 64 entries", &a, EINVAL,
		     R_COUNT);
	serve_base(&a);
	a.nallow = 1;
	a.allow = 8;
	expect_serve(fd, "SERVE allow list at a bad address", &a, EFAULT,
		     R_FAULT);
	serve_base(&a);
	a.allow = (uintptr_t)al;
	a.nallow = 2;
	al[1].prefix = 129;
	expect_serve(fd, "SERVE allow IPv6 prefix 129", &a, EINVAL, R_CM_ADDR);
	al[1].prefix = 64;
	al[0].prefix = 33;
	expect_serve(fd, "SERVE allow IPv4 prefix 33", &a, EINVAL, R_CM_ADDR);
	al[0].prefix = 24;
	al[0].family = 99;
	expect_serve(fd, "SERVE allow entry of family 99", &a, EINVAL,
		     R_CM_ADDR);
	al[0].family = AF_INET;
	al[1].reserved[4] = 1;
	expect_serve(fd, "SERVE allow entry reserved byte", &a, EINVAL,
		     R_RESERVED);
	serve_base(&a);
	a.keep_s = IBPOST_SRV_KEEP_MAX + 1;
	expect_serve(fd, "SERVE keep above IBPOST_SRV_KEEP_MAX", &a, EINVAL,
		     R_TIMEOUT);
	serve_base(&a);
	a.nallow = 0;
	a.allow = 8;
	expect_serve(fd, "SERVE allow pointer without entries", &a, EINVAL,
		     R_CM_ADDR);
}

/* IBPOST_IOC_SERVE: each refusal starts nothing; then one real start. */
static void serve_cases(int fd)
{
	struct ibpost_serve a;
	int sfd;

	serve_base(&a);
	a.size = IBPOST_SERVE_SIZE_VER0 - 4;
	expect_serve(fd, "SERVE size below VER0", &a, EINVAL, NO_REASON);
	serve_base(&a);
	a.flags = IBPOST_SERVE_FLAGS + 1;	/* the first bit it does not know */
	expect_serve(fd, "SERVE unknown flag", &a, EINVAL, R_FLAGS);
	serve_base(&a);
	a.max_job_ms = 999;
	expect_serve(fd, "SERVE job time below 1000 ms", &a, EINVAL, R_TIMEOUT);
	serve_base(&a);
	a.max_job_ms = 86400001;
	expect_serve(fd, "SERVE job time above a day", &a, EINVAL, R_TIMEOUT);
	serve_base(&a);
	a.max_conns = 4;
	a.max_per_addr = 5;
	expect_serve(fd, "SERVE per-address limit above max_conns", &a, EINVAL,
		     R_COUNT);
	serve_base(&a);
	a.max_mem_mib = 0xffffffffU;
	expect_serve(fd, "SERVE memory budget above the host's RAM", &a, EINVAL,
		     R_SRV_MEM);
	serve_base(&a);
	a.family = 99;
	expect_serve(fd, "SERVE unknown family", &a, EINVAL, R_CM_FIELDS);
	serve_base(&a);
	a.addr[3] = 1;
	expect_serve(fd, "SERVE address without a family", &a, EINVAL,
		     R_CM_FIELDS);
	serve_base(&a);
	a.max_conns = 257;
	expect_serve(fd, "SERVE max_conns above 256", &a, EINVAL, R_COUNT);
	serve_base(&a);
	a.idle_ms = 999;
	expect_serve(fd, "SERVE idle below 1000 ms", &a, EINVAL, R_TIMEOUT);
	serve_allow_cases(fd);
	sfd = open(IBPOST_DEVICE_PATH, O_RDWR);
	serve_base(&a);
	expect_serve(sfd, "SERVE starts a listener", &a, 0, R_NONE);
	report("SERVE's first event is LISTEN on the port asked",
	       a.event.kind == IBPOST_SRV_LISTEN && a.event.port == 18597,
	       "kind %u port %u", a.event.kind, a.event.port);
	close(sfd);
	sfd = open(IBPOST_DEVICE_PATH, O_RDWR);
	serve_base(&a);
	expect_serve(sfd, "SERVE on the same port after close (all freed)", &a,
		     0, R_NONE);
	close(sfd);
	sfd = open(IBPOST_DEVICE_PATH, O_RDWR);
	serve_base(&a);
	a.flags = IBPOST_SERVE_CPU_RECORD;
	expect_serve(sfd, "SERVE with IBPOST_SERVE_CPU_RECORD starts a listener",
		     &a, 0, R_NONE);
	close(sfd);
}

/*
 * The ioctl numbers, written out: the ones installed tools send.  Each is
 * _IOC(_IOC_READ | _IOC_WRITE, 0xE9, nr, IBPOST_*_SIZE_VER0); the RUN
 * number of tools built while IBPOST_IOC_RUN was _IOWR() of a struct of
 * IBPOST_RUN_SIZE_VER1 (888 bytes) is an alias the kernel keeps.
 */
#define NR_DEV_LIST	0xc050e901UL
#define NR_RUN		0xc358e902UL
#define NR_RUN_888	0xc378e902UL
#define NR_SERVE	0xc0c0e903UL
#define NR_PROGRESS	0xc060e905UL

static void number_row(const char *name, unsigned long got,
		       unsigned long want)
{
	report(name, got == want, "0x%x, want 0x%x", (int)got, (int)want);
}

/*
 * A RUN whose argument is exactly @size bytes, the last bytes of a page
 * before an unmapped one: the kernel must neither read nor write past
 * them.  Returns the argument (still mapped), NULL when mmap failed.
 */
static void *run_at_page_end(unsigned char *pages, size_t size)
{
	struct ibpost_run full;

	run_base(&full);
	full.size = size;
	memcpy(pages + 4096 - size, &full, size);
	return pages + 4096 - size;
}

/*
 * The numbers of the commands and the alias: each number is its literal
 * value; a RUN of exactly IBPOST_RUN_SIZE_VER0 bytes runs through the
 * number and through the 888-byte alias; below VER0 is refused through
 * both; a RUN or SERVE number with any other size is not a command.
 */
static void number_cases(int fd)
{
	struct ibpost_serve serve;
	struct ibpost_run full, *r;
	unsigned char *pages;
	void *a;

	number_row("IBPOST_IOC_DEV_LIST is 0xc050e901 (size 80, VER0)",
		   IBPOST_IOC_DEV_LIST, NR_DEV_LIST);
	number_row("IBPOST_IOC_RUN is 0xc358e902 (size 856, VER0)",
		   IBPOST_IOC_RUN, NR_RUN);
	number_row("IBPOST_IOC_SERVE is 0xc0c0e903 (size 192, VER0)",
		   IBPOST_IOC_SERVE, NR_SERVE);
	number_row("IBPOST_IOC_PROGRESS is 0xc060e905 (size 96, VER0)",
		   IBPOST_IOC_PROGRESS, NR_PROGRESS);
	number_row("RUN alias 0xc378e902 is RUN's number with size VER1 (888)",
		   _IOC(_IOC_READ | _IOC_WRITE, IBPOST_IOC_MAGIC, 0x02,
			IBPOST_RUN_SIZE_VER1), NR_RUN_888);

	pages = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED || mprotect(pages + 4096, 4096, PROT_NONE)) {
		report("RUN argument at a page's end: mmap", 0,
		       "errno %d, want %d", errno, 0);
		return;
	}
	r = run_at_page_end(pages, IBPOST_RUN_SIZE_VER0);
	expect_st(fd, "RUN of exactly IBPOST_RUN_SIZE_VER0 bytes (size 856)",
		  NR_RUN, r, &r->status, 0, R_NONE);
	report("RUN of exactly 856 bytes completes its WRs",
	       r->result.wrs == 10, "wrs %d, want %d", (int)r->result.wrs, 10);
	r = run_at_page_end(pages, IBPOST_RUN_SIZE_VER0);
	expect_st(fd, "RUN of 856 bytes through the 888 alias 0xc378e902",
		  NR_RUN_888, r, &r->status, 0, R_NONE);
	report("RUN of 856 bytes through the alias completes its WRs",
	       r->result.wrs == 10, "wrs %d, want %d", (int)r->result.wrs, 10);
	a = run_at_page_end(pages, IBPOST_RUN_SIZE_VER0 - 1);
	expect_st(fd, "RUN of 855 bytes (size below VER0) refused", NR_RUN, a,
		  NULL, EINVAL, NO_REASON);
	munmap(pages, 2 * 4096);

	run_base(&full);
	expect_st(fd, "RUN of sizeof (888) through the alias 0xc378e902",
		  NR_RUN_888, &full, &full.status, 0, R_NONE);
	report("RUN through the alias completes its WRs",
	       full.result.wrs == 10, "wrs %d, want %d",
	       (int)full.result.wrs, 10);
	run_base(&full);
	full.size = IBPOST_RUN_SIZE_VER0 - 8;
	full.status.reason = 0xdead;
	expect_st(fd, "RUN size below VER0 through the alias refused",
		  NR_RUN_888, &full, &full.status, EINVAL, NO_REASON);
	report("RUN size below VER0 through the alias leaves the status alone",
	       full.status.reason == 0xdead, "reason %d, want %d",
	       (int)full.status.reason, 0xdead);
	run_base(&full);
	expect_st(fd, "RUN number with size 872 (neither VER0 nor the alias)",
		  _IOC(_IOC_READ | _IOC_WRITE, IBPOST_IOC_MAGIC, 0x02, 872),
		  &full, &full.status, ENOTTY, NO_REASON);
	/* Had it been taken, its unknown flag would have started nothing. */
	serve_base(&serve);
	serve.flags = 1;
	expect_st(fd, "SERVE number with size VER1 (no alias but RUN's)",
		  _IOC(_IOC_READ | _IOC_WRITE, IBPOST_IOC_MAGIC, 0x03,
		       IBPOST_SERVE_SIZE_VER1),
		  &serve, &serve.status, ENOTTY, NO_REASON);
}

/* No capability left in this process (CapEff of /proc/self/status). */
static bool no_caps(void)
{
	char line[256];
	bool none = false;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			none = strtoull(line + 7, NULL, 16) == 0;
	fclose(f);
	return none;
}

/*
 * abi_test --nocaps: a descriptor root opened (and started a server on),
 * kept across setresuid() to nobody, which drops every capability: it
 * lists devices, but cannot run a job, start a server or read the events
 * of the one root started (EPERM, IBPOST_R_PRIV); a new open of the 0600
 * node is refused (EACCES).
 */
static int nocaps_cases(int fd)
{
	struct ibpost_dev_attr recs[4];
	struct ibpost_dev_list l;
	struct ibpost_serve a;
	struct ibpost_run r;
	int sfd;

	sfd = open(IBPOST_DEVICE_PATH, O_RDWR);
	serve_base(&a);
	expect_serve(sfd, "nocaps: root starts a server", &a, 0, R_NONE);
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534)) {
		perror("drop to nobody");
		return 1;
	}
	report("nocaps: setresuid(nobody) left no capability", no_caps(),
	       "CapEff not zero (%d%d)", 0, 0);
	base(&l, recs, 4);
	expect(fd, "nocaps: root's fd lists devices", IBPOST_IOC_DEV_LIST, &l,
	       0, R_NONE);
	report("nocaps: the list has records", l.written >= 1,
	       "written %d total %d", l.written, l.total);
	run_base(&r);
	expect_run(fd, "nocaps: root's fd cannot run a job", &r, EPERM,
		   R_PRIV);
	report("nocaps: nothing posted", !r.result.posted && !r.result.wrs,
	       "posted %d wrs %d", (int)r.result.posted, (int)r.result.wrs);
	run_base(&r);
	r.size = IBPOST_RUN_SIZE_VER0 - 8;
	r.status.reason = 0xdead;
	expect_run(fd, "nocaps: RUN below VER0: EPERM", &r, EPERM, NO_REASON);
	report("nocaps: RUN below VER0 leaves the status alone",
	       r.status.reason == 0xdead, "reason %d, want %d",
	       (int)r.status.reason, 0xdead);
	expect_run(fd, "nocaps: RUN NULL argument: EPERM", NULL, EPERM,
		   NO_REASON);
	serve_base(&a);
	a.port = 18598;
	expect_serve(fd, "nocaps: root's fd cannot start a server", &a, EPERM,
		     R_PRIV);
	serve_base(&a);
	expect_serve(sfd, "nocaps: nor read root's server's events", &a,
		     EPERM, R_PRIV);
	close(sfd);
	sfd = open(IBPOST_DEVICE_PATH, O_RDWR);
	report("nocaps: a new open of the 0600 node: EACCES",
	       sfd < 0 && errno == EACCES, "fd %d errno %d", sfd,
	       sfd < 0 ? errno : 0);
	if (sfd >= 0)
		close(sfd);
	printf("1..%d\n", ncase);
	return nfail ? 1 : 0;
}

/* The capability refusals of an iWARP device (see the header). */
static int iwarp_cases(int fd, const char *dev, const char *addr)
{
	const unsigned int caps = IBPOST_DEV_NO_IMM | IBPOST_DEV_CM_ONLY |
				  IBPOST_DEV_WRITE_UNPLACED;
	struct ibpost_dev_attr recs[16];
	struct ibpost_dev_list l;
	struct ibpost_run r;
	unsigned int i, found = 0, flags = 0;
	struct in_addr in;

	if (inet_pton(AF_INET, addr, &in) != 1) {
		fprintf(stderr, "abi_test: bad IPv4 address %s\n", addr);
		return 2;
	}
	base(&l, recs, 16);
	expect(fd, "iWARP: list devices", IBPOST_IOC_DEV_LIST, &l, 0, R_NONE);
	for (i = 0; i < l.written; i++) {
		if (strcmp(recs[i].name, dev))
			continue;
		found = 1;
		flags = recs[i].flags;
	}
	report("iWARP: the device's record says no immediate, rdma_cm only, WRITE unplaced",
	       found && (flags & caps) == caps, "found %d flags 0x%x", found,
	       flags);

	run_base(&r);
	strcpy(r.dev, dev);
	r.op = IBPOST_OP_WRITE_IMM;
	r.imm_data = 7;
	r.flags = IBPOST_RUN_CM | IBPOST_RUN_VERIFY;
	r.cm_family = AF_INET;
	memcpy(r.cm_addr, &in, sizeof(in));
	expect_run(fd, "iWARP: RUN WRITE_IMM through rdma_cm", &r, EOPNOTSUPP,
		   R_CAP_IMM);
	report("iWARP: WRITE_IMM refusal names the opcode, posts nothing",
	       r.status.value == IBPOST_OP_WRITE_IMM && !r.result.posted,
	       "value %d posted %d", (int)r.status.value,
	       (int)r.result.posted);
	r.op = IBPOST_OP_SEND_IMM;
	r.recv_layout = IBPOST_LAYOUT_EQUAL;
	expect_run(fd, "iWARP: RUN SEND_IMM through rdma_cm", &r, EOPNOTSUPP,
		   R_CAP_IMM);
	r.recv_layout = IBPOST_LAYOUT_EXPLICIT;
	r.op = IBPOST_OP_WRITE_IMM;
	r.flags = IBPOST_RUN_VERIFY;
	r.cm_family = 0;
	memset(r.cm_addr, 0, sizeof(r.cm_addr));
	expect_run(fd, "iWARP: RUN WRITE_IMM without rdma_cm names the immediate",
		   &r, EOPNOTSUPP, R_CAP_IMM);
	run_base(&r);
	strcpy(r.dev, dev);
	r.flags = IBPOST_RUN_VERIFY;
	expect_run(fd, "iWARP: RUN loopback WRITE without rdma_cm", &r,
		   EOPNOTSUPP, R_CAP_CM_ONLY);
	report("iWARP: rdma_cm refusal names the run's flags, posts nothing",
	       r.status.value == IBPOST_RUN_VERIFY && !r.result.posted,
	       "value %d posted %d", (int)r.status.value,
	       (int)r.result.posted);
	r.flags = IBPOST_RUN_CM | IBPOST_RUN_VERIFY;
	r.cm_family = AF_INET;
	memcpy(r.cm_addr, &in, sizeof(in));
	expect_run(fd, "iWARP: RUN WRITE verified at completion", &r,
		   EOPNOTSUPP, R_CAP_WRITE_VERIFY);
	report("iWARP: WRITE verification refusal names the flags, posts nothing",
	       r.status.value == (IBPOST_RUN_CM | IBPOST_RUN_VERIFY) &&
	       !r.result.posted, "value %d posted %d", (int)r.status.value,
	       (int)r.result.posted);
	r.op = IBPOST_OP_SEND;
	r.recv_layout = IBPOST_LAYOUT_EQUAL;
	expect_run(fd, "iWARP: RUN SEND verified through rdma_cm", &r, 0,
		   R_NONE);
	report("iWARP: RUN SEND through rdma_cm completes verified",
	       r.result.wrs == 10 && !r.result.verify_errors,
	       "wrs %d verify_errors %d", (int)r.result.wrs,
	       (int)r.result.verify_errors);
	printf("1..%d\n", ncase);
	return nfail ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ibpost_dev_attr recs[4];
	struct ibpost_dev_list l;
	unsigned char big[sizeof(l) + 64];
	void *unmapped;
	int fd;

	fd = open(IBPOST_DEVICE_PATH, O_RDWR);
	if (fd < 0) {
		perror(IBPOST_DEVICE_PATH);
		return 1;
	}
	if (argc == 4 && !strcmp(argv[1], "--iwarp"))
		return iwarp_cases(fd, argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "--nocaps"))
		return nocaps_cases(fd);
	if (argc != 1) {
		fprintf(stderr, "usage: abi_test [--iwarp DEV ADDR | --nocaps]\n");
		return 2;
	}
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);

	base(&l, recs, 4);
	expect(fd, "valid list", IBPOST_IOC_DEV_LIST, &l, 0, R_NONE);
	report("valid list returns records", l.written >= 1 && l.total >= 1,
	       "written %d total %d", l.written, l.total);

	expect(fd, "unknown ioctl number", _IOWR(IBPOST_IOC_MAGIC, 0x7f,
	       struct ibpost_dev_list), &l, ENOTTY, NO_REASON);
	expect(fd, "foreign magic", _IO('T', 1), &l, ENOTTY, NO_REASON);
	expect(fd, "DEV_LIST with another size in cmd",
	       _IOWR(IBPOST_IOC_MAGIC, 0x01, struct ibpost_dev_attr), &l,
	       ENOTTY, NO_REASON);
	expect(fd, "NULL argument", IBPOST_IOC_DEV_LIST, NULL, EFAULT, NO_REASON);
	expect(fd, "unmapped argument", IBPOST_IOC_DEV_LIST, unmapped, EFAULT,
	       NO_REASON);

	base(&l, recs, 4);
	l.size = IBPOST_DEV_LIST_SIZE_VER0 - 1;
	expect(fd, "size below VER0", IBPOST_IOC_DEV_LIST, &l, EINVAL, NO_REASON);
	report("size below VER0 leaves the status alone (ARG_SIZE is not reported)",
	       l.status.reason == 0xdead, "reason %d, want %d",
	       (int)l.status.reason, 0xdead);
	base(&l, recs, 4);
	l.size = 0;
	expect(fd, "size zero", IBPOST_IOC_DEV_LIST, &l, EINVAL, NO_REASON);

	memset(big, 0, sizeof(big));
	base(&l, recs, 4);
	l.size = sizeof(big);
	memcpy(big, &l, sizeof(l));
	expect(fd, "larger struct, zero tail", IBPOST_IOC_DEV_LIST, big, 0,
	       R_NONE);
	big[sizeof(big) - 1] = 1;
	expect(fd, "larger struct, non-zero tail", IBPOST_IOC_DEV_LIST, big,
	       E2BIG, R_ARG_TAIL);

	base(&l, recs, 4);
	l.flags = 1;
	expect(fd, "unknown flag", IBPOST_IOC_DEV_LIST, &l, EINVAL,
	       R_FLAGS);
	base(&l, recs, 4);
	l.reserved[1] = 1;
	expect(fd, "reserved field", IBPOST_IOC_DEV_LIST, &l, EINVAL,
	       R_RESERVED);
	base(&l, recs, 4);
	l.attr_size = IBPOST_DEV_ATTR_SIZE_VER0 - 8;
	expect(fd, "record size too small", IBPOST_IOC_DEV_LIST, &l, EINVAL,
	       R_REC_SIZE);
	base(&l, recs, 4);
	l.attr_size = 1 << 20;
	expect(fd, "record size too big", IBPOST_IOC_DEV_LIST, &l, EINVAL,
	       R_REC_SIZE);
	base(&l, recs, IBPOST_DEV_LIST_MAX + 1);
	expect(fd, "count above limit", IBPOST_IOC_DEV_LIST, &l, EINVAL,
	       R_COUNT);
	base(&l, NULL, 4);
	expect(fd, "NULL record array", IBPOST_IOC_DEV_LIST, &l, EFAULT,
	       R_FAULT);
	base(&l, unmapped, 4);
	expect(fd, "unmapped record array", IBPOST_IOC_DEV_LIST, &l, EFAULT,
	       R_FAULT);
	base(&l, (void *)(~0UL - 64), 4);
	expect(fd, "kernel-range record array", IBPOST_IOC_DEV_LIST, &l,
	       EFAULT, R_FAULT);
	base(&l, NULL, 0);
	expect(fd, "count zero asks for total", IBPOST_IOC_DEV_LIST, &l, 0,
	       R_NONE);
	report("count zero writes nothing", l.written == 0 && l.total >= 1,
	       "written %d total %d", l.written, l.total);

	run_cases(fd, unmapped);
	number_cases(fd);
	progress_cases(unmapped);
	serve_cases(fd);
	printf("1..%d\n", ncase);
	close(fd);
	return nfail ? 1 : 0;
}
