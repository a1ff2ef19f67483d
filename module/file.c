// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: what an open /dev/ibpost holds: the server IBPOST_IOC_SERVE
 * started on it, and the slot of the job IBPOST_IOC_RUN runs on it now,
 * which IBPOST_IOC_PROGRESS reads from another thread while the run
 * blocks (struct ibpost_job_slot).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "file.h"
#include "serve/serve.h"

/**
 * ibpost_file_open() - give an opened /dev/ibpost its state.
 * @file: the file being opened.
 *
 * Return: 0 or -ENOMEM.
 */
int ibpost_file_open(struct file *file)
{
	struct ibpost_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	ibpost_job_slot_init(&f->job);
	file->private_data = f;
	return 0;
}

/**
 * ibpost_file_release() - free the state of a file being closed.
 * @file: the file; no ioctl runs on it any more (so no job is linked).
 *
 * Context: process context; stops the file's server first (serve.c).
 */
void ibpost_file_release(struct file *file)
{
	struct ibpost_file *f = ibpost_file(file);

	ibpost_serve_release(f->srv);
	WARN_ON_ONCE(f->job.job);
	kfree(f);
	file->private_data = NULL;
}
