"""Hostile input, fuzzed with a fixed seed: every file and flag ends in exit 0, 1 or 2, with at most one
line on stderr (exactly one for 2), no library warning, and within a time limit per input.

Each sample gets 200 mutants: a value swapped for a hostile one (a 5000-digit number, 1e308, NaN,
Infinity, a lone surrogate, a wrong type, a negative size ...), a key dropped or invented, a device id
copied into another rack, or the bytes themselves cut, flipped or given a byte-order mark. Besides the
mutants: a FIFO, a link to /dev/zero, a folder, an empty file, NetBox YAML built to exhaust memory
("billion laughs") or with NaN heights, out-of-range numeric flags, and 40 mutants each of four
built-in catalog entries put in a user's catalog folder.
"""
from __future__ import annotations

import json
import os
import random
import signal
import warnings
from contextlib import contextmanager
from pathlib import Path

import pytest

from designer import samples
from widgets.app.launcher import main

SEED = 19
MUTANTS = 200
#: Mutants of each built-in entry put in a user's catalog folder.
CATALOG_MUTANTS = 40
#: Seconds one command may take on a sample-sized design before it counts as a hang.
TIME_LIMIT_S = 20

HUGE = "1" + "0" * 5000  # written into the text: json cannot even produce it
HOSTILE = [HUGE, "-" + HUGE, "1e308", "-1e308", "1e309", "NaN", "Infinity", "-Infinity", "1e-320", "-1", "0",
           "-1e9", "4.5", "2147483648", "18446744073709551616", '"\\udcff"', '"a\\ud800b"', '""', '"x\\u0000y"',
           '"' + "w" * 10000 + '"', "null", "true", "[]", "{}", '"12"', '[1e308, -1e308]', '[[1e308, 0]]']


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: int):
    def expire(signum, frame):
        raise Hang(f"more than {seconds} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run(capsys, *argv) -> tuple[int, str, str]:
    with warnings.catch_warnings(record=True) as caught, time_limit(TIME_LIMIT_S):
        warnings.simplefilter("always")
        code = main(list(argv))
    out, err = capsys.readouterr()
    assert not caught, f"{argv}: a warning escaped: {caught[0].message}"
    return code, out, err


def check(capsys, *argv) -> int:
    code, _, err = run(capsys, *argv)
    lines = err.splitlines()
    assert code in (0, 1, 2), f"{argv}: exit {code}: {err[:300]}"
    if code == 2:
        assert len(lines) == 1 and lines[0].startswith("podplanner: error: "), f"{argv}: {err[:500]}"
    else:
        assert len(lines) <= 1, f"{argv}: {err[:500]}"
    return code


def _leaves(node, path=()):
    """Every (path, value) in a JSON document, containers included."""
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, path + (i,))


def _set(doc, path, value):
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


MARK = "__fuzz_value__"


def mutant(text: str, rng: random.Random) -> bytes:
    doc = json.loads(text)
    kind = rng.choice(["value", "value", "value", "value", "drop", "invent", "duplicate", "bytes"])
    places = [p for p, _ in _leaves(doc) if p]
    if kind == "bytes":
        raw = bytearray(text.encode())
        how = rng.choice(["cut", "flip", "bom", "bad-utf8"])
        if how == "cut":
            return bytes(raw[:rng.randrange(len(raw))])
        if how == "flip":
            for _ in range(rng.randint(1, 8)):
                raw[rng.randrange(len(raw))] = rng.randrange(256)
            return bytes(raw)
        if how == "bom":
            return b"\xef\xbb\xbf" + bytes(raw)
        at = rng.randrange(len(raw))
        return bytes(raw[:at]) + b"\xff\xfe" + bytes(raw[at:])
    if kind == "drop":
        path = rng.choice([p for p in places if isinstance(p[-1], str)])
        node = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    elif kind == "invent":
        path = rng.choice([p for p, v in _leaves(doc) if isinstance(v, dict)] or [()])
        node = doc
        for key in path:
            node = node[key]
        node["unexpected_" + str(rng.randrange(100))] = MARK
    elif kind == "duplicate" and len(doc.get("racks", [])) > 1:
        racks = [r for r in doc["racks"] if r.get("devices")]
        source, target = rng.choice(racks), rng.choice(doc["racks"])
        target.setdefault("devices", []).append(dict(rng.choice(source["devices"])))
    else:
        _set(doc, rng.choice(places), MARK)
    hostile = rng.choice(HOSTILE)
    return json.dumps(doc).replace(f'"{MARK}"', hostile).encode()


