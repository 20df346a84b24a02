"""Keyword checking for the package's entry points: an unknown keyword is a
TypeError that names it and suggests the closest accepted one (Python's own
message suggests nothing), and FMPy keywords rtcosim does not implement say
so instead of being silently dropped."""
import difflib
import functools
import inspect

# FMPy's simulate_fmu keywords with no counterpart here, and why.
_FMPY_UNSUPPORTED = {
    "use_source_code": "rtcosim runs the FMU's binary; build FMUs from source with their own build",
    "apply_default_start_values": "the FMU applies its own start values",
    "model_description": "rtcosim reads the modelDescription.xml from the FMU itself",
    "visible": "FMUs are instantiated not visible",
    "early_return_allowed": "not offered by simulate(); use the CLI's --early-return-allowed",
    "reference": "plot_result draws one result; call it with the fields of both",
    "events": "event rows are in the result itself (simulate(record_events=True))",
}


def checked_keywords(fn):
    """Wrap fn(..., **kwargs)-less functions: calls with unknown keywords
    raise TypeError naming each with a did-you-mean suggestion."""
    accepted = [name for name, p in inspect.signature(fn).parameters.items()
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and name != "self"]
    qualname = fn.__qualname__

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        unknown = [k for k in kwargs if k not in accepted]
        if unknown:
            problems = []
            for k in unknown:
                if k in _FMPY_UNSUPPORTED:
                    problems.append(f"'{k}' (FMPy's, not supported: {_FMPY_UNSUPPORTED[k]})")
                    continue
                close = difflib.get_close_matches(k, accepted, n=1, cutoff=0.6)
                problems.append(f"'{k}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
            raise TypeError(f"{qualname}() got unknown keyword argument"
                            f"{'s' if len(unknown) > 1 else ''} " + ", ".join(problems))
        return fn(*args, **kwargs)

    wrapper.__signature__ = inspect.signature(fn)
    return wrapper
