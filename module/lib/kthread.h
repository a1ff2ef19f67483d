/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the end of a kernel thread that another stops, shared by the
 * threads of jobs (job/pingpong.c) and of served connections
 * (serve/conn.c).
 */
#ifndef _IBPOST_KTHREAD_H
#define _IBPOST_KTHREAD_H

#include <linux/kthread.h>
#include <linux/sched.h>

/*
 * The end of a kthread that others stop with kthread_stop(): wait for it
 * (the caller holds a reference to the task).
 */
static inline void ibpost_kthread_wait_stop(void)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
}

#endif /* _IBPOST_KTHREAD_H */
