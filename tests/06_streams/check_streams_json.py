#!/usr/bin/env python3
"""Parses the JSON written by streams (summary table + "timelines") with a real JSON parser and
checks its structure against the records report_test.cpp wrote."""
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    doc = json.load(f)

assert doc["program"] == "streams", doc["program"]
assert doc["run"]["gpu"] == 'Test GPU "X"', doc["run"]["gpu"]
rows = doc["rows"]
assert [r["id"] for r in rows] == ["2L", "2P"], rows
assert rows[0]["extra"]["overlapping pairs"] == "2/3", rows[0]
assert rows[0]["passed"] is True
timelines = doc["timelines"]
assert [t["build"] for t in timelines] == ["legacy", "per-thread"], timelines
first = timelines[0]
assert first["scenario"] == 2 and first["key"] == "non_blocking_stream", first
assert first["summary"]["overlapping_pairs"] == 2, first["summary"]
assert first["summary"]["worker_pairs"] == 3, first["summary"]
assert abs(first["summary"]["wall_us"] - 410.0) < 1e-9, first["summary"]
assert abs(first["summary"]["legacy_stream_events_us"] - 203.0) < 1e-9, first["summary"]
kernels = first["kernels"]
assert [k["name"] for k in kernels] == ["k1", "k2", "k3"], kernels
assert kernels[0]["start_us"] == 0.0 and abs(kernels[2]["end_us"] - 410.0) < 1e-9, kernels
assert kernels[1]["stream_kind"] == "legacy default", kernels[1]
assert timelines[1]["kernels"][1]["stream_kind"] == "blocking", timelines[1]
print("streams json ok")
