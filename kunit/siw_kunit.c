// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the engine suite of rxe_kunit.c on soft-iWARP (siw_lo), as its
 * own suite (ibpost_siw) so both run in one guest and their results do not
 * collide.  Every job connects through rdma_cm (cm=, 127.0.0.1 on lo).
 */
#define ENGINE_SUITE	"ibpost_siw"
#define ENGINE_DEV	"siw_lo"
#define ENGINE_CM	"127.0.0.1"

#include "rxe_kunit.c"
