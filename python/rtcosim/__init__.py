"""rtcosim for Python: FMUs and SSP systems simulated by librtcosim.

A thin ctypes layer over the shared library (nothing compiled, only NumPy
besides the standard library). Keyword names follow FMPy's simulate_fmu where
the concepts match, so that scripts switch easily::

    import rtcosim
    result = rtcosim.simulate("BouncingBall.fmu", stop_time=3, output_interval=0.01)
    result["time"], result["h"]                      # a NumPy structured array

    system = rtcosim.System("oscillator.ssd")
    result = system.run(step_size=1e-3, coupling="foh", correction="energy")
    result, stats = system.run_real_time(rt_factor=10)

    rtcosim.write_result(result, "run.mat")          # or .csv: the CLI's files
    rtcosim.plot_result(result, names=["h"], filename="h.png")

Errors raise rtcosim.Error with the library's one-line message; unknown
keywords a TypeError naming them (with the closest accepted one).
"""
import contextlib
import ctypes
import decimal
import logging
import math
import numbers
import os
import re
import threading
import warnings

import numpy as np

from ._lib import (LOG_HANDLER, PROGRESS, STEP_FINISHED, Error, ErrorStruct, FmuOptions,
                   SimulateOptions, TIME_LIMIT_S, Value, lib)
from ._lib import strings as _strings
from ._keywords import checked_keywords as _checked_keywords
from ._results import (Comparison, Result, compare_results, plot_result, read_result,
                       write_result)
from ._results import blocks_from_end as _blocks_from_end
from ._can import CanLog, iter_can_log, read_can_log, read_isotp

__all__ = ["Error", "simulate", "simulate_fmu", "info", "System", "example_fmu", "Result",
           "read_result", "read_can_log", "iter_can_log", "read_isotp", "CanLog",
           "plot_result", "write_result", "compare_results", "Comparison"]
__version__ = "0.1.0"

# rtcosim_type (component.h) -> NumPy type and the rtcosim_value member holding it.
_TYPES = {0: (np.float64, "f64"), 1: (np.float32, "f32"), 2: (np.int8, "i64"),
          3: (np.uint8, "u64"), 4: (np.int16, "i64"), 5: (np.uint16, "u64"),
          6: (np.int32, "i64"), 7: (np.uint32, "u64"), 8: (np.int64, "i64"),
          9: (np.uint64, "u64"), 10: (np.bool_, "b"), 13: (np.bool_, "b")}
_STRING = 11
_BINARY = 12
_VALUE = np.dtype({"names": ["f64", "f32", "i64", "u64", "b"],
                   "formats": ["<f8", "<f4", "<i8", "<u8", "?"],
                   "offsets": [0, 0, 0, 0, 0], "itemsize": ctypes.sizeof(Value)})


# Statistics that are flags; those ending in a unit (_s, _us) or a share are
# numbers; the others are counts.
_BOOL_STATS = {"failed", "fifo_applied", "memory_locked", "affinity_applied", "partner_isolated",
               "partner_lost", "terminated_by_component", "dma_latency_held"}
# Keys of earlier versions (seconds, documented as drift, end_time, wall_time,
# ...): still answered, with a DeprecationWarning naming the new key.
_RENAMED_STATS = {"drift": ("drift_us", 1e-6), "slip": ("slip_us", 1e-6),
                  "calibration_worst": ("calibration_worst_us", 1e-6),
                  "calibration_median": ("calibration_median_us", 1e-6),
                  "max_lag": ("max_lag_s", 1.0), "partner_lost_at": ("partner_lost_at_s", 1.0),
                  "end_time": ("end_time_s", 1.0), "wall_time": ("wall_time_s", 1.0)}


class Statistics(dict):
    """A run's statistics; a time figure's key ends in its unit, as in the
    real-time report's summary.csv (drift_us, slip_us, max_lag_s,
    end_time_s, wall_time_s). The keys of earlier versions (drift, ... in
    seconds) still answer, in seconds, with a DeprecationWarning."""

    def __missing__(self, key):
        if key in _RENAMED_STATS and _RENAMED_STATS[key][0] in self:
            new, scale = _RENAMED_STATS[key]
            warnings.warn(f"statistics['{key}'] is deprecated: use '{new}' "
                          f"({'microseconds' if new.endswith('_us') else 'seconds'})",
                          DeprecationWarning, stacklevel=2)
            return self[new] * scale
        raise KeyError(key)

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default


