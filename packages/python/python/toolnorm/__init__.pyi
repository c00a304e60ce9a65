# The package's API, kept by hand beside its Rust (src/lib.rs, src/normalizer.rs; a test compares
# the two signatures). The TypedDicts of the values it hands out are generated from the Rust
# types into _types.pyi.

from collections.abc import Iterable
from typing import Any, Literal, overload

from toolnorm._types import *
from toolnorm._types import NormalizedDocument, NormalizedToolPart, Update

__version__: str

class NormalizeError(ValueError):
    """The stream cannot be normalized: its dialect cannot be told, it is empty, or the dialect
    given belongs to another provider. The message says which."""

class Normalizer:
    """toolnorm's streaming normalizer for one agent stream, fed a line at a time."""

    def __init__(
        self,
        provider: str | None = None,
        dialect: str | None = None,
        *,
        cwd: str | None = None,
        document: bool = True,
    ) -> None: ...
    def push_line(self, line: str | bytes) -> list[Update]:
        """Feed the next line; the updates it caused (none while the dialect is detected)."""
    def push(
        self,
        line: str | bytes,
        *,
        direction: Literal["agent", "client"] = "agent",
        number: int | None = None,
        terminated: bool = True,
    ) -> list[Update]:
        """Feed a line with its direction (a two-way proxy's record), number and end."""
    def end(self) -> list[Update]:
        """The stream has ended: the updates only its end decides."""
    def finish(self) -> NormalizedDocument:
        """End the stream (unless end() did) and return the whole document."""
    @property
    def provider(self) -> str | None:
        """The stream's provider, once its dialect is known."""
    @property
    def dialect(self) -> str | None:
        """The stream's dialect, once known."""
    @property
    def lines(self) -> int:
        """How many lines were pushed: the number of the last one."""
    @property
    def parts(self) -> list[NormalizedToolPart]:
        """Every part so far, as it is now."""

def normalize(
    stream: str | bytes | Iterable[str | bytes | tuple[Literal["agent", "client"], str | bytes]],
    provider: str | None = None,
    dialect: str | None = None,
    *,
    cwd: str | None = None,
    unterminated: bool = False,
) -> NormalizedDocument:
    """Normalize a whole stream (its text, or its lines, each from the agent or a
    (direction, line) pair) into the document `toolnorm normalize` prints."""

# The UI wires (docs/ui-wires.md): each frame is the JSON object `toolnorm normalize --emit
# ai-sdk | ag-ui` prints on a line.
Frame = dict[str, Any]
WireName = Literal["ai-sdk", "ag-ui"]
Stream = str | bytes | Iterable[str | bytes | tuple[Literal["agent", "client"], str | bytes]]

class WireEmitter:
    """A live stream's tool calls as a UI wire (`toolnorm normalize --follow --emit WIRE`): the
    agent's lines in, the wire's frames out (with `sse=True`, their SSE text)."""

    def __init__(
        self,
        wire: WireName,
        provider: str | None = None,
        dialect: str | None = None,
        *,
        cwd: str | None = None,
        sse: bool = False,
    ) -> None: ...
    def push_line(self, line: str | bytes) -> Any:
        """Feed the next line: the frames it caused (`list[Frame]`, or `str` with `sse=True`)."""
    def end(self) -> Any:
        """The stream has ended: the frames that close it."""

@overload
def to_ai_sdk(
    stream: Stream | NormalizedDocument,
    provider: str | None = None,
    dialect: str | None = None,
    *,
    cwd: str | None = None,
    unterminated: bool = False,
    sse: Literal[False] = False,
) -> list[Frame]: ...
@overload
def to_ai_sdk(
    stream: Stream | NormalizedDocument,
    provider: str | None = None,
    dialect: str | None = None,
    *,
    cwd: str | None = None,
    unterminated: bool = False,
    sse: Literal[True],
) -> str: ...
@overload
def to_ag_ui(
    stream: Stream | NormalizedDocument,
    provider: str | None = None,
    dialect: str | None = None,
    *,
    cwd: str | None = None,
    unterminated: bool = False,
    sse: Literal[False] = False,
) -> list[Frame]: ...
@overload
def to_ag_ui(
    stream: Stream | NormalizedDocument,
    provider: str | None = None,
    dialect: str | None = None,
    *,
    cwd: str | None = None,
    unterminated: bool = False,
    sse: Literal[True],
) -> str: ...
