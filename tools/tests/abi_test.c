// SPDX-License-Identifier: GPL-2.0
/*
 * abi_test: raw ioctls against /dev/ibpost that a well-behaved tool never
 * makes.  Each case checks the exact errno and reason code.  Prints TAP
 * lines; exits 1 if any case failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <uapi/ibpost.h>

static int ncase, nfail;

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

/* Run one DEV_LIST ioctl and compare errno and reason. */
static void expect(int fd, const char *name, unsigned long cmd, void *arg,
		   int want_errno, int want_reason)
{
	struct ibpost_dev_list *l = arg;
	int ret, e, reason;

	ret = ioctl(fd, cmd, arg);
	e = ret ? errno : 0;
	if (e != want_errno) {
		report(name, 0, "errno %d, want %d", e, want_errno);
		return;
	}
	if (want_reason < 0 || !arg || (unsigned long)arg < 4096) {
		report(name, 1, "", 0, 0);
		return;
	}
	reason = l->status.reason;
	report(name, reason == want_reason, "reason %d, want %d", reason,
	       want_reason);
}

/* Run one RUN ioctl and compare errno and reason. */
static void expect_run(int fd, const char *name, struct ibpost_run *r,
		       int want_errno, int want_reason)
{
	int ret, e;

	ret = ioctl(fd, IBPOST_IOC_RUN, r);
	e = ret ? errno : 0;
	if (e != want_errno) {
		report(name, 0, "errno %d, want %d", e, want_errno);
		return;
	}
	if (want_reason < 0) {
		report(name, 1, "", 0, 0);
		return;
	}
	report(name, (int)r->status.reason == want_reason, "reason %d, want %d",
	       r->status.reason, want_reason);
}

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

