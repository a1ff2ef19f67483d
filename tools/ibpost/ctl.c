// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost tool: open /dev/ibpost, issue ioctls, explain refusals.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ibpost.h"

static const char *const reason_text[IBPOST_R_MAX] = IBPOST_REASON_TEXTS;

const char *ctl_reason_str(unsigned int reason)
{
	if (reason >= IBPOST_R_MAX || !reason_text[reason])
		return "unknown reason";
	return reason_text[reason];
}

int ctl_open(void)
{
	int fd = open(IBPOST_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		fprintf(stderr, "%s: cannot open %s: %s", prog,
			IBPOST_DEVICE_PATH, strerror(e));
		if (e == ENOENT)
			fprintf(stderr, " (ibpost is not loaded: run 'modprobe ibpost')");
		else if (e == EACCES || e == EPERM)
			fprintf(stderr, " (it opens for root, and for the group 'rdma' where the udev rule 60-ibpost.rules is installed; 'ibpost run' and 'serve' need CAP_SYS_ADMIN too)");
		fputc('\n', stderr);
		errno = e;
	}
	return fd;
}

void ctl_print_status(FILE *f, const struct ibpost_status *st)
{
	if (st->wr == IBPOST_STATUS_RECV_WR && st->sge != IBPOST_STATUS_NONE)
		fprintf(f, "sge[%u] of the receive WRs: ", st->sge);
	else if (st->wr == IBPOST_STATUS_RECV_WR)
		fprintf(f, "receive WRs: ");
	else if (st->wr != IBPOST_STATUS_NONE && st->sge != IBPOST_STATUS_NONE)
		fprintf(f, "sge[%u] of wr %u: ", st->sge, st->wr);
	else if (st->wr != IBPOST_STATUS_NONE)
		fprintf(f, "wr %u: ", st->wr);
	else if (st->sge != IBPOST_STATUS_NONE)
		fprintf(f, "sge[%u]: ", st->sge);
	fprintf(f, "%s", ctl_reason_str(st->reason));
	switch (st->reason) {
	case IBPOST_R_GID_RANGE:
	case IBPOST_R_GID_EMPTY:
	case IBPOST_R_GID_TYPE:
		fprintf(f, " (index %llu, table of %llu)",
			(unsigned long long)st->value,
			(unsigned long long)st->limit);
		return;
	case IBPOST_R_GID_CM:
		fprintf(f, " (index %llu)", (unsigned long long)st->value);
		return;
	}
	if (st->value || st->limit)
		fprintf(f, " (value %llu, limit %llu)",
			(unsigned long long)st->value,
			(unsigned long long)st->limit);
}

/*
 * Issue one ioctl; on failure print the errno and, when the kernel filled
 * it, the reason from @st (which points into @arg).
 */
int ctl_ioctl(int fd, unsigned long cmd, void *arg, const char *what,
	      const struct ibpost_status *st)
{
	if (ioctl(fd, cmd, arg) == 0)
		return 0;
	int e = errno;

	fprintf(stderr, "%s: %s: %s", prog, what, strerror(e));
	if (st && st->reason != IBPOST_R_NONE) {
		fputs(": ", stderr);
		ctl_print_status(stderr, st);
	}
	fputc('\n', stderr);
	errno = e;
	return -1;
}
