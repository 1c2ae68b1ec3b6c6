#ifndef CARPLAYD_CSYSTEMD_SHIM_H
#define CARPLAYD_CSYSTEMD_SHIM_H
// libsystemd: sd_notify, sd_listen_fds, sd_journal_send; sd-login (a process's session,
// a seat's active session) and sd-bus (logind's session properties).
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-login.h>
#endif
