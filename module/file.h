/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: what an open /dev/ibpost holds (file.c).
 */
#ifndef _IBPOST_FILE_H
#define _IBPOST_FILE_H

#include <linux/fs.h>
#include <linux/spinlock.h>
#include <uapi/ibpost.h>

struct ibpost_job;
struct ibpost_server;

/**
 * struct ibpost_file - the state of one open /dev/ibpost
 *	(file->private_data, from open to release).
 * @lock: @job: a job leaves the file under it before it is freed, and
 *	IBPOST_IOC_PROGRESS reads the job under it.
 * @job: the job IBPOST_IOC_RUN runs on this file now, NULL for none (a
 *	second concurrent run on the file is not linked).
 * @srv: the server IBPOST_IOC_SERVE started on this file, NULL for none
 *	(serve.c; set once, under its start mutex, freed at release).
 */
struct ibpost_file {
	spinlock_t lock;
	struct ibpost_job *job;
	struct ibpost_server *srv;
};

static inline struct ibpost_file *ibpost_file(struct file *file)
{
	return file->private_data;
}

int ibpost_file_open(struct file *file);
void ibpost_file_release(struct file *file);
void ibpost_file_enter(struct ibpost_file *f, struct ibpost_job *job);
void ibpost_file_leave(struct ibpost_file *f, struct ibpost_job *job);
int ibpost_file_progress(struct ibpost_file *f, struct ibpost_progress *p);

#endif /* _IBPOST_FILE_H */
