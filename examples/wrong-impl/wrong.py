#!/usr/bin/env python3
"""A deliberately wrong implementation of the toolnorm protocol (v1), for the tests.

It never normalizes anything right: each mode (the first argument, or $WRONG_MODE) breaks the
protocol or the contract in one way, so the harness's tests can prove each is caught.

  empty         answer no parts at all (a diff, and the rules see the lost calls)
  bad-part      answer one invented part in the wrong state (diffs and rule violations)
  bad-legacy    answer no parts and a legacy view that is not the expected parts' mapping
  error         answer {"error": ...} for every fixture
  crash         exit with status 3 on the first normalize request (after a note on stderr)
  crash-second  answer the first request of each process, crash on the second
  hang          never answer a normalize request
  garbage       answer a line that is not JSON
  out-of-order  answer with the wrong seq
  slow          wait $WRONG_DELAY seconds (default 3) before answering
  bad-hello     answer hello with protocol 99

$WRONG_DIALECTS is a comma-separated list of claimed dialects (default "*").
"""

import json
import os
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("WRONG_MODE", "empty")
DIALECTS = os.environ.get("WRONG_DIALECTS", "*").split(",")


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def result(seq, **fields):
    send(dict(type="result", seq=seq, **fields))


def main():
    handled = 0
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            protocol = 99 if MODE == "bad-hello" else 1
            send(dict(type="hello", protocol=protocol, name="wrong-impl", version="0.0.1",
                      dialects=DIALECTS))
            continue
        if kind == "bye":
            return
        if kind != "normalize":
            continue
        handled += 1
        seq = msg["seq"]
        if MODE == "empty":
            result(seq, parts=[])
        elif MODE == "bad-part":
            result(seq, parts=[{
                "id": "invented-1", "name": "Bash", "kind": "bash", "title": "",
                "input": {}, "state": "running",
            }])
        elif MODE == "bad-legacy":
            result(seq, parts=[], legacy=[{
                "toolCallId": "invented-1", "toolName": "Bash", "title": "x",
                "state": "calling", "input": {},
            }])
        elif MODE == "error":
            result(seq, error="wrong-impl refuses " + msg["fixture"])
        elif MODE == "crash" or (MODE == "crash-second" and handled == 2):
            sys.stderr.write("wrong-impl: crashing on purpose\n")
            sys.stderr.flush()
            sys.exit(3)
        elif MODE == "crash-second":
            result(seq, parts=[])
        elif MODE == "hang":
            sys.stderr.write("wrong-impl: hanging on purpose\n")
            sys.stderr.flush()
            time.sleep(3600)
        elif MODE == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
        elif MODE == "out-of-order":
            result(seq + 7, parts=[])
        elif MODE == "slow":
            time.sleep(float(os.environ.get("WRONG_DELAY", "3")))
            result(seq, parts=[])
        else:
            sys.stderr.write("wrong-impl: unknown mode " + MODE + "\n")
            sys.exit(2)


if __name__ == "__main__":
    main()
