// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run: refusals and failures of jobs on stderr, and the notes of
 * the points a sweep stepped over (in the text table: on stdout).
 */
#include <errno.h>
#include <string.h>

#include "ibpost.h"

/* What a failed run found, after the refusal line. */
static void print_failure(const struct ibpost_result *r, unsigned int reason)
{
	unsigned int i;

	if (reason == IBPOST_R_WC_ERROR || r->wc_errors) {
		fprintf(stderr, "  first error completion: %s (%u), vendor_err 0x%x, wr %u, qpn 0x%x\n",
			out_wc_status(r->first_err_status), r->first_err_status,
			r->first_err_vendor, r->first_err_wr, r->qpn);
		fprintf(stderr, "  error completions: %u:", r->wc_errors);
		for (i = 1; i < IBPOST_WC_STATUS_MAX; i++)
			if (r->wc_status[i])
				fprintf(stderr, " %s %u", out_wc_status(i), r->wc_status[i]);
		fputc('\n', stderr);
	}
	if (reason == IBPOST_R_VERIFY || r->verify_errors)
		fprintf(stderr, "  first mismatch: wr %u, sge %u, offset %u: expected 0x%02x, got 0x%02x; %u bad bytes in all\n",
			r->verify_wr, r->verify_sge, r->verify_offset,
			r->verify_expected, r->verify_got, r->verify_errors);
}

/*
 * The line of a refused or failed job (nothing posted: refused; else it
 * failed on the way), whether the server of a --connect run reported it,
 * and what it found.  With -q the line starts "qp I: ".
 */
void runerr_job(const struct ibpost_run *r, int err, int qp)
{
	bool refused = !r->result.posted;

	if (qp >= 0)
		fprintf(stderr, "qp %d: ", qp);
	fprintf(stderr, "%s: run %s", prog, refused ? "refused" : "failed");
	if (r->result.peer && refused)
		fprintf(stderr, " by the peer (conn %u)", r->result.peer_conn);
	fprintf(stderr, ": %s", strerror(err));
	if (r->status.reason != IBPOST_R_NONE) {
		fputs(": ", stderr);
		ctl_print_status(stderr, &r->status);
	}
	if (r->result.peer && !refused)
		fprintf(stderr, " (reported by the peer, conn %u)",
			r->result.peer_conn);
	fputc('\n', stderr);
	if (err == ENOTTY)
		fprintf(stderr, "  (this ibpost module has no IBPOST_IOC_RUN)\n");
	print_failure(&r->result, r->status.reason);
}

/* A refusal a sweep steps over: a "# note" in the table, else on stderr. */
void runerr_skip(const struct run_opts *o, const struct ibpost_run *r)
{
	FILE *f = o->json || o->csv ? stderr : stdout;

	fprintf(f, "# note: %llu bytes, %u sge skipped", (unsigned long long)r->msg_size,
		r->num_sge);
	if (r->result.peer)
		fprintf(f, " (refused by the peer, conn %u)",
			r->result.peer_conn);
	fputs(": ", f);
	ctl_print_status(f, &r->status);
	fputc('\n', f);
}

/* The threads of -q that could not be pinned to their CPU. */
void runerr_pins(const struct qp_job *jobs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (jobs[i].pin_err)
			fprintf(stderr, "qp %u: %s: cannot pin its thread to CPU %d: %s (ran unpinned)\n",
				i, prog, jobs[i].cpu, strerror(jobs[i].pin_err));
}

/* A QP of -q that failed: its thread did not start, or its job's line. */
void runerr_qp(const struct qp_job *j, int qp)
{
	if (j->no_thread)
		fprintf(stderr, "qp %d: %s: cannot start its thread: %s\n", qp,
			prog, strerror(j->err));
	else
		runerr_job(&j->run, j->err, qp);
}
