// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: what an open /dev/ibpost holds: the server IBPOST_IOC_SERVE
 * started on it, and the job IBPOST_IOC_RUN runs on it now, which
 * IBPOST_IOC_PROGRESS reads from another thread while the run blocks.
 *
 * The job is linked to the file while it exists and unlinked, under the
 * file's lock, before it is freed; a reader holds the same lock while it
 * reads the job, so a job never ends under a reader.  The job's thread
 * takes the lock only twice (start and end), never on its hot path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "lib/abi.h"
#include "file.h"
#include "job/job.h"
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
	spin_lock_init(&f->lock);
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

	ibpost_serve_release(file);
	WARN_ON_ONCE(f->job);
	kfree(f);
	file->private_data = NULL;
}

/**
 * ibpost_file_enter() - link a starting job to the file it runs on.
 * @f: the file of IBPOST_IOC_RUN.
 * @job: the job, not yet started; it stays unlinked when another job of
 *	the file is linked.
 */
void ibpost_file_enter(struct ibpost_file *f, struct ibpost_job *job)
{
	spin_lock(&f->lock);
	if (!f->job)
		f->job = job;
	spin_unlock(&f->lock);
}

/**
 * ibpost_file_leave() - unlink an ending job from its file.
 * @f: the file it entered.
 * @job: the job, about to be freed: no reader holds it once this returns.
 */
void ibpost_file_leave(struct ibpost_file *f, struct ibpost_job *job)
{
	spin_lock(&f->lock);
	if (f->job == job)
		f->job = NULL;
	spin_unlock(&f->lock);
}

/**
 * ibpost_file_progress() - what the file's job measured so far.
 * @f: the file.
 * @p: its state and counts are written (ibpost_job_progress()).
 *
 * Return: 0, or -ENOENT with IBPOST_R_NO_JOB in @p->status when no job
 * runs on the file.
 */
int ibpost_file_progress(struct ibpost_file *f, struct ibpost_progress *p)
{
	int ret = 0;

	spin_lock(&f->lock);
	if (f->job)
		ibpost_job_progress(f->job, p);
	else
		ret = -ENOENT;
	spin_unlock(&f->lock);
	if (ret)
		ibpost_status_set(&p->status, IBPOST_R_NO_JOB, 0, 0);
	return ret;
}
