#!/usr/bin/env python3
"""CI formats (issue 25, item 5), end to end.

usage: check_ci_formats.py MODE CTRL WORKDIR PROGRAM [OTHER_PROGRAM]

  sarif     --sarif, --junit and --json of a deadlock: the SARIF log is
            validated with python3-jsonschema against the parts of the SARIF
            2.1.0 schema written out below (no Debian package ships the
            OASIS schema file: python3-sarif-python-om and go-sarif have
            none), the JUnit file is read back by xml.etree, the JSON's
            version fields and per-bug structure are checked.
  limit     --limit-exit: a run stopped by --max-executions exits with the
            chosen status; the same run complete, or without the option,
            exits 0; a status 1-3 is refused (exit 2).
  progress  stderr redirected to a file: progress lines every
            --progress-every seconds, none with 0.
  program   replay --program: a binary moved after recording replays with
            it, not without it; another binary is refused with one line,
            exit 2.
"""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import jsonschema

MODE, CTRL, WORK, PROGRAM = sys.argv[1:5]
OTHER = sys.argv[5] if len(sys.argv) > 5 else None
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
os.chdir(WORK)


def run(*args, stderr_file=None):
    err = open(stderr_file, "w") if stderr_file else subprocess.PIPE
    p = subprocess.run([CTRL, *args], stdout=subprocess.PIPE, stderr=err, text=True, timeout=100)
    return p.returncode, p.stdout, (p.stderr if not stderr_file else open(stderr_file).read())


def expect(cond, what):
    if not cond:
        sys.exit(f"FAILED: {what}")


# SARIF 2.1.0 (OASIS Standard, sarif-v2.1.0-os, section 3): the objects ctrl
# writes, with their required properties and types as the standard states
# them. Written from the standard's text, not fetched.
MESSAGE = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}
REGION = {"type": "object", "properties": {"startLine": {"type": "integer", "minimum": 1}}}
ARTIFACT_LOCATION = {"type": "object", "properties": {"uri": {"type": "string", "format": "uri-reference"},
                                                      "uriBaseId": {"type": "string"}}}
PHYSICAL_LOCATION = {
    "type": "object",
    "anyOf": [{"required": ["address"]}, {"required": ["artifactLocation"]}],
    "properties": {"artifactLocation": ARTIFACT_LOCATION, "region": REGION,
                   "address": {"type": "object", "properties": {"absoluteAddress": {"type": "integer", "minimum": -1}}}},
}
LOCATION = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": -1},
        "physicalLocation": PHYSICAL_LOCATION,
        "logicalLocations": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "kind": {"type": "string"}}}},
        "message": MESSAGE,
    },
}
THREAD_FLOW_LOCATION = {
    "type": "object",
    "properties": {"location": LOCATION, "executionOrder": {"type": "integer", "minimum": -1},
                   "importance": {"enum": ["important", "essential", "unimportant"]}},
}
THREAD_FLOW = {"type": "object", "required": ["locations"],
               "properties": {"id": {"type": "string"}, "message": MESSAGE,
                              "locations": {"type": "array", "minItems": 1, "items": THREAD_FLOW_LOCATION}}}
CODE_FLOW = {"type": "object", "required": ["threadFlows"],
             "properties": {"message": MESSAGE, "threadFlows": {"type": "array", "minItems": 1, "items": THREAD_FLOW}}}
RESULT = {
    "type": "object",
    "required": ["message"],
    "properties": {
        "ruleId": {"type": "string"},
        "ruleIndex": {"type": "integer", "minimum": -1},
        "level": {"enum": ["none", "note", "warning", "error"]},
        "message": MESSAGE,
        "locations": {"type": "array", "items": LOCATION},
        "relatedLocations": {"type": "array", "items": LOCATION},
        "codeFlows": {"type": "array", "items": CODE_FLOW},
        "properties": {"type": "object"},
    },
}
REPORTING_DESCRIPTOR = {"type": "object", "required": ["id"],
                        "properties": {"id": {"type": "string"}, "shortDescription": MESSAGE}}
SARIF = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"enum": ["2.1.0"]},
        "runs": {"type": "array", "items": {
            "type": "object",
            "required": ["tool"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"}, "version": {"type": "string"},
                                   "rules": {"type": "array", "items": REPORTING_DESCRIPTOR}}}}},
                "invocations": {"type": "array", "items": {"type": "object", "required": ["executionSuccessful"],
                                                           "properties": {"executionSuccessful": {"type": "boolean"}}}},
                "originalUriBaseIds": {"type": "object", "additionalProperties": ARTIFACT_LOCATION},
                "results": {"type": "array", "items": RESULT},
                "properties": {"type": "object"},
            },
        }},
    },
}

