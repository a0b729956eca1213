#ifndef SWITCHBOARD_CLINUX_H
#define SWITCHBOARD_CLINUX_H
// Linux APIs Glibc's Swift module does not export, plus wrappers for macros and variadic calls.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <errno.h>
#include <unistd.h>
#include <signal.h>
#include <pthread.h>

static inline int clinux_errno(void) { return errno; }

// accept4 is only declared with _GNU_SOURCE, which must not leak into Swift's Glibc module.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
static inline int clinux_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }

// pthread_setname_np is only declared with _GNU_SOURCE too. Linux keeps 15 bytes of the name.
extern int pthread_setname_np(pthread_t thread, const char *name);
static inline int clinux_set_thread_name(pthread_t thread, const char *name) { return pthread_setname_np(thread, name); }

// fcntl is variadic, which Swift cannot call directly.
static inline int clinux_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

static inline int clinux_setsockopt_int(int fd, int level, int name, int value) {
    return setsockopt(fd, level, name, &value, sizeof(value));
}

// epoll_event is packed on x86_64; building it in C avoids layout surprises in Swift.
static inline int clinux_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &ev);
}
static inline uint32_t clinux_epoll_event_events(const struct epoll_event *events, int i) { return events[i].events; }
static inline uint64_t clinux_epoll_event_data(const struct epoll_event *events, int i) { return events[i].data.u64; }
static inline size_t clinux_epoll_event_size(void) { return sizeof(struct epoll_event); }

static const uint32_t CLINUX_EPOLLIN = EPOLLIN;
static const uint32_t CLINUX_EPOLLOUT = EPOLLOUT;
static const uint32_t CLINUX_EPOLLERR = EPOLLERR;
static const uint32_t CLINUX_EPOLLHUP = EPOLLHUP;
static const uint32_t CLINUX_EPOLLRDHUP = EPOLLRDHUP;
static const uint32_t CLINUX_EPOLLET = EPOLLET;

#endif
