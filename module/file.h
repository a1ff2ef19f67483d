/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: what an open /dev/ibpost holds (file.c).
 */
#ifndef _IBPOST_FILE_H
#define _IBPOST_FILE_H

#include <linux/fs.h>

#include "job/job.h"

struct ibpost_server;

/**
 * struct ibpost_file - the state of one open /dev/ibpost
 *	(file->private_data, from open to release).
 * @job: the job IBPOST_IOC_RUN runs on this file now, where
 *	IBPOST_IOC_PROGRESS finds it.
 * @srv: the server IBPOST_IOC_SERVE started on this file, NULL for none
 *	(serve/serve.c sets it once, under its start mutex; freed at
 *	release).
 */
struct ibpost_file {
	struct ibpost_job_slot job;
	struct ibpost_server *srv;
};

static inline struct ibpost_file *ibpost_file(struct file *file)
{
	return file->private_data;
}

int ibpost_file_open(struct file *file);
void ibpost_file_release(struct file *file);

#endif /* _IBPOST_FILE_H */
