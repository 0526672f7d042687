/* Between the virtual-memory calls (vmm.c) and the device memory table
 * (memory.c). Never installed. */
#ifndef EMU_RUNTIME_VMM_H_
#define EMU_RUNTIME_VMM_H_

#include <stdbool.h>
#include <stddef.h>

#include "common/emu.h"

/* The table holds one record per run of mappings that follow each other
 * without a gap inside one reservation, so that every device-memory check
 * sees the run as one block. This removes the run records starting at each
 * old[i].base and inserts add[], under one lock (no check sees the table in
 * between). False, with nothing changed, when the host is out of memory. */
bool emu_device_regions_replace(const emu_block *old, size_t old_count, const emu_block *add, size_t add_count);

/* Writes one line per reservation and per physical handle still alive to
 * `out_file` (NULL: count only); returns their number. memory.c's leak
 * report calls it. */
size_t emu_vmm_report(void *out_file);

#endif /* EMU_RUNTIME_VMM_H_ */
