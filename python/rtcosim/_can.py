"""CAN logs read into NumPy (rtcosim.read_can_log) and their ISO-TP messages
(rtcosim.read_isotp): candump -l, Vector ASC, Vector BLF, PEAK TRC and ASAM
MDF 4 bus logs (CANedge, CANoe, asammdf) through librtcosim's readers, no python-can or
asammdf needed."""
import ctypes
import os

import numpy as np

from ._lib import ErrorStruct, lib


class _Record(ctypes.Structure):
    """rtcosim_can_log_record (can_log.h)."""
    _fields_ = [("time", ctypes.c_int64), ("bus", ctypes.c_uint32), ("id", ctypes.c_uint32),
                ("extended", ctypes.c_bool), ("remote", ctypes.c_bool), ("size", ctypes.c_uint8),
                ("data", ctypes.c_uint8 * 64), ("line", ctypes.c_int), ("format", ctypes.c_uint8),
                ("flags", ctypes.c_uint8)]


class _IsotpIds(ctypes.Structure):
    """rtcosim_isotp_ids (isotp.h)."""
    _fields_ = [("first", ctypes.c_uint32), ("last", ctypes.c_uint32),
                ("extended", ctypes.c_bool), ("address_byte", ctypes.c_bool)]


class _IsotpMessage(ctypes.Structure):
    """rtcosim_isotp_message (isotp.h)."""
    _fields_ = [("record", ctypes.c_size_t), ("first_record", ctypes.c_size_t),
                ("bus", ctypes.c_uint32), ("id", ctypes.c_uint32), ("extended", ctypes.c_bool),
                ("address", ctypes.c_int), ("size", ctypes.c_uint32),
                ("data", ctypes.POINTER(ctypes.c_uint8)), ("frame", ctypes.POINTER(ctypes.c_uint8)),
                ("frame_size", ctypes.c_size_t), ("time", ctypes.c_int64),
                ("first_time", ctypes.c_int64)]


class _Isotp(ctypes.Structure):
    """rtcosim_isotp (isotp.h)."""
    _fields_ = [("messages", ctypes.POINTER(_IsotpMessage)), ("count", ctypes.c_size_t),
                ("frames", ctypes.c_size_t), ("flow_control", ctypes.c_size_t),
                ("incomplete", ctypes.c_size_t), ("invalid", ctypes.c_size_t)]


_P = ctypes.c_void_p
for _name, _res, _args in (
        ("rtcosim_can_log_read", ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P),
                                                ctypes.POINTER(ErrorStruct)]),
        ("rtcosim_can_log_free", None, [_P]),
        ("rtcosim_can_log_count", ctypes.c_size_t, [_P]),
        ("rtcosim_can_log_records", ctypes.POINTER(_Record), [_P]),
        ("rtcosim_can_log_bus_count", ctypes.c_size_t, [_P]),
        ("rtcosim_can_log_bus_name", ctypes.c_char_p, [_P, ctypes.c_size_t]),
        ("rtcosim_can_log_xl_count", ctypes.c_size_t, [_P]),
        ("rtcosim_can_log_database", ctypes.c_void_p, [_P, ctypes.POINTER(ctypes.c_size_t),
                                                       ctypes.POINTER(ctypes.c_char_p)]),
        ("rtcosim_can_log_cursor_open", ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P),
                                                       ctypes.POINTER(ErrorStruct)]),
        ("rtcosim_can_log_cursor_next", ctypes.c_int, [_P, ctypes.c_void_p, ctypes.c_size_t,
                                                       ctypes.POINTER(ctypes.c_size_t),
                                                       ctypes.POINTER(ErrorStruct)]),
        ("rtcosim_can_log_cursor_bus_count", ctypes.c_size_t, [_P]),
        ("rtcosim_can_log_cursor_bus_name", ctypes.c_char_p, [_P, ctypes.c_size_t]),
        ("rtcosim_can_log_cursor_xl_count", ctypes.c_size_t, [_P]),
        ("rtcosim_can_log_cursor_database", ctypes.c_void_p, [_P, ctypes.POINTER(ctypes.c_size_t),
                                                              ctypes.POINTER(ctypes.c_char_p)]),
        ("rtcosim_can_log_cursor_close", None, [_P]),
        ("rtcosim_isotp_reassemble", ctypes.c_int, [_P, ctypes.POINTER(_IsotpIds), ctypes.c_size_t,
                                                    ctypes.POINTER(_Isotp),
                                                    ctypes.POINTER(ErrorStruct)]),
        ("rtcosim_isotp_reassemble_file", ctypes.c_int, [ctypes.c_char_p,
                                                         ctypes.POINTER(_IsotpIds),
                                                         ctypes.c_size_t, ctypes.POINTER(_Isotp),
                                                         ctypes.POINTER(_P),
                                                         ctypes.POINTER(ErrorStruct)]),
        ("rtcosim_isotp_free", None, [ctypes.POINTER(_Isotp)]),
        ("rtcosim_uds_describe", ctypes.c_char_p, [ctypes.POINTER(ctypes.c_uint8), ctypes.c_size_t,
                                                   ctypes.c_char_p, ctypes.c_size_t])):
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args

