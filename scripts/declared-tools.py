#!/usr/bin/env python3
"""Print the tools a CLI release declared to the scripted model, as scenarios/tools/*.json holds them.

usage: scripts/declared-tools.py PACKAGE VERSION LOG...

LOG is a request log written by `toolnorm scenario run --request-logs DIR` (one JSON line per
request, `body` the request). A tool counts as declared when a request lists it in `tools`
(Anthropic and Responses `name`, Chat Completions `function.name`, Gemini
`functionDeclarations[].name`) or, for droid, when its system reminder names it under
"Deferred tools:" (loaded with ToolSearch). The union over every log is printed as
`{"cli": PACKAGE, "version": VERSION, "tools": [...]}`, sorted.
"""

import json
import re
import sys

DEFERRED = re.compile(r"Deferred tools:\n((?:[^\n<]+\n)+)")


def names(body):
    for t in body.get("tools") or []:
        if not isinstance(t, dict):
            continue
        for d in t.get("functionDeclarations") or []:
            if isinstance(d, dict) and isinstance(d.get("name"), str):
                yield d["name"]
        fn = t.get("function")
        name = fn.get("name") if isinstance(fn, dict) else t.get("name")
        if isinstance(name, str):
            yield name
    for block in DEFERRED.findall(json.dumps(body).replace("\\n", "\n")):
        for line in block.splitlines():
            if line.strip():
                yield line.strip()


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    package, version, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
    tools = set()
    for path in logs:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    body = json.loads(line).get("body")
                except json.JSONDecodeError:
                    continue
                if isinstance(body, dict):
                    tools.update(names(body))
    doc = {"cli": package, "version": version, "tools": sorted(tools)}
    print(json.dumps(doc, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
