"""Copy tournament records with ``tags.group = "<tournament>:<deal>:<table>"``.

``arena ratings`` groups a round robin's records by ``<tournament>:<deal>`` and so compares
a seat's result with that seat's holders at every table of the deal; after this copy
only the seatings of one table (the duplicate pair proper) are compared.

usage: python regroup_tables.py RECORDS.jsonl OUT.jsonl; then arena ratings GAME --records OUT.jsonl
"""

from __future__ import annotations

import json
import sys


def main(src: str, dst: str) -> None:
    with open(src) as f, open(dst, "w") as out:
        for line in f:
            r = json.loads(line)
            t = r["tags"]
            t["group"] = f"{t['tournament_id']}:{t['deal']}:{t['table']}"
            out.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
