# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# tools/tests/lib/suite.sh: the start every guest suite shares
# (Documentation/testing.rst, "Adding a test").
#
#   # shellcheck source=tools/tests/lib/suite.sh
#   . "$IBPOST_REPO/tools/tests/lib/suite.sh" NAME
#
# Strict mode, the repository as the working directory, the rig's guest
# library (tools/rig/guest-lib.sh), TAP rows to
# $IBPOST_OUT/NAME[-PROVIDER]-KERNEL.tap through tools/tests/lib/tap.sh
# (rows prefixed "PROVIDER: " off rxe; IBPOST_PROVIDER), and KO, CONS and
# IBPOST, the modules and the tool of the kernel the guest booted.
set -uo pipefail
cd "$IBPOST_REPO" || exit 1
# shellcheck source=tools/rig/guest-lib.sh
. tools/rig/guest-lib.sh
rig_tap "$1"
# shellcheck source=tools/tests/lib/tap.sh
. tools/tests/lib/tap.sh
rig_ibpost_paths
