/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the test hooks, all in core/testhook.c: module parameters that
 * inject a fault or hold one side of a race in its window (0, off, by
 * default; Documentation/testing.rst).
 */
#ifndef _IBPOST_TESTHOOK_H
#define _IBPOST_TESTHOOK_H

#include <linux/types.h>

/**
 * struct ibpost_test_hooks - every test hook of ibpost.ko, one module
 *	parameter each (/sys/module/ibpost/parameters/<name>, root only),
 *	0 (off) by default; core/testhook.c describes each.
 * @peer_fault: faults the next peer job sends (IBPOST_PEER_FAULT_* of
 *	job/peer.c).
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
};

extern struct ibpost_test_hooks ibpost_test;

void ibpost_test_hold(const char *what, unsigned int *ms);

#endif /* _IBPOST_TESTHOOK_H */
