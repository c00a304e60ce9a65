#!/usr/bin/env python3
"""A deliberately wrong implementation that answers in a wire (protocol 2), for the tests.

It runs toolnorm's own wire emitter (`TOOLNORM serve-protocol --wire WIRE`), which passes the
whole corpus, and breaks its frames the way a hand-written mapping from parts to a UI wire goes
wrong:

  usage: wrong_wire.py TOOLNORM WIRE FAULT      WIRE: acp | ai-sdk | ag-ui

  none             pass the frames on unchanged (a correct wire implementation)
  drop-title       leave every call's title out (the consumer falls back to the tool name)
  error-as-output  show a failed call as a success (`tool-output-available` with the error text,
                   an AG-UI result without the failure, an ACP `completed` status)
  drop-result      never send a finished call's result (the consumer shows it running)
  unlisted         answer in WIRE without listing it in hello's `wires`
"""

import json
import subprocess
import sys

TOOLNORM, WIRE, FAULT = sys.argv[1], sys.argv[2], sys.argv[3]


def drop_title(frame):
    if WIRE == "ai-sdk":
        frame.pop("title", None)
    elif WIRE == "ag-ui":
        slot = (frame.get("metadata") or {}).get("toolnorm")
        if isinstance(slot, dict):
            slot.pop("title", None)
    else:
        update = frame.get("params", {}).get("update", {})
        if update.get("sessionUpdate") == "tool_call":
            name = ((update.get("_meta") or {}).get("toolnorm") or {}).get("name", "")
            update["title"] = name
        else:
            update.pop("title", None)
    return [frame]


def error_as_output(frame):
    if WIRE == "ai-sdk":
        if frame.get("type") == "tool-output-error":
            frame["type"] = "tool-output-available"
            frame["output"] = frame.pop("errorText")
    elif WIRE == "ag-ui":
        slot = (frame.get("metadata") or {}).get("toolnorm")
        if isinstance(slot, dict) and slot.get("state") == "error":
            slot["state"] = "complete"
            slot.pop("error", None)
    else:
        update = frame.get("params", {}).get("update", {})
        if update.get("status") == "failed":
            update["status"] = "completed"
            slot = (update.get("_meta") or {}).get("toolnorm")
            if isinstance(slot, dict):
                slot.pop("error", None)
    return [frame]


def drop_result(frame):
    if WIRE == "ai-sdk":
        ty = frame.get("type")
        if ty in ("tool-output-error", "tool-output-denied") or (
            ty == "tool-output-available" and not frame.get("preliminary")
        ):
            return []
    elif WIRE == "ag-ui":
        if frame.get("type") == "TOOL_CALL_RESULT":
            return []
        slot = (frame.get("metadata") or {}).get("toolnorm")
        if isinstance(slot, dict) and slot.get("state") in ("complete", "error"):
            slot.pop("state")
    else:
        update = frame.get("params", {}).get("update", {})
        if update.get("status") in ("completed", "failed"):
            update["status"] = "in_progress"
            update.pop("rawOutput", None)
            update.pop("content", None)
    return [frame]


FAULTS = {
    "none": lambda f: [f],
    "drop-title": drop_title,
    "error-as-output": error_as_output,
    "drop-result": drop_result,
    "unlisted": lambda f: [f],
}


def main():
    fault = FAULTS[FAULT]
    inner = subprocess.Popen(
        [TOOLNORM, "serve-protocol", "--wire", WIRE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    for line in sys.stdin:
        inner.stdin.write(line)
        inner.stdin.flush()
        if json.loads(line).get("type") == "bye":
            break
        answer = json.loads(inner.stdout.readline())
        if answer.get("type") == "hello":
            answer["name"] = "wrong-wire"
            answer["version"] = "0.0.1"
            answer["wires"] = [] if FAULT == "unlisted" else [WIRE]
        elif "frames" in answer:
            answer["frames"] = [g for f in answer["frames"] for g in fault(f)]
            answer.pop("legacy", None)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    inner.stdin.close()
    inner.wait()


if __name__ == "__main__":
    main()
