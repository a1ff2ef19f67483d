// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: the tracepoints' definitions (trace.h says where each fires).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#define CREATE_TRACE_POINTS
#include "core/trace.h"
