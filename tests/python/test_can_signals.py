"""`rtcosim run --can-signals`: components with plain signal ports talking
over a CAN bus through a DBC. Truth: the run's own CSV columns of the
sender (the Dahlquist FMU's x) turned into what the receiver must see by
the DBC's rules written out here (raw = round(x / 0.01), a frame every 10 ms
from 0 carrying the value of its communication point, Jacobi's one-step
delays), and python-can's reader of the bus log."""
import csv
import re
import os
import subprocess

import can
import pytest

DBC = """VERSION ""

BU_: A B

BO_ 256 Speed: 2 A
 SG_ x : 0|16@1- (0.01,0) [-327.68|327.67] "" B

BO_ 512 Echo: 2 B
 SG_ Float64_continuous_output : 0|16@1- (0.01,0) [-327.68|327.67] "" A

BA_DEF_ BO_ "GenMsgCycleTime" INT 0 10000;
BA_ "GenMsgCycleTime" BO_ 256 10;
BA_ "GenMsgCycleTime" BO_ 512 5;
"""


def q(v):
    return round(v / 0.01) * 0.01


@pytest.fixture
def run(cli, tmpdir_private):
    from conftest import fmu, write_ssd
    dbc = os.path.join(tmpdir_private, "s.dbc")
    with open(dbc, "w") as f:
        f.write(DBC)
    ssd = write_ssd(os.path.join(tmpdir_private, "s.ssd"),
                    {"a": fmu("Dahlquist-fmi2.fmu"), "b": fmu("Feedthrough-fmi2.fmu")})

    def go(spec=None, extra=(), name="out.csv"):
        out = os.path.join(tmpdir_private, name)
        log = os.path.join(tmpdir_private, "bus.blf")
        spec = spec or "can0=" + dbc + ",A=a,B=b,b.Float64_continuous_input=Speed.x"
        r = subprocess.run([cli, "run", ssd, "--step-size", "0.001", "--stop-time", "0.1",
                            "-o", out, "--can-log", log, "--can-signals", spec] + list(extra),
                           capture_output=True, text=True)
        rows = []
        if r.returncode == 0:
            with open(out) as f:
                rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
        return r, rows, log
    return go


def test_signals_cross_the_bus_quantized_and_late(run):
    r, rows, log = run()
    assert r.returncode == 0, r.stderr
    x = {round(row["time"] * 1000): row["a.x"] for row in rows}
    for row in rows:
        ms = round(row["time"] * 1000)
        # the bus output: the last Speed frame that ended by this row (frames
        # at 10 ms steps end 0.13 ms later, seen at the next row)
        k = (ms - 1) // 10 * 10
        assert row["can0.rx.Speed.x"] == (pytest.approx(q(x[k]), abs=1e-12) if ms >= 1 else 0)
        # b's input one step later, its output the same step
        k = (ms - 2) // 10 * 10
        assert row["b.Float64_continuous_output"] == (
            pytest.approx(q(x[k]), abs=1e-12) if ms >= 2 else 0)
    # b's output goes back as Echo (every 5 ms, found by name): the value b
    # had at the frame's communication point
    b = {round(row["time"] * 1000): row["b.Float64_continuous_output"] for row in rows}
    for row in rows:
        ms = round(row["time"] * 1000)
        k = (ms - 1) // 5 * 5
        assert row["can0.rx.Echo.Float64_continuous_output"] == (
            pytest.approx(q(b[k]), abs=1e-12) if ms >= 1 else 0)
    # the bus log: Speed at 0, 10, ..., 90 ms and Echo at 0, 5, ..., 95 ms
    # (messages due at the stop time belong to a step that is not taken)
    frames = list(can.BLFReader(log))
    speed = [m for m in frames if m.arbitration_id == 0x100]
    assert len(speed) == 10 and len([m for m in frames if m.arbitration_id == 0x200]) == 20
    for i, m in enumerate(speed):
        raw = int.from_bytes(m.data, "little", signed=True)
        assert raw == round(x[10 * i] / 0.01)
        assert 0.010 * i < m.timestamp < 0.010 * i + 0.0004
    assert "can bus can0: 500000 bit/s (DBC signals), 30 frames" in r.stdout


def test_a_real_time_run_gives_the_offline_rows(run):
    """`--real-time` (on a virtual clock: the paced loop without waiting):
    the bus steps on the paced thread and the results, the bus's own rx
    columns included, equal the offline run's row for row."""
    r, offline, _ = run(name="offline.csv")
    assert r.returncode == 0, r.stderr
    r, paced, _ = run(extra=["--real-time", "--virtual-clock"], name="paced.csv")
    assert r.returncode == 0, r.stderr
    assert paced == offline and "can0.rx.Speed.x" in paced[0]
    assert "can bus can0: 500000 bit/s (DBC signals), 30 frames" in r.stdout


def test_bad_signal_bus_options_get_one_line(run, tmpdir_private):
    dbc = "can1=" + os.path.join(tmpdir_private, "s.dbc")
    for spec, want in (
            ("can1=/nonexistent.dbc,A=a", "/nonexistent.dbc"),
            (dbc + ",A=zz", "no component 'zz'"),
            (dbc + ",A=a,b.nope=Speed.x", "no variable 'b.nope'"),
            (dbc + ",A=a,b.Float64_discrete_input=Speed.y", "no signal 'Speed.y'"),
            (dbc + ",B=b,a.x=Speed.x", "a.x sends Speed.x, a message of node A: map A=a"),
            (dbc, "no NODE=COMP")):
        r, _, _ = run(spec)
        assert r.returncode != 0 and r.stderr.count("\n") == 1 and want in r.stderr, r.stderr


