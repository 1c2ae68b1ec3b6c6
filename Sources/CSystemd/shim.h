#ifndef CARPLAYD_CSYSTEMD_SHIM_H
#define CARPLAYD_CSYSTEMD_SHIM_H
// libsystemd: sd_notify, sd_listen_fds, sd_journal_send.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#endif
