"""Results as engineers open them: the Result array (FMPy's structured array
plus each variable's unit and description), write_result (CSV and MAT
through the library's own recorder, so that the files equal the CLI's byte
for byte), read_result (a results file or measurement back, read by the
library) and plot_result (matplotlib, one panel per unit, as `rtcosim
plot --panels auto`)."""
import csv
import ctypes
import difflib
import math
import os
import warnings

import numpy as np

from ._keywords import checked_keywords
from ._lib import (Column, CompareOptions, CompareResult, Error, ErrorStruct, RecorderOptions,
                   TIME_LIMIT_S, lib, strings)

# rtcosim_type (component.h) of a NumPy field type.
_TYPE_OF = {np.dtype(np.float64): 0, np.dtype(np.float32): 1, np.dtype(np.int8): 2,
            np.dtype(np.uint8): 3, np.dtype(np.int16): 4, np.dtype(np.uint16): 5,
            np.dtype(np.int32): 6, np.dtype(np.uint32): 7, np.dtype(np.int64): 8,
            np.dtype(np.uint64): 9, np.dtype(np.bool_): 10}
_STRING, _BINARY = 11, 12


class Result(np.ndarray):
    """A run's results: a NumPy structured array ('time' first, one field per
    variable, as FMPy's simulate_fmu returns) that also knows each field's
    unit (``units``: {name: 'm'}; 's' for time) and description
    (``descriptions``), from the FMU's or the components' declarations.
    Indexing by a field name gives a plain NumPy array."""

    def __new__(cls, array, units=None, descriptions=None, parameters=None):
        obj = np.asarray(array).view(cls)
        obj.units = dict(units or {})
        obj.descriptions = dict(descriptions or {})
        obj.parameters = set(parameters or ())
        return obj

    def __array_finalize__(self, obj):
        self.units = dict(getattr(obj, "units", {}) or {})
        self.descriptions = dict(getattr(obj, "descriptions", {}) or {})
        self.parameters = set(getattr(obj, "parameters", ()) or ())

    def __getitem__(self, key):
        item = super().__getitem__(key)
        if isinstance(key, str) and isinstance(item, np.ndarray):
            return item.view(np.ndarray)
        return item

    def __reduce__(self):  # pickling keeps the units
        state = super().__reduce__()
        return (state[0], state[1], (state[2], self.units, self.descriptions, self.parameters))

    def __setstate__(self, state):
        super().__setstate__(state[0])
        self.units, self.descriptions, self.parameters = state[1], state[2], state[3]


def _names_or_fail(result, names, what):
    fields = [n for n in result.dtype.names if n != "time"]
    for name in names:
        if name not in fields:
            close = difflib.get_close_matches(name, fields, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise Error("EINVAL", f"{what}: no variable '{name}' in the result{hint}")
    return list(names)


def _column_type(field_dtype, values):
    if field_dtype in _TYPE_OF:
        return _TYPE_OF[field_dtype]
    if field_dtype == np.dtype(object):
        if all(isinstance(v, (bytes, bytearray)) for v in values):
            return _BINARY
        if all(isinstance(v, str) for v in values):
            return _STRING
    raise Error("EINVAL", f"write_result: field type {field_dtype} is not a number, str or bytes")


def _nanosecond_times(time):
    """The time column as the recorder's nanoseconds: each time finite and
    within the clock's 292 years, in order (equal times are an event's two
    rows), and two different times not the same nanosecond; else an Error
    naming the row (they were written as -9223372036.854775808 s, or in an
    order no reader takes)."""
    t = np.asarray(time, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(t) | (np.abs(t) > TIME_LIMIT_S))
    if bad.size:
        k = int(bad[0])
        raise Error("EINVAL", f"write_result: time {t[k]!r} in row {k} is not a finite number "
                    "of seconds within about 292 years")
    ns = np.rint(t * 1e9).astype(np.int64)
    if t.size > 1:
        back = np.flatnonzero(np.diff(t) < 0)
        if back.size:
            k = int(back[0]) + 1
            raise Error("EINVAL", f"write_result: time decreases in row {k} ({t[k]!r} s after "
                        f"{t[k - 1]!r} s)")
        merged = np.flatnonzero((np.diff(t) > 0) & (np.diff(ns) == 0))
        if merged.size:
            k = int(merged[0]) + 1
            raise Error("EINVAL", f"write_result: rows {k - 1} and {k} ({t[k - 1]!r} and "
                        f"{t[k]!r} s) are the same time at the resolution of 1 ns")
    return ns


@checked_keywords
def write_result(result, path, csv_units=False):
    """Write results (a Result or any structured array with 'time' first)
    to path by its extension, through the library's recorder as `rtcosim
    simulate -o` writes it: '.csv' fmusim's CSV (numbers as the shortest
    text that reads back to the identical value; csv_units adds a row of
    units), '.mat' the Modelica/Dymola result layout (Aclass, name,
    description with '[unit]', dataInfo, data_1 for parameters that keep one
    value, data_2 for the trajectories; String and Binary columns are left
    out), '.mf4' ASAM MDF 4.10 (a time master channel and a double channel
    per numeric field with its unit and description, as CANape, CANoe and
    asammdf read it). Any other extension is refused (rtcosim.Error,
    'EINVAL')."""
    names = result.dtype.names
    if not names or names[0] != "time":
        raise Error("EINVAL", "write_result: a structured array whose first field is 'time' "
                    "is needed")
    path = os.fsdecode(os.fspath(path))  # (str or bytes given)
    if len(result) == 0:
        raise Error("EINVAL", f"write_result: no rows to write to {path} (a results file has "
                    "at least one: its readers take no header alone)")
    units = getattr(result, "units", {}) or {}
    descriptions = getattr(result, "descriptions", {}) or {}
    parameters = getattr(result, "parameters", set()) or set()
    fields = list(names[1:])
    n, count = len(result), len(fields)
    keep = []  # C strings and buffers referenced until the recorder is closed

    def text(s):
        if s is None:
            return None
        b = str(s).encode()
        keep.append(b)
        return b

    columns = (Column * max(count, 1))()
    types = []
    for i, name in enumerate(fields):
        t = _column_type(result.dtype[name], result[name])
        types.append(t)
        columns[i] = Column(text(name), t, text(units.get(name)), text(descriptions.get(name)),
                            name in parameters)
    # One rtcosim_value (16 bytes) per cell, filled column by column.
    cells = np.zeros((n, max(count, 1), 2), dtype=np.uint64)
    for i, (name, t) in enumerate(zip(fields, types)):
        v = result[name]
        if t == 0:
            cells[:, i, 0] = np.ascontiguousarray(v, dtype=np.float64).view(np.uint64)
        elif t == 1:
            cells[:, i, 0] = np.ascontiguousarray(v, dtype=np.float32).view(np.uint32)
        elif t in (2, 4, 6, 8):
            cells[:, i, 0] = np.asarray(v, dtype=np.int64).view(np.uint64)
        elif t in (3, 5, 7, 9, 10):
            cells[:, i, 0] = np.asarray(v, dtype=np.uint64)
        else:
            for k, item in enumerate(v):
                data = item.encode() if t == _STRING else bytes(item)
                buf = ctypes.create_string_buffer(data, len(data) + 1)
                keep.append(buf)
                cells[k, i, 0] = ctypes.addressof(buf)
                cells[k, i, 1] = len(data)
    times = _nanosecond_times(result["time"])
    o = RecorderOptions(path=os.fsencode(path), columns=columns, column_count=count,
                        csv_units=bool(csv_units))
    err, recorder = ErrorStruct(), ctypes.c_void_p()
    err.check(lib.rtcosim_recorder_open(ctypes.byref(o), ctypes.byref(recorder),
                                        ctypes.byref(err)))
    status, base, stride = 0, cells.ctypes.data, cells.strides[0]
    for k in range(n):
        status = lib.rtcosim_recorder_push_row_always(recorder, int(times[k]), base + k * stride,
                                                      ctypes.byref(err))
        if status:
            break
    closing = ErrorStruct()
    close_status = lib.rtcosim_recorder_close(recorder, None, ctypes.byref(closing))
    err.check(status)
    closing.check(close_status)


def _label(names, unit):
    text = names[0] if len(names) == 1 else ""
    if unit:
        return f"{text} [{unit}]".strip()
    return text or "value"


@checked_keywords
def plot_result(result, names=None, filename=None, title=None, panels="auto", units=None):
    """Plot results over time with matplotlib (Debian: python3-matplotlib):
    one panel per unit (panels='auto'; 'one': every variable in one), the
    time axis shared, the units from the result (or units={name: unit}) on
    the y axes, a legend inside the frame of a panel with several lines.
    names: the variables (default: every numeric one). filename: save the
    figure there (PNG, SVG, PDF, ... by extension; no display needed) instead
    of showing it. Returns the matplotlib Figure."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError("plot_result needs matplotlib, which is not installed (Debian: "
                          "apt-get install python3-matplotlib)") from None
    if panels not in ("auto", "one"):
        raise Error("EINVAL", f"plot_result: panels {panels!r} is not 'auto' or 'one'")
    numeric = [n for n in result.dtype.names
               if n != "time" and result.dtype[n] != np.dtype(object)]
    names = numeric if names is None else _names_or_fail(result, [names] if isinstance(
        names, str) else names, "plot_result")
    if not names:
        raise Error("EINVAL", "plot_result: no numeric variable to plot")
    unit_of = dict(getattr(result, "units", {}) or {})
    unit_of.update(units or {})
    groups = {}
    for name in names:
        if result.dtype[name] == np.dtype(object):
            raise Error("EINVAL", f"plot_result: '{name}' holds text or bytes, not numbers")
        key = unit_of.get(name) or "" if panels == "auto" else None
        groups.setdefault(key, []).append(name)
    if filename is not None:
        # No pyplot: no display and no global state; Agg draws it (and
        # measures it for a caller), savefig picks the format by extension.
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        figure = Figure(figsize=(8, 2.2 + 1.6 * len(groups)), constrained_layout=True)
        FigureCanvasAgg(figure)
    else:
        import matplotlib.pyplot as plt
        figure = plt.figure(figsize=(8, 2.2 + 1.6 * len(groups)), constrained_layout=True)
    axes = figure.subplots(len(groups), 1, sharex=True, squeeze=False)[:, 0]
    time = np.asarray(result["time"], dtype=np.float64)
    for ax, (unit, members) in zip(axes, groups.items()):
        for name in members:
            values = np.asarray(result[name])
            discrete = values.dtype.kind in "biu"
            ax.plot(time, values.astype(np.float64), label=name,
                    drawstyle="steps-post" if discrete else "default")
        if panels == "one":
            shown = {unit_of.get(n) or "" for n in members}
            ax.set_ylabel(_label(members, shown.pop() if len(shown) == 1 else ""))
        else:
            ax.set_ylabel(_label(members, unit))
        if len(members) > 1:
            ax.legend(loc="best", fontsize="small", framealpha=0.8)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time [s]")
    if title:
        figure.suptitle(title)
    if filename is not None:
        figure.savefig(os.fspath(filename))
    else:
        import matplotlib.pyplot as plt
        plt.show()
    return figure


class Comparison:
    """What compare_results found: .matches (every variable within tolerance
    and the actual run covering the window), .variables (name -> dict with
    'matches', 'missing', 'checked', 'outside', 'first_outside_time',
    'max_abs_diff', 'max_abs_diff_time', 'max_rel_diff', 'reference_range';
    times None where there is none), .window (start, stop) compared,
    .span_short, .excluded (variables left out by exclude), and the runs'
    rows and spans."""

    def __init__(self, c):
        self.window = (c.from_, c.to)
        self.span_short = bool(c.span_short)
        self.reference_rows, self.actual_rows = c.ref_rows, c.act_rows
        self.reference_span = (c.ref_start, c.ref_stop)
        self.actual_span = (c.act_start, c.act_stop)
        self.extra_in_actual = c.extra_in_actual
        self.excluded = c.excluded
        self.variables = {}
        time = (lambda t: None if math.isnan(t) else t)
        for i in range(c.variable_count):
            v = c.variables[i]
            self.variables[v.name.decode("utf-8", "surrogateescape")] = {
                "matches": not v.differs, "missing": bool(v.missing), "checked": v.checked,
                "outside": v.outside, "first_outside_time": time(v.first_outside_time),
                "max_abs_diff": None if v.missing else v.max_abs_diff,
                "max_abs_diff_time": time(v.max_abs_diff_time),
                "max_rel_diff": None if v.missing else v.max_rel_diff,
                "reference_range": v.ref_range}
        self.matches = c.differing == 0 and not self.span_short

    def __bool__(self):
        return self.matches

    def __repr__(self):
        differing = [n for n, v in self.variables.items() if not v["matches"]]
        return ("<Comparison %s: %d of %d variables within tolerance%s%s>"
                % ("matches" if self.matches else "differs",
                   len(self.variables) - len(differing), len(self.variables),
                   "; differing: " + ", ".join(differing) if differing else "",
                   "; the actual run stops short" if self.span_short else ""))


def compare_results(reference, actual, variables=None, rtol=1e-6, atol=0.0, range_tol=1e-6,
                    time_tol=0.0, start=None, stop=None, fmi_cross_check=False, exclude=None):
    """A run's results file held against a reference run's, as `rtcosim
    compare` does (each a CSV, Dymola MAT or MDF 4/3 file): every variable a
    curve linear between samples; the runs match when every sample of each
    lies within max(atol, rtol |value|, range_tol * the reference's range) of
    the other curve within time_tol seconds of its time, over the
    reference's span (or start..stop within it). variables: those compared
    (names or shell patterns such as 'engine.*'; None: every numeric
    variable of the reference); exclude: names or patterns left out of
    those (a CPU time, a wall clock). fmi_cross_check: the
    FMI cross-check's band instead of the tolerances (`rtcosim compare
    --fmi-cross-check`). Returns a Comparison
    (truthy when the runs match). Errors (a file that cannot be read, a
    variable the reference lacks, a negative tolerance) raise rtcosim.Error."""
    def listed(names):
        if isinstance(names, (str, bytes)):
            names = [names]
        return [os.fsdecode(v) if isinstance(v, bytes) else str(v) for v in names or []]
    names, count, keep = strings(listed(variables))
    left_out, left_out_count, keep_left_out = strings(listed(exclude))
    o = CompareOptions(variables=names, variable_count=count, rtol=rtol, atol=atol,
                       range_tol=range_tol, time_tol=time_tol,
                       from_=math.nan if start is None else start,
                       to=math.nan if stop is None else stop,
                       fmi_cross_check=bool(fmi_cross_check),
                       exclude=left_out, exclude_count=left_out_count)
    err, out = ErrorStruct(), ctypes.POINTER(CompareResult)()
    status = lib.rtcosim_results_compare(os.fsencode(reference),
                                         os.fsencode(actual), ctypes.byref(o),
                                         ctypes.byref(out), ctypes.byref(err))
    del keep, keep_left_out
    err.check(status)
    try:
        return Comparison(out.contents)
    finally:
        lib.rtcosim_compare_result_free(out)


def read_result(filename, variables=None):
    """A results file read back: rtcosim's CSV (with or without its units
    row; also one separated by semicolons with decimal commas, as a
    spreadsheet exports it where the decimal point is a comma), a Modelica/Dymola MAT file (rtcosim's, Dymola's, OpenModelica's,
    OMSimulator's), or an ASAM MDF 4 or MDF 3 measurement (.mf4, .mdf: CANape,
    CANoe, INCA, asammdf, rtcosim -o) -- no asammdf needed. Returns a Result:
    'time' and one float64 field per numeric variable, with its unit in
    .units. A measurement's channel groups are put on the union of their
    times (each channel holding its last sample, NaN before its first); a
    CSV's text columns (String and Binary results, as rtcosim and fmusim write
    them) are str fields (a column whose every cell is empty reads as numbers:
    NaN); a cell of a column of numbers that is no number ("n/a", "1,5") is
    NaN, with one warning naming the columns and how many cells. variables (names, or shell patterns such as 'engine.*' or
    '*_rpm' for the columns they match; None or empty: all) reads only
    those, and time,
    in the file's order: a CSV (read a line at a time in any case) then
    never holds its other columns, so a long run's file costs what the named
    variables take. Errors (a missing or malformed file, a named variable the
    file does not have) raise rtcosim.Error naming the file (and the
    variables)."""
    path = os.fsdecode(os.fspath(filename))
    err, handle = ErrorStruct(), ctypes.c_void_p()
    if isinstance(variables, (str, bytes)):
        variables = [variables]
    variables = list(variables) if variables is not None else None
    if not variables:
        variables = None  # (as the C function's count 0: every variable)
    if variables is not None:
        variables = [os.fsdecode(v) if isinstance(v, bytes) else str(v) for v in variables]
    names, count, keep = strings(variables or [])
    status = lib.rtcosim_flat_read_result_columns(os.fsencode(path), names, count,
                                                  ctypes.byref(handle), ctypes.byref(err))
    del keep
    err.check(status)
    result, text = _take_columns(handle, path)
    if text:  # (the text columns the library's selection took, their cells read here)
        result = _with_text_columns(result, path, text)
    return result


def _take_columns(handle, path):
    """The reader's columns copied into a structured array a block of rows at
    a time from the end, each block's pages of the columns given back once
    copied: the file's values are held about once (the array filling up as
    the columns empty), not as cells of rows and the array too."""
    try:
        n = lib.rtcosim_result_columns_rows(handle)
        columns = lib.rtcosim_result_columns_count(handle)
        # (a header that is not UTF-8: its bytes as surrogate escapes, as os.fsdecode)
        names = [lib.rtcosim_result_columns_name(handle, i).decode("utf-8", "surrogateescape")
                 for i in range(columns)]
        result = np.empty(n, dtype=[("time", np.float64)] + [(m, np.float64) for m in names])
        units = {"time": "s"}
        for i, name in enumerate(names):
            unit = lib.rtcosim_result_columns_unit(handle, i)
            if unit:
                units[name] = unit.decode("utf-8", "surrogateescape")
        if n:
            sources = [np.ctypeslib.as_array(lib.rtcosim_result_columns_time(handle), (n,))]
            sources += [np.ctypeslib.as_array(lib.rtcosim_result_columns_values(handle, i), (n,))
                        for i in range(columns)]
            fields = [result["time"]] + [result[name] for name in names]
            for start, end in blocks_from_end(n):
                for field, source in zip(fields, sources):
                    field[start:end] = source[start:end]
                lib.rtcosim_result_columns_release_rows(handle, start)
        text = [lib.rtcosim_result_columns_text_name(handle, i).decode("utf-8", "surrogateescape")
                for i in range(lib.rtcosim_result_columns_text_left_out(handle))]
        # cells of a column of numbers that are no number ("n/a", "1,5"): NaN, said once
        odd = [(name, lib.rtcosim_result_columns_not_numbers(handle, i))
               for i, name in enumerate(names)]
        odd = [(name, k) for name, k in odd if k]
        if odd:
            warnings.warn("%s: %s (read as NaN)" % (
                path, "; ".join("column '%s': %d cell%s not a number" % (name, k, "s are" if k > 1
                                                                            else " is")
                                for name, k in odd[:5]) + ("; ..." if len(odd) > 5 else "")),
                stacklevel=3)
        return Result(result, units), text
    finally:
        lib.rtcosim_result_columns_free(handle)


_COPY_ROWS = 1 << 16  # rows copied before their pages are given back (512 KiB a column)


def blocks_from_end(n):
    """(start, end) of blocks of _COPY_ROWS rows of n, the last block first: the order
    in which a table's rows are copied out and their pages given back."""
    end = n
    while end > 0:
        start = max(0, end - _COPY_ROWS)
        yield start, end
        end = start


def _with_text_columns(result, path, text_names):
    """A CSV's text columns text_names (String and Binary results: the library
    reads numbers; those its selection took, or a run's String and Binary
    results, even where every cell looks like a number: "12", Binary "0102")
    added as str fields, in the file's column order. The file is read a row
    at a time and only those columns' cells are kept."""
    with open(path, newline="", encoding="utf-8", errors="surrogateescape") as f:
        rows = csv.reader(f)
        header = next(rows, [])
        numeric = set(result.dtype.names) - set(text_names)
        text = [k for k, name in enumerate(header) if k > 0 and name in text_names]
        if not text:
            return result
        cells = {k: [] for k in text}
        count = 0
        for row in rows:
            if not row:
                continue  # a blank line (the library skips them too)
            count += 1
            for k in text:
                cells[k].append(row[k] if k < len(row) else "")
    if count == len(result) + 1:
        for k in text:  # (rtcosim's units row)
            del cells[k][0]
    elif count != len(result):
        warnings.warn(f"{path}: {len(text)} text columns left out "
                      "(their rows could not be matched to the numbers')")
        return result
    dtype = [("time", np.float64)]
    for k, name in enumerate(header):
        if k > 0 and (name in numeric or k in cells):
            dtype.append((name, result.dtype[name] if name in numeric else object))
    out = np.zeros(len(result), dtype=dtype)
    out["time"] = result["time"]
    for k, name in enumerate(header):
        if k > 0 and name in numeric:
            out[name] = result[name]
        elif k in cells:
            out[name] = cells[k]
    return Result(out, result.units, result.descriptions, result.parameters)
