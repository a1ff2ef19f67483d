// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the engine suite of rxe_kunit.c on soft-iWARP, as its own suite
 * (ibpost_siw) so both run in one guest and their results do not collide.
 * Every job connects through rdma_cm to cm= (the guest's siw0 sits on a
 * dummy netdev with 192.0.2.20; rdma_cm binds 127.0.0.1 to no device).
 */
#define ENGINE_SUITE	"ibpost_siw"
#define ENGINE_DEV	"siw0"
#define ENGINE_CM	"192.0.2.20"

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "rxe_kunit.c"
