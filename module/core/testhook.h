/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: test hooks that hold one side of a race in its window
 * (module parameters, 0 by default; Documentation/testing.rst).
 */
#ifndef _IBPOST_TESTHOOK_H
#define _IBPOST_TESTHOOK_H

#include <linux/types.h>

void ibpost_test_hold(const char *what, unsigned int *ms);

#endif /* _IBPOST_TESTHOOK_H */
