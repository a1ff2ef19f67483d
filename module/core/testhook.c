// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: every test hook of ibpost.ko, in this one file, which only a
 * test build links (IBPOST_TESTS=y: core/testhook.h): the module
 * parameters the tests set (0, off, by default; only root can set them),
 * the KUnit hooks of the session suite, and the one wait of the hooks
 * that hold one side of a race in its window (serve_test_lost_ms,
 * serve_test_join_fail_ms, session_test_publish_ms, session_test_wake_ms,
 * session_test_flush_ms),
 * so that a test does the other side inside it every time instead of by
 * luck.  The code that takes a hook uses core/testhook.h's accessors.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>

#include "core/testhook.h"

struct ibpost_test_hooks ibpost_test;
/* The session suite sets the two KUnit hooks. */
EXPORT_SYMBOL_IF_KUNIT(ibpost_test);

module_param_named(peer_fault, ibpost_test.peer_fault,
		   uint, 0600);
MODULE_PARM_DESC(peer_fault,
		 "test hook, taken by the next peer job: 1 bad hello version, 2 SGE past the slot, 4 stale rkey, 8 bad message version, 16 job describes other data than sent, 32 hello flags, 64 bytes past the hello, 128 job header conn, 256 job longer than its header says, 512 job sent twice, 1024 fin before the job, 2048 one WR every 3 ms");

module_param_named(lat_test_cap, ibpost_test.lat_test_cap,
		   uint, 0600);
MODULE_PARM_DESC(lat_test_cap,
		 "test hook: the most latency samples a job keeps whole (0: 2^20); the others count in its histogram only");

module_param_named(serve_test_drop_join, ibpost_test.serve_test_drop_join,
		   uint, 0600);
MODULE_PARM_DESC(serve_test_drop_join,
		 "test hook, taken by the next running session with at least this many joined connections: the server disconnects the Nth of them (1: the one of the client's queue 1) and the parameter goes back to 0");

module_param_named(serve_test_join_fail_ms, ibpost_test.serve_test_join_fail_ms,
		   uint, 0600);
MODULE_PARM_DESC(serve_test_join_fail_ms,
		 "test hook: while set, a join fails after its QP was made (as a failed accept would), and its failure path waits this long (ms, at most 10000; or until set to 0) where it wakes the session, so that the session's teardown races it every time");

module_param_named(serve_test_nowake, ibpost_test.serve_test_nowake,
		   bool, 0600);
MODULE_PARM_DESC(serve_test_nowake,
		 "test hook: connection threads are created but not woken, so that closing the server stops threads that never ran");

module_param_named(serve_test_lost_ms, ibpost_test.serve_test_lost_ms,
		   uint, 0600);
MODULE_PARM_DESC(serve_test_lost_ms,
		 "test hook: a lost listener's handler waits this long (ms, at most 10000; or until set to 0) between leaving the server's lock and its last access to the server, so that a close races it every time");

module_param_named(session_test_publish_ms, ibpost_test.session_test_publish_ms,
		   uint, 0600);
MODULE_PARM_DESC(session_test_publish_ms,
		 "test hook: a session opened with a peer waits this long (ms, at most 10000; or until set to 0) between its connection and its publication, so that a device removal races the opener every time");

module_param_named(session_test_fin_ms, ibpost_test.session_test_fin_ms,
		   uint, 0600);
MODULE_PARM_DESC(session_test_fin_ms,
		 "test hook: a session with a peer being closed waits this long (ms, at most 10000; or until set to 0) before it sends its fin, so that a device removal races the close every time");

module_param_named(session_test_nofin, ibpost_test.session_test_nofin,
		   uint, 0600);
MODULE_PARM_DESC(session_test_nofin,
		 "test hook, taken by the next session with a peer being closed: it disconnects without its fin, as a client whose connection was lost looks to its server (which keeps the region with serve --keep), and the parameter goes back to 0");

module_param_named(session_test_wake_ms, ibpost_test.session_test_wake_ms,
		   uint, 0600);
MODULE_PARM_DESC(session_test_wake_ms,
		 "test hook: a submitter woken from its wait for room by its session's death waits this long (ms, at most 10000) before it touches the session again, so that a close that does not wait for it frees the session under it every time");

module_param_named(session_test_flush_ms, ibpost_test.session_test_flush_ms,
		   uint, 0600);
MODULE_PARM_DESC(session_test_flush_ms,
		 "test hook: a failed session's error work waits this long (ms, at most 10000; or until set to 0) before it moves the session's QPs to error, and ibpost_session_fail() leaves that move to it, as a provider that flushes late: what a failed session's consumer does meanwhile (its close, its timeout handler) must not depend on the flush");

module_param_named(pair_test_port, ibpost_test.pair_test_port,
		   uint, 0600);
MODULE_PARM_DESC(pair_test_port,
		 "test hook, taken by the next rdma_cm loopback pair: listen on this port, not an ephemeral one, and wait 3 s before connecting (a test sends a foreign connect request meanwhile)");

module_param_named(session_test_bad_page, ibpost_test.session_test_bad_page,
		   uint, 0600);
MODULE_PARM_DESC(session_test_bad_page,
		 "test hook: while set to N, a session's region request over the region's 4 KiB page N - 1 carries another rkey, so that it fails with a remote access error on every session (a request no retry mends)");

module_param_named(session_test_busy_page, ibpost_test.session_test_busy_page,
		   uint, 0600);
MODULE_PARM_DESC(session_test_busy_page,
		 "test hook, taken by the next session region request that starts on the region's 4 KiB page N - 1: it is refused as a full send queue refuses it (-EAGAIN), once (a refusal that fails no session)");

module_param_named(session_test_bad_queue, ibpost_test.session_test_bad_queue,
		   uint, 0600);
MODULE_PARM_DESC(session_test_bad_queue,
		 "test hook, taken by the next session region request posted on queue N - 1: it carries another rkey, so that it ends with one error completion (a remote access error) on that queue alone, once");

module_param_named(session_test_queue_ms, ibpost_test.session_test_queue_ms,
		   uint, 0600);
MODULE_PARM_DESC(session_test_queue_ms,
		 "test hook: each queue after the first of a session opening with a peer holds this long (ms, at most 10000) before it connects, so that an open of N queues takes N - 1 times that (the consumer's cancel is checked between queues)");

/* The longest a hook holds, whatever its parameter says. */
#define IBPOST_TEST_HOLD_MAX_MS	10000U

/**
 * ibpost_test_hold_ms() - hold here while a test hook says so.
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
void ibpost_test_hold_ms(const char *what, unsigned int *ms)
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
