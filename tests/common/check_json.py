#!/usr/bin/env python3
"""Parses the JSON written by ResultTable::write_json back and checks its structure and numbers."""
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    doc = json.load(f)

assert doc["program"] == "reduction", doc["program"]
assert doc["run"]["gpu"] == 'Test GPU "X"', doc["run"]["gpu"]
assert doc["run"]["peak_gbs"] == 1000, doc["run"]["peak_gbs"]
assert doc["run"]["cuda_driver"] == "13.0", doc["run"]
assert doc["run"]["driver_version"] == "", doc["run"]  # the driver's own version; unknown here
assert doc["run"]["parameters"] == {"N": "1000", "block": "256"}, doc["run"]["parameters"]
rows = doc["rows"]
if "group_column" in doc:  # report_test's grouped_table(): (group, id) names a row
    assert doc["group_column"] == "size" and doc["baseline"] == "nccl", doc
    by_key = {(r["group"], r["id"]): r for r in rows}
    assert len(by_key) == len(rows) == 9, rows
    assert by_key[("64 MiB", "1")]["speedup_vs_previous"] is None
    assert abs(by_key[("64 MiB", "2")]["speedup_vs_baseline"] - 0.5) < 1e-9
    assert by_key[("1 GiB", "1")]["speedup_vs_baseline"] is None
    print("json round trip ok")
    sys.exit(0)
assert doc["baseline"] == "cub"
assert [r["id"] for r in rows] == ["1", "2", "3", "cub"], rows
assert abs(rows[0]["gbs"] - 250.0) < 1e-3, rows[0]
assert rows[0]["speedup_vs_previous"] is None
assert abs(rows[2]["speedup_vs_first"] - 4.0) < 1e-9
assert rows[2]["passed"] is False and rows[2]["detail"].startswith("element 7")
assert rows[3]["in_progression"] is False
assert rows[3]["extra"] == {"note": "baseline, with, commas"}
print("json round trip ok")