# The library's log (its warnings, the FMUs' own messages) goes to the Python
# logger "rtcosim"; a run given logger= (or debug_logging=True) sends it there
# instead for its duration.
_LEVELS = ["error", "warning", "info", "debug", "trace"]
_PY_LEVELS = [logging.ERROR, logging.WARNING, logging.INFO, logging.DEBUG, logging.DEBUG]
_log = logging.getLogger("rtcosim")
# Per thread (the thread the library logs from: a run's own), `log`: the
# run's sink, logger(level, category, message) or None for the Python logger,
# and the highest level it shows; runs on several Python threads at once each
# get their own messages, and one that raised the library's level for its FMI
# call lines does not hand debug lines to the others.
_local = threading.local()
_level_lock = threading.Lock()
_level_users = [0, None]  # runs that raised the level, the level before them


def _to_python_logger(level, category, text):
    _log.log(_PY_LEVELS[_LEVELS.index(level)], "%s: %s" % (category, text) if category else text)


def _on_log(_context, level, category, message):
    try:
        level = min(max(level, 0), 4)
        sink, shown = getattr(_local, "log", None) or (None, None)
        if shown is not None and level > shown:
            return  # raised for another run's FMI call lines
        text = message.decode(errors="replace")
        cat = category.decode(errors="replace") if category else ""
        (sink or _to_python_logger)(_LEVELS[level], cat, text)
    except Exception:  # noqa: BLE001 - a logger never stops a run
        pass


# An FMI call as the library logs it (debug, category "fmi"):
# "instance: fmi2DoStep(...) -> OK"; FMPy's fmi_call_logger gets the call.
_FMI_CALL = re.compile(r"^.*?: ((?:\w+_)?fmi\w*\(.*\) -> \S+)$", re.S)


def _with_call_logger(sink, fmi_call_logger, shown_level):
    """A log sink that hands FMI call lines to fmi_call_logger(line) and
    passes the rest on to sink (None: the Python logger) when their level
    was shown before the run raised it to debug."""
    sink = sink or _to_python_logger

    def route(level, category, text):
        if level == "debug" and category == "fmi":
            m = _FMI_CALL.match(text)
            if m:
                fmi_call_logger(m.group(1))
                return
        if _LEVELS.index(level) <= shown_level:
            sink(level, category, text)
    return route


def _base_level():
    """The library's level as set before any run raised it."""
    with _level_lock:
        return _level_users[1] if _level_users[0] else lib.rtcosim_log_get_level()


@contextlib.contextmanager
def _log_level(level):
    """The library's level raised to `level` while a run needs it (runs at
    once share it, and the last one to end puts back the level from before
    the first); yields that level."""
    with _level_lock:
        if _level_users[0] == 0:
            _level_users[1] = lib.rtcosim_log_get_level()
        _level_users[0] += 1
        previous = _level_users[1]
        lib.rtcosim_log_set_level(max(level, previous))
    try:
        yield previous
    finally:
        with _level_lock:
            _level_users[0] -= 1
            if _level_users[0] == 0:
                lib.rtcosim_log_set_level(_level_users[1])


_LOG_HANDLER = LOG_HANDLER(_on_log)
lib.rtcosim_log_set_handler(_LOG_HANDLER, None)


def _print_log(level, category, message):
    print(f"[{level}] {category}: {message}" if category else f"[{level}] {message}")


@contextlib.contextmanager
def _log_sink(fn, shown=None):
    """This thread's messages (and those of the run _run_interruptibly starts
    from it) to fn, up to level `shown` (default: the level before any run
    raised it)."""
    previous = getattr(_local, "log", None)
    _local.log = (fn, _base_level() if shown is None else shown)
    try:
        yield
    finally:
        _local.log = previous


