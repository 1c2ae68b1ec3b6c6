#ifndef CARPLAYD_CSYSTEMD_SHIM_H
#define CARPLAYD_CSYSTEMD_SHIM_H
// libsystemd: sd_notify, sd_listen_fds, sd_journal_send; sd-login (a process's session,
// a seat's active session), sd-bus (logind's session properties), sd-id128 (an
// app-specific machine ID).
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-login.h>
#endif
