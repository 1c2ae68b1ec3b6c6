#define _GNU_SOURCE
#include "carplay_linux.h"

#include <errno.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/can.h>
#include <linux/can/raw.h>
#include <linux/can/error.h>

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

int carplay_name_thread(const char *name) {
    char short_name[16];
    strncpy(short_name, name, sizeof short_name - 1);
    short_name[sizeof short_name - 1] = '\0';
    return pthread_setname_np(pthread_self(), short_name);
}

int carplay_accept(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }

// ---- SocketCAN ----

_Static_assert(sizeof(struct can_frame) == 16, "struct can_frame layout");
_Static_assert(sizeof(struct canfd_frame) == 72, "struct canfd_frame layout");
_Static_assert(CAN_MTU == 16 && CANFD_MTU == 72, "CAN MTUs");

const uint32_t carplay_can_eff_flag = CAN_EFF_FLAG;
const uint32_t carplay_can_rtr_flag = CAN_RTR_FLAG;
const uint32_t carplay_can_err_flag = CAN_ERR_FLAG;

int carplay_interface_index(const char *ifname) { return (int)if_nametoindex(ifname); }

int carplay_can_open(const char *ifname, int fd_frames) {
    int fd = socket(PF_CAN, SOCK_RAW | SOCK_CLOEXEC, CAN_RAW);
    if (fd < 0) return -1;
    struct sockaddr_can address;
    memset(&address, 0, sizeof(address));
    address.can_family = AF_CAN;
    address.can_ifindex = (int)if_nametoindex(ifname);
    if (address.can_ifindex == 0) { errno = ENODEV; close(fd); return -1; }
    int on = 1;
    if (fd_frames && setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FD_FRAMES, &on, sizeof(on)) != 0) { int e = errno; close(fd); errno = e; return -1; }
    can_err_mask_t errors = CAN_ERR_MASK;
    setsockopt(fd, SOL_CAN_RAW, CAN_RAW_ERR_FILTER, &errors, sizeof(errors));
    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof(on));
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &on, sizeof(on));
    if (bind(fd, (struct sockaddr *)&address, sizeof(address)) != 0) { int e = errno; close(fd); errno = e; return -1; }
    return fd;
}

int carplay_can_set_filters(int fd, const uint32_t *ids, const uint32_t *masks, int count) {
    if (count <= 0) return setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, NULL, 0);
    struct can_filter filters[count];
    for (int i = 0; i < count; i++) { filters[i].can_id = ids[i]; filters[i].can_mask = masks[i]; }
    return setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, filters, sizeof(struct can_filter) * (size_t)count);
}

int carplay_can_send(int fd, const carplay_can_frame *frame) {
    if (frame->is_fd) {
        struct canfd_frame out;
        memset(&out, 0, sizeof(out));
        out.can_id = frame->can_id;
        out.len = frame->len;
        out.flags = frame->flags;
        memcpy(out.data, frame->data, frame->len);
        return (int)write(fd, &out, CANFD_MTU);
    }
    struct can_frame out;
    memset(&out, 0, sizeof(out));
    out.can_id = frame->can_id;
    out.can_dlc = frame->len;
    memcpy(out.data, frame->data, frame->len > 8 ? 8 : frame->len);
    return (int)write(fd, &out, CAN_MTU);
}

int carplay_can_receive(int fd, carplay_can_frame *frame, int64_t *seconds, int64_t *microseconds, uint32_t *dropped) {
    struct canfd_frame in;
    struct iovec iov = {.iov_base = &in, .iov_len = sizeof(in)};
    char control[CMSG_SPACE(sizeof(struct timeval)) + CMSG_SPACE(sizeof(uint32_t))];
    struct msghdr message;
    memset(&message, 0, sizeof(message));
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    // Never blocks: the reader polled first, but a send on the same socket may have taken
    // the pending error (ENETDOWN) that woke the poll, and a blocking read would then wait
    // for a frame that, with the link down and our sends failing, never comes.
    ssize_t count = recvmsg(fd, &message, MSG_DONTWAIT);
    if (count < 0) return -1;
    memset(frame, 0, sizeof(*frame));
    frame->can_id = in.can_id;
    if (count == CANFD_MTU) {
        frame->is_fd = 1;
        frame->len = in.len > 64 ? 64 : in.len;
        frame->flags = in.flags;
    } else if (count == CAN_MTU) {
        frame->len = in.len > 8 ? 8 : in.len;
    } else {
        errno = EPROTO;
        return -1;
    }
    memcpy(frame->data, in.data, frame->len);
    *seconds = 0;
    *microseconds = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c != NULL; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMP) {
            struct timeval tv;
            memcpy(&tv, CMSG_DATA(c), sizeof(tv));
            *seconds = tv.tv_sec;
            *microseconds = tv.tv_usec;
        } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
            memcpy(dropped, CMSG_DATA(c), sizeof(uint32_t));
        }
    }
    return 0;
}

int carplay_wait_readable(int fd, int wake_fd, int timeout_ms) {
    struct pollfd fds[2] = {{.fd = fd, .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
    int result = poll(fds, wake_fd >= 0 ? 2 : 1, timeout_ms);
    if (result <= 0) return result;
    if (wake_fd >= 0 && (fds[1].revents & POLLIN)) return 2;
    return 1;
}

int carplay_terminal_size(int fd, int *rows, int *columns) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
    *rows = size.ws_row;
    *columns = size.ws_col;
    return 0;
}
