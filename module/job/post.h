/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the hot path of a job: the WR ring and the pump (post.c).
 */
#ifndef _IBPOST_POST_H
#define _IBPOST_POST_H

#include <linux/types.h>

struct ibpost_job;

int ibpost_job_prepare(struct ibpost_job *job);
int ibpost_job_pump(struct ibpost_job *job, u64 phase_end, u32 duration_ms);

#endif /* _IBPOST_POST_H */
