"""A CSV a spreadsheet or a measurement tool exported where the decimal point
is a comma: values separated by semicolons, numbers with a decimal comma,
text quoted (it may hold ';' and ','), a byte order mark and CR LF line ends,
a units row. Truth: the same table written by hand as the comma-separated
file it stands for; every reader must take the two alike, byte for byte:
`convert` (line at a time, and the whole-file reader with
RTCOSIM_CSV_WHOLE=1), `info`, `compare` (a match), `plot`, and
`simulate --input-file` (the Feedthrough FMU's outputs). A field with a
comma that is no number (a thousands separator, 1.234,5) is one line of
error naming the file, line and field, and nothing is written. The same
table written by pandas 1.5.3 both ways (data/pandas_*.csv) converts to the
same file, every number to the bit.
Usage: test_csv_semicolons.py RTCOSIM FEEDTHROUGH_FMU"""
import csv
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from cli_run import read, runner  # noqa: E402

rtcosim, feedthrough = sys.argv[1:3]

COMMAS = ('"time","speed","label"\n"s","km/h",""\n'
          '0,1.5,"a;b"\n0.5,-22.5,"c,d"\n1,3.25,"e"\n')
SEMICOLONS = ('\ufeff"time";"speed";"label"\r\n"s";"km/h";""\r\n'
              '0;1,5;"a;b"\r\n0,5;-2,25e1;"c,d"\r\n1;3,25;"e"\r\n')
INPUT_COMMAS = "time,Float64_continuous_input,Int32_input\n0,1.5,3\n0.5,-0.25,4\n1,2.75,5\n"
INPUT_SEMICOLONS = "time;Float64_continuous_input;Int32_input\n0;1,5;3\n0,5;-0,25;4\n1;2,75;5\n"


run = runner(rtcosim)


with tempfile.TemporaryDirectory() as tmp:
    def at(name):
        return os.path.join(tmp, name)

    for name, text in (("en.csv", COMMAS), ("de.csv", SEMICOLONS), ("in_en.csv", INPUT_COMMAS),
                       ("in_de.csv", INPUT_SEMICOLONS)):
        with open(at(name), "w", encoding="utf-8", newline="") as f:
            f.write(text)

    for whole in ("0", "1"):
        env = {"RTCOSIM_CSV_WHOLE": whole}
        for src in ("en", "de"):
            run("convert", at(src + ".csv"), at(f"{src}_{whole}.csv"), "--csv-units", env=env)
            run("convert", at(src + ".csv"), at(f"{src}_{whole}.mf4"), env=env)
        assert read(at(f"de_{whole}.csv")) == read(at(f"en_{whole}.csv")), \
            (whole, read(at(f"de_{whole}.csv")))
        # (the MF4 files differ in their start time only: read back as CSV)
        for src in ("en", "de"):
            run("convert", at(f"{src}_{whole}.mf4"), at(f"{src}_{whole}_back.csv"))
        assert read(at(f"de_{whole}_back.csv")) == read(at(f"en_{whole}_back.csv"))
        info_en = run("info", at("en.csv"), env=env).stdout
        info_de = run("info", at("de.csv"), env=env).stdout
        assert info_de.replace(at("de.csv"), "F") == info_en.replace(at("en.csv"), "F"), \
            (info_de, info_en)
        assert "km/h" in info_de and "-22.5" in info_de, info_de
    # the values by hand, in the comma-separated output
    with open(at("de_0.csv"), newline="") as f:
        table = list(csv.reader(f))
    assert table == [["time", "speed", "label"], ["s", "km/h", ""], ["0", "1.5", "a;b"],
                     ["0.5", "-22.5", "c,d"], ["1", "3.25", "e"]], table

    r = run("compare", at("en.csv"), at("de.csv"))
    assert "MATCHES" in r.stdout, r.stdout
    run("plot", at("de.csv"), "speed", "-o", at("de.svg"))
    assert os.path.getsize(at("de.svg")) > 0

    for src in ("en", "de"):
        run("simulate", feedthrough, "--input-file", at(f"in_{src}.csv"), "--stop-time", "1",
            "--output-interval", "0.25", "-o", at(f"sim_{src}.csv"))
    assert read(at("sim_de.csv")) == read(at("sim_en.csv"))
    assert read(at("sim_en.csv")).count(b"\n") == 6  # (the header, 0 .. 1 s by 0.25)

    # the same table written by pandas 1.5.3 (to_csv(sep=';', decimal=',') and
    # to_csv()): 16 rows, doubles of 17 digits and exponents, a NaN, text
    # with ';' and ',' quoted where pandas quotes it (data/, written once)
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    for whole in ("0", "1"):
        env = {"RTCOSIM_CSV_WHOLE": whole}
        for src in ("semicolons", "commas"):
            run("convert", os.path.join(data, f"pandas_{src}.csv"), at(f"pd_{src}.csv"), env=env)
        assert read(at("pd_semicolons.csv")) == read(at("pd_commas.csv")), whole
    with open(at("pd_semicolons.csv"), newline="") as f:
        table = list(csv.reader(f))
    with open(os.path.join(data, "pandas_commas.csv"), newline="") as f:
        truth = list(csv.reader(f))
    assert len(table) == len(truth) == 17
    for got, want in zip(table[1:], truth[1:]):  # every number to the bit
        assert [float(x) if x not in ("", "nan") else None for x in got[:4]] == \
            [float(x) if x else None for x in want[:4]], (got, want)

    # a comma that is no decimal point: refused where it stands
    with open(at("thousands.csv"), "w") as f:
        f.write("time;x\n0;1\n1;1.234,5\n")
    for args in (("convert", at("thousands.csv"), at("t.csv")),
                 ("simulate", feedthrough, "--input-file", at("thousands.csv"), "-o", at("t.csv"))):
        r = run(*args, ok=False)
        assert r.stderr.count("\n") == 1 and "thousands.csv:3: field 2: '1.234,5' holds a comma " \
            "and is no number" in r.stderr, r.stderr
        assert not os.path.exists(at("t.csv"))
print("csv semicolons: ok")
