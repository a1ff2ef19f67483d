/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the session layer's tracepoint (events/ibpost/ibpost_session in
 * tracefs, the system of core/trace.h): a session's state where it
 * changes (session/session.c).  Documentation/observability.rst lists
 * the fields.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ibpost

#if !defined(_IBPOST_SESSION_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _IBPOST_SESSION_TRACE_H

#include <linux/tracepoint.h>

#include "compat/compat.h"
#include "session/session.h"

TRACE_DEFINE_ENUM(IBPOST_S_LIVE);
TRACE_DEFINE_ENUM(IBPOST_S_ERROR);
TRACE_DEFINE_ENUM(IBPOST_S_DEAD);

#define ibpost_show_sess_state(x)				\
	__print_symbolic(x,					\
		{ IBPOST_S_LIVE,	"LIVE" },		\
		{ IBPOST_S_ERROR,	"ERROR" },		\
		{ IBPOST_S_DEAD,	"DEAD" })

/**
 * ibpost_session - a session's state changed (enum ibpost_sess_state).
 * @s: the session: its number (debugfs ibpost/sessions), its consumer's
 *	name and its first queue's QP are recorded.
 * @state: the new state (LIVE: published).
 * @err: the errno its requests end with when it dies (-ECANCELED for a
 *	close), else 0.
 */
TRACE_EVENT(ibpost_session,
	TP_PROTO(const struct ibpost_session *s, int state, int err),
	TP_ARGS(s, state, err),
	TP_STRUCT__entry(
		__field(u32, id)
		__string(owner, s->owner)
		__field(u32, qpn)
		__field(int, state)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->id = s->id;
		ibpost_compat_assign_str(owner, s->owner);
		__entry->qpn = s->ep && s->ep->qp ? s->ep->qp->qp_num : 0;
		__entry->state = state;
		__entry->err = err;
	),
	TP_printk("id=%u owner=%s qpn=0x%x state=%s err=%d",
		  __entry->id, __get_str(owner), __entry->qpn,
		  ibpost_show_sess_state(__entry->state), __entry->err)
);

#endif /* _IBPOST_SESSION_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH session
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
