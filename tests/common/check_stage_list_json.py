#!/usr/bin/env python3
"""Parses what `<chapter> --stage list --json` printed and checks its shape.

usage: check_stage_list_json.py FILE PROGRAM [ID ...]   (every ID must be listed)
"""
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    doc = json.load(f)  # the whole output: nothing but the JSON may be printed

assert doc["program"] == sys.argv[2], doc["program"]
assert isinstance(doc["groups"], list) and doc["groups"], doc
ids = []
for group in doc["groups"]:
    assert set(group) == {"title", "stages"}, group
    assert isinstance(group["title"], str), group
    assert len(doc["groups"]) == 1 or group["title"], "several groups, each needs a title"
    assert group["stages"], group
    for stage in group["stages"]:
        assert set(stage) == {"id", "name", "role", "idea"}, stage
        assert all(isinstance(value, str) for value in stage.values()), stage
        assert stage["id"] and stage["name"] and stage["idea"], stage
        assert stage["role"] in ("progression", "baseline", "expected failure"), stage
        ids.append(stage["id"])
missing = [i for i in sys.argv[3:] if i not in ids]
assert not missing, f"not listed: {missing}; listed: {ids}"
print(f"stage list ok: {len(ids)} entries in {len(doc['groups'])} group(s)")
