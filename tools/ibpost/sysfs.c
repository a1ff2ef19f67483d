// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost tool: reading sysfs attributes (ibpost_blk's, the RDMA devices').
 */
#include <fcntl.h>
#include <unistd.h>

#include "ibpost.h"

/* Read a sysfs file into @buf, the trailing newlines cut; -1 on error. */
int sysfs_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}
