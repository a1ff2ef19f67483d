// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: the one wait of the test hooks that hold one side of a race in
 * its window (serve_test_lost_ms, session_test_publish_ms,
 * session_test_wake_ms), so that a test does the other side inside it every
 * time instead of by luck.  Each hook is a module parameter, 0 (off) by
 * default; only root can set it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/printk.h>

#include "core/testhook.h"

/* The longest a hook holds, whatever its parameter says. */
#define IBPOST_TEST_HOLD_MAX_MS	10000U

/**
 * ibpost_test_hold() - hold here while a test hook says so.
 * @what: what is held, for the log lines the tests look for.
 * @ms: the hook's parameter: 0 returns at once; otherwise hold for that
 *	many ms (at most 10 s) or until the test writes 0 to it, whichever
 *	comes first.
 *
 * Logs "ibpost: test hook: @what waits N ms" when the window opens and
 * "ibpost: test hook: @what goes on" when it closes.
 *
 * Context: process context, sleeps.
 */
void ibpost_test_hold(const char *what, unsigned int *ms)
{
	unsigned int v = READ_ONCE(*ms);
	unsigned long end;

	if (!v)
		return;
	pr_info("test hook: %s waits %u ms\n", what, v);
	end = jiffies + msecs_to_jiffies(min(v, IBPOST_TEST_HOLD_MAX_MS));
	while (READ_ONCE(*ms) && time_before(jiffies, end))
		msleep(20);
	pr_info("test hook: %s goes on\n", what);
}
