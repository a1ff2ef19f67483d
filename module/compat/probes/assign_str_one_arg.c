// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: __assign_str() takes only the field (6.10: its source is the
 * __string() one).  Preprocessed only (ibpost-probe: cpp): a macro given
 * the wrong number of arguments is an error of the preprocessor.
 */
#include <trace/stages/stage6_event_callback.h>

__assign_str(ibpost_probe_field)
