/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost_blk: a blk-mq block device on ibpost's session API
 * (Documentation/blk.rst).  Everything it needs of ibpost is in
 * include/ibpost.h.
 */
#ifndef _IBPOST_BLK_H
#define _IBPOST_BLK_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <ibpost.h>

#include "compat-blk.h"

/* Devices are named ibpostb0, ibpostb1, ... */
#define IBPOST_BLK_NAME		"ibpostb"
/* Minors per device (partitions). */
#define IBPOST_BLK_MINORS	16
/* Most devices mapped at once. */
#define IBPOST_BLK_MAX_DEVS	64
/* Most requests per hardware queue (the map's depth=). */
#define IBPOST_BLK_MAX_DEPTH	1024
/* Default requests per hardware queue. */
#define IBPOST_BLK_DEPTH	64
/* Most scatterlist entries per request asked of the session. */
#define IBPOST_BLK_MAX_SEGS	256
/* Send-queue slots per request the session is sized for. */
#define IBPOST_BLK_WRS_PER_REQ	8
/*
 * Default queues with connect=: `ibpost serve`'s default --max-per-addr,
 * the connections it allows one session (each queue is one).
 */
#define IBPOST_BLK_PEER_QUEUES	8
/* Bytes of a device's serial (serial=, or a UUID: 36 characters) + NUL. */
#define IBPOST_BLK_SERIAL_LEN	37
/* Longest io_timeout= (seconds), as the module parameter's. */
#define IBPOST_BLK_MAX_TIMEOUT	600
/* Default, least and most reconnect_delay= (seconds), as nvme-rdma's. */
#define IBPOST_BLK_RECONNECT_DELAY	10
#define IBPOST_BLK_MAX_RECONNECT_DELAY	3600
/* Default ctrl_loss_tmo= (seconds), as nvme-rdma's. */
#define IBPOST_BLK_CTRL_LOSS_TMO	600
/* Most ctrl_loss_tmo= and fast_io_fail_tmo= (seconds; -1: forever, off). */
#define IBPOST_BLK_MAX_TMO		(7 * 24 * 3600)
/*
 * Times a request whose session failed is sent again, on the same or the
 * next session, before it fails (nvme's nvme_max_retries default): a
 * request that fails every session (a protection error, a provider bug)
 * must not loop reconnect, retry, fail for ever.
 */
#define IBPOST_BLK_MAX_RETRIES	5
/*
 * Milliseconds after which a request requeued while the device is still
 * live is dispatched again: its session's event may never come (a
 * refusal that failed no session), so no reconnect would kick the list.
 */
#define IBPOST_BLK_REQUEUE_MS	100
/*
 * An unmap waits this long for a live session's outstanding requests
 * before it fails the session (ibpost_blk_remove()).
 */
#define IBPOST_BLK_DRAIN_S	5
/* Length of the reason of the last control write. */
#define IBPOST_BLK_RESULT_LEN	160

/**
 * struct ibpost_blk_map - what one map_device write asks for.
 * @rdma: the RDMA device (dev=).
 * @port: its port (port=, 0 for the first).
 * @size: bytes of the device (size=, a multiple of 4 KiB).
 * @queues: hardware queues asked for (queues=, capped by the device's
 *	completion vectors and the CPUs; default one per CPU, with connect=
 *	at most IBPOST_BLK_PEER_QUEUES).
 * @depth: requests per hardware queue (depth=).
 * @server: connect=: the address of ``ibpost serve`` whose memory is the
 *	backing store, as given; empty: a local region (loopback).
 * @server_port: server_port=: its port, 0 for 18520.
 * @io_timeout: io_timeout=: seconds a request may take (1 to 600; the
 *	module's io_timeout parameter when not given).
 * @ro: ro=: 0 only (a new region holds only zeros: read-only is for
 *	exported data); a device root makes read-only (BLKROSET) refuses
 *	writes, discards and write zeroes before they reach the session.
 * @serial: serial=: the device's serial (letters, digits, '.', '_', '-'),
 *	else a random UUID made at map time: /dev/disk/by-id/ibpost-SERIAL
 *	through the udev rule, the same for the mapping's whole life.
 * @reconnect_delay: reconnect_delay=: seconds between reconnect attempts
 *	after the session with the server failed (1 to 3600, default 10).
 * @ctrl_loss_tmo: ctrl_loss_tmo=: seconds after the loss the device
 *	keeps trying to reconnect before it fails for good (default 600);
 *	0: never reconnect (the device fails at once, as without reconnect);
 *	-1: forever.
 * @fast_io_fail_tmo: fast_io_fail_tmo=: seconds after the loss from which
 *	queued and new requests fail with BLK_STS_IOERR while reconnecting
 *	goes on; -1 (the default): they wait until the reconnect or the
 *	ctrl_loss_tmo.
 * @peer: @server and @server_port, parsed.
 * @has_resume: resume= was given: the first session takes back the region
 *	the server keeps for the device of an earlier map (unmapped with
 *	keep: its ``resume`` attribute), instead of a new one.
 * @resume: resume=SESSION:GENERATION:TOKEN (the token in 32 hex digits),
 *	moved to &ibpost_blk_dev.resume at map time: a secret.
 */
