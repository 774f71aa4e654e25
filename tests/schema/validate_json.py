#!/usr/bin/env python3
"""Validates gpumem's JSON outputs against the JSON Schema files in the repository.

Usage: validate_json.py SCHEMA_DIR... -- FILE...   (each FILE names its schema in "schema")

Every schema file under the given directories (*.schema.json) is loaded and registered by its
$id, so one schema may refer to another (the explanation's key_figures are the ledger's). A
file is checked against the schema its own "schema" field names; a file without one, or one
naming an unknown schema, fails. Exit 0 when every file is valid, 1 otherwise, with each error
as FILE: JSON-PATH: message.
"""
import json
import pathlib
import sys

import jsonschema


def main(argv):
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    split = argv.index("--")
    schema_dirs, files = argv[:split], argv[split + 1:]
    schemas = {}
    for d in schema_dirs:
        for path in sorted(pathlib.Path(d).rglob("*.schema.json")):
            schema = json.loads(path.read_text())
            jsonschema.Draft202012Validator.check_schema(schema)
            name = schema["$id"].rsplit("/schema/", 1)[1]
            schemas[name] = schema
    store = {s["$id"]: s for s in schemas.values()}
    failed = 0
    for f in files:
        doc = json.loads(pathlib.Path(f).read_text())
        name = doc.get("schema") if isinstance(doc, dict) else None
        if name not in schemas:
            print(f"{f}: names no known schema ({name!r}; known: {sorted(schemas)})")
            failed += 1
            continue
        schema = schemas[name]
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors:
            path = "/" + "/".join(str(p) for p in e.absolute_path)
            print(f"{f}: {path}: {e.message}")
        failed += bool(errors)
    print(f"{len(files) - failed} of {len(files)} files valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
