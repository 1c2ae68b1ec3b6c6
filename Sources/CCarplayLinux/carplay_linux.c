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
const uint32_t carplay_epollet = EPOLLET;

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

// The control data of one received frame: its time (SO_TIMESTAMP) and the drop counter.
#define CARPLAY_CAN_CONTROL (CMSG_SPACE(sizeof(struct timeval)) + CMSG_SPACE(sizeof(uint32_t)))

int carplay_can_receive_batch(int fd, carplay_can_reception *out, int capacity) {
    if (capacity <= 0 || capacity > CARPLAY_CAN_BATCH_MAX) { errno = EINVAL; return -1; }
    struct canfd_frame frames[CARPLAY_CAN_BATCH_MAX];
    struct iovec vectors[CARPLAY_CAN_BATCH_MAX];
    char control[CARPLAY_CAN_BATCH_MAX][CARPLAY_CAN_CONTROL];
    struct mmsghdr messages[CARPLAY_CAN_BATCH_MAX];
    memset(messages, 0, sizeof(messages[0]) * (size_t)capacity);
    for (int i = 0; i < capacity; i++) {
        vectors[i].iov_base = &frames[i];
        vectors[i].iov_len = sizeof(frames[i]);
        messages[i].msg_hdr.msg_iov = &vectors[i];
        messages[i].msg_hdr.msg_iovlen = 1;
        messages[i].msg_hdr.msg_control = control[i];
        messages[i].msg_hdr.msg_controllen = sizeof(control[i]);
    }
    // One call per wake-up of the event loop, which saw the socket readable: what waits
    // now, never a wait (the loop thread serves other sockets too).
    int count = recvmmsg(fd, messages, (unsigned)capacity, MSG_DONTWAIT, NULL);
    if (count < 0) return -1;
    int kept = 0;
    for (int i = 0; i < count; i++) {
        carplay_can_reception *reception = &out[kept];
        memset(reception, 0, sizeof(*reception));
        const struct canfd_frame *in = &frames[i];
        reception->frame.can_id = in->can_id;
        if (messages[i].msg_len == CANFD_MTU) {
            reception->frame.is_fd = 1;
            reception->frame.len = in->len > 64 ? 64 : in->len;
            reception->frame.flags = in->flags;
        } else if (messages[i].msg_len == CAN_MTU) {
            reception->frame.len = in->len > 8 ? 8 : in->len;
        } else {
            continue;  // not a CAN frame: nothing the kernel's CAN_RAW sends
        }
        memcpy(reception->frame.data, in->data, reception->frame.len);
        struct msghdr *header = &messages[i].msg_hdr;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(header); c != NULL; c = CMSG_NXTHDR(header, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMP) {
                struct timeval tv;
                memcpy(&tv, CMSG_DATA(c), sizeof(tv));
                reception->seconds = tv.tv_sec;
                reception->microseconds = tv.tv_usec;
            } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
                memcpy(&reception->dropped, CMSG_DATA(c), sizeof(uint32_t));
            }
        }
        kept++;
    }
    return kept;
}

int carplay_can_get_filters(int fd, uint32_t *ids, uint32_t *masks, int capacity) {
    struct can_filter filters[capacity > 0 ? capacity : 1];
    socklen_t length = (socklen_t)(sizeof(struct can_filter) * (size_t)(capacity > 0 ? capacity : 1));
    if (getsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, filters, &length) != 0) return -1;
    int count = (int)(length / sizeof(struct can_filter));
    for (int i = 0; i < count && i < capacity; i++) { ids[i] = filters[i].can_id; masks[i] = filters[i].can_mask; }
    return count;
}

int carplay_terminal_size(int fd, int *rows, int *columns) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
    *rows = size.ws_row;
    *columns = size.ws_col;
    return 0;
}
