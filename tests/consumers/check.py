"""The Python consumer of AG-UI 1.0 (PyPI `ag-ui-protocol`, its pydantic models) over a batch of
fixtures, in one process:

    python tests/consumers/check.py BATCH.jsonl

BATCH.jsonl is the batch tests/consumers/check.mjs reads; here only each line's
`agUi.events` count: every event must parse as the protocol's `Event` (the discriminated union
of every event model). Each rejection is one line on stderr naming the fixture and the event
(its index and type); stdout gets one JSON summary. Exit 1 when anything was rejected, 2 on a
bad batch."""

import json
import sys

from ag_ui.core import Event
from pydantic import TypeAdapter, ValidationError

EVENT = TypeAdapter(Event)


def issues(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(event)'}: {e['msg']}" for e in error.errors()
    )


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: check.py BATCH.jsonl", file=sys.stderr)
        return 2
    path = sys.argv[1]
    fixtures = events = rejected = 0
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as e:
                print(f"{path}:{n}: not JSON: {e}", file=sys.stderr)
                return 2
            fixture = entry.get("fixture")
            wire = entry.get("agUi")
            if not isinstance(fixture, str):
                print(f'{path}:{n}: no "fixture"', file=sys.stderr)
                return 2
            fixtures += 1
            if wire is None:
                continue
            for i, event in enumerate(wire.get("events") or []):
                events += 1
                try:
                    EVENT.validate_python(event)
                except ValidationError as e:
                    rejected += 1
                    kind = event.get("type", "?") if isinstance(event, dict) else "?"
                    print(
                        f"REJECTED {fixture}: ag-ui (python) event #{i} ({kind}): ag_ui.core.Event: {issues(e)}",
                        file=sys.stderr,
                    )
    print(json.dumps({"fixtures": fixtures, "agUiEvents": events, "rejected": rejected}))
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main())
