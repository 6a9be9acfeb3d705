/* fdio.h — whole reads and writes on file descriptors, retrying what the
 * kernel cuts short (EINTR, partial counts; EAGAIN on a non-blocking fd waits
 * for it with poll), closing an fd field, and the monotonic clock I/O
 * deadlines are measured with. Errors: -1 with errno set; a read past the end
 * is -1 with errno 0. No allocation. */
#ifndef AOTIDBG_FDIO_H
#define AOTIDBG_FDIO_H
#include <stddef.h>
#include <stdint.h>

int fd_write_all(int fd, const void *buf, size_t n);
int fd_read_at(int fd, void *buf, size_t n, uint64_t off);
/* Closes *fd when open and sets it to -1. */
void fd_close(int *fd);
/* Seconds on CLOCK_MONOTONIC. */
double mono_now_s(void);

#endif
