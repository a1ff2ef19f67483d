// SPDX-License-Identifier: GPL-2.0
/*
 * notify_send() of the tool (tools/ibpost/notify.c, what 'ibpost serve'
 * tells systemd with), against AF_UNIX datagram sockets bound here: a
 * path, then an abstract name ("@..."), as $NOTIFY_SOCKET; then no
 * $NOTIFY_SOCKET (nothing sent, 0), a relative name (-EINVAL), and a path
 * no socket is bound to (-ENOENT).  One line per case, "CASE: RESULT",
 * for cli.sh.  Usage: notify_test DIR (a directory to bind the path in).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../ibpost/ibpost.h"

/* A datagram socket bound to @name (a path, or "@..." abstract); -1 on error. */
static int bind_at(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	int fd;

	if (len > sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, name, len);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa,
		 offsetof(struct sockaddr_un, sun_path) + len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Send @state to the socket bound at @name: what arrived, or why not. */
static void one(const char *what, const char *name, const char *state)
{
	char buf[256];
	ssize_t n;
	int fd, err;

	fd = bind_at(name);
	if (fd < 0) {
		printf("%s: cannot bind: %s\n", what, strerror(errno));
		return;
	}
	setenv("NOTIFY_SOCKET", name, 1);
	err = notify_send(state);
	if (err) {
		printf("%s: notify_send: %s\n", what, strerror(-err));
	} else {
		n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		if (n < 0)
			printf("%s: nothing received: %s\n", what, strerror(errno));
		else
			printf("%s: received '%.*s'\n", what, (int)n, buf);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	char path[108], name[64];
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: notify_test DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/notify", argv[1]);
	one("path", path, "READY=1");
	unlink(path);
	snprintf(name, sizeof(name), "@ibpost-notify-test-%d", (int)getpid());
	one("abstract", name, "STOPPING=1");
	unsetenv("NOTIFY_SOCKET");
	printf("unset: %d\n", notify_send("READY=1"));
	setenv("NOTIFY_SOCKET", "notify", 1);
	err = notify_send("READY=1");
	printf("relative: %s\n", err ? strerror(-err) : "sent");
	setenv("NOTIFY_SOCKET", path, 1);
	err = notify_send("READY=1");
	printf("unbound: %s\n", err ? strerror(-err) : "sent");
	return 0;
}
