// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: the session layer's tracepoint definition (session/trace.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#define CREATE_TRACE_POINTS
#include "session/trace.h"