_FD, _BRS, _ESI = 1, 1, 2  # RTCOSIM_CAN_FORMAT_FD; RTCOSIM_CAN_FD_BRS, _ESI (can.h)

FRAME = np.dtype([("time", np.float64), ("bus", np.uint32), ("id", np.uint32),
                  ("extended", np.bool_), ("remote", np.bool_), ("fd", np.bool_), ("brs", np.bool_),
                  ("esi", np.bool_), ("dlc", np.uint8), ("data", np.uint8, (64,))])


class CanLog(np.ndarray):
    """A CAN log's frames in time order: a NumPy structured array with fields
    time (s, as the log counts them), bus (index into .buses), id,
    extended, remote, fd, brs, esi, dlc (data bytes: 0 to 64) and data (64
    bytes, those past dlc zero). Attributes: buses (names: 'can0', ...),
    path, xl_frames (CAN XL frames the log holds, left out), database and
    database_name (the DBC text an MDF bus log carries attached, else None)."""

    def __array_finalize__(self, obj):
        for name in ("buses", "path", "xl_frames", "database", "database_name"):
            setattr(self, name, getattr(obj, name, None))

    def bus_frames(self, bus):
        """The frames of one bus, by name."""
        if bus not in self.buses:
            raise KeyError(f"{self.path}: no bus {bus!r} (buses: {', '.join(self.buses)})")
        return self[self["bus"] == self.buses.index(bus)]


def _open(path):
    err, log = ErrorStruct(), _P()
    err.check(lib.rtcosim_can_log_read(os.fsencode(path), ctypes.byref(log),
                                       ctypes.byref(err)))
    return log


# the library's records read in place (their fields are copied out)
_RECORD = np.dtype({"names": [f[0] for f in _Record._fields_],
                    "formats": ["<i8", "<u4", "<u4", "?", "?", "u1", ("u1", (64,)), "<i4", "u1",
                                "u1"],
                    "offsets": [getattr(_Record, f[0]).offset for f in _Record._fields_],
                    "itemsize": ctypes.sizeof(_Record)})
_BATCH = 65536  # frames per call into the library (6 MB of records)


class _Cursor:
    """A log pulled from the library in batches (rtcosim_can_log_cursor_*):
    the reader runs on a thread of its own, so memory stays the batch's."""

    def __init__(self, path):
        self.path = os.fsdecode(os.fspath(path))
        err, self.handle = ErrorStruct(), _P()
        err.check(lib.rtcosim_can_log_cursor_open(os.fsencode(self.path), ctypes.byref(self.handle),
                                                  ctypes.byref(err)))
        self.records = np.zeros(_BATCH, dtype=_RECORD)

    def close(self):
        if self.handle:
            lib.rtcosim_can_log_cursor_close(self.handle)
            self.handle = None

    def fill(self, out, start, stop):
        """Frames into out[start:stop] (FRAME); returns how many (fewer: the end)."""
        k = start
        while k < stop:
            err, n = ErrorStruct(), ctypes.c_size_t()
            err.check(lib.rtcosim_can_log_cursor_next(self.handle, self.records.ctypes.data,
                                                      min(stop - k, _BATCH), ctypes.byref(n),
                                                      ctypes.byref(err)))
            if n.value == 0:
                break
            rec, dst = self.records[:n.value], out[k:k + n.value]
            dst["time"] = rec["time"] / 1e9
            for name in ("bus", "id", "extended", "remote"):
                dst[name] = rec[name]
            dst["fd"] = rec["format"] == _FD
            dst["brs"] = (rec["flags"] & _BRS) != 0
            dst["esi"] = (rec["flags"] & _ESI) != 0
            dst["dlc"] = rec["size"]
            dst["data"] = rec["data"]  # (zero past the size: the cursor clears them)
            k += n.value
        return k - start

    def finish(self, log):
        """The log's facts so far onto a CanLog."""
        log.buses = [lib.rtcosim_can_log_cursor_bus_name(self.handle, i).decode()
                     for i in range(lib.rtcosim_can_log_cursor_bus_count(self.handle))]
        log.path = self.path
        log.xl_frames = lib.rtcosim_can_log_cursor_xl_count(self.handle)
        size, name = ctypes.c_size_t(), ctypes.c_char_p()
        text = lib.rtcosim_can_log_cursor_database(self.handle, ctypes.byref(size),
                                                   ctypes.byref(name))
        log.database = ctypes.string_at(text, size.value).decode("utf-8", "replace") if text else None
        log.database_name = name.value.decode("utf-8", "replace") if text and name.value else None
        return log