def _seconds_value(value, what):
    """value (a number, or its text: str or bytes) as (float, the text the
    library parses); each problem named by the Python keyword."""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("ascii", errors="replace")
    if isinstance(value, str):
        try:
            x = float(value)
        except ValueError:
            raise Error("EINVAL", f"{what}: {value!r} is not a number of seconds") from None
        text = value.strip().encode()  # the exact decimal as given
    else:
        try:
            x = float(value)
        except (TypeError, ValueError):
            raise Error("EINVAL", f"{what}: {value!r} is not a number of seconds") from None
        text = repr(x).encode()
    if not math.isfinite(x):
        raise Error("EINVAL", f"{what}: {value!r} is not a finite number of seconds")
    if abs(x) > TIME_LIMIT_S:
        raise Error("EINVAL", f"{what}: {value!r} s is beyond the time range of about 292 years")
    return x, text


def _seconds(value, what):
    """Seconds as the exact decimal text the library parses (None stays None)."""
    if value is None:
        return None
    return _seconds_value(value, what)[1]


def _interval(value, what):
    """A step or interval in seconds: finite, positive and at least the 1 ns
    time resolution (a smaller one would be read as 0)."""
    if value is None:
        return None
    x, text = _seconds_value(value, what)
    if not x > 0:
        raise Error("EINVAL", f"{what}: {value!r} is not a positive number of seconds")
    if x < 1e-9:
        raise Error("EINVAL", f"{what}: {value!r} s is below the time resolution of 1 ns")
    return text


def _names(value):
    """A list of names or paths: one given alone (a str, bytes or a path) is a
    list of one, not split into its characters."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, os.PathLike)):
        return [value]
    return list(value)


def _whole(value, what, minimum, maximum=None):
    """An int (not a float that happens to be given, nor a bool) >= minimum
    and <= maximum (the C field's range: never wrapped silently)."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
            or int(value) < minimum):
        raise Error("EINVAL", f"{what}: {value!r} is not a whole number >= {minimum}")
    if maximum is not None and int(value) > maximum:
        raise Error("EINVAL", f"{what}: {value!r} is above {maximum}")
    return int(value)


def _positive(value, what, upper=math.inf):
    x = float(value)
    if not (math.isfinite(x) and 0 < x <= upper):
        bound = f" and <= {upper:g}" if upper != math.inf else ""
        raise Error("EINVAL", f"{what}: {value!r} is not a finite number > 0{bound}")
    return x


def _run_interruptibly(call, interrupt):
    """call() (a library run; ctypes releases the GIL) on a helper thread, so
    that Ctrl-C reaches the waiting main thread at once: Python runs signal
    handlers only between bytecodes of the main thread, never while it is in
    C. On KeyboardInterrupt (or any exception raised meanwhile, e.g. by a
    SIGALRM handler) the library is told through `interrupt` (read after
    every step), the run is waited for and the exception re-raised: nothing
    is returned as if complete and no run goes on behind the caller. Off the main thread (no signals
    arrive there) call() runs directly."""
    if threading.current_thread() is not threading.main_thread():
        return call()
    box = {}
    log = getattr(_local, "log", None)  # the caller's log sink is the run's
    # (an Event, not Thread.join: CPython 3.11's join, interrupted by an
    # exception, releases the running thread's state lock and from then on
    # returns at once, with the run still going)
    finished = threading.Event()

    def target():
        _local.log = log
        try:
            box["value"] = call()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            box["error"] = e
        finally:
            finished.set()

    worker = threading.Thread(target=target, name="rtcosim-run", daemon=True)
    try:
        # (started inside the try: an exception a signal raises just after the start
        # must still end the run)
        worker.start()
        while not finished.wait(0.05):
            pass
    except BaseException:  # Ctrl-C, or any exception a signal handler raised
        interrupt.value = 1
        while worker.ident is not None and not finished.wait(0.05):  # ends within one step
            pass
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


def _value_text(value):
    if isinstance(value, (bytes, bytearray)):  # Binary start values in hex
        return bytes(value).hex()
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


