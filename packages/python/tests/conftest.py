"""The repository's corpus as the package's tests read it: every fixture under corpus/<provider>/
(zstd JSONL: a header, one record per received line, a trailer), with its reviewed expected
document, read with the `zstandard` package alone."""

import base64
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import zstandard

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "corpus"
EXPECTED = ROOT / "expected"


@dataclass
class Line:
    """One line to or from the agent, as the fixture recorded it."""

    number: int
    data: bytes
    direction: str  # "agent" or "client"
    terminated: bool


# The CLIs that write another's formats byte for byte.
FORKS = {"kilo"}


@dataclass
class Fixture:
    name: str  # provider/name
    provider: str
    dialect: str
    cwd: str | None
    lines: list[Line] = field(default_factory=list)

    @property
    def hint(self) -> str | None:
        """The provider a reader must name to read this fixture as its own: none, but for a CLI
        that writes another's formats byte for byte (Kilo writes OpenCode's), whose streams
        content alone reads as that other CLI's, by design."""
        return self.provider if self.provider in FORKS else None

    @property
    def text(self) -> bytes:
        """The stream as `toolnorm cat` prints it."""
        return b"".join(l.data + (b"\n" if l.terminated else b"") for l in self.lines)

    def expected(self) -> dict:
        provider, name = self.name.split("/")
        with open(EXPECTED / provider / f"{name}.json", encoding="utf-8") as f:
            return json.load(f)


def read_fixture(path: Path) -> Fixture:
    with open(path, "rb") as f:
        raw = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True).read()
    records = [json.loads(r) for r in raw.split(b"\n") if r.strip()]
    header, trailer = records[0], {}
    if "trailer" in records[-1]:
        trailer = records.pop()["trailer"]
    provider = path.parent.name
    dialect = header.get("dialect") or trailer.get("dialect")
    assert dialect, f"{path}: the fixture names no dialect"
    fx = Fixture(f"{provider}/{path.name.removesuffix('.jsonl.zst')}", provider, dialect, header.get("cwd"))
    number = 0
    for r in records[1:]:
        if r["d"] == "e":  # the agent's stderr: not part of the stream
            continue
        number += 1
        data = r["l"].encode("utf-8") if "l" in r else base64.b64decode(r["b"])
        direction = {"a": "agent", "c": "client"}[r["d"]]
        fx.lines.append(Line(number, data, direction, not r.get("n", False)))
    return fx


def fixture_paths() -> list[Path]:
    paths = sorted(CORPUS.glob("*/*.jsonl.zst"))
    providers = {p.parent.name for p in paths}
    # An empty or partial corpus would let every test over it pass without checking anything.
    assert {"claude", "codex", "opencode", "acp"} <= providers, f"no corpus under {CORPUS}"
    return paths


def corpus() -> list[Fixture]:
    return [read_fixture(p) for p in fixture_paths()]


def fixture(name: str) -> Fixture:
    path = CORPUS / f"{name}.jsonl.zst"
    assert path.is_file(), f"{name} is not in the corpus"
    return read_fixture(path)


def fold(updates: list[dict], schema_version: int) -> dict:
    """The document the updates give, folded in order: the parts in the order they appeared,
    each replaced by its later updates; every event and diagnostic."""
    doc = {"schemaVersion": schema_version, "provider": None, "dialect": None}
    parts: dict[str, dict] = {}
    events, diagnostics = [], []
    for u in updates:
        if u["type"] == "dialect":
            doc["provider"], doc["dialect"] = u["provider"], u["dialect"]
        elif u["type"] == "part":
            events.append(u["event"])
            parts[u["part"]["id"]] = u["part"]
        elif u["type"] == "revised":
            parts[u["part"]["id"]] = u["part"]
        elif u["type"] == "diagnostic":
            diagnostics.append(u["diagnostic"])
        else:
            raise AssertionError(f"an update of unknown type: {u}")
    return {**doc, "parts": list(parts.values()), "events": events, "diagnostics": diagnostics}


def same_json(a, b, path="$") -> None:
    """`a` and `b` are the same JSON value, compared as toolnorm compares an output with its
    expected file: an integer is not the float of the same value, nor a bool a number."""
    assert type(a) is type(b), f"{path}: {a!r} ({type(a).__name__}) is not {b!r} ({type(b).__name__})"
    if isinstance(a, dict):
        assert a.keys() == b.keys(), f"{path}: keys {sorted(a.keys() ^ b.keys())} differ"
        for k in a:
            same_json(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), f"{path}: {len(a)} items, not {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            same_json(x, y, f"{path}[{i}]")
    else:
        assert a == b, f"{path}: {a!r} is not {b!r}"


@pytest.fixture(scope="session")
def all_fixtures() -> list[Fixture]:
    return corpus()


@pytest.fixture(scope="session")
def wheel() -> Path:
    """The wheel under test (scripts/python-test.sh builds it and names it)."""
    path = os.environ.get("TOOLNORM_WHEEL")
    if not path:
        pytest.fail("TOOLNORM_WHEEL does not name the wheel: run scripts/python-test.sh")
    assert Path(path).is_file(), f"{path} is not a file"
    return Path(path)