struct ibpost_blk_map {
	char rdma[IB_DEVICE_NAME_MAX];
	u32 port;
	u64 size;
	u32 queues;
	u32 depth;
	char server[64];
	u32 server_port;
	u32 io_timeout;
	u32 ro;
	char serial[IBPOST_BLK_SERIAL_LEN];
	int reconnect_delay;
	int ctrl_loss_tmo;
	int fast_io_fail_tmo;
	struct sockaddr_storage peer;
	bool has_resume;
	struct ibpost_session_resume resume;
};

/* Where a device is in its life. */
enum ibpost_blk_state {
	IBPOST_BLK_LIVE,	/* I/O goes to the session */
	IBPOST_BLK_ERROR,	/* the session is in error: I/O fails */
	IBPOST_BLK_LOST,	/* gone for good (device, region, ctrl_loss_tmo) */
	IBPOST_BLK_RECONNECTING,	/* the session failed: a new one is due */
	IBPOST_BLK_DELETING,	/* being unmapped: I/O fails */
};

/**
 * struct ibpost_blk_dev - one mapped device.
 * @node: entry in the list of devices (ibpost_blk_lock).
 * @id: its number (ibpostb<id>).
 * @map: what it was mapped with (@map.queues: what was asked).
 * @queues: hardware queues (= session queues) it has.
 * @segs: most scatterlist entries per request (its max_segments).
 * @sess: its session: the region is its backing store.
 * @lim: the session's limits.
 * @tags: the tag set; each request's pdu is a &struct ibpost_blk_cmd.
 * @disk: the disk.
 * @lock: @openers, @removing.
 * @openers: opens of the disk (block_device_operations).
 * @removing: being unmapped: opens are refused.
 * @state: enum ibpost_blk_state (written from the session's events,
 *	under @state_lock when the device reconnects).
 * @added: the disk was added (del_gendisk() is due).
 * @state_lock: @state's changes from and to IBPOST_BLK_RECONNECTING,
 *	@sess_failed, and the queueing of @err_work (the event may come
 *	from softirq).
 * @sess_lock: @sess against its replacement: the sysfs readers and the
 *	timeout handler take it before they use @sess.
 * @err_work: after the session failed: quiesce, close it, then
 *	@reconnect_work (or fail for good).
 * @reconnect_work: one attempt to open a session on the kept region,
 *	every @map.reconnect_delay seconds.
 * @failfast_work: @map.fast_io_fail_tmo after the loss: queued and new
 *	requests fail from then on.
 * @resume: what takes the region back (ibpost_session_get_resume() of
 *	the last live session); a secret, wiped at the end.
 * @lost_at: jiffies of the loss (ctrl_loss_tmo, fast_io_fail_tmo count
 *	from it).
 * @reconnects: reconnects that succeeded (sysfs ``reconnects``).
 * @quiesced: the queue is quiesced by the reconnect (balanced).
 * @dev_gone: the session lost its local RDMA device (IBPOST_EV_LOST, only
 *	sent for the removal of this host's own device, never for the
 *	server's): the device fails for good instead of reconnecting, as
 *	nvme-rdma deletes the controllers of a removed device; set under
 *	@state_lock, never cleared, read by the works.
 * @reset: the loss is an operator's reset (attr.c): the first attempt
 *	comes at once, not after reconnect_delay; under @sess_lock, cleared
 *	by the reconnect.
 * @failfast: fast_io_fail_tmo expired: requests fail while reconnecting.
 * @sess_failed: the session being opened failed before it went live.
 * @reconnect: a loss starts a reconnect (connect= and a ctrl_loss_tmo
 *	other than 0 while the device was last live: a later write of
 *	ctrl_loss_tmo applies from the next loss, or ends the one under way,
 *	ibpost_blk_timers_changed()); written under @state_lock.
 * @keep: unmapped with keep (unmap_device's "ibpostbN keep"): once its
 *	I/O drained, the session is failed, so that its close sends no fin
 *	and the server keeps the region for its grant, for a later map with
 *	resume= (a client's reboot).
 */
