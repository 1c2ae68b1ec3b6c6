#ifndef CARPLAYD_CSOCKETCAN_SHIM_H
#define CARPLAYD_CSOCKETCAN_SHIM_H
// libsocketcan: interface facts (state, bitrate, restart-ms, error counters).
#include <libsocketcan.h>
#endif