@pytest.mark.parametrize("sample", [samples.DGX_B200_SU, samples.GB200_NVL72_SU], ids=["dgx", "nvl72"])
def test_fuzzed_project_files(sample, tmp_path, capsys):
    rng = random.Random(f"{SEED}-{sample.name}")
    text = sample.read_text(encoding="utf-8")
    codes = {0: 0, 1: 0, 2: 0}
    path = tmp_path / "mutant.podplan.json"
    for i in range(MUTANTS):
        path.write_bytes(mutant(text, rng))
        code = check(capsys, "validate", str(path))
        codes[code] += 1
        if code != 2:  # what validate reads, analyze must read too, and its JSON must be written
            assert check(capsys, "analyze", "--json", str(path)) in (0, 1), f"mutant {i}"
    # the fuzzing reached every outcome: files refused, files with findings, files accepted (most mutants are
    # refused: a hostile value in most of a file's fields is one validate must refuse, and the samples' air
    # handlers add a floor unit's fields to every mutant's choice)
    assert codes[2] > MUTANTS // 4 and codes[0] + codes[1] > MUTANTS // 20, codes


def test_files_that_are_not_files(tmp_path, capsys):
    fifo = tmp_path / "pipe.podplan.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.podplan.json"
    zero.symlink_to("/dev/zero")
    folder = tmp_path / "folder.podplan.json"
    folder.mkdir()
    empty = tmp_path / "empty.podplan.json"
    empty.write_bytes(b"")
    for path in (fifo, zero, folder, empty, tmp_path / "missing.podplan.json"):
        for argv in (("validate", str(path)), ("analyze", "--json", str(path)),
                     ("export", str(path), "--csv", str(tmp_path / "bom.csv"))):
            code, _, err = run(capsys, *argv)
            assert code == 2 and len(err.splitlines()) == 1 and str(path) in err, (argv, err)
    assert not (tmp_path / "bom.csv").exists()


BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
manufacturer: X
model: Y
slug: y
u_height: 1
comments: *i
"""

NETBOX_GOOD = """\
manufacturer: NVIDIA
model: Test switch
slug: test-switch
u_height: 1
weight: 14
weight_unit: kg
power-ports:
  - name: PSU1
    maximum_draw: 700
interfaces:
  - name: p1
    type: 400gbase-x-osfp
