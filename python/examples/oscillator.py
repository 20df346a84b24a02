#!/usr/bin/python3
"""The two-mass oscillator (examples/oscillator) co-simulated with and without
the energy-preserving coupling correction, each compared with the exact
solution exp(A t) z0 of the coupled linear system; plotted with matplotlib
when it is installed (Debian python3-matplotlib), else the errors are printed.

    /usr/bin/python3 oscillator.py [path/to/oscillator.ssd] [--step 1e-3] [--plot out.png]
"""
import argparse
import os
import xml.etree.ElementTree as ET

import numpy as np

import rtcosim

HERE = os.path.dirname(os.path.abspath(__file__))
SSV = "{http://ssp-standard.org/SSP1/SystemStructureParameterValues}"
SSC = "{http://ssp-standard.org/SSP1/SystemStructureCommon}"


def read_parameters(ssv_path):
    """{'mass1.m': 1.0, ...} from an SSP parameter set."""
    root = ET.parse(ssv_path).getroot()
    return {p.get("name"): float(p.find(SSV + "Real").get("value"))
            for p in root.iter(SSV + "Parameter")}


def exact_solution(p, t):
    """z(t) = exp(A t) z0 for z = (x1, v1, x2, v2):
    m1 x1'' = -k1 x1 - c1 x1' + kc (x2 - x1) + cc (v2 - v1),
    m2 x2'' = -k2 x2 - c2 x2' - kc (x2 - x1) - cc (v2 - v1)."""
    m1, k1, c1 = p["mass1.m"], p["mass1.k"], p["mass1.c"]
    m2, k2, c2, kc, cc = p["mass2.m"], p["mass2.k"], p["mass2.c"], p["mass2.kc"], p["mass2.cc"]
    A = np.array([[0, 1, 0, 0],
                  [-(k1 + kc) / m1, -(c1 + cc) / m1, kc / m1, cc / m1],
                  [0, 0, 0, 1],
                  [kc / m2, cc / m2, -(k2 + kc) / m2, -(c2 + cc) / m2]])
    z0 = np.array([p["mass1.x0"], p["mass1.v0"], p["mass2.x0"], p["mass2.v0"]])
    w, V = np.linalg.eig(A)
    c = np.linalg.solve(V, z0)
    z = (V[None, :, :] * (c * np.exp(np.outer(t, w)))[:, None, :]).sum(axis=2)
    return z.real  # columns x1, v1, x2, v2


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    # Installed: <prefix>/share/rtcosim/{python-examples,examples/oscillator};
    # in the source tree: python/examples and examples/oscillator.
    candidates = [os.path.join(HERE, "..", "examples", "oscillator", "oscillator.ssd"),
                  os.path.join(HERE, "..", "..", "examples", "oscillator", "oscillator.ssd")]
    default_ssd = next((os.path.normpath(c) for c in candidates if os.path.exists(c)),
                       os.path.normpath(candidates[0]))
    parser.add_argument("ssd", nargs="?", default=default_ssd)
    parser.add_argument("--step", type=float, default=1e-3, help="macro step in s")
    parser.add_argument("--stop", type=float, default=2.0, help="stop time in s")
    parser.add_argument("--plot", help="write the figure to this file instead of showing it")
    args = parser.parse_args()
    if not os.path.exists(args.ssd):
        parser.error(f"{args.ssd}: no such file (give the path of examples/oscillator/oscillator.ssd)")

    params = read_parameters(os.path.join(os.path.dirname(args.ssd), "case1.ssv"))
    system = rtcosim.System(args.ssd)
    runs = {c: system.run(stop_time=args.stop, step_size=args.step, coupling="zoh",
                          order="jacobi", correction=c) for c in ("none", "energy")}
    t = runs["none"]["time"]
    exact = exact_solution(params, t)
    for c, r in runs.items():
        print(f"correction {c:6s}: max |x1 - exact| = {np.max(np.abs(r['mass1.x'] - exact[:, 0])):.6g} m")
    try:
        import matplotlib
        if args.plot:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (apt-get install python3-matplotlib): no plot")
        return
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    ax1.plot(t, exact[:, 0], "k-", label="exact")
    for c, r in runs.items():
        ax1.plot(t, r["mass1.x"], "--", label=f"correction {c}")
        ax2.plot(t, r["mass1.x"] - exact[:, 0], label=f"correction {c}")
    ax1.set_ylabel("mass1.x / m")
    ax2.set_ylabel("error / m")
    ax2.set_xlabel("time / s")
    ax1.legend()
    ax2.legend()
    fig.suptitle(f"Two-mass oscillator, ZOH Jacobi coupling, H = {args.step:g} s")
    if args.plot:
        fig.savefig(args.plot)
        print("wrote", args.plot)
    else:
        plt.show()


if __name__ == "__main__":
    main()
