// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost -V / --version: this tool's version, the ioctl ABI it speaks and
 * the version of the ibpost module loaded now, with a warning when the two
 * differ.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ibpost.h"

#define MODULE_VERSION_FILE "/sys/module/ibpost/version"
#define MODULE_DIR "/sys/module/ibpost"

/*
 * Read the loaded module's version into @buf: 1 when read, 0 when the
 * module is not loaded, -errno when it is loaded but its version cannot
 * be read.
 */
static int module_version(char *buf, size_t len)
{
	FILE *f = fopen(MODULE_VERSION_FILE, "r");
	int err;

	if (!f) {
		err = errno;
		if (err == ENOENT && access(MODULE_DIR, F_OK))
			return 0;
		return -err;
	}
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 1;
}

int cmd_version(void)
{
	char mod[64];
	int ret;

	printf("ibpost %s (ioctl ABI %d)\n", IBPOST_VERSION, IBPOST_ABI_VERSION);
	ret = module_version(mod, sizeof(mod));
	if (ret == 0) {
		printf("module: not loaded (modprobe ibpost)\n");
		return 0;
	}
	if (ret < 0) {
		printf("module: loaded, version unknown (%s)\n", strerror(-ret));
		fprintf(stderr,
			"%s: warning: cannot read %s: %s\n",
			prog, MODULE_VERSION_FILE, strerror(-ret));
		return 0;
	}
	printf("module: %s\n", mod);
	if (strcmp(mod, IBPOST_VERSION))
		fprintf(stderr,
			"%s: warning: the loaded module is version %s, this tool %s: load the module of this version (modprobe -r ibpost; modprobe ibpost)\n",
			prog, mod, IBPOST_VERSION);
	return 0;
}
