#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest entry of make check's force_mr guest (stock 6.1 kernel booted
# with ib_core.force_mr=1: rdma_rw registers every request's memory, the
# path real NICs take): ibpost_blk's MR-path rows (blk-forcemr.sh), then
# the session suite on that path (session.sh).
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
rc=0
tools/tests/blk-forcemr.sh || rc=1
tools/tests/session.sh || rc=1
exit $rc
