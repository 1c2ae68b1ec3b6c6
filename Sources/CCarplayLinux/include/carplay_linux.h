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
extern const uint32_t carplay_epollet;

/// accept4 with SOCK_CLOEXEC | SOCK_NONBLOCK (GNU-only in glibc's headers).
int carplay_accept(int fd);

/// An eventfd for waking an epoll loop.
int carplay_eventfd(void);

/// Names the calling thread (pthread_setname_np is GNU-only in glibc's headers); the
/// kernel keeps 15 bytes. Returns 0 or an error number.
int carplay_name_thread(const char *name);


// ---- SocketCAN (CAN_RAW) ----

/// A received or outgoing frame, flattened (struct can_frame / canfd_frame).
typedef struct {
    uint32_t can_id;      ///< with CAN_EFF_FLAG / CAN_RTR_FLAG / CAN_ERR_FLAG as the kernel sets them
    uint8_t len;          ///< payload length
    uint8_t flags;        ///< CAN FD flags (CANFD_BRS 0x01, CANFD_ESI 0x02)
    uint8_t is_fd;        ///< 1 for a CAN FD frame
    uint8_t data[64];
} carplay_can_frame;

/// Opens a CAN_RAW socket bound to `ifname`: CAN FD frames on when `fd_frames`, every
/// error class reported, SO_RXQ_OVFL and SO_TIMESTAMP on. Returns the fd or -1 (errno).
int carplay_can_open(const char *ifname, int fd_frames);
/// Kernel receive filters: frames whose (id & mask) == (filter id & mask) pass.
int carplay_can_set_filters(int fd, const uint32_t *ids, const uint32_t *masks, int count);
/// Writes one frame (classic or FD). Returns bytes written or -1 (errno).
int carplay_can_send(int fd, const carplay_can_frame *frame);
/// A received frame with the kernel's receive time and the socket's dropped-frame
/// counter (SO_RXQ_OVFL).
typedef struct {
    carplay_can_frame frame;
    int64_t seconds;
    int64_t microseconds;
    uint32_t dropped;
} carplay_can_reception;

enum { CARPLAY_CAN_BATCH_MAX = 64 };

/// Takes up to `capacity` (<= CARPLAY_CAN_BATCH_MAX) frames already waiting, in one
/// recvmmsg that never blocks (-1, errno EAGAIN: none). Returns the count, or -1 (errno).
int carplay_can_receive_batch(int fd, carplay_can_reception *out, int capacity);
/// The socket's kernel receive filters (CAN_RAW_FILTER): fills up to `capacity`, returns
/// how many are installed, or -1 (errno).
int carplay_can_get_filters(int fd, uint32_t *ids, uint32_t *masks, int capacity);
/// The interface index, or 0 when there is no such interface.
int carplay_interface_index(const char *ifname);

// ---- Terminals ----

/// The window size of the terminal on `fd` (TIOCGWINSZ: ioctl is variadic, which Swift
/// cannot call). Returns 0, or -1 (errno).
int carplay_terminal_size(int fd, int *rows, int *columns);

extern const uint32_t carplay_can_eff_flag;
extern const uint32_t carplay_can_rtr_flag;
extern const uint32_t carplay_can_err_flag;

#endif