if MODE == "sarif":
    code, out, err = run("attach", "--sarif", "out.sarif", "--junit", "out.xml", "--json", "out.json", PROGRAM)
    expect(code == 1, f"deadlock found: exit {code}\n{out}{err}")
    log = json.load(open("out.sarif"))
    jsonschema.validate(log, SARIF, format_checker=jsonschema.FormatChecker())
    run0 = log["runs"][0]
    rules = [r["id"] for r in run0["tool"]["driver"]["rules"]]
    results = run0["results"]
    expect(len(results) == 1, f"one result per bug: {len(results)}")
    res = results[0]
    expect(res["ruleId"] == "deadlock", f"ruleId: {res['ruleId']}")
    expect(rules[res["ruleIndex"]] == "deadlock", "ruleIndex names the rule")
    region = res["locations"][0]["physicalLocation"]
    expect(region["artifactLocation"]["uri"].endswith("deadlock_lock_order.c"), f"file: {region}")
    expect(region["region"]["startLine"] > 0, "a line")
    flows = res["codeFlows"][0]["threadFlows"]
    expect(len(flows) >= 2, f"a threadFlow per thread: {[f['id'] for f in flows]}")
    orders = sorted(l["executionOrder"] for f in flows for l in f["locations"])
    expect(orders == list(range(1, len(orders) + 1)), f"every step once, in order: {orders}")
    tree = ET.parse("out.xml")
    suite = tree.getroot().find("testsuite")
    expect(suite.get("failures") == "1" and suite.get("tests") == "1", "one failing testcase")
    failure = suite.find("testcase/failure")
    expect(failure.get("type") == "deadlock", "failure type")
    expect("no thread can proceed" in failure.get("message"), "failure message")
    expect("ctrl replay" in failure.text, "how to replay")
    report = json.load(open("out.json"))
    expect(report["schema_version"] == 2 and report["ctrl_version"], "schema and ctrl versions")
    bug = report["bugs"][0]
    expect(bug["location"]["file"].endswith("deadlock_lock_order.c") and bug["location"]["line"] > 0, "location")
    expect(len(bug["steps"]) == len(orders) and bug["steps"][0]["step"] == 1, "steps")
    expect(any(s["frames"] for s in bug["stacks"]), "stacks")
    waits = {w["thread"]: w["waits_for"] for w in bug["waits"]}
    expect(waits.get(1) == 2 and waits.get(2) == 1, f"who waits for whom: {bug['waits']}")
    # A clean run: one passing testcase, no SARIF result.
    code, out, err = run("attach", "--sarif", "clean.sarif", "--junit", "clean.xml", "--max-executions", "3", OTHER)
    expect(code == 0, f"clean run: exit {code}\n{out}{err}")
    clean = json.load(open("clean.sarif"))
    jsonschema.validate(clean, SARIF, format_checker=jsonschema.FormatChecker())
    expect(clean["runs"][0]["results"] == [], "no result")
    suite = ET.parse("clean.xml").getroot().find("testsuite")
    expect(suite.get("failures") == "0" and suite.find("testcase/failure") is None, "passing testcase")
    expect("--max-executions 3 reached" in suite.find("testcase/system-out").text, "the limit is said")
elif MODE == "limit":
    code, out, err = run("attach", "--max-executions", "89", "--limit-exit", "7", "--json", "l.json", PROGRAM)
    expect(code == 7, f"stopped by --max-executions: exit {code}\n{out}{err}")
    expect(json.load(open("l.json"))["stopped_by_limit"] == "max-executions", "stopped_by_limit")
    code, out, err = run("attach", "--max-executions", "89", PROGRAM)
    expect(code == 0, f"without --limit-exit: exit {code}")
    code, out, err = run("attach", "--max-executions", "90", "--limit-exit", "7", "--json", "c.json", PROGRAM)
    expect(code == 0, f"complete at the limit: exit {code}\n{out}{err}")
    expect(json.load(open("c.json"))["stopped_by_limit"] is None, "complete: stopped_by_limit null")
    code, out, err = run("attach", "--limit-exit", "1", PROGRAM)
    expect(code == 2 and "--limit-exit" in err, f"status 1 refused: exit {code} {err}")
elif MODE == "progress":
    code, out, err = run("attach", "--strategy", "random", "--max-executions", "3000", "--progress-every", "0.02",
                         PROGRAM, stderr_file="err.txt")
    lines = [l for l in err.splitlines() if l.startswith("ctrl: progress: ")]
    expect(code == 0 and len(lines) >= 2, f"progress lines: exit {code}\n{err}")
    expect("remaining: at most" in lines[0] and "--max-executions" in lines[0], f"remaining work: {lines[0]}")
    expect("\r" not in err and "\033" not in err, "no terminal control characters in a file")
    code, out, err = run("attach", "--progress-every", "0", PROGRAM, stderr_file="none.txt")
    expect("ctrl: progress:" not in err, f"--progress-every 0: none\n{err}")
elif MODE == "program":
    os.makedirs("built")
    shutil.copy2(PROGRAM, "built/prog")
    code, out, err = run("attach", "--trace-dir", "traces", os.path.abspath("built/prog"))
    expect(code == 1, f"bug found: exit {code}\n{out}{err}")
    trace = os.path.join("traces", os.listdir("traces")[0])
    os.makedirs("moved")
    shutil.move("built/prog", "moved/prog")
    code, out, err = run("replay", trace)
    expect(code == 2 and "--program" in err, f"moved binary without --program: exit {code} {err}")
    code, out, err = run("replay", "--program", "moved/prog", trace)
    expect(code == 1 and "replay reproduced the" in out, f"replay --program: exit {code}\n{out}{err}")
    code, out, err = run("replay", "--program", OTHER, trace)
    expect(code == 2 and len(err.strip().splitlines()) == 1 and "not the program the trace was recorded with" in err,
           f"another binary refused in one line: exit {code} {err!r}")
else:
    sys.exit(f"unknown mode {MODE}")
print(f"{MODE}: ok")