class _Callback:
    """A Python callable wrapped for C as ctype: exceptions are kept and
    re-raised after the run; False (or an exception) returns 1, which stops
    it. args maps the C arguments to the callable's."""

    def __init__(self, fn, ctype, args):
        self.fn, self.args, self.exception = fn, args, None
        self.c = ctype(self._call) if fn else ctype()

    def _call(self, _context, *values):
        try:
            return 1 if self.fn(*self.args(*values)) is False else 0
        except BaseException as e:  # noqa: BLE001 - re-raised after the run
            self.exception = e
            return 1

    def check(self):
        if self.exception is not None:
            raise self.exception


def _Progress(fn):
    """progress(fraction, time): False cancels the run."""
    return _Callback(fn, PROGRESS, lambda fraction, time: (fraction, time))


def _StepFinished(fn):
    """FMPy's step_finished(time, recorder): False ends the run there (the
    results so far returned)."""
    return _Callback(fn, STEP_FINISHED, lambda time: (time, None))


def _take_rows(handle):
    """Copy an rtcosim_rows table into a structured array and a dict of statistics."""
    try:
        n = lib.rtcosim_rows_count(handle)
        columns = lib.rtcosim_rows_column_count(handle)
        names = [lib.rtcosim_rows_column_name(handle, i).decode() for i in range(columns)]
        types = [lib.rtcosim_rows_column_type(handle, i) for i in range(columns)]
        dtype = [("time", np.float64)]
        for name, t in zip(names, types):
            dtype.append((name, object if t in (_STRING, _BINARY) else _TYPES[t][0]))
        result = np.zeros(n, dtype=dtype)
        if n:
            times = np.ctypeslib.as_array(lib.rtcosim_rows_times(handle), (n,))
            cells = None
            if columns:
                address = ctypes.cast(lib.rtcosim_rows_values(handle), ctypes.c_void_p).value
                raw = (ctypes.c_char * (n * columns * _VALUE.itemsize)).from_address(address)
                cells = np.frombuffer(raw, dtype=_VALUE).reshape(n, columns)
                values = lib.rtcosim_rows_values(handle)
                for i, (name, t) in enumerate(zip(names, types)):
                    if t == _STRING:
                        result[name] = [values[k * columns + i].s.decode() for k in range(n)]
                    elif t == _BINARY:  # bytes, as FMPy gives Binary values
                        result[name] = [ctypes.string_at(values[k * columns + i].bin.data,
                                                         values[k * columns + i].bin.size)
                                        for k in range(n)]
            # The numbers a block of rows at a time from the end, each block's pages of the
            # cells given back once copied (none with text columns: their cells point to
            # copies): a long run's rows are held about once, not as cells and array both.
            numeric = [(i, name, t) for i, (name, t) in enumerate(zip(names, types))
                       if t not in (_STRING, _BINARY)]
            fields = [(result[name], _TYPES[t]) for _, name, t in numeric]
            for start, end in _blocks_from_end(n):
                # (correctly rounded ns / 1e9: what the CSV's exact decimal time reads back to)
                result["time"][start:end] = times[start:end] / 1e9
                for (i, _, _), (field, (kind, member)) in zip(numeric, fields):
                    field[start:end] = cells[start:end, i][member].astype(kind)
                lib.rtcosim_rows_release_rows(handle, start)
        stats = Statistics()
        for i in range(lib.rtcosim_rows_stat_count(handle)):
            name = lib.rtcosim_rows_stat_name(handle, i).decode()
            value = lib.rtcosim_rows_stat_value(handle, i)
            stats[name] = (bool(value) if name in _BOOL_STATS
                           else value if name.endswith(("_s", "_us", "_H")) else int(value))
        units, descriptions, parameters = {"time": "s"}, {}, set()
        for i, name in enumerate(names):
            unit = lib.rtcosim_rows_column_unit(handle, i)
            text = lib.rtcosim_rows_column_description(handle, i)
            if unit:
                units[name] = unit.decode()
            if text:
                descriptions[name] = text.decode()
            if lib.rtcosim_rows_column_parameter(handle, i):
                parameters.add(name)
        result = Result(result, units, descriptions, parameters)
        # (which fields are String and Binary, for a reader of the same columns' text:
        # run_real_time)
        result._text_types = {m: t for m, t in zip(names, types) if t in (_STRING, _BINARY)}
        return result, stats
    finally:
        lib.rtcosim_rows_free(handle)