static void run_cases(int fd, void *unmapped)
{
	unsigned char big[sizeof(struct ibpost_run) + 32];
	struct ibpost_run r;

	run_base(&r);
	expect_run(fd, "RUN valid write", &r, 0, IBPOST_R_NONE);
	report("RUN valid write completes its WRs", r.result.wrs == 10,
	       "wrs %d, want %d", (int)r.result.wrs, 10);
	run_base(&r);
	r.size = IBPOST_RUN_SIZE_VER0 - 8;
	expect_run(fd, "RUN size below VER0", &r, EINVAL, -1);
	memset(big, 0, sizeof(big));
	run_base(&r);
	r.size = sizeof(big);
	memcpy(big, &r, sizeof(r));
	big[sizeof(big) - 3] = 9;
	expect_run(fd, "RUN non-zero tail", (struct ibpost_run *)big, E2BIG,
		   IBPOST_R_ARG_TAIL);
	run_base(&r);
	r.reserved[0] = 1;
	expect_run(fd, "RUN reserved field", &r, EINVAL, IBPOST_R_RESERVED);
	run_base(&r);
	r.reserved2 = 1;
	expect_run(fd, "RUN reserved2", &r, EINVAL, IBPOST_R_RESERVED);
	run_base(&r);
	r.cm_family = 2;
	expect_run(fd, "RUN cm_family without the CM flag", &r, EINVAL,
		   IBPOST_R_CM_ADDR);
	run_base(&r);
	r.reserved0 = 1;
	expect_run(fd, "RUN reserved0", &r, EINVAL, IBPOST_R_RESERVED);
	run_base(&r);
	r.flags = 1U << 31;
	expect_run(fd, "RUN unknown flag", &r, EINVAL, IBPOST_R_FLAGS);
	run_base(&r);
	r.op = 99;
	expect_run(fd, "RUN unknown opcode", &r, EINVAL, IBPOST_R_OPCODE);
	run_base(&r);
	r.layout = 77;
	expect_run(fd, "RUN unknown layout", &r, EINVAL, IBPOST_R_LAYOUT);
	run_base(&r);
	strcpy(r.dev, "nosuch0");
	expect_run(fd, "RUN unknown device", &r, ENODEV, IBPOST_R_NO_DEVICE);
	run_base(&r);
	memset(r.dev, 'x', sizeof(r.dev));
	expect_run(fd, "RUN unterminated device name", &r, ENODEV,
		   IBPOST_R_NO_DEVICE);
	run_base(&r);
	r.layout = IBPOST_LAYOUT_EXPLICIT;
	r.num_sge = 2;
	expect_run(fd, "RUN explicit layout, NULL sges", &r, EFAULT,
		   IBPOST_R_FAULT);
	run_base(&r);
	r.layout = IBPOST_LAYOUT_EXPLICIT;
	r.num_sge = 2;
	r.sges = (unsigned long)unmapped;
	expect_run(fd, "RUN explicit layout, unmapped sges", &r, EFAULT,
		   IBPOST_R_FAULT);
	run_base(&r);
	r.layout = IBPOST_LAYOUT_EXPLICIT;
	r.num_sge = 1U << 30;
	r.sges = (unsigned long)&r;
	expect_run(fd, "RUN explicit layout, huge num_sge", &r, EINVAL,
		   IBPOST_R_NUM_SGE);
	run_base(&r);
	r.iters = ~0ULL;
	expect_run(fd, "RUN iters * size overflow", &r, EOVERFLOW,
		   IBPOST_R_OVERFLOW);
	run_base(&r);
	r.depth = 0;
	expect_run(fd, "RUN depth 0", &r, EINVAL, IBPOST_R_DEPTH);
	run_base(&r);
	r.iters = 0;
	expect_run(fd, "RUN neither iters nor duration", &r, EINVAL,
		   IBPOST_R_ITERS);
	expect_run(fd, "RUN NULL argument", NULL, EFAULT, -1);
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

int main(void)
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
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);

	base(&l, recs, 4);
	expect(fd, "valid list", IBPOST_IOC_DEV_LIST, &l, 0, IBPOST_R_NONE);
	report("valid list returns records", l.written >= 1 && l.total >= 1,
	       "written %d total %d", l.written, l.total);

	expect(fd, "unknown ioctl number", _IOWR(IBPOST_IOC_MAGIC, 0x7f,
	       struct ibpost_dev_list), &l, ENOTTY, -1);
	expect(fd, "foreign magic", _IO('T', 1), &l, ENOTTY, -1);
	expect(fd, "DEV_LIST with another size in cmd",
	       _IOWR(IBPOST_IOC_MAGIC, 0x01, struct ibpost_dev_attr), &l,
	       ENOTTY, -1);
	expect(fd, "NULL argument", IBPOST_IOC_DEV_LIST, NULL, EFAULT, -1);
	expect(fd, "unmapped argument", IBPOST_IOC_DEV_LIST, unmapped, EFAULT,
	       -1);

	base(&l, recs, 4);
	l.size = IBPOST_DEV_LIST_SIZE_VER0 - 1;
	expect(fd, "size below VER0", IBPOST_IOC_DEV_LIST, &l, EINVAL, -1);
	base(&l, recs, 4);
	l.size = 0;
	expect(fd, "size zero", IBPOST_IOC_DEV_LIST, &l, EINVAL, -1);

	memset(big, 0, sizeof(big));
	base(&l, recs, 4);
	l.size = sizeof(big);
	memcpy(big, &l, sizeof(l));
	expect(fd, "larger struct, zero tail", IBPOST_IOC_DEV_LIST, big, 0,
	       IBPOST_R_NONE);
	big[sizeof(big) - 1] = 1;
	expect(fd, "larger struct, non-zero tail", IBPOST_IOC_DEV_LIST, big,
	       E2BIG, IBPOST_R_ARG_TAIL);

	base(&l, recs, 4);
	l.flags = 1;
	expect(fd, "unknown flag", IBPOST_IOC_DEV_LIST, &l, EINVAL,
	       IBPOST_R_FLAGS);
	base(&l, recs, 4);
	l.reserved[1] = 1;
	expect(fd, "reserved field", IBPOST_IOC_DEV_LIST, &l, EINVAL,
	       IBPOST_R_RESERVED);
	base(&l, recs, 4);
	l.attr_size = IBPOST_DEV_ATTR_SIZE_VER0 - 8;
	expect(fd, "record size too small", IBPOST_IOC_DEV_LIST, &l, EINVAL,
	       IBPOST_R_REC_SIZE);
	base(&l, recs, 4);
	l.attr_size = 1 << 20;
	expect(fd, "record size too big", IBPOST_IOC_DEV_LIST, &l, EINVAL,
	       IBPOST_R_REC_SIZE);
	base(&l, recs, IBPOST_DEV_LIST_MAX + 1);
	expect(fd, "count above limit", IBPOST_IOC_DEV_LIST, &l, EINVAL,
	       IBPOST_R_COUNT);
	base(&l, NULL, 4);
	expect(fd, "NULL record array", IBPOST_IOC_DEV_LIST, &l, EFAULT,
	       IBPOST_R_FAULT);
	base(&l, unmapped, 4);
	expect(fd, "unmapped record array", IBPOST_IOC_DEV_LIST, &l, EFAULT,
	       IBPOST_R_FAULT);
	base(&l, (void *)(~0UL - 64), 4);
	expect(fd, "kernel-range record array", IBPOST_IOC_DEV_LIST, &l,
	       EFAULT, IBPOST_R_FAULT);
	base(&l, NULL, 0);
	expect(fd, "count zero asks for total", IBPOST_IOC_DEV_LIST, &l, 0,
	       IBPOST_R_NONE);
	report("count zero writes nothing", l.written == 0 && l.total >= 1,
	       "written %d total %d", l.written, l.total);

	run_cases(fd, unmapped);
	printf("1..%d\n", ncase);
	close(fd);
	return nfail ? 1 : 0;
}
