#!/usr/bin/python3
"""Validates mdlsim JSON reports against frontends/views/mdlsim.schema.json (Debian's
python3-jsonschema): validate.py SCHEMA FILE...; a file may hold one object per line."""
import json
import sys

import jsonschema


def main():
    if len(sys.argv) < 3:
        print("usage: validate.py SCHEMA FILE...", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    # The schema is one of a result, a block's error or a comparison of cores; errors are clearer
    # against the one meant.
    kinds = {}
    for kind in ("result", "error", "comparison"):
        sub = {k: v for k, v in schema.items() if k != "oneOf"}
        sub["$ref"] = "#/$defs/" + kind
        kinds[kind] = jsonschema.Draft202012Validator(sub)
    bad = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            lines = [line for line in f.read().splitlines() if line.strip()]
        docs = [json.loads(line) for line in lines] if len(lines) > 1 and lines[0].startswith("{") \
            and lines[0].endswith("}") else [json.loads("\n".join(lines))]
        for n, doc in enumerate(docs, 1):
            kind = "result"
            if isinstance(doc, dict) and "error" in doc:
                kind = "error"
            elif isinstance(doc, dict) and "comparison" in doc:
                kind = "comparison"
            validator = kinds[kind]
            for e in validator.iter_errors(doc):
                where = "/".join(str(p) for p in e.absolute_path)
                print(f"{path}:{n}: {where or '(top)'}: {e.message}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
