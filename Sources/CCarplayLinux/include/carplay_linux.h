#ifndef CARPLAY_LINUX_H
#define CARPLAY_LINUX_H
// The few Linux interfaces Swift cannot import directly (packed structs, GNU-only
// structs, macros). Each function is a thin wrapper; errors are -1 with errno set.

#include <stdint.h>
#include <sys/types.h>

/// SO_PEERCRED of a connected AF_UNIX socket.
int carplay_peer_credentials(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid);

/// epoll without the packed `struct epoll_event` crossing into Swift.
int carplay_epoll_create(void);
int carplay_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token);
/// Waits for events; fills `events[i]` and `tokens[i]`; returns the count.
int carplay_epoll_wait(int epfd, uint32_t *events, uint64_t *tokens, int capacity, int timeout_ms);

enum {
    CARPLAY_EPOLL_ADD = 1,
    CARPLAY_EPOLL_DEL = 2,
    CARPLAY_EPOLL_MOD = 3,
};

extern const uint32_t carplay_epollin;
extern const uint32_t carplay_epollout;
extern const uint32_t carplay_epollerr;
extern const uint32_t carplay_epollhup;
extern const uint32_t carplay_epollrdhup;

/// accept4 with SOCK_CLOEXEC | SOCK_NONBLOCK (GNU-only in glibc's headers).
int carplay_accept(int fd);

/// An eventfd for waking an epoll loop.
int carplay_eventfd(void);

#endif
