"""The type stubs the wheel ships: the generated TypedDicts (toolnorm/_types.pyi) hold every
value the package hands out over the corpus, the hand-kept API (toolnorm/__init__.pyi) has the
signatures of the compiled module, and a type checker reads both."""

import ast
import inspect
import subprocess
import sys
import textwrap
import types
import typing
from pathlib import Path

import pytest
import toolnorm
import typing_extensions
from typing_extensions import get_args, get_origin, get_type_hints, is_typeddict

from conftest import corpus

PACKAGE = Path(toolnorm.__file__).parent


@pytest.fixture(scope="module")
def stub_types() -> dict:
    """The generated stub, run as Python (its definitions come before their uses)."""
    path = PACKAGE / "_types.pyi"
    assert path.is_file(), f"the wheel has no {path.name}"
    namespace: dict = {"__name__": "toolnorm_types_stub"}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace


def check(value, tp, path: str) -> None:
    """`value` is of type `tp` as the stub says: every required key there, no key the TypedDict
    does not declare (unless it takes extra items), and nothing `None` unless the type says so."""
    if tp is typing.Any:
        return
    if is_typeddict(tp):
        assert type(value) is dict, f"{path}: {value!r} is not a dict ({tp.__name__})"
        hints = get_type_hints(tp)
        missing = tp.__required_keys__ - value.keys()
        assert not missing, f"{path}: {tp.__name__} without {sorted(missing)}"
        extra = value.keys() - hints.keys()
        if getattr(tp, "__extra_items__", typing_extensions.NoExtraItems) is typing_extensions.NoExtraItems:
            assert not extra, f"{path}: {tp.__name__} does not declare {sorted(extra)}"
        for k, v in value.items():
            check(v, hints.get(k, tp.__extra_items__ if k in extra else None), f"{path}.{k}")
        return
    origin = get_origin(tp)
    if origin is typing.Literal:
        assert value in get_args(tp) and type(value) is str, f"{path}: {value!r} not in {tp}"
    elif origin in (typing.Union, types.UnionType):
        errors = []
        for alt in get_args(tp):
            try:
                return check(value, alt, path)
            except AssertionError as e:
                errors.append(str(e))
        raise AssertionError(f"{path}: {value!r} is none of {tp}: {errors}")
    elif origin is list:
        assert type(value) is list, f"{path}: {value!r} is not a list"
        for i, v in enumerate(value):
            check(v, get_args(tp)[0], f"{path}[{i}]")
    elif origin is dict:
        assert type(value) is dict, f"{path}: {value!r} is not a dict"
        for k, v in value.items():
            check(v, get_args(tp)[1], f"{path}.{k}")
    elif tp is type(None):
        assert value is None, f"{path}: {value!r} is not None"
    else:
        assert tp in (str, int, float, bool), f"{path}: a type the checker does not know: {tp}"
        assert type(value) is tp, f"{path}: {value!r} is not {tp.__name__}"


def test_every_value_of_the_corpus_has_its_stub_type(stub_types):
    document, update = stub_types["NormalizedDocument"], stub_types["Update"]
    kinds = set()
    for fx in corpus():
        n = toolnorm.Normalizer(cwd=fx.cwd)
        for line in fx.lines:
            for u in n.push(line.data, direction=line.direction, terminated=line.terminated):
                check(u, update, f"{fx.name} line {line.number}")
                kinds.add(u["type"])
            for i, part in enumerate(n.parts):
                check(part, stub_types["NormalizedToolPart"], f"{fx.name} parts[{i}]")
        check(n.finish(), document, fx.name)
    bad = toolnorm.Normalizer(dialect="exec").push_line("not json")
    for u in bad:
        check(u, update, "a bad line")
        kinds.add(u["type"])
    assert kinds == {"dialect", "part", "revised", "diagnostic"}


def test_the_checker_rejects_what_the_stubs_do_not_allow(stub_types):
    part = {"id": "a", "name": "Bash", "kind": "bash", "title": "t", "input": {}, "state": "running"}
    check(part, stub_types["NormalizedToolPart"], "part")
    check({**part, "metadata": {"sessionId": "s", "anything": [1]}}, stub_types["NormalizedToolPart"], "part")
    for bad in [
        {k: v for k, v in part.items() if k != "title"},  # a required key missing
        {**part, "kind": "shell"},  # not one of the kinds
        {**part, "output": None, "timing": None},  # an optional field written as null
        {**part, "extra": 1},  # a key the part does not declare
        {**part, "error": {"message": 1}},  # a number for a str
    ]:
        with pytest.raises(AssertionError):
            check(bad, stub_types["NormalizedToolPart"], "part")


def stub_api() -> ast.Module:
    return ast.parse((PACKAGE / "__init__.pyi").read_text(encoding="utf-8"))