def read_can_log(path):
    """Read a CAN log (candump -l, Vector ASC or BLF, PEAK TRC, an ASAM MDF 4 bus log)
    into a CanLog. Errors (a missing or malformed file) raise rtcosim.Error
    naming the file (and line or byte offset). The log is read in batches
    into an array that grows in place: memory is about the CanLog's own (86
    bytes a frame); iter_can_log takes a log of any length a chunk at a
    time."""
    cursor = _Cursor(path)
    try:
        out = np.zeros(_BATCH, dtype=FRAME)
        n = 0
        while True:
            got = cursor.fill(out, n, len(out))
            n += got
            if n < len(out):
                break
            # (grown in place: realloc moves the pages of a large array, it
            # does not copy them)
            out.resize(len(out) + len(out) // 2 + _BATCH, refcheck=False)
        out.resize(n, refcheck=False)
        return cursor.finish(out.view(CanLog))
    finally:
        cursor.close()


def iter_can_log(path, frames=1_000_000):
    """The frames of a CAN log (as read_can_log reads it) in chunks: CanLogs
    of `frames` frames each (the last one fewer), for logs longer than
    memory. A chunk's buses are the log's so far (bus indexes stay the same
    from chunk to chunk), its xl_frames the CAN XL frames read so far, its
    database the log's. A malformed log raises rtcosim.Error naming the
    file and line after the chunks before the error; leaving the loop early
    stops the reading."""
    if int(frames) < 1:
        raise ValueError(f"iter_can_log: frames={frames!r}: at least 1 frame a chunk")
    frames = int(frames)
    cursor = _Cursor(path)
    try:
        while True:
            out = np.zeros(frames, dtype=FRAME)
            n = cursor.fill(out, 0, frames)
            if n == 0:
                return
            if n < frames:
                out = out[:n].copy()
            yield cursor.finish(out.view(CanLog))
            if n < frames:
                return
    finally:
        cursor.close()


def _id_ranges(ids):
    """ids: an int, a (first, last) pair or a list of them; ints over 0x7FF are 29-bit."""
    if ids is None:  # the library's own table of the OBD ids
        return [(e.first, e.last) for e in (_IsotpIds * 4).in_dll(lib, "rtcosim_isotp_obd_ids")]
    if isinstance(ids, (int, np.integer)) or (isinstance(ids, tuple) and len(ids) == 2
                                               and all(isinstance(v, (int, np.integer)) for v in ids)):
        ids = [ids]
    out = []
    for item in ids:
        first, last = (item, item) if isinstance(item, (int, np.integer)) else item
        if not 0 <= first <= last <= 0x1FFFFFFF or (first <= 0x7FF < last):
            raise ValueError(f"read_isotp: ids {item!r}: a CAN id or a (first, last) range of one "
                             "kind (11-bit up to 0x7FF, or 29-bit)")
        out.append((int(first), int(last)))
    return out


def read_isotp(path, ids=None, extended_addressing=False):
    """The ISO-TP (ISO 15765-2: UDS, OBD) messages of a CAN log, reassembled as
    `rtcosim can isotp` does. ids: an id, a (first, last) range or a list of
    them (default: the OBD ids 0x7DF, 0x7E0-0x7EF and 29-bit
    0x18DA0000-0x18DBFFFF); ids over 0x7FF are 29-bit. extended_addressing: an
    address byte before each frame's PCI. Returns a list of dicts: time (s,
    of the completing frame), first_time (of the First Frame), bus (name),
    id, address (None without), data (bytes: the payload, the UDS service id
    first) and service (the message in words, as the trace prints it); and
    the counts of the log's transfers in a second value: frames,
    flow_control, incomplete, invalid."""
    ranges = _id_ranges(ids)
    spec = (_IsotpIds * len(ranges))(*[_IsotpIds(a, b, b > 0x7FF, bool(extended_addressing))
                                      for a, b in ranges])
    tp, err, log = _Isotp(), ErrorStruct(), _P()
    try:
        # (the log read a frame at a time: what is kept is the messages)
        err.check(lib.rtcosim_isotp_reassemble_file(os.fsencode(path), spec, len(ranges),
                                                    ctypes.byref(tp), ctypes.byref(log),
                                                    ctypes.byref(err)))
        buses = [lib.rtcosim_can_log_bus_name(log, i).decode()
                 for i in range(lib.rtcosim_can_log_bus_count(log))]
        words = ctypes.create_string_buffer(256)
        messages = []
        for k in range(tp.count):
            m = tp.messages[k]
            data = ctypes.string_at(m.data, m.size)
            lib.rtcosim_uds_describe(m.data, m.size, words, len(words))
            messages.append({"time": m.time / 1e9,
                             "first_time": m.first_time / 1e9,
                             "bus": buses[m.bus], "id": m.id,
                             "address": None if m.address < 0 else m.address, "data": data,
                             "service": words.value.decode("utf-8", "replace")})
        counts = {"frames": tp.frames, "flow_control": tp.flow_control,
                  "incomplete": tp.incomplete, "invalid": tp.invalid}
        return messages, counts
    finally:
        lib.rtcosim_isotp_free(ctypes.byref(tp))
        lib.rtcosim_can_log_free(log)
