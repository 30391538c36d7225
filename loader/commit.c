// SPDX-License-Identifier: GPL-2.0-or-later
/* The point of no return; see commit.h. */
#include "loader/commit.h"

static void note(const struct er_pnr_ops *ops, const char *what, int status)
{
	if (ops->note)
		ops->note(ops->ctx, what, status);
}

/* Before ExitBootServices was ever called: put the signature back. */
static enum er_pnr_result back_out(const struct er_pnr_ops *ops, const char *what, int status)
{
	note(ops, what, status);
	int r = ops->uncommit(ops->ctx);
	note(ops, r ? "the swap signature could not be put back" : "the swap signature was put back; image kept", r);
	return r ? ER_PNR_LOST : ER_PNR_NOT_COMMITTED;
}

enum er_pnr_result er_point_of_no_return(const struct er_pnr_ops *ops)
{
	int r = ops->get_map(ops->ctx, true);
	if (r) {
		note(ops, "no memory map for ExitBootServices; not committing", r);
		return ER_PNR_NOT_COMMITTED;
	}
	r = ops->commit(ops->ctx);
	if (r) {
		note(ops, "the swap signature could not be reset; not committing", r);
		return ER_PNR_NOT_COMMITTED;
	}
	/* the signature write may have allocated: fetch the map again (growing it is
	 * still allowed: ExitBootServices has not been called) */
	bool called = false;
	for (int tries = 0; tries < ER_PNR_TRIES; tries++) {
		r = ops->get_map(ops->ctx, !called);
		if (r) {
			if (!called)
				return back_out(ops, "GetMemoryMap failed before ExitBootServices", r);
			break;   /* no allocation allowed any more: nothing else to try */
		}
		r = ops->exit_bs(ops->ctx);
		/* whatever it returned, the firmware may have begun to shut down: from now on
		 * only GetMemoryMap and ExitBootServices may be called (UEFI 2.10, 7.4) */
		called = true;
		if (r == 0)
			return ER_PNR_EXITED;
	}
	ops->reset(ops->ctx);
	return ER_PNR_LOST;   /* reset() does not return; a host test's may */
}