"""


@pytest.mark.parametrize("yaml_text", [
    BILLION_LAUGHS,
    NETBOX_GOOD.replace("u_height: 1", "u_height: .nan"),
    NETBOX_GOOD.replace("u_height: 1", "u_height: 1e308"),
    NETBOX_GOOD.replace("maximum_draw: 700", "maximum_draw: .nan"),
    NETBOX_GOOD.replace("maximum_draw: 700", "maximum_draw: .inf"),
    NETBOX_GOOD.replace("weight: 14", "weight: -.inf"),
    NETBOX_GOOD.replace("400gbase-x-osfp", "1e308gbase-x-osfp"),
    NETBOX_GOOD.replace("slug: test-switch", 'slug: "test-switch\\n"'),
    NETBOX_GOOD.replace("model: Test switch", 'model: "bad \\udcff name"'),
    NETBOX_GOOD.replace("u_height: 1", "u_height: " + HUGE),
    "{[}",
    "- just\n- a list\n",
], ids=["billion-laughs", "nan-height", "huge-height", "nan-draw", "inf-draw", "inf-weight", "1e308g",
        "slug-newline", "surrogate", "huge-int", "broken", "a-list"])
def test_hostile_netbox_yaml(yaml_text, tmp_path, capsys):
    path = tmp_path / "device.yaml"
    path.write_text(yaml_text, encoding="utf-8", errors="surrogatepass")
    out = tmp_path / "catalog"
    out.mkdir()
    code, _, err = run(capsys, "catalog", "import-netbox", str(path), "-o", str(out))
    assert code == 2 and len(err.splitlines()) == 1 and "device.yaml" in err, err
    assert list(out.iterdir()) == []


def test_a_netbox_entry_is_not_overwritten_without_force(tmp_path, capsys):
    path = tmp_path / "device.yaml"
    path.write_text(NETBOX_GOOD, encoding="utf-8")
    out = tmp_path / "catalog"
    out.mkdir()
    assert run(capsys, "catalog", "import-netbox", str(path), "-o", str(out))[0] == 0
    [written] = list(out.iterdir())
    before = written.read_bytes()
    path.write_text(NETBOX_GOOD.replace("maximum_draw: 700", "maximum_draw: 800"), encoding="utf-8")
    code, _, err = run(capsys, "catalog", "import-netbox", str(path), "-o", str(out))
    assert code == 2 and len(err.splitlines()) == 1 and written.name in err
    assert written.read_bytes() == before
    assert run(capsys, "catalog", "import-netbox", str(path), "-o", str(out), "--force")[0] == 0
    assert b"800" in written.read_bytes()
    assert b"NaN" not in written.read_bytes() and b"Infinity" not in written.read_bytes()


@pytest.mark.parametrize("argv", [
    ("train", "--params", "1e308"), ("train", "--params", "nan"), ("train", "--params", "inf"),
    ("train", "--params", HUGE), ("train", "--gpus", HUGE), ("train", "--gpus", "-8"),
    ("train", "--tokens", "nan"), ("fabric", "--gpus", HUGE),
    ("new", "superpod", "--system", "dgx-b200", "--gpus", "1e308", "-o", "x.podplan.json"),
    ("new", "superpod", "--system", "dgx-b200", "--gpus", HUGE, "-o", "x.podplan.json"),
    ("analyze", "--pue", "nan", str(samples.DGX_B200_SU)),
    ("analyze", "--pue", "1e308", str(samples.DGX_B200_SU)),
    ("analyze", "--derating", "-inf", str(samples.DGX_B200_SU)),
])
def test_hostile_numeric_flags(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv)
    assert code == 2 and len(err.splitlines()) == 1, (code, err)
    assert not Path("x.podplan.json").exists()


@pytest.mark.parametrize("entry", ["systems/dgx-b200.json", "gpus/b200.json", "racks/rack-48u-600x1200.json",
                                   "power/pdu-415v-32a-3ph.json"])
def test_fuzzed_user_catalog_entries(entry, tmp_path, capsys, monkeypatch):
    """A user's catalog folder holding a mutant of a built-in entry: each broken entry is one warning, the
    built-in entry stands, and the sample validates and analyses as before (or with the entry's figures)."""
    from catalog.registry import DATA_DIR, default_catalog

    source = DATA_DIR / entry
    assert source.is_file(), source
    folder = tmp_path / "config" / "podplanner" / "catalog"
    folder.mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("PODPLANNER_CATALOG", raising=False)
    rng = random.Random(f"{SEED}-{entry}")
    text = source.read_text(encoding="utf-8")
    refused = 0
    for i in range(CATALOG_MUTANTS):
        (folder / source.name).write_bytes(mutant(text, rng))
        default_catalog.cache_clear()  # each run reads the folder afresh, as a new process would
        for argv in (["validate", str(samples.DGX_B200_SU)], ["analyze", "--json", str(samples.DGX_B200_SU)]):
            code, out, err = run(capsys, *argv)
            assert code in (0, 1, 2), f"mutant {i}: {argv}: exit {code}: {err[:300]}"
            lines = err.splitlines()
            warned = [line for line in lines if line.startswith("podplanner: warning: ")]
            assert len(warned) <= 1, f"mutant {i}: {err[:500]}"
            # a sound entry of other figures may make the design impossible (a rack of fewer U): one line says so
            errors = [line for line in lines if line.startswith("podplanner: error: ")]
            assert len(errors) == (code == 2) and len(lines) == len(warned) + len(errors), f"mutant {i}: {err[:500]}"
            if argv[0] == "analyze" and code != 2:
                json.loads(out, parse_constant=lambda c, i=i: pytest.fail(f"mutant {i}: {c} in the analysis"))
        refused += bool(warned)
    default_catalog.cache_clear()
    # the fuzzing reached both outcomes: entries refused, entries taken
    assert CATALOG_MUTANTS // 2 <= refused < CATALOG_MUTANTS, refused


#: The second battery's hostile texts: control and invisible characters, formula prefixes, a text past its
#: bound, an id that reads the same as another after NFKC.
HOSTILE_II = ['"a\\u0000b"', '"a\\u001bb"', '"a\\rb"', '"a\\nb"', '"su01-01\\u200b"', '"\\uff53\\uff55"',
              '"=cmd|\' /C calc\'!A0"', '"@SUM(A1)"', '"+1"', '"-1"', '"\\tTAB"', '"' + "n" * 300 + '"', '"-0"',
              "-0.0"]


def mutant_ii(text: str, rng: random.Random) -> bytes:
    """A hostile text in one string place, or a key given twice (the last one would win)."""
    doc = json.loads(text)
    if rng.random() < 0.25:
        raw = json.dumps(doc)
        key = rng.choice(["racks", "halls", "name", "settings"])
        return raw.replace("{", '{"' + key + '": [], ', 1).encode()
    places = [p for p, v in _leaves(doc) if p and isinstance(v, str)]
    _set(doc, rng.choice(places), MARK)
    return json.dumps(doc).replace(f'"{MARK}"', rng.choice(HOSTILE_II)).encode()


def test_fuzzed_project_files_ii(tmp_path, capsys):
    """Every mutant is refused in one line (exit 2) or read, analysed and exported without a formula cell."""
    rng = random.Random(f"{SEED}-ii")
    text = samples.DGX_B200_SU.read_text(encoding="utf-8")
    path = tmp_path / "mutant.podplan.json"
    codes = {0: 0, 1: 0, 2: 0}
    for i in range(60):
        path.write_bytes(mutant_ii(text, rng))
        code = check(capsys, "validate", str(path))
        codes[code] += 1
        if code != 2:
            out = tmp_path / "cabling.csv"
            assert check(capsys, "export", str(path), "--cabling", str(out)) in (0, 1), f"mutant {i}"
            for row in out.read_text(encoding="utf-8").splitlines()[1:]:
                for cell in row.split(","):
                    assert not cell.lstrip('"').startswith(("=", "@", "\t", "\r")), f"mutant {i}: {cell[:40]}"
    assert codes[2] > 10 and codes[0] + codes[1] >= 5, codes  # refused in one line, or read and exported