def stub_signature(fn: ast.FunctionDef) -> list[tuple[str, str, object]]:
    """(name, kind, default) of each parameter but `self`."""
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults = [inspect.Parameter.empty] * (len(positional) - len(a.defaults)) + [
        ast.literal_eval(d) for d in a.defaults
    ]
    out = [(p.arg, "POSITIONAL_OR_KEYWORD", d) for p, d in zip(positional, defaults)]
    out += [
        (p.arg, "KEYWORD_ONLY", inspect.Parameter.empty if d is None else ast.literal_eval(d))
        for p, d in zip(a.kwonlyargs, a.kw_defaults)
    ]
    return [p for p in out if p[0] != "self"]


def runtime_signature(obj) -> list[tuple[str, str, object]]:
    return [(p.name, p.kind.name, p.default) for p in inspect.signature(obj).parameters.values() if p.name != "self"]


def test_the_hand_kept_api_stub_has_the_compiled_module_s_signatures():
    module = stub_api()
    # An overloaded function: its first overload has the runtime's defaults.
    functions: dict[str, ast.FunctionDef] = {}
    for n in module.body:
        if isinstance(n, ast.FunctionDef):
            functions.setdefault(n.name, n)
    classes = {n.name: n for n in module.body if isinstance(n, ast.ClassDef)}
    assert set(functions) | set(classes) | {"__version__"} == set(toolnorm.__all__)
    for name, fn in functions.items():
        assert stub_signature(fn) == runtime_signature(getattr(toolnorm, name)), name
    assert issubclass(toolnorm.NormalizeError, ValueError)
    assert [b.id for b in classes["NormalizeError"].bases] == ["ValueError"]
    for cls in ["Normalizer", "WireEmitter"]:
        runtime_cls = getattr(toolnorm, cls)
        methods = {n.name: n for n in classes[cls].body if isinstance(n, ast.FunctionDef)}
        properties = {n for n, fn in methods.items() if any(getattr(d, "id", "") == "property" for d in fn.decorator_list)}
        runtime = {n for n in dir(runtime_cls) if not n.startswith("_")}
        assert set(methods) - {"__init__"} == runtime, cls
        for name, fn in methods.items():
            if name == "__init__":
                assert stub_signature(fn) == runtime_signature(runtime_cls), f"{cls}.{name}"
            elif name in properties:
                assert isinstance(inspect.getattr_static(runtime_cls, name), types.GetSetDescriptorType), name
            else:
                assert stub_signature(fn) == runtime_signature(getattr(runtime_cls, name)), f"{cls}.{name}"


def test_a_type_checker_reads_the_stubs(tmp_path):
    good = tmp_path / "good.py"
    good.write_text(textwrap.dedent('''
        import sys

        import toolnorm
        from toolnorm import NormalizedDocument, NormalizedToolPart, ToolState, Update


        def titles(lines: list[str]) -> dict[str, ToolState]:
            n = toolnorm.Normalizer(provider="claude", cwd="/w")
            states: dict[str, ToolState] = {}
            for line in lines:
                updates: list[Update] = n.push_line(line)
                for u in updates:
                    if u["type"] == "part":
                        part: NormalizedToolPart = u["part"]
                        states[part["title"]] = part["state"]
                        if "metadata" in part:
                            print(part["metadata"].get("sessionId"))
                    elif u["type"] == "diagnostic":
                        print(u["diagnostic"]["line"], u["diagnostic"]["message"], file=sys.stderr)
            n.push("{}", direction="client", number=3, terminated=False)
            doc: NormalizedDocument = n.finish()
            print(doc["schemaVersion"] + len(doc["parts"]), n.dialect, n.lines)
            return states


        print(toolnorm.normalize([("client", b"{}"), "{}"], "acp", unterminated=True)["events"])
        try:
            toolnorm.normalize("")
        except toolnorm.NormalizeError as e:
            print(e)
    '''))
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent('''
        import toolnorm

        n = toolnorm.Normalizer()
        for u in n.push_line("{}"):
            if u["type"] == "part":
                print(u["part"]["titel"])
        n.push("{}", direction="server")
        state: int = toolnorm.normalize("{}")["parts"][0]["state"]
    '''))
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--cache-dir", "cache", "good.py", "bad.py"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert run.returncode in (0, 1), run.stdout + run.stderr
    errors = [l for l in run.stdout.splitlines() if ": error:" in l]
    assert not [e for e in errors if e.startswith("good.py:")], run.stdout + run.stderr
    bad_lines = sorted({int(e.split(":")[1]) for e in errors if e.startswith("bad.py:")})
    assert bad_lines == [7, 8, 9], run.stdout + run.stderr
