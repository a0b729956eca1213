#!/usr/bin/env python3
"""Reads kosoku/Autobahn's reports/servers/index.json and fails unless every case passed.

A case passes when its behaviour is OK, NON-STRICT or INFORMATIONAL and its closing behaviour is
OK or INFORMATIONAL (so FAILED, ERROR, UNIMPLEMENTED, NO_CLOSE, WRONG CODE and UNCLEAN all fail).
Prints the counts per behaviour and per group, and each failing case.
"""
import json
import sys
from collections import Counter, defaultdict

PASSING = {"OK", "NON-STRICT", "INFORMATIONAL"}
PASSING_CLOSE = {"OK", "INFORMATIONAL"}


def main(path: str) -> int:
    with open(path) as f:
        index = json.load(f)
    behaviours = Counter()
    closes = Counter()
    groups = defaultdict(Counter)
    failures = []
    total = 0
    for agent, cases in index.items():
        for case_id, result in cases.items():
            total += 1
            b, c = result.get("behavior"), result.get("behaviorClose")
            behaviours[b] += 1
            closes[c] += 1
            groups[case_id.split(".")[0]][b] += 1
            if b not in PASSING or c not in PASSING_CLOSE:
                failures.append(f"  {agent} case {case_id}: behavior={b} close={c} (reports/servers/{result.get('reportfile', '')})")
    print(f"Autobahn: {total} cases")
    print("  by behaviour:       " + ", ".join(f"{k}={v}" for k, v in sorted(behaviours.items())))
    print("  by close behaviour: " + ", ".join(f"{k}={v}" for k, v in sorted(closes.items())))
    for group in sorted(groups, key=int):
        print(f"  group {group:>2}: " + ", ".join(f"{k}={v}" for k, v in sorted(groups[group].items())))
    if total == 0:
        print("no cases ran")
        return 1
    if failures:
        print(f"{len(failures)} case(s) did not pass:")
        print("\n".join(failures))
        return 1
    print(f"conformance: {total} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "reports/servers/index.json"))
