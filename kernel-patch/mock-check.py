#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What can be checked of kernel-patch/*.patch without a 2.6.8 tree.

  kernel-patch/mock-check.py [PATCH]

1. The post-image of the power.h hunk and the new C of swsusp.c (the layout
   checks, init_header(), swsusp_fw_restore()) are compiled with gcc -std=gnu89
   (the dialect of 2004 kernels) for -m32 and -m64, against mock declarations of
   the 2.6.8 types they meet: swp_entry_t, struct pbe (include/linux/suspend.h),
   struct swsusp_header (the seeds' kernel/power/swsusp.c), struct new_utsname.
   So the SWSUSP_FW_CHECK()s run for both word sizes against the kernel's own
   (unsigned long based) structures, and the fixed-width text is C89-clean.
2. The new assembly of arch/i386/power/swsusp.S and arch/x86_64/kernel/
   suspend_asm.S is preprocessed and assembled (as --32 / --64) with the kernel
   macros it uses (ENTRY, __PAGE_OFFSET, __START_KERNEL_map) defined as in 2.6.8;
   the kernel symbols stay undefined (relocations), as in a real build.
Exits non-zero on the first failure. Needs gcc with -m32 support and binutils.
"""
import os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def patch_files(path):
    """{file: [hunk, ...]}; hunk = list of (tag, text), tag in ' ', '+', '-'"""
    files, cur, hunk = {}, None, None
    for line in open(path).read().split('\n'):
        if line.startswith('+++ '):
            cur = line.split()[1][2:]
            files[cur] = []
            hunk = None
        elif line.startswith('--- ') or line.startswith('diff '):
            hunk = None
        elif line.startswith('@@') and cur:
            hunk = []
            files[cur].append(hunk)
        elif hunk is not None and line[:1] in (' ', '+', '-'):
            hunk.append((line[0], line[1:]))
    return files


def post(hunk):
    return [t for tag, t in hunk if tag != '-']


def added_runs(hunk):
    runs, run = [], []
    for tag, t in hunk:
        if tag == '+':
            run.append(t)
        elif run:
            runs.append(run)
            run = []
    if run:
        runs.append(run)
    return runs


MOCK = r'''
/* mock 2.6.8 declarations, word size from the compiler */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#define BITS_PER_LONG (__SIZEOF_LONG__ * 8)
typedef unsigned int u32;
typedef unsigned long long u64;
#define PAGE_SIZE 4096UL
#if BITS_PER_LONG == 64
#define CONFIG_X86_64 1
#define PAGE_OFFSET 0x0000010000000000UL
#else
#define PAGE_OFFSET 0xC0000000UL
#endif
#define MAX_SWAPFILES_SHIFT 5
#define LINUX_VERSION_CODE 0x020608
#define asmlinkage
#define __init
typedef struct { unsigned long val; } swp_entry_t;
struct new_utsname {
	char sysname[65]; char nodename[65]; char release[65];
	char version[65]; char machine[65]; char domainname[65];
};
/* include/linux/suspend.h, 2.6.8 */
typedef struct pbe {
	unsigned long address;
	unsigned long orig_address;
	swp_entry_t swap_address;
	swp_entry_t dummy;
} suspend_pagedir_t;
extern struct new_utsname system_utsname;
extern unsigned long num_physpages;
extern int num_online_cpus(void);
extern unsigned int nr_copy_pages;
extern int nr_copy_pages_check, pagedir_order, pagedir_order_check;
extern suspend_pagedir_t *pagedir_nosave;
extern char __nosave_begin, __nosave_end;
extern int swsusp_restore(void);
static void dump_info(void) { }
'''


def check_c(files, tmp):
    ph = files['kernel/power/power.h']
    assert len(ph) == 1, 'one power.h hunk expected'
    body = post(ph[0])
    first_add = next(i for i, (tag, _) in enumerate(ph[0]) if tag == '+')
    # drop the context before the first added line (the tail of an #if)
    body = [t for tag, t in ph[0][first_add:] if tag != '-']
    sw = files['kernel/power/swsusp.c']
    sig = [t for h in sw for tag, t in h if tag == '+' and t.startswith('#define SWSUSP_SIG')]
    info = [t for h in sw for tag, t in h if tag == '+' and t.startswith('struct swsusp_fw_info swsusp_info')]
    hdr = ['struct swsusp_header {',
           '\tchar reserved[PAGE_SIZE - 20 - sizeof(swp_entry_t)];',
           '\tswp_entry_t swsusp_info;',
           '\tchar\torig_sig[10];',
           '\tchar\tsig[10];',
           '} __attribute__((packed, aligned(PAGE_SIZE))) swsusp_header;']
    init = None
    for h in sw:
        p = post(h)
        if any('SWSUSP_FW_CHECK(cond)' in t for t in p):
            start = next(i for i, t in enumerate(p) if t.startswith('/* Fails to compile'))
            init = p[start:]
    restore = None
    for h in sw:
        for run in added_runs(h):
            if any(t.startswith('asmlinkage int swsusp_fw_restore') for t in run):
                restore = run
    assert sig and info and init and restore, 'patch pieces not found'
    src = '\n'.join([MOCK] + body + sig + hdr + info + init + restore) + '\n'
    c = os.path.join(tmp, 'mock.c')
    open(c, 'w').write(src)
    for m in ('-m32', '-m64'):
        r = subprocess.run(['gcc', m, '-std=gnu89', '-Wall', '-Wextra', '-Werror', '-Wno-unused-function',
                            '-Wno-missing-field-initializers', '-c', c, '-o', os.path.join(tmp, 'mock.o')],
                           capture_output=True, text=True)
        if r.returncode:
            sys.stderr.write(r.stderr)
            sys.exit('mock compile %s failed (source: %s)' % (m, c))
        print('ok: C of the patch compiles with gcc -std=gnu89 %s; layout checks hold' % m)


ASM = {
    'arch/i386/power/swsusp.S': ('--32', '#define ENTRY(name) .globl name; .align 16,0x90; name:\n#define __PAGE_OFFSET 0xC0000000\n'),
    'arch/x86_64/kernel/suspend_asm.S': ('--64', '#define ENTRY(name) .globl name; .align 16,0x90; name:\n#define __START_KERNEL_map 0xffffffff80000000\n'),
}


def check_asm(files, tmp):
    for name, (flag, prelude) in ASM.items():
        hunks = files[name]
        code = [t for h in hunks for run in added_runs(h) for t in run]
        src = os.path.join(tmp, os.path.basename(name))
        open(src, 'w').write(prelude + '\t.text\n' + '\n'.join(code) + '\n')
        pp = subprocess.run(['cpp', '-P', '-D__ASSEMBLY__', src], capture_output=True, text=True)
        if pp.returncode:
            sys.stderr.write(pp.stderr)
            sys.exit('cpp of %s failed' % name)
        s = src + '.s'
        open(s, 'w').write(pp.stdout)
        r = subprocess.run(['as', flag, '-o', s + '.o', s], capture_output=True, text=True)
        if r.returncode:
            sys.stderr.write(r.stderr)
            sys.exit('as %s of %s failed' % (flag, name))
        syms = subprocess.run(['nm', s + '.o'], capture_output=True, text=True).stdout
        for want in ('T swsusp_fw_resume', 'D swsusp_fw_arch_info'):
            if want not in syms:
                sys.exit('%s: no %s' % (name, want))
        print('ok: new assembly of %s assembles (as %s)' % (name, flag))


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '0001-swsusp-firmware-resume.patch')
    files = patch_files(path)
    with tempfile.TemporaryDirectory() as tmp:
        check_c(files, tmp)
        check_asm(files, tmp)


if __name__ == '__main__':
    main()
