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

	printf("1..%d\n", ncase);
	close(fd);
	return nfail ? 1 : 0;
}
