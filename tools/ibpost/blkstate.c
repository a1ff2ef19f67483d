// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost blk: what takes a kept region back across a client's reboot.
 *
 * 'blk unmap --keep' of a device on a server's memory reads the device's
 * resume attribute (SESSION:GENERATION:TOKEN, root only) into
 * BLK_STATE_DIR/SERIAL.resume and unmaps it without the fin, so that the
 * server keeps the region for its grant (its --max-keep, at most what the
 * device's ctrl_loss_tmo asked).  The next 'blk map' of that serial (the
 * unit's start at boot) maps with resume= and reaches the same data; the
 * file goes once the map took it (the token is new with each session).
 * A refused resume keeps the file and fails the map loudly: a new, empty
 * device in its place would hide the loss.  The token is the region's
 * credential: the directory is 0700 and the file 0600, root's, written to
 * a temporary name and renamed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ibpost.h"

/* ibpost-blk.service's StateDirectory=ibpost, and its folder for blk. */
#define BLK_STATE_ROOT	"/var/lib/ibpost"
#define BLK_STATE_DIR	BLK_STATE_ROOT "/blk"

/* The state file of @serial into @path. */
static void blk_state_path(const char *serial, char *path, size_t len)
{
	const char *dir = getenv("IBPOST_BLK_STATE_DIR");

	snprintf(path, len, "%s/%s.resume", dir && *dir ? dir : BLK_STATE_DIR,
		 serial);
}

/*
 * blk_state_save() - keep device @name's resume line for @serial; 0, or 1
 * having said why.
 */
int blk_state_save(const char *name, const char *serial)
{
	char attr[256], line[128], path[512], tmp[520];
	const char *dir = getenv("IBPOST_BLK_STATE_DIR");
	size_t len;
	int fd, ok;

	snprintf(attr, sizeof(attr), "/sys/block/%s/ibpost/resume", name);
	if (sysfs_read(attr, line, sizeof(line)) || !line[0]) {
		fprintf(stderr, "%s: blk unmap --keep: %s: no resume line (%s): its region cannot be kept\n",
			prog, name, errno ? strerror(errno) : "a local device");
		return 1;
	}
	if (!dir || !*dir) {
		mkdir(BLK_STATE_ROOT, 0700);
		dir = BLK_STATE_DIR;
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "%s: blk unmap --keep: %s: %s\n", prog, dir,
			strerror(errno));
		return 1;
	}
	blk_state_path(serial, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "%s: blk unmap --keep: %s: %s\n", prog, tmp,
			strerror(errno));
		return 1;
	}
	len = strlen(line);
	line[len++] = '\n';
	ok = write(fd, line, len) == (ssize_t)len && !fsync(fd);
	ok = !close(fd) && ok;
	explicit_bzero(line, sizeof(line));
	if (!ok || rename(tmp, path)) {
		fprintf(stderr, "%s: blk unmap --keep: %s: %s\n", prog, path,
			strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}

/*
 * blk_state_load() - the resume line kept for @serial into @buf; 0, or -1
 * when there is none.
 */
int blk_state_load(const char *serial, char *buf, size_t len)
{
	char path[512];

	blk_state_path(serial, path, sizeof(path));
	if (sysfs_read(path, buf, len) || !buf[0])
		return -1;
	return 0;
}

/* blk_state_drop() - forget the resume line kept for @serial. */
void blk_state_drop(const char *serial)
{
	char path[512];

	blk_state_path(serial, path, sizeof(path));
	unlink(path);
}