def _input_csv(input):
    """CSV text (csv.h format) from a structured array with a 'time' field."""
    names = input.dtype.names
    if not names or names[0] != "time":
        raise Error("EINVAL", "input: a structured array whose first field is 'time' is needed")
    lines = [",".join(names)]
    for row in input:
        # Numbers (csv.h): Booleans as 1/0; bytes (Binary) in hex, as fmusim reads them.
        lines.append(",".join(str(int(v)) if isinstance(v, (bool, np.bool_))
                              else bytes(v).hex() if isinstance(v, (bytes, bytearray))
                              else _value_text(v) for v in row))
    return ("\n".join(lines) + "\n").encode()


def _nanoseconds(value, what):
    """Exact nanoseconds of a time given as a number or decimal text."""
    text = value.decode() if isinstance(value, bytes) else str(value)
    try:
        ns = decimal.Decimal(text) * 1000000000
    except decimal.InvalidOperation:
        raise Error("EINVAL", f"{what}: {value!r} is not a number of seconds") from None
    return ns


@_checked_keywords
def simulate(filename, *, validate=True, start_time=None, stop_time=None, solver=None,
             step_size=None, relative_tolerance=None, output_interval=None, record_events=None,
             fmi_type=None, start_values={}, input=None, output=None, timeout=None,
             debug_logging=False, logger=None, fmi_call_logger=None, step_finished=None,
             record_every=1, progress=None, set_stop_time=True, fmu_state=None,
             input_columns=None, apply_default_start_values=False):
    """Simulate an FMU (FMI 1.0, 2.0 or 3.0) and return its results.

    Everything after the file name is a keyword (FMPy's order of them
    differs from earlier versions of this package; keywords are safe in both).

    Arguments as FMPy's simulate_fmu: times in seconds (None: the FMU's
    default experiment, else 0, start + 1 and (stop - start) / 500);
    fmi_type 'CoSimulation' or 'ModelExchange' (default: co-simulation
    unless the FMU offers model exchange only, as FMPy); Binary values are
    bytes, in inputs, start values and results; solver 'CVode'
    (default) or 'Euler' for model exchange; start_values {name: value};
    input a structured array ('time' first, then input names; continuous
    Float inputs are interpolated linearly, others held), a CSV path, a
    .mat path (a Dymola-layout result file, its variables the columns) or
    an ASAM MDF 4 or 3 measurement (.mf4, .mdf); input_columns {input:
    column} then feeds only those columns of the file, each to its input
    (a measurement's channels under its own names, `simulate
    --input-column`);
    output the names to record (default: every output). record_every N
    keeps every N-th communication point (and the last). progress(fraction,
    time) is called once per whole percent of the interval reached (and
    once with 1.0 at the end); returning False cancels the run
    (rtcosim.Error with status 'ECANCELED').

    FMPy's further keywords: step_size is the communication step (model
    exchange: the Euler step too), output_interval then a whole multiple of
    it at which rows are kept (default: every step). validate (default True,
    as FMPy) refuses an FMU whose modelDescription.xml breaks a rule of the
    standard, with the library's message naming it (validate=False: a
    warning, as `rtcosim simulate` without --strict). fmi_call_logger(line)
    receives every FMI call as a line ("fmi2DoStep(...) -> OK", as `rtcosim
    simulate --log-fmi-calls` logs it). record_events: a row before and
    one after each event, at the event's time. Model exchange records them
    unless record_events=False (as FMPy, and the CLI as fmusim); FMI 3.0
    co-simulation FMUs that declare hasEventMode run with Event Mode for
    record_events=True (as `rtcosim simulate --event-mode-used`), other
    co-simulation FMUs as without.

    apply_default_start_values (default False, as FMPy) sets every variable
    settable before initialization to the start value its description
    declares (start_values still win), for FMUs that rely on the importer.

    set_stop_time (default True, as FMPy) tells the FMU the stop time
    (the CLI only with --set-stop-time, as fmusim). fmu_state: the FMU's
    serialized state (bytes, as FMPy takes it, or the path of a file such as
    `rtcosim simulate --final-fmu-state-file` and fmusim write) to start
    from at start_time: the FMU is initialized, then takes it (model
    exchange: the integrator restarts from the states in it); only start
    values of inputs and tunable parameters are set over it.

    As FMPy: step_finished(time, recorder) is called after every
    communication step (recorder is None here); returning False ends the run
    normally at that time and returns the rows so far. timeout (seconds of
    wall-clock time) ends it the same way, with a warning. debug_logging asks
    the FMU for its own messages (FMI loggingOn). logger(level, category,
    message) receives the log of this run (level 'error' .. 'trace');
    without it, messages go to the Python logger "rtcosim", or with
    debug_logging to standard output.

    Returns a NumPy structured array: 'time' and one field per recorded
    variable, each of the variable's type; the values are those `rtcosim
    simulate` writes to its CSV, bit for bit.
    """
    o = SimulateOptions()
    o.apply_default_start_values = int(bool(apply_default_start_values))
    o.start_time = _seconds(start_time, "start_time")
    o.stop_time = _seconds(stop_time, "stop_time")
    o.output_interval = _interval(output_interval, "output_interval")
    every = 1
    if step_size is not None:
        o.output_interval = _interval(step_size, "step_size")
        if output_interval is not None:
            ratio = (_nanoseconds(_interval(output_interval, "output_interval"), "output_interval")
                     / _nanoseconds(o.output_interval, "step_size"))
            if ratio != ratio.to_integral_value() or ratio < 1:
                raise Error("EINVAL", f"output_interval: {output_interval!r} s is not a whole "
                            f"multiple of step_size {step_size!r} s")
            every = int(ratio)
    o.tolerance = (_positive(relative_tolerance, "relative_tolerance")
                   if relative_tolerance is not None else -1.0)
    if fmi_type not in (None, "CoSimulation", "ModelExchange"):
        raise Error("EINVAL", f"fmi_type: {fmi_type!r} is not 'CoSimulation' or 'ModelExchange'")
    # None: co-simulation unless the FMU offers model exchange only (as FMPy).
    o.model_exchange = -1 if fmi_type is None else int(fmi_type == "ModelExchange")
    solvers = {None: 0, "CVode": 0, "cvode": 0, "Euler": 1, "euler": 1}
    if solver not in solvers:
        raise Error("EINVAL", f"solver: {solver!r} is not 'CVode' or 'Euler'")
    o.solver = solvers[solver]
    keep = []
    o.start_names, o.start_count, k1 = _strings(list(start_values))
    o.start_values, _, k2 = _strings([_value_text(v) for v in start_values.values()])
    o.output, o.output_count, k3 = _strings(_names(output))
    keep += [k1, k2, k3]
    if isinstance(input, (str, os.PathLike)):
        o.input_file = _input_file(input, keep)  # CSV, MAT or MDF by its ending (csv.h)
    elif input_columns:
        raise Error("EINVAL", "input_columns maps the columns of an input file; input is "
                    f"{'not given' if input is None else 'an array'}")
    if input_columns:
        _column_map(o, input_columns, keep)
    if input is not None and not isinstance(input, (str, os.PathLike)):
        text = _input_csv(input)
        o.input_csv, o.input_csv_size = text, len(text)
    kept = _whole(record_every, "record_every", 1, 2**32 - 1) * every
    if kept > 2**32 - 1:
        raise Error("EINVAL", f"record_every: {record_every!r} rows of {every} steps each is "
                    f"every {kept}th step, above {2**32 - 1}")
    o.record_every = kept
    o.strict = 1 if validate else 0
    o.log_fmi_calls = 1 if fmi_call_logger is not None else 0
    if record_events:
        o.event_mode = 1  # co-simulation FMUs that declare hasEventMode
    o.no_event_rows = 1 if record_events is False else 0  # model exchange
    o.stop_time_not_set = 0 if set_stop_time else 1
    if isinstance(fmu_state, (bytes, bytearray)):
        state = bytes(fmu_state)
        keep.append(state)
        o.initial_state, o.initial_state_size = state, len(state)
    elif fmu_state is not None:
        o.initial_state_file = _input_file(fmu_state, keep)
    cb = _Progress(progress)
    o.progress = cb.c
    done = _StepFinished(step_finished)
    o.step_finished = done.c
    if timeout is not None:
        o.timeout = float(timeout)
        if not (math.isfinite(o.timeout) and o.timeout > 0):
            raise Error("EINVAL", f"timeout: {timeout!r} is not a positive number of seconds")
    o.fmu_logging = 1 if debug_logging else 0
    sink = logger if logger is not None else (_print_log if debug_logging else None)
    interrupt = ctypes.c_int(0)
    o.interrupt = ctypes.pointer(interrupt)
    err, handle = ErrorStruct(), ctypes.c_void_p()
    try:
        with contextlib.ExitStack() as stack:
            if fmi_call_logger is not None:
                shown = stack.enter_context(_log_level(3))  # debug: the call lines
                sink = _with_call_logger(sink, fmi_call_logger, shown)
            stack.enter_context(_log_sink(sink, 4 if fmi_call_logger is not None else None))
            status = _run_interruptibly(
                lambda: lib.rtcosim_flat_simulate(os.fsencode(filename), ctypes.byref(o),
                                                  ctypes.byref(handle), ctypes.byref(err)),
                interrupt)
        cb.check()
        done.check()
        if status == 4 and validate and _loads_without_validation(filename):  # EFORMAT
            raise Error("EFORMAT", err.message.decode(errors="replace")
                        + " (validate=False accepts it with a warning)")
        err.check(status)
    except BaseException:
        lib.rtcosim_rows_free(handle)  # rows of a run whose callback raised
        raise
    return _take_rows(handle)[0]


