#define _GNU_SOURCE
#include "carplay_linux.h"

#include <errno.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

// The kernel ABI these wrappers rely on.
_Static_assert(sizeof(struct ucred) == 12, "struct ucred layout");
_Static_assert(sizeof(((struct epoll_event *)0)->data.u64) == 8, "epoll_data u64");
_Static_assert(EPOLL_CTL_ADD == CARPLAY_EPOLL_ADD && EPOLL_CTL_DEL == CARPLAY_EPOLL_DEL && EPOLL_CTL_MOD == CARPLAY_EPOLL_MOD, "epoll ops");

const uint32_t carplay_epollin = EPOLLIN;
const uint32_t carplay_epollout = EPOLLOUT;
const uint32_t carplay_epollerr = EPOLLERR;
const uint32_t carplay_epollhup = EPOLLHUP;
const uint32_t carplay_epollrdhup = EPOLLRDHUP;

int carplay_peer_credentials(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int carplay_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int carplay_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = {.events = events, .data.u64 = token};
    return epoll_ctl(epfd, op, fd, &event);
}

int carplay_epoll_wait(int epfd, uint32_t *events, uint64_t *tokens, int capacity, int timeout_ms) {
    struct epoll_event buffer[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epfd, buffer, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        events[i] = buffer[i].events;
        tokens[i] = buffer[i].data.u64;
    }
    return count;
}

int carplay_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

int carplay_accept(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }
