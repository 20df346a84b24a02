"""Loading librtcosim and declaring the C functions the package calls.

The library is found, in this order, at $RTCOSIM_LIBRARY (a path, used by the
tests to run from the build tree), at the path recorded when the package was
installed (_config.py, written by CMake), or by the dynamic loader's search
for librtcosim.so.0.
"""
import ctypes
import os

from . import _config


class Error(Exception):
    """A failed rtcosim call. ``str(e)`` is the library's one-line message
    (it names the file and the problem); ``e.status`` the status name."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


_STATUS = ["OK", "EINVAL", "ENOMEM", "EIO", "EFORMAT", "EUNSUPPORTED", "ENOTFOUND", "EDISCARD",
           "ECOMPONENT", "EFATAL", "ESTATE", "ETIMEOUT", "ELOOP", "ECANCELED"]


class ErrorStruct(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("message", ctypes.c_char * 512)]

    def check(self, status):
        if status != 0:
            name = _STATUS[status] if 0 <= status < len(_STATUS) else str(status)
            raise Error(name, self.message.decode("utf-8", "replace"))


class Binary(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]


class Value(ctypes.Union):
    """rtcosim_value (component.h)."""
    _fields_ = [("f64", ctypes.c_double), ("f32", ctypes.c_float), ("i64", ctypes.c_int64),
                ("u64", ctypes.c_uint64), ("b", ctypes.c_bool), ("s", ctypes.c_char_p),
                ("bin", Binary)]


class Variable(ctypes.Structure):
    """rtcosim_variable (component.h)."""
    _fields_ = [("name", ctypes.c_char_p), ("description", ctypes.c_char_p),
                ("unit", ctypes.c_char_p), ("value_reference", ctypes.c_uint32),
                ("type", ctypes.c_int), ("causality", ctypes.c_int),
                ("variability", ctypes.c_int), ("initial", ctypes.c_int),
                ("has_start", ctypes.c_bool), ("start", Value), ("derivative_of", ctypes.c_int32),
                ("has_min", ctypes.c_bool), ("has_max", ctypes.c_bool), ("min", Value),
                ("max", Value)]


class Capabilities(ctypes.Structure):
    _fields_ = [("can_handle_variable_step", ctypes.c_bool), ("can_get_set_state", ctypes.c_bool),
                ("can_serialize_state", ctypes.c_bool),
                ("provides_directional_derivatives", ctypes.c_bool),
                ("can_return_early", ctypes.c_bool), ("has_event_mode", ctypes.c_bool),
                ("max_input_derivative_order", ctypes.c_int)]


class ComponentDesc(ctypes.Structure):
    """rtcosim_component_desc (component.h)."""
    _fields_ = [("model_name", ctypes.c_char_p), ("variables", ctypes.POINTER(Variable)),
                ("variable_count", ctypes.c_size_t), ("capabilities", Capabilities),
                ("has_default_start", ctypes.c_bool), ("has_default_stop", ctypes.c_bool),
                ("has_default_step", ctypes.c_bool), ("has_default_tolerance", ctypes.c_bool),
                ("default_start", ctypes.c_int64), ("default_stop", ctypes.c_int64),
                ("default_step", ctypes.c_int64), ("default_tolerance", ctypes.c_double)]


class FmuOptions(ctypes.Structure):
    """rtcosim_fmu_options (fmu.h)."""
    _fields_ = [("log_fmi_calls", ctypes.c_bool), ("visible", ctypes.c_bool),
                ("fmu_logging_on", ctypes.c_bool), ("temp_dir", ctypes.c_char_p),
                ("max_unpacked_bytes", ctypes.c_uint64), ("interface_type", ctypes.c_int),
                ("solver", ctypes.c_int), ("max_solver_step", ctypes.c_int64),
                # Every field, so that the library reads none beyond the struct.
                ("strict", ctypes.c_bool), ("event_mode_used", ctypes.c_bool),
                ("event_mode_where_declared", ctypes.c_bool),
                ("early_return_allowed", ctypes.c_bool),
                ("model_exchange_fallback", ctypes.c_bool),
                ("early_return_where_declared", ctypes.c_bool),
                ("apply_default_start_values", ctypes.c_bool)]


TIME_LIMIT_S = (2**63 - 1) / 1e9  # rtcosim_time_ns: about 292 years


class FmuInfo(ctypes.Structure):
    """rtcosim_fmu_info (fmu.h), field for field."""
    _fields_ = [("fmi_version", ctypes.c_int), ("fmi_version_text", ctypes.c_char_p),
                ("model_name", ctypes.c_char_p), ("instantiation_token", ctypes.c_char_p),
                ("description", ctypes.c_char_p), ("author", ctypes.c_char_p),
                ("version", ctypes.c_char_p), ("generation_tool", ctypes.c_char_p),
                ("generation_date", ctypes.c_char_p), ("model_identifier", ctypes.c_char_p),
                ("extracted_dir", ctypes.c_char_p), ("binary_path", ctypes.c_char_p),
                ("output_indices", ctypes.c_void_p), ("output_count", ctypes.c_size_t),
                ("interface_type", ctypes.c_int), ("state_count", ctypes.c_size_t),
                ("event_indicator_count", ctypes.c_size_t),
                ("output_dependencies_declared", ctypes.c_void_p),
                ("output_dependency_start", ctypes.c_void_p),
                ("output_dependencies", ctypes.c_void_p),
                ("model_description_warnings", ctypes.c_size_t),
                ("fmi1_kind", ctypes.c_char_p), ("negated_alias_count", ctypes.c_size_t),
                ("has_co_simulation", ctypes.c_bool), ("has_model_exchange", ctypes.c_bool),
                ("has_scheduled_execution", ctypes.c_bool),
                ("binary_built_from_sources", ctypes.c_bool)]


PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_double, ctypes.c_double)
STEP_FINISHED = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_double)
LOG_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p,
                               ctypes.c_char_p)
_STRINGS = ctypes.POINTER(ctypes.c_char_p)


class SimulateOptions(ctypes.Structure):
    """rtcosim_flat_simulate_options (flat.h)."""
    _fields_ = [("start_time", ctypes.c_char_p), ("stop_time", ctypes.c_char_p),
                ("output_interval", ctypes.c_char_p), ("tolerance", ctypes.c_double),
                ("model_exchange", ctypes.c_int), ("solver", ctypes.c_int),
                ("start_names", _STRINGS), ("start_values", _STRINGS),
                ("start_count", ctypes.c_size_t),
                ("input_csv", ctypes.c_char_p), ("input_csv_size", ctypes.c_size_t),
                ("output", _STRINGS), ("output_count", ctypes.c_size_t),
                ("record_every", ctypes.c_uint32),
                ("progress", PROGRESS), ("progress_context", ctypes.c_void_p),
                ("step_finished", STEP_FINISHED), ("step_context", ctypes.c_void_p),
                ("timeout", ctypes.c_double), ("fmu_logging", ctypes.c_int),
                ("interrupt", ctypes.POINTER(ctypes.c_int)),
                ("strict", ctypes.c_int), ("log_fmi_calls", ctypes.c_int),
                ("event_mode", ctypes.c_int), ("input_file", ctypes.c_char_p),
                ("no_event_rows", ctypes.c_int), ("stop_time_not_set", ctypes.c_int),
                ("initial_state_file", ctypes.c_char_p),
                ("initial_state", ctypes.c_char_p), ("initial_state_size", ctypes.c_size_t),
                ("input_column_inputs", _STRINGS), ("input_columns", _STRINGS),
                ("input_column_count", ctypes.c_size_t),
                ("apply_default_start_values", ctypes.c_int)]


class SystemOptions(ctypes.Structure):
    """rtcosim_flat_system_options (flat.h)."""
    _fields_ = [("start_time", ctypes.c_char_p), ("stop_time", ctypes.c_char_p),
                ("step_size", ctypes.c_char_p), ("output_interval", ctypes.c_char_p),
                ("order", ctypes.c_int), ("coupling", ctypes.c_int), ("correction", ctypes.c_int),
                ("step_control", ctypes.c_int), ("threads", ctypes.c_int),
                ("parameter_sets", _STRINGS), ("parameter_set_count", ctypes.c_size_t),
                ("start_names", _STRINGS), ("start_values", _STRINGS),
                ("start_count", ctypes.c_size_t),
                ("output", _STRINGS), ("output_count", ctypes.c_size_t),
                ("progress", PROGRESS), ("progress_context", ctypes.c_void_p),
                ("real_time", ctypes.c_bool), ("virtual_clock", ctypes.c_bool),
                ("output_file", ctypes.c_char_p),
                ("rt_names", _STRINGS), ("rt_values", _STRINGS), ("rt_count", ctypes.c_size_t),
                ("input_file", ctypes.c_char_p),
                ("input_column_inputs", _STRINGS), ("input_columns", _STRINGS),
                ("input_column_count", ctypes.c_size_t),
                ("interrupt", ctypes.POINTER(ctypes.c_int))]


class Column(ctypes.Structure):
    """rtcosim_column (results.h)."""
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("unit", ctypes.c_char_p),
                ("description", ctypes.c_char_p), ("parameter", ctypes.c_bool)]


class RecorderOptions(ctypes.Structure):
    """rtcosim_recorder_options (results.h)."""
    _fields_ = [("path", ctypes.c_char_p), ("columns", ctypes.POINTER(Column)),
                ("column_count", ctypes.c_size_t), ("record_every", ctypes.c_uint32),
                ("writer_thread", ctypes.c_bool), ("drop_when_full", ctypes.c_bool),
                ("ring_rows", ctypes.c_size_t), ("buffer_bytes", ctypes.c_size_t),
                ("csv_units", ctypes.c_bool), ("max_string_bytes", ctypes.c_size_t),
                ("start_ns", ctypes.c_int64), ("whole_text", ctypes.c_bool)]


class CompareOptions(ctypes.Structure):
    """rtcosim_compare_options (results.h)."""
    _fields_ = [("variables", _STRINGS), ("variable_count", ctypes.c_size_t),
                ("rtol", ctypes.c_double), ("atol", ctypes.c_double),
                ("range_tol", ctypes.c_double), ("time_tol", ctypes.c_double),
                ("from_", ctypes.c_double), ("to", ctypes.c_double),
                ("fmi_cross_check", ctypes.c_bool),
                ("exclude", _STRINGS), ("exclude_count", ctypes.c_size_t)]


class CompareVariable(ctypes.Structure):
    """rtcosim_compare_variable (results.h)."""
    _fields_ = [("name", ctypes.c_char_p), ("missing", ctypes.c_bool),
                ("differs", ctypes.c_bool), ("checked", ctypes.c_size_t),
                ("outside", ctypes.c_size_t), ("first_outside_time", ctypes.c_double),
                ("max_abs_diff", ctypes.c_double), ("max_abs_diff_time", ctypes.c_double),
                ("max_rel_diff", ctypes.c_double), ("ref_range", ctypes.c_double)]


class CompareResult(ctypes.Structure):
    """rtcosim_compare_result (results.h)."""
    _fields_ = [("ref_rows", ctypes.c_size_t), ("act_rows", ctypes.c_size_t),
                ("ref_start", ctypes.c_double), ("ref_stop", ctypes.c_double),
                ("act_start", ctypes.c_double), ("act_stop", ctypes.c_double),
                ("from_", ctypes.c_double), ("to", ctypes.c_double),
                ("span_short", ctypes.c_bool), ("extra_in_actual", ctypes.c_size_t),
                ("empty_in_reference", ctypes.c_size_t),
                ("variable_count", ctypes.c_size_t), ("differing", ctypes.c_size_t),
                ("variables", ctypes.POINTER(CompareVariable)),
                ("excluded", ctypes.c_size_t)]


def strings(items):
    """A C array of UTF-8 strings (kept alive by the returned object) and its length;
    a str's undecodable bytes (surrogate escapes, as os.fsdecode and the names read
    back from a file that is not UTF-8 hold them) go back as they were."""
    items = [s.encode("utf-8", "surrogateescape") if isinstance(s, str) else bytes(s)
             for s in items]
    array = (ctypes.c_char_p * (len(items) + 1))(*items)
    return ctypes.cast(array, _STRINGS), len(items), array


def _load():
    candidates = []
    if os.environ.get("RTCOSIM_LIBRARY"):
        candidates.append(os.environ["RTCOSIM_LIBRARY"])
    if getattr(_config, "LIBRARY", None):
        candidates.append(_config.LIBRARY)
    candidates.append("librtcosim.so.0")
    problems = []
    for path in candidates:
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            problems.append(str(e))
    raise ImportError("rtcosim: cannot load librtcosim (set RTCOSIM_LIBRARY to its path): "
                      + "; ".join(problems))


lib = _load()

_P = ctypes.c_void_p
_E = ctypes.POINTER(ErrorStruct)
_SIGNATURES = {
    "rtcosim_fmu_load": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(FmuOptions),
                                        ctypes.POINTER(_P), _E]),
    "rtcosim_fmu_describe": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(FmuOptions),
                                            ctypes.POINTER(_P), _E]),
    "rtcosim_fmu_platforms": (ctypes.c_size_t, [ctypes.c_char_p, ctypes.c_char_p,
                                                ctypes.c_size_t]),
    "rtcosim_fmu_info_of": (ctypes.POINTER(FmuInfo), [_P]),
    "rtcosim_component_free": (None, [_P]),
    "rtcosim_component_description": (ctypes.POINTER(ComponentDesc), [_P]),
    "rtcosim_type_name": (ctypes.c_char_p, [ctypes.c_int]),
    "rtcosim_causality_name": (ctypes.c_char_p, [ctypes.c_int]),
    "rtcosim_flat_simulate": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(SimulateOptions),
                                             ctypes.POINTER(_P), _E]),
    "rtcosim_flat_system_run": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(SystemOptions),
                                               ctypes.POINTER(_P), _E]),
    "rtcosim_flat_read_result": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P), _E]),
    "rtcosim_flat_read_result_select": (ctypes.c_int, [ctypes.c_char_p, _STRINGS, ctypes.c_size_t,
                                                       ctypes.POINTER(_P), _E]),
    "rtcosim_flat_read_result_columns": (ctypes.c_int, [ctypes.c_char_p, _STRINGS,
                                                        ctypes.c_size_t, ctypes.POINTER(_P), _E]),
    "rtcosim_result_columns_rows": (ctypes.c_size_t, [_P]),
    "rtcosim_result_columns_count": (ctypes.c_size_t, [_P]),
    "rtcosim_result_columns_name": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    "rtcosim_result_columns_unit": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    "rtcosim_result_columns_time": (ctypes.POINTER(ctypes.c_double), [_P]),
    "rtcosim_result_columns_values": (ctypes.POINTER(ctypes.c_double), [_P, ctypes.c_size_t]),
    "rtcosim_result_columns_release_rows": (None, [_P, ctypes.c_size_t]),
    "rtcosim_result_columns_text_left_out": (ctypes.c_size_t, [_P]),
    "rtcosim_result_columns_not_numbers": (ctypes.c_size_t, [_P, ctypes.c_size_t]),
    "rtcosim_result_columns_text_name": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    "rtcosim_result_columns_free": (None, [_P]),
    "rtcosim_rows_count": (ctypes.c_size_t, [_P]),
    "rtcosim_rows_column_count": (ctypes.c_size_t, [_P]),
    "rtcosim_rows_column_name": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    "rtcosim_rows_column_type": (ctypes.c_int, [_P, ctypes.c_size_t]),
    "rtcosim_rows_column_unit": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    "rtcosim_rows_column_description": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    "rtcosim_rows_column_parameter": (ctypes.c_bool, [_P, ctypes.c_size_t]),
    "rtcosim_recorder_open": (ctypes.c_int, [ctypes.POINTER(RecorderOptions), ctypes.POINTER(_P),
                                             _E]),
    "rtcosim_recorder_push_row_always": (ctypes.c_int, [_P, ctypes.c_int64, ctypes.c_void_p, _E]),
    "rtcosim_recorder_close": (ctypes.c_int, [_P, ctypes.c_void_p, _E]),
    "rtcosim_log_set_level": (None, [ctypes.c_int]),
    "rtcosim_log_get_level": (ctypes.c_int, []),
    "rtcosim_rows_times": (ctypes.POINTER(ctypes.c_int64), [_P]),
    "rtcosim_rows_values": (ctypes.POINTER(Value), [_P]),
    "rtcosim_rows_stat_count": (ctypes.c_size_t, [_P]),
    "rtcosim_rows_stat_name": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    "rtcosim_rows_stat_value": (ctypes.c_double, [_P, ctypes.c_size_t]),
    "rtcosim_rows_free": (None, [_P]),
    "rtcosim_rows_release_rows": (None, [_P, ctypes.c_size_t]),
    "rtcosim_log_set_handler": (None, [LOG_HANDLER, ctypes.c_void_p]),
    "rtcosim_results_compare": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p,
                                               ctypes.POINTER(CompareOptions),
                                               ctypes.POINTER(ctypes.POINTER(CompareResult)), _E]),
    "rtcosim_compare_result_free": (None, [ctypes.POINTER(CompareResult)]),
    "rtcosim_example_fmu_path": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p,
                                                ctypes.c_size_t, _E]),
}
for _name, (_res, _args) in _SIGNATURES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args