simulate_fmu = simulate  # FMPy's name


def _loads_without_validation(filename):
    """Whether validation is what refused the FMU: it loads when its
    modelDescription.xml is not validated and not when it is (an input
    table's problem is none of validation's; the warnings logged meanwhile
    are not wanted here)."""
    def loads(strict):
        try:
            lib.rtcosim_component_free(_load_component(filename, strict))
            return True
        except Error:
            return False
    with _log_sink(lambda level, category, text: None):
        return loads(False) and not loads(True)


def _load_component(filename, strict=False, describe=False):
    err, c = ErrorStruct(), ctypes.c_void_p()
    # an FMU with model exchange only too
    opts = FmuOptions(model_exchange_fallback=True, strict=strict)
    load = lib.rtcosim_fmu_describe if describe else lib.rtcosim_fmu_load
    err.check(load(os.fsencode(filename), ctypes.byref(opts), ctypes.byref(c), ctypes.byref(err)))
    return c


def _text(b):
    return b.decode() if b is not None else None


_INTERFACES = ("co-simulation", "model exchange", "scheduled execution")  # rtcosim_fmi_interface


def info(filename):
    """The facts of an FMU as a dict: fmi_version, model_name, guid (FMI 2.0
    guid / FMI 3.0 instantiationToken), description, author, generation_tool,
    interfaces (those it declares: "co-simulation", "model exchange",
    "scheduled execution"), interface (the one loaded: co-simulation where
    declared), model_description_warnings,
    default_experiment {start_time, stop_time, step_size, tolerance} (None
    where absent), capabilities and variables (a list of dicts with name,
    type, causality, variability, unit, description, start,
    value_reference), platforms (the folders under binaries/, then "sources"
    when it ships them) and binary (the library loaded, relative to the FMU,
    or None; binary_built_from_sources: rtcosim built it from the FMU's
    sources, which is all it holds for this platform). An FMU whose binary cannot be used here (built for another
    platform, a library that does not load or lacks a function) is described
    from its modelDescription.xml, as FMPy's read_model_description does,
    with a warning saying why; binary_error holds that message (None when the
    binary loads)."""
    binary_error = None
    try:
        c = _load_component(filename)
    except Error as e:
        try:
            c = _load_component(filename, describe=True)
        except Error:
            raise e from None
        binary_error = str(e)
        warnings.warn(f"{binary_error} (described from modelDescription.xml: it cannot be "
                      "simulated here)", stacklevel=2)
    try:
        d = lib.rtcosim_component_description(c).contents
        fi = lib.rtcosim_fmu_info_of(c)
        result = {"model_name": _text(d.model_name)}
        if fi:
            fi = fi.contents
            result.update(fmi_version=_text(fi.fmi_version_text), guid=_text(fi.instantiation_token),
                          description=_text(fi.description), author=_text(fi.author),
                          version=_text(fi.version), generation_tool=_text(fi.generation_tool),
                          model_identifier=_text(fi.model_identifier),
                          interfaces=[name for name, has in zip(_INTERFACES, (
                              fi.has_co_simulation, fi.has_model_exchange,
                              fi.has_scheduled_execution)) if has],
                          interface=_INTERFACES[fi.interface_type],
                          model_description_warnings=fi.model_description_warnings)
            text = ctypes.create_string_buffer(1024)
            lib.rtcosim_fmu_platforms(fi.extracted_dir, text, len(text))
            result["platforms"] = text.value.decode().split(", ") if text.value else []
            binary = _text(fi.binary_path)
            directory = _text(fi.extracted_dir)
            if binary and directory and binary.startswith(directory + "/"):
                binary = binary[len(directory) + 1:]
            if fi.binary_built_from_sources and binary:
                # the archive's platforms, not the folder the build made
                built = binary.split("/")[1] if binary.count("/") >= 2 else None
                result["platforms"] = [p for p in result["platforms"] if p != built]
            result.update(binary=binary, binary_error=binary_error,
                          binary_built_from_sources=bool(fi.binary_built_from_sources))
        result["default_experiment"] = {
            "start_time": d.default_start / 1e9 if d.has_default_start else None,
            "stop_time": d.default_stop / 1e9 if d.has_default_stop else None,
            "step_size": d.default_step / 1e9 if d.has_default_step else None,
            "tolerance": d.default_tolerance if d.has_default_tolerance else None}
        result["capabilities"] = {name: getattr(d.capabilities, name)
                                  for name, _ in d.capabilities._fields_}
        variables = []
        for i in range(d.variable_count):
            v = d.variables[i]
            start = None
            if v.has_start:
                if v.type == _STRING:
                    start = _text(v.start.s)
                elif v.type in _TYPES:
                    start = getattr(v.start, _TYPES[v.type][1])
            variables.append({"name": _text(v.name), "type": _text(lib.rtcosim_type_name(v.type)),
                              "causality": _text(lib.rtcosim_causality_name(v.causality)),
                              "variability": ["constant", "fixed", "tunable", "discrete",
                                              "continuous"][v.variability],
                              "unit": _text(v.unit), "description": _text(v.description),
                              "start": start, "value_reference": v.value_reference})
        result["variables"] = variables
        return result
    finally:
        lib.rtcosim_component_free(c)