def test_a_recorded_log_drives_a_component_through_the_dbc(cli, tmpdir_private):
    """`--can-signals can0=vehicle.dbc,replay:LOG,b.IN=EngineData.EngineSpeed`:
    the 4-ECU vehicle's recorded BLF played onto the signal bus reaches the
    Feedthrough FMU's input as the DBC decodes it. Truth: python-can's
    frames of the log, EngineSpeed decoded by hand (bytes 0-1 little-endian
    x 0.25, as examples/ecus/vehicle.c packs it); a frame's value is on the
    bus's output from the first row at or after its end and in b's output a
    step later."""
    from conftest import fmu, source, write_ssd
    log = os.path.join(tmpdir_private, "rec.blf")
    subprocess.run([cli, "events", "--ecus", "4", "--stop-time", "0.2", "--quiet", "--can-log",
                    log], check=True, capture_output=True)
    ssd = write_ssd(os.path.join(tmpdir_private, "f.ssd"), {"b": fmu("Feedthrough-fmi2.fmu")})
    out = os.path.join(tmpdir_private, "out.csv")
    dbc = source("examples", "ecus", "vehicle.dbc")
    r = subprocess.run([cli, "run", ssd, "--step-size", "0.001", "--stop-time", "0.15", "-o", out,
                        "--can-signals", f"can0={dbc},replay:{log},"
                        "b.Float64_continuous_input=EngineData.EngineSpeed"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    frames = [(round(m.timestamp * 1e9), int.from_bytes(m.data[0:2], "little") * 0.25)
              for m in can.BLFReader(log) if m.arbitration_id == 0x0C0]
    with open(out) as f:
        rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    assert len(rows) == 151 and len(frames) > 10

    def last_before(ns):
        seen = [v for end, v in frames if end <= ns]
        return seen[-1] if seen else 0.0
    for row in rows:
        ns = round(row["time"] * 1e9)
        assert row["can0.rx.EngineData.EngineSpeed"] == last_before(ns)
        assert row["b.Float64_continuous_output"] == last_before(ns - 1_000_000)
    assert "can bus can0: replay of 54 frames from log time 0.000000 s" in r.stdout


# raw x 0.01, the scaling of both matrices below
HUNDREDTH = """<COMPU-METHOD><SHORT-NAME>Hundredth</SHORT-NAME><CATEGORY>LINEAR</CATEGORY><COMPU-INTERNAL-TO-PHYS>
<COMPU-SCALES><COMPU-SCALE><COMPU-RATIONAL-COEFFS><COMPU-NUMERATOR><V>0</V><V>0.01</V>
</COMPU-NUMERATOR><COMPU-DENOMINATOR><V>1</V></COMPU-DENOMINATOR></COMPU-RATIONAL-COEFFS>
</COMPU-SCALE></COMPU-SCALES></COMPU-INTERNAL-TO-PHYS></COMPU-METHOD>
"""


MUX_ARXML = """<?xml version="1.0"?>
<AUTOSAR xmlns="http://autosar.org/schema/r4.0"><AR-PACKAGES>
<AR-PACKAGE><SHORT-NAME>C</SHORT-NAME><ELEMENTS><CAN-CLUSTER><SHORT-NAME>CAN</SHORT-NAME>
<CAN-CLUSTER-VARIANTS><CAN-CLUSTER-CONDITIONAL><PHYSICAL-CHANNELS><CAN-PHYSICAL-CHANNEL>
<SHORT-NAME>CH</SHORT-NAME><FRAME-TRIGGERINGS><CAN-FRAME-TRIGGERING><SHORT-NAME>T</SHORT-NAME>
<FRAME-PORT-REFS><FRAME-PORT-REF DEST="FRAME-PORT">/E/A/Conn/Out</FRAME-PORT-REF></FRAME-PORT-REFS>
<FRAME-REF DEST="CAN-FRAME">/F/Mux</FRAME-REF><CAN-ADDRESSING-MODE>STANDARD</CAN-ADDRESSING-MODE>
<IDENTIFIER>291</IDENTIFIER></CAN-FRAME-TRIGGERING></FRAME-TRIGGERINGS></CAN-PHYSICAL-CHANNEL>
</PHYSICAL-CHANNELS></CAN-CLUSTER-CONDITIONAL></CAN-CLUSTER-VARIANTS></CAN-CLUSTER></ELEMENTS></AR-PACKAGE>
<AR-PACKAGE><SHORT-NAME>E</SHORT-NAME><ELEMENTS><ECU-INSTANCE><SHORT-NAME>A</SHORT-NAME><CONNECTORS>
<CAN-COMMUNICATION-CONNECTOR><SHORT-NAME>Conn</SHORT-NAME><ECU-COMM-PORT-INSTANCES><FRAME-PORT>
<SHORT-NAME>Out</SHORT-NAME><COMMUNICATION-DIRECTION>OUT</COMMUNICATION-DIRECTION></FRAME-PORT>
</ECU-COMM-PORT-INSTANCES></CAN-COMMUNICATION-CONNECTOR></CONNECTORS></ECU-INSTANCE></ELEMENTS></AR-PACKAGE>
<AR-PACKAGE><SHORT-NAME>F</SHORT-NAME><ELEMENTS><CAN-FRAME><SHORT-NAME>Mux</SHORT-NAME>
<FRAME-LENGTH>8</FRAME-LENGTH><PDU-TO-FRAME-MAPPINGS><PDU-TO-FRAME-MAPPING><SHORT-NAME>M</SHORT-NAME>
<PDU-REF DEST="MULTIPLEXED-I-PDU">/P/MuxPdu</PDU-REF><START-POSITION>0</START-POSITION>
</PDU-TO-FRAME-MAPPING></PDU-TO-FRAME-MAPPINGS></CAN-FRAME></ELEMENTS></AR-PACKAGE>
<AR-PACKAGE><SHORT-NAME>P</SHORT-NAME><ELEMENTS>
<MULTIPLEXED-I-PDU><SHORT-NAME>MuxPdu</SHORT-NAME><LENGTH>8</LENGTH><DYNAMIC-PARTS><DYNAMIC-PART>
<DYNAMIC-PART-ALTERNATIVES>
<DYNAMIC-PART-ALTERNATIVE><I-PDU-REF DEST="I-SIGNAL-I-PDU">/P/AltY</I-PDU-REF>
<INITIAL-DYNAMIC-PART>false</INITIAL-DYNAMIC-PART><SELECTOR-FIELD-CODE>1</SELECTOR-FIELD-CODE>
</DYNAMIC-PART-ALTERNATIVE>
<DYNAMIC-PART-ALTERNATIVE><I-PDU-REF DEST="I-SIGNAL-I-PDU">/P/AltX</I-PDU-REF>
<INITIAL-DYNAMIC-PART>true</INITIAL-DYNAMIC-PART><SELECTOR-FIELD-CODE>2</SELECTOR-FIELD-CODE>
</DYNAMIC-PART-ALTERNATIVE></DYNAMIC-PART-ALTERNATIVES></DYNAMIC-PART></DYNAMIC-PARTS>
<SELECTOR-FIELD-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</SELECTOR-FIELD-BYTE-ORDER>
<SELECTOR-FIELD-LENGTH>4</SELECTOR-FIELD-LENGTH>
<SELECTOR-FIELD-START-POSITION>0</SELECTOR-FIELD-START-POSITION>
<STATIC-PARTS><STATIC-PART><I-PDU-REF DEST="I-SIGNAL-I-PDU">/P/Static</I-PDU-REF></STATIC-PART>
</STATIC-PARTS></MULTIPLEXED-I-PDU>
<I-SIGNAL-I-PDU><SHORT-NAME>Static</SHORT-NAME><LENGTH>8</LENGTH><I-PDU-TIMING-SPECIFICATIONS>
<I-PDU-TIMING><TRANSMISSION-MODE-DECLARATION><TRANSMISSION-MODE-TRUE-TIMING><CYCLIC-TIMING>
<TIME-PERIOD><VALUE>0.01</VALUE></TIME-PERIOD></CYCLIC-TIMING></TRANSMISSION-MODE-TRUE-TIMING>
</TRANSMISSION-MODE-DECLARATION></I-PDU-TIMING></I-PDU-TIMING-SPECIFICATIONS>
<I-SIGNAL-TO-PDU-MAPPINGS><I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>a</SHORT-NAME>
<I-SIGNAL-REF DEST="I-SIGNAL">/S/Alive</I-SIGNAL-REF>
<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>
<START-POSITION>4</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING></I-SIGNAL-TO-PDU-MAPPINGS>
</I-SIGNAL-I-PDU>
<I-SIGNAL-I-PDU><SHORT-NAME>AltY</SHORT-NAME><LENGTH>8</LENGTH><I-SIGNAL-TO-PDU-MAPPINGS>
<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>y</SHORT-NAME><I-SIGNAL-REF DEST="I-SIGNAL">/S/y</I-SIGNAL-REF>
<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>
<START-POSITION>8</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING></I-SIGNAL-TO-PDU-MAPPINGS>
</I-SIGNAL-I-PDU>
<I-SIGNAL-I-PDU><SHORT-NAME>AltX</SHORT-NAME><LENGTH>8</LENGTH><I-SIGNAL-TO-PDU-MAPPINGS>
<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>x</SHORT-NAME><I-SIGNAL-REF DEST="I-SIGNAL">/S/x</I-SIGNAL-REF>
<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>
<START-POSITION>8</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING></I-SIGNAL-TO-PDU-MAPPINGS>
</I-SIGNAL-I-PDU></ELEMENTS></AR-PACKAGE>
<AR-PACKAGE><SHORT-NAME>S</SHORT-NAME><ELEMENTS>
<I-SIGNAL><SHORT-NAME>Alive</SHORT-NAME><LENGTH>4</LENGTH></I-SIGNAL>
<I-SIGNAL><SHORT-NAME>y</SHORT-NAME><LENGTH>16</LENGTH></I-SIGNAL>
<I-SIGNAL><SHORT-NAME>x</SHORT-NAME><LENGTH>16</LENGTH><NETWORK-REPRESENTATION-PROPS>
<SW-DATA-DEF-PROPS-VARIANTS><SW-DATA-DEF-PROPS-CONDITIONAL>
<BASE-TYPE-REF DEST="SW-BASE-TYPE">/S/s16</BASE-TYPE-REF>
<COMPU-METHOD-REF DEST="COMPU-METHOD">/S/Hundredth</COMPU-METHOD-REF>
</SW-DATA-DEF-PROPS-CONDITIONAL></SW-DATA-DEF-PROPS-VARIANTS></NETWORK-REPRESENTATION-PROPS>
</I-SIGNAL>
<SW-BASE-TYPE><SHORT-NAME>s16</SHORT-NAME><BASE-TYPE-ENCODING>2C</BASE-TYPE-ENCODING></SW-BASE-TYPE>
""" + HUNDREDTH + """</ELEMENTS></AR-PACKAGE></AR-PACKAGES></AUTOSAR>
"""


def test_a_multiplexed_pdu_of_an_arxml_goes_out_at_its_initial_selector(cli, tmpdir_private):
    """An AUTOSAR MULTIPLEXED-I-PDU (a 4-bit selector at bit 0, the static
    part's Alive at 4, alternative 1 carrying y and alternative 2, the
    initial one, x at bit 8 as 16-bit two's complement x 0.01): the
    Dahlquist FMU as ECU A sends x; the selector input left alone starts at
    the initial code 2, so every frame carries x. Truth: python-can's frames
    of the bus's BLF, the bytes read by hand (byte 0 = 0x02, bytes 1-2 =
    round(x / 0.01) of the sender's CSV column at the frame's cycle start,
    every 10 ms), and the Feedthrough FMU's input as those frames say."""
    log, rows = run_matrix(cli, tmpdir_private, MUX_ARXML, "A=a,b.Float64_continuous_input=Mux.x")
    x_at = {round(row["time"] * 1000): row["a.x"] for row in rows}
    frames = [m for m in can.BLFReader(log) if m.arbitration_id == 291]
    assert len(frames) == 5  # 0, 10, ..., 40 ms (the one due at 50 ms is past the run)
    for k, m in enumerate(frames):
        assert m.data[0] == 0x02  # selector 2, Alive 0
        raw = int.from_bytes(m.data[1:3], "little", signed=True)
        assert raw == round(x_at[10 * k] / 0.01)
    # the receiver: the last frame ended by the row's time, a Jacobi step later
    ends = [(round(m.timestamp * 1e9), int.from_bytes(m.data[1:3], "little", signed=True) * 0.01)
            for m in frames]
    for row in rows:
        ns = round(row["time"] * 1e9) - 1_000_000
        seen = [v for end, v in ends if end <= ns]
        assert row["b.Float64_continuous_output"] == pytest.approx(seen[-1] if seen else 0.0,
                                                                   abs=1e-12)


CONTAINER_ARXML = """<?xml version="1.0"?>
<AUTOSAR xmlns="http://autosar.org/schema/r4.0"><AR-PACKAGES>
<AR-PACKAGE><SHORT-NAME>C</SHORT-NAME><ELEMENTS><CAN-CLUSTER><SHORT-NAME>CAN</SHORT-NAME>
<CAN-CLUSTER-VARIANTS><CAN-CLUSTER-CONDITIONAL><PHYSICAL-CHANNELS><CAN-PHYSICAL-CHANNEL>
<SHORT-NAME>CH</SHORT-NAME><FRAME-TRIGGERINGS><CAN-FRAME-TRIGGERING><SHORT-NAME>T</SHORT-NAME>
<FRAME-REF DEST="CAN-FRAME">/F/Box</FRAME-REF><CAN-ADDRESSING-MODE>STANDARD</CAN-ADDRESSING-MODE>
<CAN-FRAME-TX-BEHAVIOR>CAN-FD</CAN-FRAME-TX-BEHAVIOR><IDENTIFIER>768</IDENTIFIER>
</CAN-FRAME-TRIGGERING></FRAME-TRIGGERINGS><PDU-TRIGGERINGS>
<PDU-TRIGGERING><SHORT-NAME>PA</SHORT-NAME><I-PDU-REF DEST="I-SIGNAL-I-PDU">/P/Wheel</I-PDU-REF></PDU-TRIGGERING>
<PDU-TRIGGERING><SHORT-NAME>PB</SHORT-NAME><I-PDU-REF DEST="I-SIGNAL-I-PDU">/P/Gear</I-PDU-REF></PDU-TRIGGERING>
</PDU-TRIGGERINGS></CAN-PHYSICAL-CHANNEL>
</PHYSICAL-CHANNELS></CAN-CLUSTER-CONDITIONAL></CAN-CLUSTER-VARIANTS></CAN-CLUSTER></ELEMENTS></AR-PACKAGE>
<AR-PACKAGE><SHORT-NAME>F</SHORT-NAME><ELEMENTS><CAN-FRAME><SHORT-NAME>Box</SHORT-NAME>
<FRAME-LENGTH>20</FRAME-LENGTH><PDU-TO-FRAME-MAPPINGS><PDU-TO-FRAME-MAPPING><SHORT-NAME>M</SHORT-NAME>
<PDU-REF DEST="CONTAINER-I-PDU">/P/Box</PDU-REF><START-POSITION>0</START-POSITION>
</PDU-TO-FRAME-MAPPING></PDU-TO-FRAME-MAPPINGS></CAN-FRAME></ELEMENTS></AR-PACKAGE>
<AR-PACKAGE><SHORT-NAME>P</SHORT-NAME><ELEMENTS>
<CONTAINER-I-PDU><SHORT-NAME>Box</SHORT-NAME><LENGTH>20</LENGTH><CONTAINED-PDU-TRIGGERING-REFS>
<CONTAINED-PDU-TRIGGERING-REF DEST="PDU-TRIGGERING">/C/CAN/CH/PA</CONTAINED-PDU-TRIGGERING-REF>
<CONTAINED-PDU-TRIGGERING-REF DEST="PDU-TRIGGERING">/C/CAN/CH/PB</CONTAINED-PDU-TRIGGERING-REF>
</CONTAINED-PDU-TRIGGERING-REFS><HEADER-TYPE>SHORT-HEADER</HEADER-TYPE></CONTAINER-I-PDU>
<I-SIGNAL-I-PDU><SHORT-NAME>Wheel</SHORT-NAME><CONTAINED-I-PDU-PROPS>
<HEADER-ID-SHORT-HEADER>4660</HEADER-ID-SHORT-HEADER></CONTAINED-I-PDU-PROPS><LENGTH>2</LENGTH>
<I-SIGNAL-TO-PDU-MAPPINGS><I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>s</SHORT-NAME>
<I-SIGNAL-REF DEST="I-SIGNAL">/S/Speed</I-SIGNAL-REF>
<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>
<START-POSITION>0</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING></I-SIGNAL-TO-PDU-MAPPINGS>
</I-SIGNAL-I-PDU>
<I-SIGNAL-I-PDU><SHORT-NAME>Gear</SHORT-NAME><CONTAINED-I-PDU-PROPS>
<HEADER-ID-SHORT-HEADER>86</HEADER-ID-SHORT-HEADER></CONTAINED-I-PDU-PROPS><LENGTH>1</LENGTH>
<I-SIGNAL-TO-PDU-MAPPINGS><I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>g</SHORT-NAME>
<I-SIGNAL-REF DEST="I-SIGNAL">/S/Selected</I-SIGNAL-REF>
<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>
<START-POSITION>0</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING></I-SIGNAL-TO-PDU-MAPPINGS>
</I-SIGNAL-I-PDU></ELEMENTS></AR-PACKAGE>
<AR-PACKAGE><SHORT-NAME>S</SHORT-NAME><ELEMENTS>
<I-SIGNAL><SHORT-NAME>Speed</SHORT-NAME><LENGTH>16</LENGTH><NETWORK-REPRESENTATION-PROPS>
<SW-DATA-DEF-PROPS-VARIANTS><SW-DATA-DEF-PROPS-CONDITIONAL>
<COMPU-METHOD-REF DEST="COMPU-METHOD">/S/Hundredth</COMPU-METHOD-REF>
</SW-DATA-DEF-PROPS-CONDITIONAL></SW-DATA-DEF-PROPS-VARIANTS></NETWORK-REPRESENTATION-PROPS>
</I-SIGNAL>
<I-SIGNAL><SHORT-NAME>Selected</SHORT-NAME><LENGTH>4</LENGTH></I-SIGNAL>
""" + HUNDREDTH + """</ELEMENTS></AR-PACKAGE></AR-PACKAGES></AUTOSAR>
"""


def assert_rows_follow_frames(rows, ends):
    """Each row's can0.rx.Wheel.Speed is the Speed of the last frame ended
    before the row's time (ends: [(end ns, speed)]; a step [t, t + h) takes
    the events before t + h), and the Feedthrough FMU's output one step
    later."""
    for row in rows:
        ns = round(row["time"] * 1e9)
        seen = [v for end, v in ends if end < ns]
        assert row["can0.rx.Wheel.Speed"] == pytest.approx(seen[-1] if seen else 0.0, abs=1e-12)
        seen_b = [v for end, v in ends if end < ns - 1_000_000]
        assert row["b.Float64_continuous_output"] == pytest.approx(seen_b[-1] if seen_b else 0.0,
                                                                   abs=1e-12)


def container_frame(parts):
    """A CAN FD container frame of 20 bytes: per part a short header (3-byte
    header id, 1-byte length, big-endian) and its bytes, then zeros."""
    data = b"".join(hid.to_bytes(3, "big") + bytes([len(p)]) + p for hid, p in parts)
    return data + bytes(20 - len(data))


def test_container_pdus_of_an_arxml_decode_and_reach_a_component(cli, tmpdir_private):
    """An AUTOSAR CONTAINER-I-PDU with short headers (Wheel: header id
    0x1234, Speed 16 bits x 0.01; Gear: 0x56, Selected 4 bits) in CAN FD
    frames whose parts come in either order, one with a header id the
    matrix lacks. Truth: the frames built here byte by byte. `can decode`
    gives each contained PDU's columns; replayed onto the signal bus, the
    Feedthrough FMU's input follows Wheel.Speed a step after each frame."""
    from conftest import fmu, write_ssd
    matrix = os.path.join(tmpdir_private, "box.arxml")
    with open(matrix, "w") as f:
        f.write(CONTAINER_ARXML)
    frames = [(0.0015, [(0x1234, (1234).to_bytes(2, "little")), (0x56, b"\x03")]),
              (0.011, [(0x56, b"\x04"), (0x777, b"\xff\xff"), (0x1234, (2500).to_bytes(2, "little"))]),
              (0.0212, [(0x1234, (10).to_bytes(2, "little"))])]
    log = os.path.join(tmpdir_private, "box.log")
    with open(log, "w") as f:
        for t, parts in frames:
            f.write(f"(0.{round(t * 1e6):06d}) can0 300##0{container_frame(parts).hex().upper()}\n")
    r = subprocess.run([cli, "can", "decode", log, "--dbc", matrix], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(r.stdout.splitlines()))
    assert [(row["can0.Wheel.Speed"], row["can0.Gear.Selected"]) for row in rows] == \
        [("12.34", "3"), ("25", "4"), ("0.1", "4")]
    assert "1 contained PDUs with header ids" in r.stderr
    out = subprocess.run([cli, "info", matrix], capture_output=True, text=True).stdout
    assert re.search(r"^0x300\s+Box\s+20 .*container of 2 PDUs, short headers, big-endian", out,
                     re.M), out
    assert re.search(r"^ h0x1234\s+Wheel\s+2 .*in Box$", out, re.M), out
    # the signal bus: the replayed frames' contained PDUs reach b's input
    ssd = write_ssd(os.path.join(tmpdir_private, "box.ssd"), {"b": fmu("Feedthrough-fmi2.fmu")})
    csv_out = os.path.join(tmpdir_private, "box.csv")
    r = subprocess.run([cli, "run", ssd, "--step-size", "0.001", "--stop-time", "0.03", "-o",
                        csv_out, "--can-signals",
                        f"can0={matrix},replay:{log},b.Float64_continuous_input=Wheel.Speed"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(csv_out) as f:
        out_rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    # each frame ends at its log time (the replay requests it its duration
    # earlier); a step [t, t + h) takes the events before t + h, so a frame
    # ending at a communication point (the one at 11 ms) is seen a row later
    ends = []
    for t, parts in frames:
        speed = [int.from_bytes(p, "little") * 0.01 for hid, p in parts if hid == 0x1234][0]
        ends.append((round(t * 1e9), speed))
    assert_rows_follow_frames(out_rows, ends)


def test_a_container_goes_out_with_the_pdus_due_after_its_timeout(cli, tmpdir_private):
    """The signal bus assembles containers: Box (CAN FD, 20 bytes, short
    headers, CONTAINER-TIMEOUT 2 ms) of ECU A holds Wheel (every 10 ms,
    Speed x 0.01 from the Dahlquist FMU's x) and Gear (every 20 ms, its
    Selected left at 0). Truth, by hand: a frame 2 ms after each 10 ms
    point with Wheel, and Gear behind it at 0, 20 and 40 ms (the matrix's
    order of the two); each part behind its big-endian header (id 3 bytes,
    length 1), packed from the
    inputs at the frame's time (last is best: x of the row 2 ms later);
    a frame as long as its parts (IpduM's dynamic container: 6 bytes, or
    11 and a byte of padding, CAN FD having no 11-byte frame);
    python-can reads the frames off the bus's BLF."""
    log, rows, frames = run_container_tx(cli, tmpdir_private, 20)
    x_at = {round(row["time"] * 1000): row["a.x"] for row in rows}
    assert len(frames) == 5
    for k, m in enumerate(frames):
        sent_ms = 10 * k + 2
        assert sent_ms / 1000 < m.timestamp < (sent_ms + 1) / 1000  # its end, after the request
        speed = round(x_at[sent_ms] / 0.01).to_bytes(2, "little")
        want = bytes([0x00, 0x12, 0x34, 2]) + speed
        if k % 2 == 0:
            want += bytes([0x00, 0x00, 0x56, 1, 0]) + bytes(1)
        assert m.is_fd and bytes(m.data) == want, (k, bytes(m.data).hex())
    # the bus's own receiver, and b a step later, see each frame's Speed
    ends = [(round(m.timestamp * 1e9), int.from_bytes(m.data[4:6], "little") * 0.01)
            for m in frames]
    assert_rows_follow_frames(rows, ends)


def test_contained_pdus_that_do_not_fit_go_in_the_next_frame(cli, tmpdir_private):
    """Box of 8 bytes: Wheel (4 + 2) and Gear (4 + 1) do not fit together.
    As IpduM: a PDU that does not fit sends the frame being filled at once
    and starts the next, whose timer (2 ms) starts with it. Both are due at
    0, 20 and 40 ms: at 0 Wheel comes first (the senders' first events go
    in the matrix's order), so Wheel's frame goes at 0 and Gear's at 2 ms;
    at 20 and 40 Gear's event comes first (sent 20 ms before, Wheel's 10),
    so Gear's goes at once and Wheel's 2 ms later; at 10 and 30 Wheel's
    alone 2 ms later. Each frame as long as its part (6 and 5 bytes)."""
    log, rows, frames = run_container_tx(cli, tmpdir_private, 8)
    assert_single_part_frames(frames, [(0, WHEEL), (2, GEAR), (12, WHEEL), (20, GEAR),
                                       (22, WHEEL), (32, WHEEL), (40, GEAR), (42, WHEEL)])


WHEEL, GEAR = bytes([0, 0x12, 0x34, 2]), bytes([0, 0, 0x56, 1])  # their short headers


def assert_single_part_frames(frames, want):
    """Frames of one part each: [(ms, header)] in order, each ending within
    half a millisecond of its time, as long as its part (6 or 5 bytes)."""
    assert [bytes(m.data[:4]) for m in frames] == [kind for ms, kind in want]
    for (ms, kind), m in zip(want, frames):
        assert ms / 1000 < m.timestamp < (ms + 0.5) / 1000, (ms, m.timestamp)
        assert len(m.data) == (6 if kind == WHEEL else 5)


def test_threshold_size_and_a_contained_timeout_send_early_with_padding(cli, tmpdir_private):
    """Box of 20 bytes, CONTAINER-TIMEOUT 5 ms, THRESHOLD-SIZE 11 and
    UNUSED-BIT-PATTERN 0xAA; Wheel with TIMEOUT 3 ms. By hand: at 0 Wheel
    (6 bytes with its header), then Gear (5) fills 11: the frame goes at
    once; at 10 and 30 Wheel alone goes 3 ms later (its timeout before the
    container's); at 20 and 40 Gear comes first, Wheel then fills 11: at
    once. Parts in the matrix's order (Wheel first); 11 bytes go as a
    12-byte CAN FD frame, the last byte 0xAA."""
    log, rows, frames = run_container_tx(
        cli, tmpdir_private, 20, timeout="0.005",
        box="<THRESHOLD-SIZE>11</THRESHOLD-SIZE><UNUSED-BIT-PATTERN>170</UNUSED-BIT-PATTERN>",
        wheel="<TIMEOUT>0.003</TIMEOUT>")
    x_at = {round(row["time"] * 1000): row["a.x"] for row in rows}
    want = [(0, True), (13, False), (20, True), (33, False), (40, True)]
    assert len(frames) == len(want)
    for (ms, both), m in zip(want, frames):
        assert ms / 1000 < m.timestamp < (ms + 0.5) / 1000, (ms, m.timestamp)
        data = bytes([0, 0x12, 0x34, 2]) + round(x_at[ms] / 0.01).to_bytes(2, "little")
        if both:
            data += bytes([0, 0, 0x56, 1, 0, 0xAA])
        assert bytes(m.data) == data, (ms, bytes(m.data).hex())
    # the bus's own receiver stops at the padding: b still follows Speed
    assert_rows_follow_frames(rows, [(round(m.timestamp * 1e9),
                                      int.from_bytes(m.data[4:6], "little") * 0.01)
                                     for m in frames])


def test_queued_pdus_keep_each_occurrence_and_trigger_always_sends_at_once(cli, tmpdir_private):
    """Box of 64 bytes, CONTAINER-TIMEOUT 5 ms; Wheel every 1 ms with
    COLLECTION-SEMANTICS QUEUED (each occurrence in the frame with its
    Speed of then); Gear every 20 ms with TRIGGER ALWAYS. By hand: at 0
    Wheel then Gear, whose trigger sends both at once; Wheel at 1 ms
    starts a frame that its timer sends at 6 ms with the occurrences of 1
    to 5 ms (the timer, set earlier, comes before the 6 ms occurrence),
    then 11 and 16 ms; at 20 ms Gear comes first and sends 16 to 19 ms with
    itself; so on to 40 and 45 ms. A frame goes as the shortest CAN FD frame
    that holds it (11 bytes as 12, 29 or 30 as 32, 35 as 48; zero padding)."""
    log, rows, frames = run_container_tx(
        cli, tmpdir_private, 64, timeout="0.005", wheel_period=0.001,
        wheel="<COLLECTION-SEMANTICS>QUEUED</COLLECTION-SEMANTICS>",
        gear="<TRIGGER>ALWAYS</TRIGGER>")
    x_at = {round(row["time"] * 1000): row["a.x"] for row in rows}
    want = [(0, [0], True), (6, range(1, 6), False), (11, range(6, 11), False),
            (16, range(11, 16), False), (20, range(16, 20), True), (25, range(20, 25), False),
            (30, range(25, 30), False), (35, range(30, 35), False), (40, range(35, 40), True),
            (45, range(40, 45), False)]
    frames = [m for m in frames if m.timestamp < 0.049]
    assert len(frames) == len(want)
    for (ms, wheels, gear), m in zip(want, frames):
        assert ms / 1000 < m.timestamp < (ms + 0.5) / 1000, (ms, m.timestamp)
        data = b"".join(bytes([0, 0x12, 0x34, 2]) + round(x_at[d] / 0.01).to_bytes(2, "little")
                        for d in wheels)
        if gear:
            data += bytes([0, 0, 0x56, 1, 0])
        data += bytes(min(n for n in (12, 16, 20, 24, 32, 48, 64) if n >= len(data)) - len(data))
        assert bytes(m.data) == data, (ms, bytes(m.data).hex())


def test_a_first_contained_trigger_sends_each_pdu_at_once(cli, tmpdir_private):
    """CONTAINER-TRIGGER FIRST-CONTAINED-TRIGGER: the frame goes right after
    its first PDU is in, so each PDU goes alone when due (the 2 ms timeout
    never runs out): Wheel and Gear at 0, Wheel at 10 and 30, Gear and
    Wheel at 20 and 40 (Gear's event first there), back to back on the bus."""
    log, rows, frames = run_container_tx(
        cli, tmpdir_private, 20,
        box="<CONTAINER-TRIGGER>FIRST-CONTAINED-TRIGGER</CONTAINER-TRIGGER>")
    assert_single_part_frames(frames, [(0, WHEEL), (0, GEAR), (10, WHEEL), (20, GEAR),
                                       (20, WHEEL), (30, WHEEL), (40, GEAR), (40, WHEEL)])


def run_container_tx(cli, tmpdir_private, length, timeout="0.002", box="", wheel="", gear="",
                     wheel_period=0.01):
    """The container matrix with ECU A sending Box (`length` bytes,
    CONTAINER-TIMEOUT `timeout`, more of Box's elements in `box`; Wheel
    every `wheel_period`, Gear every 20 ms, more of their
    CONTAINED-I-PDU-PROPS in `wheel` and `gear`) from the Dahlquist FMU's x,
    the Feedthrough FMU on Wheel.Speed, 50 ms: the BLF, the CSV rows, Box's
    frames (python-can)."""
    text = CONTAINER_ARXML.replace("<HEADER-ID-SHORT-HEADER>4660</HEADER-ID-SHORT-HEADER>",
                                   "<HEADER-ID-SHORT-HEADER>4660</HEADER-ID-SHORT-HEADER>" + wheel)
    text = text.replace("<HEADER-ID-SHORT-HEADER>86</HEADER-ID-SHORT-HEADER>",
                        "<HEADER-ID-SHORT-HEADER>86</HEADER-ID-SHORT-HEADER>" + gear)
    text = text.replace(
        "<FRAME-REF DEST=\"CAN-FRAME\">/F/Box</FRAME-REF>",
        "<FRAME-PORT-REFS><FRAME-PORT-REF DEST=\"FRAME-PORT\">/E/A/Conn/Out</FRAME-PORT-REF>"
        "</FRAME-PORT-REFS><FRAME-REF DEST=\"CAN-FRAME\">/F/Box</FRAME-REF>")
    text = text.replace(
        "<HEADER-TYPE>SHORT-HEADER</HEADER-TYPE>",
        f"<CONTAINER-TIMEOUT>{timeout}</CONTAINER-TIMEOUT><HEADER-TYPE>SHORT-HEADER</HEADER-TYPE>"
        + box)
    timing = ("<I-PDU-TIMING-SPECIFICATIONS><I-PDU-TIMING><TRANSMISSION-MODE-DECLARATION>"
              "<TRANSMISSION-MODE-TRUE-TIMING><CYCLIC-TIMING><TIME-PERIOD><VALUE>{}</VALUE>"
              "</TIME-PERIOD></CYCLIC-TIMING></TRANSMISSION-MODE-TRUE-TIMING>"
              "</TRANSMISSION-MODE-DECLARATION></I-PDU-TIMING></I-PDU-TIMING-SPECIFICATIONS>")
    text = text.replace("<LENGTH>2</LENGTH>", "<LENGTH>2</LENGTH>" + timing.format(wheel_period))
    text = text.replace("<LENGTH>1</LENGTH>", "<LENGTH>1</LENGTH>" + timing.format(0.02))
    text = text.replace(
        "<AR-PACKAGE><SHORT-NAME>F</SHORT-NAME>",
        "<AR-PACKAGE><SHORT-NAME>E</SHORT-NAME><ELEMENTS><ECU-INSTANCE><SHORT-NAME>A</SHORT-NAME>"
        "<CONNECTORS><CAN-COMMUNICATION-CONNECTOR><SHORT-NAME>Conn</SHORT-NAME>"
        "<ECU-COMM-PORT-INSTANCES><FRAME-PORT><SHORT-NAME>Out</SHORT-NAME>"
        "<COMMUNICATION-DIRECTION>OUT</COMMUNICATION-DIRECTION></FRAME-PORT>"
        "</ECU-COMM-PORT-INSTANCES></CAN-COMMUNICATION-CONNECTOR></CONNECTORS></ECU-INSTANCE>"
        "</ELEMENTS></AR-PACKAGE>\n<AR-PACKAGE><SHORT-NAME>F</SHORT-NAME>")
    text = text.replace("<FRAME-LENGTH>20</FRAME-LENGTH>", f"<FRAME-LENGTH>{length}</FRAME-LENGTH>")
    log, rows = run_matrix(cli, tmpdir_private, text,
                           "A=a,a.x=Wheel.Speed,b.Float64_continuous_input=Wheel.Speed")
    return log, rows, [m for m in can.BLFReader(log) if m.arbitration_id == 0x300]


def run_matrix(cli, tmpdir, matrix_text, nodes):
    """`rtcosim run` of the Dahlquist FMU (a) and the Feedthrough FMU (b),
    1 ms steps to 50 ms, behind `--can-signals can0=MATRIX,NODES` with the
    ARXML text as the matrix: the bus's BLF and the CSV rows."""
    from conftest import fmu, write_ssd
    matrix = os.path.join(tmpdir, "matrix.arxml")
    with open(matrix, "w") as f:
        f.write(matrix_text)
    ssd = write_ssd(os.path.join(tmpdir, "two.ssd"),
                    {"a": fmu("Dahlquist-fmi2.fmu"), "b": fmu("Feedthrough-fmi2.fmu")})
    out = os.path.join(tmpdir, "two.csv")
    log = os.path.join(tmpdir, "two.blf")
    r = subprocess.run([cli, "run", ssd, "--step-size", "0.001", "--stop-time", "0.05", "-o", out,
                        "--can-log", log, "--can-signals", f"can0={matrix},{nodes}"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(out) as f:
        rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    return log, rows
