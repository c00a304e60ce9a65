"""toolnorm's streaming tool-call normalizer for coding-agent streams.

Feed an agent's raw stream (Claude Code stream-json and transcripts, Codex app-server, exec,
rollouts and legacy events, OpenCode events, run and export, ACP traffic) to a ``Normalizer``
a line at a time and get each tool call as the contract's ``NormalizedToolPart`` as it changes,
or ``normalize()`` a whole stream into the document ``toolnorm normalize`` prints. Every value is
a plain dict, list, str, int, float or bool; ``toolnorm/__init__.pyi`` types them.
"""

from toolnorm._toolnorm import NormalizeError, Normalizer, __version__, normalize

__all__ = ["NormalizeError", "Normalizer", "__version__", "normalize"]