def example_fmu(name):
    """Path of an example FMU shipped with rtcosim, e.g. 'BouncingBall-fmi3.fmu'."""
    buf, err = ctypes.create_string_buffer(4096), ErrorStruct()
    err.check(lib.rtcosim_example_fmu_path(os.fsencode(name), buf, len(buf), ctypes.byref(err)))
    return buf.value.decode()


def _mapping_or_pairs(value, what):
    """{name: spec} or [(name, spec), ...] as a list of pairs."""
    items = value.items() if isinstance(value, dict) else value
    try:
        return [(str(k), str(v)) for k, v in items]
    except (TypeError, ValueError):
        raise Error("EINVAL", f"{what}: expected {{name: spec}}, got {value!r}") from None


def _column_map(o, input_columns, keep):
    """input_columns {input: column} (or pairs) into the options' map."""
    pairs = _mapping_or_pairs(input_columns, "input_columns")
    o.input_column_inputs, o.input_column_count, k1 = _strings([i for i, _ in pairs])
    o.input_columns, _, k2 = _strings([c for _, c in pairs])
    keep += [k1, k2]


def _input_file(path, keep):
    """An input file's path as the options take it (None: none)."""
    if path is None:
        return None
    encoded = os.fsencode(path)
    keep.append(encoded)
    return encoded


from ._system import System  # noqa: E402 (it imports the helpers above)

System.__module__ = __name__  # (shown as rtcosim.System)
