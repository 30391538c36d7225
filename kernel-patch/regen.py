#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Regenerates kernel-patch/0001-swsusp-firmware-resume.patch.

  kernel-patch/regen.py [SEEDS_DIR]     (default: ../shared/seeds beside the repository)

No 2.6.8 tree is available, so the "before" side is reconstructed from the seed
series: the post-images of the seeds' hunks give the post-merge text of every
region the patch touches (line numbers are approximate; filler stands between
regions and must never reach a hunk). The "after" side applies the edits below;
the layout block is taken verbatim from image/swsusp2004.h, which is what
tests/unit/test_swsusp2004.c then checks. Run it after changing that block.
"""
import os, re, shutil, subprocess, sys, tempfile, glob
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(TOP), 'shared', 'seeds')
WORK = tempfile.mkdtemp(prefix='kpatch-')

def seed_hunks(path):
    lines = open(path).read().split('\n')
    cur = None; out = []; fname = None
    for l in lines:
        if l.startswith('+++ '): fname = l.split()[1]; continue
        if l.startswith('--- ') or l.startswith('diff '): cur = None; continue
        m = re.match(r'@@ -(\d+),(\d+) \+(\d+),(\d+) @@', l)
        if m:
            cur = {'file': fname, 'hdr': l, 'post': [], 'start': int(m.group(3))}; out.append(cur); continue
        if cur is None: continue
        if l.startswith('-'): continue
        if l.startswith('+') or l.startswith(' '): cur['post'].append(l[1:])
        elif l == '': cur['post'].append('')
        else: cur = None
    return out

H = {}
for f in sorted(glob.glob(os.path.join(SEEDS, '0*.patch'))):
    H[os.path.basename(f)[:3]] = seed_hunks(f)
if not H:
    sys.exit('no seed patches in ' + SEEDS)
PATCH_HEADER = 'From: efiresume <kernel-patch/README>\nSubject: [PATCH] swsusp: let a firmware loader resume the image (format v1)\n\nThe swsusp image of the pmdisk/swsusp merge (2.6.8) assumes that the kernel\nwhich restores it is the same kernel: nothing in it says where the saved\ncontext lives or how to enter it. This adds, for i386 and x86_64:\n\n- a format version 1 of struct swsusp_info, defined with fixed-width types\n  (the same text is compiled by the firmware loader), which appends a tail:\n  magic, version, architecture tag, page size, the virtual and physical\n  address of a resume entry routine, the page-table root it loads,\n  PAGE_OFFSET and the physical extent of .data.nosave; init_header() fills\n  it. The pagedir slots become 32-bit swap offsets so that all 768 of them\n  fit in the page on x86_64 as well (stock x86_64 swsusp_info is 6584 bytes\n  and only its first page is ever written).\n- its own page 0 signature, SWSUSP_FW_SIG "S1SUSPFW1", so that no loader or\n  kernel takes the image for a stock one (and the reverse).\n- swsusp_fw_resume (arch/i386/power/swsusp.S, arch/x86_64/kernel/suspend_asm.S):\n  the end of swsusp_arch_resume without the copy loop, on the page tables of\n  the image (swsusp_pg_dir is __nosavedata, hence not in the image), then\n  swsusp_fw_restore(), which gives .data.nosave the values a resuming kernel\n  would have left (in_suspend = 0 among them) before swsusp_restore().\n- a refusal to write an image that needs more pagedir pages than the 768\n  slots (-EFBIG), and the kernel\'s own resume checks the version and the\n  slot count.\n\nCompile-time checks tie struct pbe, struct swsusp_header, swp_entry_t and\nstruct new_utsname to the fixed-width definitions.\n\nNot compiled: no 2.6.8 tree was available. Hunks were generated against the\npost-merge text reconstructed from the seed series; line numbers are\napproximate. See kernel-patch/README.\n\n---\n'
def post(k, i, a=None, b=None):
    x = H[k][i]; s = x['start']; lines = x['post']
    a = a or s; b = b or s + len(lines) - 1
    return lines[a - s:b - s + 1]
hdr = open(os.path.join(TOP, 'image', 'swsusp2004.h')).read().split('\n')
i0 = hdr.index('/* >>> swsusp-fw layout v1 >>> */'); i1 = hdr.index('/* <<< swsusp-fw layout v1 <<< */')
SHARED = hdr[i0:i1 + 1]

FILL = '~~FILLER~~'
def skeleton(regions):
    """regions: list of (approx_line, lines). Returns file lines with filler."""
    out = []
    for line, block in regions:
        while len(out) < line - 1 - 0:
            out.append(FILL)
        out.extend(block)
    out.extend([FILL] * 5)
    return out

def sub(block, old, new):
    """replace the exact line sequence old (list) with new (list) once"""
    for i in range(len(block) - len(old) + 1):
        if block[i:i + len(old)] == old:
            return block[:i] + new + block[i + len(old):]
    sys.exit('not found: %r' % old[:2])

# ---------------------------------------------------------------- power.h
ph_before = post('008', 9)[:3] + ['/* With SUSPEND_CONSOLE defined, it suspend looks *really* cool, but',
    '   we probably do not take enough locks for switching consoles, etc,', '   so bad things might happen.', '*/'] + post('008', 10)
ph_after = sub(ph_before, post('008', 10, 13, 22), SHARED + [
    '',
    '/* This kernel\'s shapes of the structures above; swsusp.c checks them at',
    ' * compile time against struct pbe, struct swsusp_header and swp_entry_t. */',
    '#if BITS_PER_LONG == 64',
    '#define swsusp_fw_info		swsusp_fw_info64',
    '#define swsusp_fw_pbe		swsusp_fw_pbe64',
    '#define swsusp_fw_header	swsusp_fw_header64',
    '#else',
    '#define swsusp_fw_info		swsusp_fw_info32',
    '#define swsusp_fw_pbe		swsusp_fw_pbe32',
    '#define swsusp_fw_header	swsusp_fw_header32',
    '#endif',
    '#ifdef CONFIG_X86_64',
    '#define SWSUSP_FW_ARCH		SWSUSP_FW_ARCH_X86_64',
    '#else',
    '#define SWSUSP_FW_ARCH		SWSUSP_FW_ARCH_I386',
    '#endif',
    '',
    '/* arch/i386/power/swsusp.S, arch/x86_64/kernel/suspend_asm.S: link-time',
    ' * fw_entry, fw_entry_phys, fw_cr3, fw_nosave_begin, fw_nosave_end */',
    'extern u64 swsusp_fw_arch_info[5];',
])
ph = (skeleton([(1, ph_before)]), skeleton([(1, ph_after)]))

# ---------------------------------------------------------------- swsusp.c
r_sig = post('009', 7, 111, 123) + post('010', 5, 124, 127)
r_sig_a = sub(r_sig, ['#define SWSUSP_SIG\t"S1SUSPEND"'],
    ['/* not the stock "S1SUSPEND": no loader may take this format for another */',
     '#define SWSUSP_SIG\tSWSUSP_FW_SIG'])
r_sig_a = sub(r_sig_a, ['struct swsusp_info swsusp_info;'],
    ['struct swsusp_fw_info swsusp_info;\t/* power.h: one page, format version 1 */'])

r_init = post('008', 14, 358, 395)
r_init = sub(r_init, ['void swsusp_init_header(void)'], ['static void init_header(void)'])
r_init_a = sub(r_init, ['\tprintk(" swsusp: Num Pages: %ld\\n",swsusp_info.num_physpages);'],
    ['\tprintk(" swsusp: Num Pages: %lu\\n",(unsigned long)swsusp_info.num_physpages);'])
r_init_a = sub(r_init_a, ['\tprintk(" swsusp: Image: %ld Pages\\n",swsusp_info.image_pages);',
                          '\tprintk(" swsusp: Pagedir: %ld Pages\\n",swsusp_info.pagedir_pages);'],
    ['\tprintk(" swsusp: Image: %lu Pages\\n",(unsigned long)swsusp_info.image_pages);',
     '\tprintk(" swsusp: Pagedir: %lu Pages\\n",(unsigned long)swsusp_info.pagedir_pages);'])
r_init_a = sub(r_init_a, ['static void init_header(void)', '{'], [
    '/* Fails to compile unless this kernel writes the version 1 layout (power.h). */',
    '#define SWSUSP_FW_CHECK(cond) ((void)sizeof(char[1 - 2 * !(cond)]))',
    '',
    'static inline void swsusp_fw_check_layout(void)',
    '{',
    '\tSWSUSP_FW_CHECK(PAGE_SIZE == 4096);',
    '\tSWSUSP_FW_CHECK(sizeof(swsusp_info) == PAGE_SIZE);',
    '\tSWSUSP_FW_CHECK(sizeof(struct new_utsname) == sizeof(struct swsusp_fw_uts));',
    '\tSWSUSP_FW_CHECK(sizeof(swp_entry_t) == sizeof(unsigned long));',
    '\tSWSUSP_FW_CHECK(MAX_SWAPFILES_SHIFT == SWSUSP_FW_TYPE_BITS);',
    '\tSWSUSP_FW_CHECK(sizeof(struct pbe) == sizeof(struct swsusp_fw_pbe));',
    '\tSWSUSP_FW_CHECK(offsetof(struct pbe, orig_address) ==',
    '\t\t\toffsetof(struct swsusp_fw_pbe, orig_address));',
    '\tSWSUSP_FW_CHECK(offsetof(struct pbe, swap_address) ==',
    '\t\t\toffsetof(struct swsusp_fw_pbe, swap_address));',
    '\tSWSUSP_FW_CHECK(offsetof(struct pbe, dummy) ==',
    '\t\t\toffsetof(struct swsusp_fw_pbe, dummy));',
    '\tSWSUSP_FW_CHECK(sizeof(struct swsusp_header) == sizeof(struct swsusp_fw_header));',
    '\tSWSUSP_FW_CHECK(offsetof(struct swsusp_header, swsusp_info) ==',
    '\t\t\toffsetof(struct swsusp_fw_header, swsusp_info));',
    '\tSWSUSP_FW_CHECK(offsetof(struct swsusp_header, orig_sig) ==',
    '\t\t\toffsetof(struct swsusp_fw_header, orig_sig));',
    '\tSWSUSP_FW_CHECK(offsetof(struct swsusp_header, sig) ==',
    '\t\t\toffsetof(struct swsusp_fw_header, sig));',
    '\tSWSUSP_FW_CHECK(sizeof(SWSUSP_SIG) == sizeof(swsusp_header.sig));',
    '}',
    '',
    'static void init_header(void)',
    '{',
    '\tswsusp_fw_check_layout();'])
r_init_a = sub(r_init_a, ['\tswsusp_info.suspend_pagedir = pagedir_nosave;'],
    ['\tswsusp_info.suspend_pagedir = (unsigned long)pagedir_nosave;'])
r_init_a = sub(r_init_a, ['\tswsusp_info.image_pages = nr_copy_pages;', '\tdump_info();'], [
    '\tswsusp_info.image_pages = nr_copy_pages;',
    '',
    '\t/* what a firmware loader needs to enter this kernel */',
    '\tswsusp_info.fw.fw_magic = SWSUSP_FW_MAGIC;',
    '\tswsusp_info.fw.fw_version = SWSUSP_FW_VERSION;',
    '\tswsusp_info.fw.fw_arch = SWSUSP_FW_ARCH;',
    '\tswsusp_info.fw.fw_page_size = PAGE_SIZE;',
    '\tswsusp_info.fw.fw_entry = swsusp_fw_arch_info[0];',
    '\tswsusp_info.fw.fw_entry_phys = swsusp_fw_arch_info[1];',
    '\tswsusp_info.fw.fw_cr3 = swsusp_fw_arch_info[2];',
    '\tswsusp_info.fw.fw_page_offset = PAGE_OFFSET;',
    '\tswsusp_info.fw.fw_nosave_begin = swsusp_fw_arch_info[3];',
    '\tswsusp_info.fw.fw_nosave_end = swsusp_fw_arch_info[4];',
    '\tdump_info();'])

r_pd = post('010', 12, 404, 436)
r_pd_a = sub(r_pd, ['\tfor (i = 0; i < num; i++)', '\t\tswap_free(swsusp_info.pagedir[i]);'],
    ['\tfor (i = 0; i < num; i++)',
     '\t\tif (swsusp_info.pagedir[i])',
     '\t\t\tswap_free(swp_entry(root_swap, swsusp_info.pagedir[i]));'])
r_pd_a = sub(r_pd_a, ['\tswsusp_info.pagedir_pages = n;'], [
    '\tif (n > SWSUSP_FW_PAGEDIR_SLOTS) {',
    '\t\tprintk(KERN_ERR "swsusp: %u pages need %d pagedir pages; "',
    '\t\t       "swsusp_info has room for %d\\n",',
    '\t\t       nr_copy_pages, n, SWSUSP_FW_PAGEDIR_SLOTS);',
    '\t\treturn -EFBIG;',
    '\t}',
    '\tswsusp_info.pagedir_pages = n;'])
r_pd_a = sub(r_pd_a, ['\tfor (i = 0; i < n && !error; i++, addr += PAGE_SIZE)',
                      '\t\terror = write_page(addr,&swsusp_info.pagedir[i]);'], [
    '\tfor (i = 0; i < n && !error; i++, addr += PAGE_SIZE) {',
    '\t\tswp_entry_t entry = { 0 };',
    '',
    '\t\terror = write_page(addr,&entry);',
    '\t\t/* format v1 keeps 32-bit swap offsets, so that 768 of them',
    '\t\t * fit in the page with the x86_64 layout too */',
    '\t\tif (!error && (u32)swp_offset(entry) != swp_offset(entry)) {',
    '\t\t\tswap_free(entry);',
    '\t\t\terror = -EFBIG;',
    '\t\t}',
    '\t\tif (!error)',
    '\t\t\tswsusp_info.pagedir[i] = swp_offset(entry);',
    '\t}'])

r_rest = post('006', 10, 921, 943)
r_rest_a = sub(r_rest, ['int swsusp_resume(void)'], [
    '/**',
    ' *\tswsusp_fw_restore - The C end of swsusp_fw_resume.',
    ' *',
    ' *\tA firmware loader has put every page of the image in place and',
    ' *\tentered swsusp_fw_resume (arch/i386/power/swsusp.S or',
    ' *\tarch/x86_64/kernel/suspend_asm.S), which restored the',
    ' *\tregisters swsusp_arch_suspend() saved and calls this on its way back',
    ' *\tinto swsusp_suspend(). .data.nosave is not in the image, and no kernel',
    ' *\tran swsusp_read() before: give its variables the values a resuming',
    ' *\tkernel would have left there (zero, as at boot, and the counts that',
    ' *\tswsusp_restore() checks), then finish as swsusp_restore() does.',
    ' *\tRuns before restore_processor_state(): no printk, no per-cpu data.',
    ' */',
    '',
    'asmlinkage int swsusp_fw_restore(void)',
    '{',
    '\tmemset(&__nosave_begin, 0, &__nosave_end - &__nosave_begin);',
    '\tnr_copy_pages = nr_copy_pages_check;',
    '\tpagedir_order = pagedir_order_check;',
    '\treturn swsusp_restore();',
    '}',
    '',
    'int swsusp_resume(void)'])

r_san = post('008', 20, 1199, 1204)
r_san_a = sub(r_san, ['\tdump_info();'], [
    '\tdump_info();',
    '\tif (swsusp_info.fw.fw_magic != SWSUSP_FW_MAGIC ||',
    '\t    swsusp_info.fw.fw_version != SWSUSP_FW_VERSION)',
    '\t\treturn "format version";',
    '\tif (swsusp_info.pagedir_pages > SWSUSP_FW_PAGEDIR_SLOTS)',
    '\t\treturn "pagedir size";'])

r_rd = post('010', 15, 1319, 1329)
r_rd_a = sub(r_rd, ['\t\tunsigned long offset = swp_offset(swsusp_info.pagedir[i]);'],
    ['\t\tunsigned long offset = swsusp_info.pagedir[i];'])

def pair(regions):
    """same filler between regions on both sides"""
    b, a = [], []
    for line, rb, ra in regions:
        n = max(0, line - 1 - len(b))
        b += [FILL] * n + rb
        a += [FILL] * n + ra
    return b + [FILL] * 5, a + [FILL] * 5
sw = pair([(108, r_sig, r_sig_a), (340, r_init, r_init_a), (400, r_pd, r_pd_a), (878, r_rest, r_rest_a),
           (1105, r_san, r_san_a), (1190, r_rd, r_rd_a)])
# ---------------------------------------------------------------- i386 swsusp.S
S = post('006', 1)
i386_entry = [
    '',
    '/*',
    ' * swsusp_fw_resume - Enter the image from a firmware loader.',
    ' *',
    ' * The loader has done what the copy loop above does (every page of the',
    ' * image is in its place) and jumps here at swsusp_info.fw.fw_entry: interrupts off,',
    ' * paging on with tables that map this page at that address, flat',
    ' * __KERNEL_CS and __KERNEL_DS. What follows is the end of',
    ' * swsusp_arch_resume, on swapper_pg_dir: swsusp_pg_dir is __nosavedata,',
    ' * so it is not in the image and no kernel filled it. swsusp_fw_restore()',
    ' * fixes up .data.nosave; the ret returns from swsusp_arch_suspend() into',
    ' * swsusp_suspend(), which restores the rest of the processor state.',
    ' */',
    'ENTRY(swsusp_fw_resume)',
    '\tmovl\t$swapper_pg_dir-__PAGE_OFFSET, %ecx',
    '\tmovl\t%ecx, %cr3',
    '',
    '\tmovl saved_context_esp, %esp',
    '\tmovl saved_context_ebp, %ebp',
    '\tmovl saved_context_ebx, %ebx',
    '\tmovl saved_context_esi, %esi',
    '\tmovl saved_context_edi, %edi',
    '',
    '\tpushl saved_context_eflags ; popfl',
    '\tcall swsusp_fw_restore',
    '\tret',
    '',
    '\t.data',
    '\t.align 8',
    '\t.globl swsusp_fw_arch_info',
    'swsusp_fw_arch_info:\t\t\t\t/* u64[5], see power.h */',
    '\t.long swsusp_fw_resume, 0\t\t\t/* fw_entry */',
    '\t.long swsusp_fw_resume - __PAGE_OFFSET, 0\t/* fw_entry_phys */',
    '\t.long swapper_pg_dir - __PAGE_OFFSET, 0\t/* fw_cr3 */',
    '\t.long __nosave_begin - __PAGE_OFFSET, 0\t/* fw_nosave_begin */',
    '\t.long __nosave_end - __PAGE_OFFSET, 0\t/* fw_nosave_end */',
]
i386 = ([FILL] * 14 + S, [FILL] * 14 + S + i386_entry)

# ---------------------------------------------------------------- x86_64 suspend_asm.S (2.6.8/2.6.9 tail)
X = ['\tmovq saved_context_r12(%rip), %r12',
     '\tmovq saved_context_r13(%rip), %r13',
     '\tmovq saved_context_r14(%rip), %r14',
     '\tmovq saved_context_r15(%rip), %r15',
     '\tpushq saved_context_eflags(%rip) ; popfq',
     '\tcall\tswsusp_restore',
     '\tret']
x64_entry = [
    '',
    '/*',
    ' * swsusp_fw_resume - Enter the image from a firmware loader.',
    ' *',
    ' * The loader has copied every page of the image to its place and jumps',
    ' * here at swsusp_info.fw.fw_entry (the __START_KERNEL_map address):',
    ' * interrupts off, long mode, paging on with tables that map this page at',
    ' * that address, flat __KERNEL_CS and __KERNEL_DS. What follows is',
    ' * swsusp_arch_resume without the copy loop, plus EFER: head.S set SCE',
    ' * (and NX) at boot and nothing restores it, the firmware did not set it.',
    ' * swsusp_fw_restore() fixes up .data.nosave; the ret returns from',
    ' * swsusp_arch_suspend() into swsusp_suspend(). Until',
    ' * restore_processor_state() there the GS base is the firmware\'s: nothing',
    ' * on this path may use the PDA.',
    ' */',
    'ENTRY(swsusp_fw_resume)',
    '\t/* set up cr3 */',
    '\tleaq\tinit_level4_pgt(%rip),%rax',
    '\tsubq\t$__START_KERNEL_map,%rax',
    '\tmovq\t%rax,%cr3',
    '',
    '\tmovl\t$0xc0000080, %ecx\t\t/* MSR_EFER */',
    '\trdmsr',
    '\tbtsl\t$0, %eax\t\t\t/* _EFER_SCE */',
    '\tbtq\t$63, __supported_pte_mask(%rip)\t/* _PAGE_NX in use? */',
    '\tjnc\t1f',
    '\tbtsl\t$11, %eax\t\t\t/* _EFER_NX */',
    '1:\twrmsr',
    '',
    '\tmovl\t$24, %eax',
    '\tmovl\t%eax, %ds',
    '',
    '\tmovq saved_context_esp(%rip), %rsp',
    '\tmovq saved_context_ebp(%rip), %rbp',
    '\tmovq saved_context_eax(%rip), %rax',
    '\tmovq saved_context_ebx(%rip), %rbx',
    '\tmovq saved_context_ecx(%rip), %rcx',
    '\tmovq saved_context_edx(%rip), %rdx',
    '\tmovq saved_context_esi(%rip), %rsi',
    '\tmovq saved_context_edi(%rip), %rdi',
    '\tmovq saved_context_r08(%rip), %r8',
    '\tmovq saved_context_r09(%rip), %r9',
    '\tmovq saved_context_r10(%rip), %r10',
    '\tmovq saved_context_r11(%rip), %r11',
    '\tmovq saved_context_r12(%rip), %r12',
    '\tmovq saved_context_r13(%rip), %r13',
    '\tmovq saved_context_r14(%rip), %r14',
    '\tmovq saved_context_r15(%rip), %r15',
    '\tpushq saved_context_eflags(%rip) ; popfq',
    '\tcall\tswsusp_fw_restore',
    '\tret',
    '',
    '\t.data',
    '\t.align 8',
    '\t.globl swsusp_fw_arch_info',
    'swsusp_fw_arch_info:\t\t\t\t/* u64[5], see power.h */',
    '\t.quad swsusp_fw_resume\t\t\t\t/* fw_entry */',
    '\t.quad swsusp_fw_resume - __START_KERNEL_map\t/* fw_entry_phys */',
    '\t.quad init_level4_pgt - __START_KERNEL_map\t/* fw_cr3 */',
    '\t.quad __nosave_begin - __START_KERNEL_map\t/* fw_nosave_begin */',
    '\t.quad __nosave_end - __START_KERNEL_map\t/* fw_nosave_end */',
]
x64 = ([FILL] * 93 + X, [FILL] * 93 + X + x64_entry)

files = [('kernel/power/power.h', ph), ('kernel/power/swsusp.c', sw),
         ('arch/i386/power/swsusp.S', i386), ('arch/x86_64/kernel/suspend_asm.S', x64)]
# the i386/x86_64 "before" files end at EOF (their hunks append at the end)
out = []
for name, (b, a) in files:
    if name.endswith('.S'):
        b = [l for l in b]; a = [l for l in a]
    d = os.path.join(WORK, 'tree')
    for side, lines in (('a', b), ('b', a)):
        p = os.path.join(d, side, name); os.makedirs(os.path.dirname(p), exist_ok=True)
        if name.endswith('.S'):
            lines = lines  # no trailing filler: append-at-EOF hunks
        open(p, 'w').write('\n'.join(lines) + '\n')
    r = subprocess.run(['diff', '-u', os.path.join(d, 'a', name), os.path.join(d, 'b', name)],
                       capture_output=True, text=True)
    body = r.stdout.split('\n')[2:]
    out.append('diff -Nru a/%s b/%s' % (name, name))
    out.append('--- a/%s\t2004-08-14 03:00:00 +0000' % name)
    out.append('+++ b/%s\t2004-08-14 03:00:00 +0000' % name)
    out.extend(l for l in body if l != '')
text = '\n'.join(out) + '\n'
assert FILL not in text, "filler leaked into a hunk"
open(os.path.join(TOP, 'kernel-patch', '0001-swsusp-firmware-resume.patch'), 'w').write(PATCH_HEADER + text)
print('wrote kernel-patch/0001-swsusp-firmware-resume.patch')
shutil.rmtree(WORK)
