/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the test hooks, all in core/testhook.c: module parameters that
 * inject a fault or hold one side of a race in its window (0, off, by
 * default; Documentation/testing.rst), and the two KUnit hooks of the
 * session suite.
 *
 * They exist only in a test build (IBPOST_TESTS=y, which the rig sets:
 * Kbuild defines IBPOST_TEST_HOOKS and links core/testhook.o).  A plain
 * make, DKMS and the Debian package build without them: there every
 * accessor below is a constant 0 or does nothing, so the compiler drops
 * the code each hook guards, and the module has no test parameter
 * (tools/tests/host/install.sh checks modinfo).  Why not the kernel's
 * fault injection (CONFIG_FAULT_INJECTION): most hooks hold a window
 * open for a test to act in, or make the client send a chosen malformed
 * message, which a should_fail() probability does not express; and the
 * stock kernels the rig tests on are built without its debugfs.
 */
#ifndef _IBPOST_TESTHOOK_H
#define _IBPOST_TESTHOOK_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/types.h>

/* Faults of the peer_fault hook (job/peer.c sends them). */
#define IBPOST_PEER_FAULT_VERSION	(1U << 0)	/* hello version 99 */
#define IBPOST_PEER_FAULT_LENGTH	(1U << 1)	/* SGE past the slot */
#define IBPOST_PEER_FAULT_STALE_RKEY	(1U << 2)	/* previous job's rkey */
#define IBPOST_PEER_FAULT_MSG_VERSION	(1U << 3)	/* job message v3 */
#define IBPOST_PEER_FAULT_CORRUPT	(1U << 4)	/* describe other data */
#define IBPOST_PEER_FAULT_HELLO_FLAGS	(1U << 5)	/* hello flag 0x8000 */
#define IBPOST_PEER_FAULT_HELLO_TAIL	(1U << 6)	/* bytes past the hello */
#define IBPOST_PEER_FAULT_JOB_CONN	(1U << 7)	/* job header conn 7 */
#define IBPOST_PEER_FAULT_JOB_LENGTH	(1U << 8)	/* 8 bytes past length */
#define IBPOST_PEER_FAULT_JOB_TWICE	(1U << 9)	/* job again after ready */
#define IBPOST_PEER_FAULT_FIN_FIRST	(1U << 10)	/* fin before the job */
#define IBPOST_PEER_FAULT_TRICKLE	(1U << 11)	/* a WR every 3 ms */

#ifdef IBPOST_TEST_HOOKS

/* A test build (Kbuild defines IBPOST_TEST_HOOKS): the hooks exist. */
#define IBPOST_TEST_BUILD	1

/**
 * struct ibpost_test_hooks - every test hook of a test build of ibpost.ko,
 *	one module parameter each (/sys/module/ibpost/parameters/<name>,
 *	root only), 0 (off) by default; core/testhook.c describes each.
 * @peer_fault: faults the next peer job sends (IBPOST_PEER_FAULT_*).
 * @lat_test_cap: the most latency samples a job keeps whole (job/run.c).
 * @serve_test_drop_join: the server disconnects this joined connection of the
 *	next session (serve/join.c).
 * @serve_test_join_fail_ms: joins fail after their QP was made, and the
 *	failure path holds this long where it wakes the session (serve/join.c).
 * @serve_test_nowake: served connections' threads are created but not woken
 *	(serve/serve.c).
 * @serve_test_lost_ms: a lost listener's handler holds its window
 *	(serve/serve.c).
 * @session_test_publish_ms: an opener holds between connection and publication
 *	(session/session.c).
 * @session_test_fin_ms: a closing session with a peer holds before its fin
 *	(session/peer.c).
 * @session_test_nofin: the next closing session with a peer sends no fin
 *	(session/peer.c): its server sees the connection lost.
 * @session_test_wake_ms: a woken submitter holds before it touches its session
 *	again (session/submit.c).
 * @pair_test_port: the next loopback pair listens on this port and waits
 *	(core/cm.c).
 * @session_test_bad_page: a region request over the region's 4 KiB page
 *	N - 1 carries another key: a remote access error every time
 *	(session/region.c).
 * @session_test_busy_page: the next region request that starts on the
 *	region's 4 KiB page N - 1 is refused as a full send queue refuses it
 *	(-EAGAIN), once (session/region.c).
 * @session_test_queue_ms: each queue after the first of a session opening
 *	with a peer holds this long before it connects (session/session.c):
 *	an open of N queues takes (N - 1) times that.
 * @session_test_bad_queue: the next region request posted on a session's
 *	queue N - 1 carries another key, once: one error completion (a
 *	remote access error) on that queue alone (session/region.c).
 * @session_test_flush_ms: a failed session's error work holds this long
 *	before it moves the session's QPs to error, and ibpost_session_fail()
 *	leaves that move to it: a provider that flushes late
 *	(session/session.c).
 * @kunit_keep_room: KUnit only (no parameter): a completed request does not
 *	give its send-queue slots back (session/submit.c).
 * @kunit_partial_post: KUnit only (no parameter): the next post of a chain
 *	of two WRs or more fails after its first WR (core/rw.c).
 */
struct ibpost_test_hooks {
	unsigned int peer_fault;
	unsigned int lat_test_cap;
	unsigned int serve_test_drop_join;
	unsigned int serve_test_join_fail_ms;
	bool serve_test_nowake;
	unsigned int serve_test_lost_ms;
	unsigned int session_test_publish_ms;
	unsigned int session_test_fin_ms;
	unsigned int session_test_nofin;
	unsigned int session_test_wake_ms;
	unsigned int pair_test_port;
	unsigned int session_test_bad_page;
	unsigned int session_test_busy_page;
	unsigned int session_test_bad_queue;
	unsigned int session_test_queue_ms;
	unsigned int session_test_flush_ms;
	bool kunit_keep_room;
	bool kunit_partial_post;
};

extern struct ibpost_test_hooks ibpost_test;

void ibpost_test_hold_ms(const char *what, unsigned int *ms);

/* The hook's value now. */
#define ibpost_test_read(name)		READ_ONCE(ibpost_test.name)
/* The hook's value, which goes back to 0 (off): one use per setting. */
#define ibpost_test_take(name)		xchg(&ibpost_test.name, 0)
/* The hook's value if it is @v, which then goes back to 0; else 0. */
#define ibpost_test_take_if(name, v)	\
	(cmpxchg(&ibpost_test.name, (v), 0) == (v) ? (v) : 0)
/* Holds while the hook says so (ibpost_test_hold_ms()). */
#define ibpost_test_hold(what, name)	\
	ibpost_test_hold_ms(what, &ibpost_test.name)

#else /* !IBPOST_TEST_HOOKS: the shipped module */

#define IBPOST_TEST_BUILD	0

#define ibpost_test_read(name)		0U
#define ibpost_test_take(name)		0U
#define ibpost_test_take_if(name, v)	0U
#define ibpost_test_hold(what, name)	do { } while (0)

#endif /* IBPOST_TEST_HOOKS */

/* The IBPOST_FAULT_* ibpost_run() injects: none in the shipped module. */
#define ibpost_run_faults()	\
	(IBPOST_TEST_BUILD ? IBPOST_FAULTS : 0U)

/* Is @bit of a job's @fault word set?  Never in the shipped module. */
#define ibpost_test_fault(fault, bit)	\
	(IBPOST_TEST_BUILD && ((fault) & (bit)))

#endif /* _IBPOST_TESTHOOK_H */