struct ibpost_blk_dev {
	struct list_head node;
	int id;
	struct ibpost_blk_map map;
	u32 queues;
	u32 segs;
	struct ibpost_session *sess;
	struct ibpost_session_limits lim;
	struct blk_mq_tag_set tags;
	struct gendisk *disk;
	struct mutex lock;
	u32 openers;
	bool removing;
	int state;
	bool added;
	spinlock_t state_lock;
	struct mutex sess_lock;
	struct work_struct err_work;
	struct delayed_work reconnect_work;
	struct delayed_work failfast_work;
	struct ibpost_session_resume resume;
	unsigned long lost_at;
	u32 reconnects;
	bool quiesced;
	bool dev_gone;
	bool reset;
	bool failfast;
	bool sess_failed;
	bool reconnect;
	bool keep;
};

/* struct ibpost_blk_cmd.ended */
#define IBPOST_BLK_ENDED	1	/* completed by the session's callback */
#define IBPOST_BLK_ENDED_LOST	2	/* ended, its completion faked lost */

/*
 * Scatterlist entries in each request's pdu, as nvme's NVME_INLINE_SG_CNT:
 * a request of more is chained to entries from the kernel's sg pool
 * (sg_alloc_table_chained(), mempool-backed), so that the tag set does not
 * hold max_segments entries (8.7 KiB on rxe) for every request.  A kernel
 * without the sg pool (compat-blk.h) has them all in the pdu.
 */
#define IBPOST_BLK_INLINE_SG	2
#define ibpost_blk_inline_sg(d)	\
	(IBPOST_COMPAT_SG_POOL ? IBPOST_BLK_INLINE_SG : (d)->segs)

/**
 * struct ibpost_blk_cmd - per-request data of the tag set, allocated with
 *	it.
 * @req: the session request.
 * @req2: the second one of a WRITE ZEROES or DISCARD across a chunk's end.
 * @pending: session requests not yet ended.
 * @err: the first error of them (0: none).
 * @ended: 0 while the session has the request, else IBPOST_BLK_ENDED*
 *	(read by the timeout handler).
 * @status: what the request ends with.
 * @retries: times it was requeued after its session failed (reset when
 *	the block layer hands the request in new: RQF_DONTPREP clear).
 * @sgt: its scatterlist (blk_rq_map_sg(), or the zero page's entries):
 *	@inline_sg, chained to more for a request of more entries; set up at
 *	dispatch, freed when the request completes (ibpost_blk_complete());
 *	orig_nents 0 while it has none.
 * @inline_sg: ibpost_blk_inline_sg() entries.
 */
struct ibpost_blk_cmd {
	struct ibpost_req req;
	struct ibpost_req req2;
	atomic_t pending;
	int err;
	int ended;
	blk_status_t status;
	u8 retries;
	struct sg_table sgt;
	struct scatterlist inline_sg[];
};

/* io.c */
extern unsigned int ibpost_blk_io_timeout;
const char *ibpost_blk_reason(u32 reason);

/* ctl.c */
int ibpost_blk_check_reconnect(const struct ibpost_blk_map *m, char *why,
			       size_t len);
int ibpost_blk_ctl_map(const char *buf, size_t count, char *result,
		       size_t len);
int ibpost_blk_ctl_init(void);
void ibpost_blk_ctl_exit(void);

/* ctlfd.c */
int ibpost_blk_ctlfd_init(void);
void ibpost_blk_ctlfd_exit(void);

/* disk.c */
extern struct mutex ibpost_blk_lock;
extern struct list_head ibpost_blk_devs;
extern int ibpost_blk_major;
int ibpost_blk_disks_init(void);
void ibpost_blk_disks_exit(void);
int ibpost_blk_map_dev(const struct ibpost_blk_map *m, char *why,
		       size_t len, int *id);
int ibpost_blk_unlist(struct ibpost_blk_dev *d, bool force);
void ibpost_blk_remove(struct ibpost_blk_dev *d);
struct ibpost_blk_dev *ibpost_blk_find(const char *name);
extern const struct block_device_operations ibpost_blk_fops;

/* io.c */
extern const struct blk_mq_ops ibpost_blk_mq_ops;
void ibpost_blk_event(struct ibpost_session *s,
		      enum ibpost_session_event ev);

/* disk.c */
void ibpost_blk_keep_warn(const struct ibpost_blk_dev *d);
struct ibpost_session *
ibpost_blk_session(struct ibpost_blk_dev *d,
		   struct ibpost_session_resume *resume, u32 *reason);

/* reconnect.c */
bool ibpost_blk_can_reconnect(const struct ibpost_blk_dev *d);
void ibpost_blk_lose(struct ibpost_blk_dev *d);
void ibpost_blk_reconnect_init(struct ibpost_blk_dev *d);
void ibpost_blk_timers_changed(struct ibpost_blk_dev *d);
void ibpost_blk_reconnect_stop(struct ibpost_blk_dev *d);
int ibpost_blk_reconnect_wq_init(void);
void ibpost_blk_reconnect_wq_exit(void);

/* attr.c */
extern const struct attribute_group *ibpost_blk_disk_groups[];

#endif /* _IBPOST_BLK_H */
