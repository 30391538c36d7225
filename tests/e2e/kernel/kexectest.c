// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test tool for kernel-patch/6.12 (tests/e2e/kernel-lockdown.sh kexec): a static
 * program in the guest's initramfs that asks the kernel to load a kexec image,
 *   kexectest BZIMAGE          kexec_file_load(BZIMAGE, no initramfs, "console=ttyS0")
 *   kexectest --no-call BZIMAGE   the control: opens BZIMAGE, calls nothing
 * The patched kernel wipes its hibernation key on the call, whatever its outcome.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/kexec.h>

int main(int argc, char **argv)
{
	static const char cmdline[] = "console=ttyS0";
	int nocall = argc == 3 && !strcmp(argv[1], "--no-call");
	const char *path = argv[argc - 1];
	long r;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: kexectest [--no-call] BZIMAGE\n");
		return 2;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("KTEST: kexec: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (nocall) {
		printf("KTEST: kexec: not called (control)\n");
		return 0;
	}
	/* cmdline_len counts the terminating NUL */
	r = syscall(SYS_kexec_file_load, fd, -1, sizeof(cmdline), cmdline,
		    (unsigned long)KEXEC_FILE_NO_INITRAMFS);
	printf("KTEST: kexec_file_load: %ld (%s)\n", r, r ? strerror(errno) : "loaded");
	return 0;
}
