// SPDX-License-Identifier: GPL-2.0-or-later
/* swtpm's TCP command channel (`swtpm socket --server type=tcp`, tests/lib/swtpm.sh's
 * swtpm_tcp_start) for the host programs that drive a TPM directly: one connection per
 * command, TPM_SEND_COMMAND at locality 0, the response, swtpm's 4-byte ack, then
 * TPM_SESSION_END. Header only (static), included by tests/unit/test_tpm_swtpm.c,
 * tests/unit/test_tpm_unseal_swtpm.c and tests/host/hibkey_tpm_driver.c. */
#ifndef EFIRESUME_TESTS_SWTPM_WIRE_H
#define EFIRESUME_TESTS_SWTPM_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

static bool swtpm_io_all(int fd, void *p, size_t n, bool write_it)
{
	uint8_t *b = p;
	while (n) {
		ssize_t k = write_it ? write(fd, b, n) : read(fd, b, n);
		if (k <= 0)
			return false;
		b += k;
		n -= (size_t)k;
	}
	return true;
}

/* One command to the swtpm on 127.0.0.1:port. false: no connection, a short read or write,
 * or a response larger than cap; else the response in rsp[0..*rsp_len) and swtpm's ack
 * (0: the command was passed to the TPM) in *ack. */
static bool swtpm_transact(int port, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
			   size_t *rsp_len, uint32_t *ack)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	uint8_t hdr[9] = { 0, 0, 0, 8,                          /* TPM_SEND_COMMAND */
			   0,                                   /* locality */
			   (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len };
	uint32_t n, end = htonl(20);                            /* TPM_SESSION_END */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	if (fd < 0)
		return false;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && swtpm_io_all(fd, hdr, 9, true) &&
	     swtpm_io_all(fd, (void *)cmd, len, true) && swtpm_io_all(fd, &n, 4, false);
	n = ok ? ntohl(n) : 0;
	ok = ok && n <= cap && swtpm_io_all(fd, rsp, n, false) && swtpm_io_all(fd, ack, 4, false);
	if (ok) {
		*ack = ntohl(*ack);
		*rsp_len = n;
		ok = swtpm_io_all(fd, &end, 4, true);
	}
	close(fd);
	return ok;
}

#endif
