#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A test-kernel guest that runs tools/tests/iova.sh alone.
cd "$IBPOST_REPO" || exit 1
tools/tests/iova.sh
