// SPDX-License-Identifier: GPL-2.0
/*
 * The service manager's notification protocol (sd_notify(3)) without
 * libsystemd: one datagram of "KEY=VALUE" lines to the AF_UNIX socket
 * $NOTIFY_SOCKET names, a path or, with a leading '@', an abstract name.
 * ibpost-serve.service is Type=notify: serve says READY=1 once the kernel
 * listens and STOPPING=1 when it stops.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ibpost.h"

int notify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len, slen = strlen(state);
	ssize_t n;
	int fd, err = 0;

	if (!path || !*path)
		return 0;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len < 2 ||
	    len > sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, state, slen, MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   offsetof(struct sockaddr_un, sun_path) + len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != slen)
		err = -EIO;
	close(fd);
	return err;
}
