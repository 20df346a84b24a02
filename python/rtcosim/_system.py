"""rtcosim.System: an SSP system (or libcosim's OspSystemStructure.xml, or
an FMU alone) run offline or in real time by the library's master; split
from the package's __init__ (its helpers are imported from there)."""
import ctypes
import math
import os
import tempfile

from ._keywords import checked_keywords as _checked_keywords
from ._lib import Error, ErrorStruct, SystemOptions, lib
from ._lib import strings as _strings
from ._results import Result, _with_text_columns, read_result
from . import (_BINARY, _Progress, _column_map, _input_file, _interval, _mapping_or_pairs, _names,
               _positive, _run_interruptibly, _seconds, _take_rows, _value_text, _whole)

_ORDERS = {None: 0, "jacobi": 1, "gauss-seidel": 2}
_COUPLINGS = {None: 0, "zoh": 1, "foh": 2, "soh": 3}
_CORRECTIONS = {None: 0, "none": 1, "energy": 2, "dead-time": 2, "integrator": 3}


def _choice(table, value, what):
    key = value.lower() if isinstance(value, str) else value
    if key not in table:
        raise Error("EINVAL", f"{what}: unknown value {value!r} ("
                    + ", ".join(k for k in table if k) + ")")
    return table[key]


class System:
    """An SSP 1.0 system (.ssd or .ssp), libcosim's OspSystemStructure.xml, or
    an FMU alone (a system of that one component, named after its
    modelIdentifier, with fmusim's defaults) run by the co-simulation master.

    Settings left None come from the system's org.rtcosim.master and
    org.rtcosim.realtime annotations and its DefaultExperiment."""

    def __init__(self, path):
        self.path = os.fsdecode(os.fspath(path))
        if not os.path.exists(self.path):
            raise Error("ENOTFOUND", f"{self.path}: no such file")
        self.statistics = {}

    def _options(self, start_time, stop_time, step_size, output_interval, order, coupling,
                 correction, step_control, threads, parameter_sets, start_values, output,
                 progress, keep):
        o = SystemOptions()
        o.start_time = _seconds(start_time, "start_time")
        o.stop_time = _seconds(stop_time, "stop_time")
        o.step_size = _interval(step_size, "step_size")
        o.output_interval = _interval(output_interval, "output_interval")
        o.order = _choice(_ORDERS, order, "order")
        o.coupling = _choice(_COUPLINGS, coupling, "coupling")
        o.correction = _choice(_CORRECTIONS, correction, "correction")
        o.step_control = -1 if step_control is None else int(bool(step_control))
        o.threads = 0 if threads is None else _whole(threads, "threads", 1, 256)
        o.parameter_sets, o.parameter_set_count, k1 = _strings(
            [os.fspath(p) for p in _names(parameter_sets)])
        o.start_names, o.start_count, k2 = _strings(list(start_values))
        o.start_values, _, k3 = _strings([_value_text(v) for v in start_values.values()])
        o.output, o.output_count, k4 = _strings(_names(output))
        cb = _Progress(progress)
        o.progress = cb.c
        keep += [k1, k2, k3, k4, cb]
        return o, cb

    @staticmethod
    def _input(o, input_file, input_columns, keep):
        o.input_file = _input_file(input_file, keep)
        if input_columns and input_file is None:
            raise Error("EINVAL", "input_columns maps the columns of input_file, which is not "
                        "given")
        if input_columns:
            _column_map(o, input_columns, keep)

    def _call(self, o, cb):
        err, handle = ErrorStruct(), ctypes.c_void_p()
        interrupt = ctypes.c_int(0)  # Ctrl-C ends the run within a step (a frame)
        o.interrupt = ctypes.pointer(interrupt)
        try:
            status = _run_interruptibly(
                lambda: lib.rtcosim_flat_system_run(os.fsencode(self.path), ctypes.byref(o),
                                                    ctypes.byref(handle), ctypes.byref(err)),
                interrupt)
            cb.check()
            err.check(status)
        except BaseException:
            lib.rtcosim_rows_free(handle)  # rows of a run whose callback raised
            raise
        return _take_rows(handle)

    @_checked_keywords
    def run(self, start_time=None, stop_time=None, step_size=None, output_interval=None,
            order=None, coupling=None, correction=None, step_control=None, threads=None,
            parameter_sets=(), start_values={}, output=None, progress=None, input_file=None,
            input_columns=None):
        """Run the system as `rtcosim run` does and return the observed
        variables ('component.variable', default every numeric output; String
        and Binary ones named in output follow as str and bytes) as a
        structured array, one row per output_interval (default every macro
        step) and the end. order: 'jacobi' | 'gauss-seidel'; coupling:
        'zoh' | 'foh' | 'soh'; correction: 'none' | 'energy' (= 'dead-time')
        | 'integrator'. Returns a Result (units and descriptions from the
        components' variables). Statistics (steps, end_time_s, wall_time_s)
        land in self.statistics. input_file: an input table (fmusim's CSV)
        for an FMU alone's inputs or a system's free inputs (columns
        component.variable): continuous Floats linear, discrete ones,
        integers and Booleans held, as `run --input-file` (CSV, MAT, MDF 4 or
        3); input_columns {input: column} takes only those columns of it,
        each driving its input (`run --input-column`)."""
        keep = []
        o, cb = self._options(start_time, stop_time, step_size, output_interval, order, coupling,
                              correction, step_control, threads, parameter_sets, start_values,
                              output, progress, keep)
        self._input(o, input_file, input_columns, keep)
        result, self.statistics = self._call(o, cb)
        return result

    @_checked_keywords
    def run_real_time(self, start_time=None, stop_time=None, step_size=None,
                      output_interval=None, rt_factor=None, overrun=None, non_realtime=None,
                      exchange=None, estimator=None, estimators=None, partner_timeout=None,
                      calibrate=None, virtual_clock=False, inject_delays=None, rt_options={},
                      order=None, coupling=None, correction=None, parameter_sets=(),
                      start_values={}, output=None, input_file=None, input_columns=None):
        """Run paced to the wall clock (`rtcosim run --real-time`): rt_factor
        K runs at K times real time; overrun 'soft' | 'catch-up' | 'skip' |
        'fail'; non_realtime names the components run on their own thread
        (list or comma-separated); exchange 'N' or a pattern '2-1';
        estimator the default estimator of the signals from the
        non-real-time part and estimators={signal: spec} per-signal ones
        (both as the CLI's --estimator SPEC and --estimator SIGNAL=SPEC:
        'zoh', 'foh,rate=1000', 'map:FILE', 'linear:a.x+b.y', ...);
        inject_delays={component: spec} compute time injected as the CLI's
        --inject-delay NAME:SPEC ('schedule=0/0/0.0025', 'mean=0.4,...');
        virtual_clock=True runs on deterministic virtual clocks; rt_options
        any further executor option {name: value} (realtime.h). Returns
        (results, statistics): a Result (units from the components) and the
        executor's summary as a dict whose time figures carry their unit
        (drift_us, slip_us, max_lag_s, end_time_s, ... as summary.csv)."""
        keep = []
        o, cb = self._options(start_time, stop_time, step_size, output_interval, order, coupling,
                              correction, None, None, parameter_sets, start_values, output,
                              None, keep)
        self._input(o, input_file, input_columns, keep)
        rt = {}
        if rt_factor is not None:
            rt["rt-factor"] = repr(_positive(rt_factor, "rt_factor", 1e6))
        if overrun is not None:
            rt["overrun"] = overrun
        if non_realtime is not None:
            rt["non-real-time"] = (non_realtime if isinstance(non_realtime, str)
                                   else ",".join(non_realtime))
        if exchange is not None:
            rt["exchange"] = str(exchange)
        pairs = []  # repeatable options, after the others
        if estimator is not None:
            pairs.append(("estimator", str(estimator)))
        for signal, spec in _mapping_or_pairs(estimators or {}, "estimators"):
            pairs.append(("estimator", f"{signal}={spec}"))
        for component, spec in _mapping_or_pairs(inject_delays or {}, "inject_delays"):
            pairs.append(("inject-delay", f"{component}:{spec}"))
        if partner_timeout is not None:
            x = float(partner_timeout)
            if not (math.isfinite(x) and x >= 0):
                raise Error("EINVAL", f"partner_timeout: {partner_timeout!r} is not a finite "
                            "number of seconds >= 0")
            rt["partner-timeout"] = repr(x)
        if calibrate is not None:
            rt["calibrate"] = "yes" if calibrate else "no"
        rt.update({k: _value_text(v) for k, v in rt_options.items()})
        o.rt_names, o.rt_count, k1 = _strings(list(rt) + [k for k, _ in pairs])
        o.rt_values, _, k2 = _strings(list(rt.values()) + [v for _, v in pairs])
        keep += [k1, k2]
        o.real_time = True
        o.virtual_clock = bool(virtual_clock)
        with tempfile.TemporaryDirectory(prefix="rtcosim-") as tmp:
            path = os.path.join(tmp, "results.csv")
            o.output_file = path.encode()
            # The rows are in the CSV; the table returned names the columns' units.
            described, self.statistics = self._call(o, cb)
            # (the library's reader: a long run's rows as arrays, text columns as str;
            # Binary ones, hex in the file as fmusim writes them, back to bytes as run() gives)
            result = read_result(path)
            text = getattr(described, "_text_types", {})
            if text:  # (their cells as written, even those that look like numbers)
                result = _with_text_columns(result, path, text)
            for name, t in text.items():
                if t == _BINARY and name in result.dtype.names:
                    result[name] = [bytes.fromhex(x) for x in result[name]]
        return Result(result, described.units, described.descriptions,
                      described.parameters), self.statistics
