"""schemautil.py - what podschema.py and targetschema.py share: their
command line (extract FROM > JSON, gen JSON OUT.c) and how extract writes
its JSON.  Imported from the script's own directory (Python puts it first
on sys.path), so the build runs the scripts as before."""
import json
import sys


def dump_json(out):
    """Writes out to stdout as the schema/*.json files are kept: one-space
    indent, sorted keys, a final newline."""
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


def main(doc, extract, gen):
    """Runs `extract FROM` or `gen JSON OUT.c`; anything else exits with the
    script's usage (doc)."""
    if len(sys.argv) == 3 and sys.argv[1] == "extract":
        extract(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3])
    else:
        sys.exit(doc)
