"""toolnorm's streaming tool-call normalizer for coding-agent streams.

Feed an agent's raw stream (Claude Code stream-json and transcripts, Codex app-server, exec,
rollouts and legacy events, OpenCode events, run and export, ACP traffic) to a ``Normalizer``
a line at a time and get each tool call as the contract's ``NormalizedToolPart`` as it changes,
or ``normalize()`` a whole stream into the document ``toolnorm normalize`` prints. The same calls
as the two wires a UI reads (docs/ui-wires.md): ``WireEmitter`` live, ``to_ai_sdk()`` (the AI SDK
UI message stream's chunks) and ``to_ag_ui()`` (AG-UI 1.0 events) for a whole stream. Every value is
a plain dict, list, str, int, float or bool; ``toolnorm/__init__.pyi`` types them.
"""

from toolnorm._toolnorm import (
    NormalizeError,
    Normalizer,
    WireEmitter,
    __version__,
    normalize,
    to_ag_ui,
    to_ai_sdk,
)

__all__ = [
    "NormalizeError",
    "Normalizer",
    "WireEmitter",
    "__version__",
    "normalize",
    "to_ag_ui",
    "to_ai_sdk",
]
