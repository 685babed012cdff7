#!/usr/bin/env python3
"""Ask the real WebKit content-blocker compiler (via ./webkit-compile) a set of
behaviour questions and write the answers as JSON lines.

Standard library only.  Usage:

    python3 Benchmarks/WebKit/probe.py [--out DIR] [--only A,B,C,D] [--skip-huge]

Writes (default DIR: a new folder in the temporary directory, $TMPDIR or /tmp):
    results-vectors.jsonl   A: compilerErrorVectors of the conformance corpus
    results-patterns.jsonl  B: url-filter regex patterns
    results-order.jsonl     C: which error wins inside a trigger / rule / list
    results-json.jsonl      D: JSON edge cases of the whole list text
    tables.md               tables derived from the above

Every record carries the exact input ("input" when it is valid UTF-8 text,
otherwise "inputBase64"; lists over 1 MB carry "inputGenerator", "inputSha256"
and "inputBytes" instead).
"""

import argparse
import base64
import hashlib
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "webkit-compile")
# The repository's copy of WebKit's vectors (Corpora/manifest.json: webkit-vectors).
CORPUS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "Corpora", "conformance", "webkit-vectors.json")

# WebKit's ContentExtensionError messages (the GError message text), mapped to
# the enum case names used in our expectation files.
ERROR_NAMES = {
    "Failed to parse the JSON String.": "JSONInvalid",
    "Invalid input, the top level structure is not an array.": "JSONTopLevelStructureNotAnArray",
    "Invalid object in the top level array.": "JSONInvalidObjectInTopLevelArray",
    "Invalid rule.": "JSONInvalidRule",
    "Empty extension.": "JSONContainsNoRules",
    "Invalid trigger object.": "JSONInvalidTrigger",
    "Invalid url-filter object.": "JSONInvalidURLFilterInTrigger",
    "Invalid trigger flags array.": "JSONInvalidTriggerFlagsArray",
    "Invalid string in the trigger flags array.": "JSONInvalidStringInTriggerFlagsArray",
    "Invalid action object.": "JSONInvalidAction",
    "Invalid action type.": "JSONInvalidActionType",
    "Invalid css-display-none action type. Requires a selector.": "JSONInvalidCSSDisplayNoneActionType",
    "Invalid or unsupported regular expression.": "JSONInvalidRegex",
    "Invalid list of if-domain, unless-domain, if-top-url, or unless-top-url conditions.": "JSONInvalidConditionList",
    "Too many rules in JSON array.": "JSONTooManyRules",
    "Domains must be lower case ASCII. Use punycode to encode non-ASCII characters.": "JSONDomainNotLowerCaseASCII",
    "A trigger cannot have more than one condition (if-domain, unless-domain, if-top-url, or unless-top-url)": "JSONMultipleConditions",
    "A notify action must have a string notification": "JSONInvalidNotification",
    "Internal I/O error": "ErrorWritingSerializedNFA",
    "A redirect action must have a redirect member": "JSONRedirectMissing",
    "A remove-parameters value must be an array of strings": "JSONRemoveParametersNotStringArray",
    "An add-or-replace-parameters value must be an array": "JSONAddOrReplaceParametersNotArray",
    "Members of the add-or-replace-parameters array must be a dictionary": "JSONAddOrReplaceParametersKeyValueNotADictionary",
    "Members of the add-or-replace-parameters array must contain a key that is a string": "JSONAddOrReplaceParametersKeyValueMissingKeyString",
    "Members of the add-or-replace-parameters array must contain a value that is a string": "JSONAddOrReplaceParametersKeyValueMissingValueString",
    "A redirect extension path must start with a slash": "JSONRedirectExtensionPathDoesNotStartWithSlash",
    "A redirect url scheme must be a valid scheme": "JSONRedirectURLSchemeInvalid",
    "A redirect url can't have a scheme of javascript": "JSONRedirectToJavaScriptURL",
    "A redirect url must be valid": "JSONRedirectURLInvalid",
    'A redirect must have a member named "extension-path", "regex-substitution", "transform" or "url"': "JSONRedirectInvalidType",
    "A redirect port must be either empty or a number between 0 and 65535, inclusive": "JSONRedirectInvalidPort",
    "A redirect query must either be empty or begin with '?'": "JSONRedirectInvalidQuery",
    "A redirect fragment must either be empty or begin with '#'": "JSONRedirectInvalidFragment",
    'A modify-headers operation must have an operation that is either "set", "append", or "remove"': "JSONModifyHeadersInvalidOperation",
    "A modify-headers operation must be a dictionary": "JSONModifyHeadersInfoNotADictionary",
    "A modify-headers operation must have an operation": "JSONModifyHeadersMissingOperation",
    "A modify-headers operation must have a header": "JSONModifyHeadersMissingHeader",
    'A modify-headers operation of "set" or "append" must have a value': "JSONModifyHeadersMissingValue",
    "A headers member must be an array": "JSONModifyHeadersNotArray",
    "A priority must be a positive integer": "JSONModifyHeadersInvalidPriority",
    # Messages not in the ContentExtensionError table quoted above:
    'The request-method string must be "get", "head", "options", "trace", "put", "delete", "post", "patch", or "connect".': "JSONInvalidRequestMethod",
    # Raised by the WebKitGTK API layer before WebKit's parser runs:
    "Source JSON rule set cannot be empty": "GTKSourceEmpty",
}

REASON_PREFIX = "Error while parsing "
MAX_RECORDED_INPUT = 1 << 20


# ---------------------------------------------------------------------------
# Running the tool


def ensure_tool():
    if not os.path.exists(TOOL):
        rc = subprocess.call(["bash", os.path.join(HERE, "build.sh")])
        if rc != 0:
            sys.exit("probe.py: build.sh failed (status %d)" % rc)


def to_bytes(rules):
    return rules if isinstance(rules, bytes) else rules.encode("utf-8", "surrogatepass")


def run_cases(cases, timeout=120.0):
    """cases: list of dicts with 'id' and 'rules' (str or bytes); optional
    'timeout'.  Returns a list of tool result dicts (same order).  A crash or
    timeout of the tool is recorded for the case being compiled and the tool
    is restarted for the rest."""
    results = []
    i = 0
    while i < len(cases):
        batch = cases[i:]
        with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as ferr:
            for c in batch:
                line = {"id": c["id"], "rulesBase64": base64.b64encode(to_bytes(c["rules"])).decode("ascii")}
                fin.write((json.dumps(line) + "\n").encode("ascii"))
            fin.seek(0)
            proc = subprocess.Popen([TOOL], stdin=fin, stdout=subprocess.PIPE, stderr=ferr)
            sel = selectors.DefaultSelector()
            sel.register(proc.stdout, selectors.EVENT_READ)
            buf = b""
            done_here = 0
            deadline = time.monotonic() + batch[0].get("timeout", timeout)
            failure = None
            while done_here < len(batch):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    proc.kill()
                    failure = {"ok": None, "crash": "timeout after %.0f s" % batch[done_here].get("timeout", timeout)}
                    break
                if not sel.select(timeout=min(remaining, 1.0)):
                    continue
                chunk = os.read(proc.stdout.fileno(), 1 << 20)
                if not chunk:
                    proc.wait()
                    failure = {"ok": None, "crash": "tool exited with status %s" % proc.returncode}
                    break
                buf += chunk
                while b"\n" in buf and done_here < len(batch):
                    line, buf = buf.split(b"\n", 1)
                    rec = json.loads(line)
                    if rec.get("id") != batch[done_here]["id"]:
                        raise RuntimeError("out of order result: %r" % rec.get("id"))
                    results.append(rec)
                    done_here += 1
                    if done_here < len(batch):
                        deadline = time.monotonic() + batch[done_here].get("timeout", timeout)
            sel.close()
            if failure is None:
                proc.stdout.close()
                proc.wait()
                i += done_here
                continue
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stdout.close()
            ferr.seek(0)
            tail = ferr.read()[-4000:].decode("utf-8", "replace")
            failure["id"] = batch[done_here]["id"]
            failure["stderrTail"] = tail
            results.append(failure)
            i += done_here + 1
    return results


# ---------------------------------------------------------------------------
# Records


def reason_text(pattern, message):
    if pattern is not None:
        head = REASON_PREFIX + pattern + ": "
        if message.startswith(head):
            return message[len(head):]
    return message.rsplit(": ", 1)[-1]


def make_record(section, case, res, pattern=None):
    rules = case["rules"]
    raw = to_bytes(rules)
    rec = {"set": section, "case": case["id"]}
    for k in ("note", "expectedError", "test", "generator"):
        if k in case:
            rec[k] = case[k]
    if pattern is not None:
        rec["pattern"] = pattern
    if len(raw) > MAX_RECORDED_INPUT:
        rec["inputGenerator"] = case.get("generator", "(not recorded)")
        rec["inputSha256"] = hashlib.sha256(raw).hexdigest()
        rec["inputBytes"] = len(raw)
    else:
        try:
            text = raw.decode("utf-8")
            rec["input"] = text
        except UnicodeDecodeError:
            rec["inputBase64"] = base64.b64encode(raw).decode("ascii")
    rec["ok"] = res.get("ok")
    err = res.get("error")
    rec["errorName"] = None if err is None else ERROR_NAMES.get(err, "UNKNOWN")
    for k in ("error", "domain", "code", "reasons", "seconds", "header", "fileBytes", "headerConsistent",
              "compiledSha256", "otherStderr", "lossy", "crash", "stderrTail", "inputError"):
        if k in res:
            rec[k] = res[k]
    if res.get("reasons"):
        rec["reasonTexts"] = [reason_text(pattern, m) for m in res["reasons"]]
    return rec


def add_equivalence(records, cases):
    """For cases with "sameAs": [case ids], record whether WebKit compiled
    them to identical actions+bytecode (compiledSha256)."""
    sha = {r["case"]: r.get("compiledSha256") for r in records}
    for rec, c in zip(records, cases):
        if "sameAs" in c:
            rec["sameCompiledAs"] = {
                ref: (None if sha.get(ref) is None or rec.get("compiledSha256") is None
                      else sha[ref] == rec["compiledSha256"])
                for ref in c["sameAs"]
            }


def write_jsonl(path, records):
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def outcome(rec):
    if rec["ok"] is None:
        return "CRASH: " + str(rec.get("crash"))
    if rec["ok"]:
        if rec.get("sameCompiledAs"):
            same = [k.split(" ", 1)[1] for k, v in rec["sameCompiledAs"].items() if v]
            return "ok (compiles identically to: %s)" % (", ".join(same) if same else "none of " + ", ".join(
                k.split(" ", 1)[1] for k in rec["sameCompiledAs"]))
        return "ok"
    s = rec["errorName"]
    if rec.get("reasonTexts"):
        s += " (" + "; ".join(rec["reasonTexts"]) + ")"
    return s


def md_cell(s):
    return str(s).replace("|", "\\|").replace("\n", "\\n")


def md_code(s):
    s = str(s).replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    s = s.replace("|", "\\|")
    if "`" in s:
        return "`` " + s + " ``"
    return "`" + s + "`"


# ---------------------------------------------------------------------------
# A: conformance vectors


def load_corpus():
    if not os.path.exists(CORPUS):
        sys.exit("probe.py: %s not found" % CORPUS)
    with open(CORPUS, encoding="utf-8") as f:
        return json.load(f)


def section_a():
    corpus = load_corpus()
    cases = []
    for n, v in enumerate(corpus["compilerErrorVectors"]):
        cases.append({"id": "A%03d" % n, "rules": v["rules"], "expectedError": v["expectedError"], "test": v["test"]})
    res = run_cases(cases)
    recs = []
    for c, r in zip(cases, res):
        rec = make_record("A", c, r)
        rec["agrees"] = rec["errorName"] == c["expectedError"] and (rec["ok"] is not None)
        recs.append(rec)
    return recs


# ---------------------------------------------------------------------------
# B: url-filter patterns

PATTERNS = r"""^^a
a^
^*
$*
a$*
a$?
(a)$
a$$
$
^$
^
a|
|
a|b(
\b(
(?=a)*
(?=a)
(?<=a)b
(?<!a)b
(?<A>a)\k<B>
\k<B>(?<A>a)
(?<A>a)\k
(?<A>a)\k<A
\k
\k<A
(?<A>a)\k<A>
\k<A>(?<A>a)
a{2}
a{0,1}
a{0,}
a{1,}
a{1}
a{,5}
a{0,1}?
a{2,1}
a{99999999999}
a{99999999999,}
{
}
]
a{
x{1,2
x{1,2}
x{0,1
[]
[^]
[]a]
[a-]
[-a]
[a-\d]
[\d-a]
[\b]
[\B]
\B
\c
\cA
\c1
[\c1]
[\c_]
\u0041
\u00e9
\u{41}
\u004
\x4
\x41
\x7f
\x80
\0
\00
\08
\10
\177
\377
\400
\7
\8
[\1]
[\8]
\/
\-
\a
\e
\f\t\v
a**
a*?
a+?
a??
a*??
a?*
()
()*
(?:)
(?:)+
(?<n>)
(?<1>a)
(?<n>a)(?<n>b)
(?i)a
(?i:a)
(?-i:a)
.*$
^.*$
a(b)$
a(b$)
(a)(^b)
\\
\
a\
(
)
[
[z-a]
[a-a]
[\x00-\x7f]
[^\x00-\x7f]
\x00
[\w]
[\s-a]
\p{L}
\P{L}
\d
é
[é]
[\u00e9]
a{0,1}{0,1}
(a){0,1}
^(a)
(^a)
((a))*$
a\$
\^a
[$^]
x(?:y|z)
[\]]
[\\]
[a\-z]
\k<A>(a)""".split("\n")


def block_rule(trigger):
    return {"trigger": trigger, "action": {"type": "block"}}


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# Not asked for; added for context.
EXTRA_PATTERNS = r"""\b
a\b
\w
\s
\D
.
.*
\.
a+
(a)*
(a)+
(a)?
(?:a)*
[^a]
\n
[\n]
a\x00
\x00a
[\0]
[^\0]
\u0000
a\u0000
\$
^a$
^$a
a^b
^|a
(?:^a)
(?:a$)
\d*
\k<A>
(?<A>)\k<A>
a$
a\0""".split("\n")

# Patterns whose compiled program is compared with another pattern's.
PATTERN_SAME_AS = {"a\\x00": "a$", "a\\u0000": "a$", "a\\0": "a$", "\\x00": "$", "^^a": "^a"}


def section_b():
    cases = []
    for n, p in enumerate(PATTERNS):
        cases.append({"id": "B%03d" % n, "rules": dumps([block_rule({"url-filter": p})]), "pattern": p})
    for n, p in enumerate(EXTRA_PATTERNS):
        cases.append({"id": "B-extra%03d" % n, "rules": dumps([block_rule({"url-filter": p})]), "pattern": p,
                      "note": "extra pattern, not in the brief"})
    ids = {c["pattern"]: c["id"] for c in cases}
    for ref in set(PATTERN_SAME_AS.values()) - set(ids):
        cases.append({"id": "B-ref-" + ref, "rules": dumps([block_rule({"url-filter": ref})]), "pattern": ref,
                      "note": "reference pattern for sameCompiledAs"})
        ids[ref] = "B-ref-" + ref
    for c in cases:
        if c["pattern"] in PATTERN_SAME_AS:
            c["sameAs"] = [ids[PATTERN_SAME_AS[c["pattern"]]]]
    res = run_cases(cases)
    recs = [make_record("B", c, r, pattern=c["pattern"]) for c, r in zip(cases, res)]
    add_equivalence(recs, cases)
    return recs


# ---------------------------------------------------------------------------
# C: check order

# Single trigger-field errors: (label, dict of trigger members).  Every entry
# is also compiled alone so the pair results can be attributed.
TRIGGER_ERRORS = [
    ("url-filter:5", {"url-filter": 5}),
    ("url-filter:\"\"", {"url-filter": ""}),
    ("url-filter:regex", {"url-filter": "["}),
    ("case-sensitive:\"yes\"", {"url-filter-is-case-sensitive": "yes"}),
    ("resource-type:5", {"resource-type": 5}),
    ("resource-type:[\"x\"]", {"resource-type": ["x"]}),
    ("load-type:5", {"load-type": 5}),
    ("load-type:[\"x\"]", {"load-type": ["x"]}),
    ("load-context:5", {"load-context": 5}),
    ("load-context:[\"x\"]", {"load-context": ["x"]}),
    ("request-method:\"foo\"", {"request-method": "foo"}),
    ("if-domain:5", {"if-domain": 5}),
    ("if-domain:[\"A\"]", {"if-domain": ["A"]}),
    ("unless-domain:5", {"unless-domain": 5}),
    ("if-top-url:5", {"if-top-url": 5}),
    ("if-top-url:regex", {"if-top-url": ["["]}),
    ("unless-frame-url:regex", {"unless-frame-url": ["["]}),
    ("if-frame-url:5", {"if-frame-url": 5}),
    ("conditions:if-domain+if-top-url", {"if-domain": ["a"], "if-top-url": ["a"]}),
    ("unless-top-url:5", {"unless-top-url": 5}),
    ("unless-frame-url:5", {"unless-frame-url": 5}),
    # Valid conditions: paired with an invalid condition they show which one
    # WebKit looks at first (JSONMultipleConditions = the valid one came first).
    ("if-domain:[\"a\"] (valid)", {"if-domain": ["a"]}),
    ("unless-domain:[\"a\"] (valid)", {"unless-domain": ["a"]}),
    ("if-top-url:[\"a\"] (valid)", {"if-top-url": ["a"]}),
    ("unless-top-url:[\"a\"] (valid)", {"unless-top-url": ["a"]}),
    ("if-frame-url:[\"a\"] (valid)", {"if-frame-url": ["a"]}),
    ("unless-frame-url:[\"a\"] (valid)", {"unless-frame-url": ["a"]}),
]

VALID = block_rule({"url-filter": "a"})
VALID_TEXT = dumps(VALID)


def trig_text(pairs):
    """Builds a trigger object text from (key, value) pairs in the given order;
    url-filter "a" is added first unless the pairs set it."""
    keys = [k for k, _ in pairs]
    items = [] if "url-filter" in keys else [("url-filter", "a")]
    items += pairs
    return "{" + ",".join(json.dumps(k) + ":" + dumps(v) for k, v in items) + "}"


def rule_text(trigger_text, action_text='{"type":"block"}', trigger_first=True):
    if trigger_first:
        return '{"trigger":%s,"action":%s}' % (trigger_text, action_text)
    return '{"action":%s,"trigger":%s}' % (action_text, trigger_text)


def section_c():
    cases = []

    def add(cid, rules, note=None, **extra):
        c = {"id": cid, "rules": rules}
        if note:
            c["note"] = note
        c.update(extra)
        cases.append(c)

    # 1. The brief's named combinations.
    named = [
        ("resource-type:[x] + if-domain:5", [("resource-type", ["x"]), ("if-domain", 5)]),
        ("request-method:foo + if-domain:5", [("request-method", "foo"), ("if-domain", 5)]),
        ("load-context:5 + request-method:foo", [("load-context", 5), ("request-method", "foo")]),
        ("load-type:[x] + resource-type:5", [("load-type", ["x"]), ("resource-type", 5)]),
        ("load-context:[x] + load-type:5", [("load-context", ["x"]), ("load-type", 5)]),
        ("url-filter:5 + resource-type:5", [("url-filter", 5), ("resource-type", 5)]),
    ]
    for label, pairs in named:
        add("C-named " + label, "[" + rule_text(trig_text(pairs)) + "]", group="named")
        add("C-named " + label + " (keys reversed)", "[" + rule_text(trig_text(list(reversed(pairs)))) + "]",
            group="named")

    # 2. Every trigger error alone and every pair (both key orders).
    for label, members in TRIGGER_ERRORS:
        add("C-single " + label, "[" + rule_text(trig_text(list(members.items()))) + "]", group="single", a=label)
    for i, (la, ma) in enumerate(TRIGGER_ERRORS):
        for j, (lb, mb) in enumerate(TRIGGER_ERRORS):
            if i == j or set(ma) & set(mb):
                continue
            add("C-pair %s + %s" % (la, lb), "[" + rule_text(trig_text(list(ma.items()) + list(mb.items()))) + "]",
                group="pair", a=la, b=lb)

    # 3. Rule level / list level.
    bad_trig = trig_text([("resource-type", 5)])
    regex_trig = trig_text([("url-filter", "[")])
    rule_cases = [
        ("trigger error + action error (trigger first)", "[" + rule_text(bad_trig, '{"type":"bogus"}') + "]"),
        ("trigger error + action error (action first)", "[" + rule_text(bad_trig, '{"type":"bogus"}', False) + "]"),
        ("bad regex + action error", "[" + rule_text(regex_trig, '{"type":"bogus"}') + "]"),
        ("bad regex + css-display-none without selector", "[" + rule_text(regex_trig, '{"type":"css-display-none"}') + "]"),
        ("trigger not an object + action not an object", '[{"trigger":5,"action":5}]'),
        ("trigger not an object", '[{"trigger":5,"action":{"type":"block"}}]'),
        ("action not an object", '[{"trigger":{"url-filter":"a"},"action":5}]'),
        ("rule without action", '[{"trigger":{"url-filter":"a"}}]'),
        ("rule without trigger", '[{"action":{"type":"block"}}]'),
        ("empty rule object", '[{}]'),
        ("rule is 5", '[5]'),
        ("rule is null", '[null]'),
        ("rule is a string", '["x"]'),
        ("rule is an array", '[[]]'),
        ("[5, valid]", "[5," + VALID_TEXT + "]"),
        ("[valid, 5]", "[" + VALID_TEXT + ",5]"),
        ("rule 0 bad regex, rule 1 structural error", "[" + rule_text(regex_trig) + "," + rule_text(bad_trig) + "]"),
        ("rule 0 structural error, rule 1 bad regex", "[" + rule_text(bad_trig) + "," + rule_text(regex_trig) + "]"),
        ("rule 0 bad regex, rule 1 action error", "[" + rule_text(regex_trig) + "," + rule_text(trig_text([]), '{"type":"bogus"}') + "]"),
        ("rule 0 bad regex, rule 1 is 5", "[" + rule_text(regex_trig) + ",5]"),
        ("rule 0 trigger error, rule 1 action error", "[" + rule_text(bad_trig) + "," + rule_text(trig_text([]), '{"type":"bogus"}') + "]"),
        ("rule 0 action error, rule 1 trigger error", "[" + rule_text(trig_text([]), '{"type":"bogus"}') + "," + rule_text(bad_trig) + "]"),
        ("rule 0 bad regex '[', rule 1 bad regex 'a$b'", "[" + rule_text(regex_trig) + "," + rule_text(trig_text([("url-filter", "a$b")])) + "]"),
        ("bad regex in if-top-url", "[" + rule_text(trig_text([("if-top-url", ["["])])) + "]"),
        ("bad regex in unless-top-url", "[" + rule_text(trig_text([("unless-top-url", ["["])])) + "]"),
        ("bad regex in if-frame-url", "[" + rule_text(trig_text([("if-frame-url", ["["])])) + "]"),
        ("bad regex in unless-frame-url", "[" + rule_text(trig_text([("unless-frame-url", ["["])])) + "]"),
        ("unsupported regex (a$b) in if-top-url", "[" + rule_text(trig_text([("if-top-url", ["a$b"])])) + "]"),
        ("bad regex in if-top-url + bad url-filter regex", "[" + rule_text(trig_text([("url-filter", "a$b"), ("if-top-url", ["["])])) + "]"),
        ("rule 0 bad if-top-url regex, rule 1 bad url-filter regex", "[" + rule_text(trig_text([("if-top-url", ["["])])) + "," + rule_text(trig_text([("url-filter", "a$b")])) + "]"),
        ("rule 0 bad url-filter regex, rule 1 bad if-top-url regex", "[" + rule_text(trig_text([("url-filter", "a$b")])) + "," + rule_text(trig_text([("if-top-url", ["["])])) + "]"),
        ("ignore-previous-rules with bad regex", "[" + rule_text(regex_trig, '{"type":"ignore-previous-rules"}') + "]"),
    ]
    for label, text in rule_cases:
        add("C-rule " + label, text, group="rule")

    # 4. Trigger field values.
    trig_cases = [
        ("request-method:GET", [("request-method", "GET")]),
        ("request-method:get", [("request-method", "get")]),
        ("request-method:Get", [("request-method", "Get")]),
        ("request-method:head", [("request-method", "head")]),
        ("request-method:[\"get\"]", [("request-method", ["get"])]),
        ("if-domain:[\"*\"]", [("if-domain", ["*"])]),
        ("if-domain:[\"*a\"]", [("if-domain", ["*a"])]),
        ("if-domain:[\"*.a\"]", [("if-domain", ["*.a"])]),
        ("if-domain:[\"a\",\"A\"]", [("if-domain", ["a", "A"])]),
        ("if-domain:[\"A\",5]", [("if-domain", ["A", 5])]),
        ("if-domain:[\"\"]", [("if-domain", [""])]),
        ("if-domain:[\"a\",5]", [("if-domain", ["a", 5])]),
        ("if-domain:[5]", [("if-domain", [5])]),
        ("if-domain:[\"é\"]", [("if-domain", ["é"])]),
        ("if-domain:[\"a b\"]", [("if-domain", ["a b"])]),
        ("if-domain:[\"a/b\"]", [("if-domain", ["a/b"])]),
        ("unless-domain:[\"\"]", [("unless-domain", [""])]),
        ("if-top-url:[\"\"]", [("if-top-url", [""])]),
        ("if-top-url:[\"a\",5]", [("if-top-url", ["a", 5])]),
        ("if-top-url:[]", [("if-top-url", [])]),
        ("unless-top-url:[\"\"]", [("unless-top-url", [""])]),
        ("if-frame-url:[\"\"]", [("if-frame-url", [""])]),
        ("if-frame-url:[]", [("if-frame-url", [])]),
        ("if-ancestor-frame-url:[\"a\"]", [("if-ancestor-frame-url", ["a"])]),
        ("if-ancestor-frame-url:5", [("if-ancestor-frame-url", 5)]),
        ("if-ancestor-frame-url:[\"[\"]", [("if-ancestor-frame-url", ["["])]),
        ("if-ancestor-frame-url + if-domain", [("if-ancestor-frame-url", ["a"]), ("if-domain", ["a"])]),
        ("if-ancestor-frame-url + if-top-url", [("if-ancestor-frame-url", ["a"]), ("if-top-url", ["a"])]),
        ("unless-ancestor-frame-url:[\"a\"]", [("unless-ancestor-frame-url", ["a"])]),
        ("unless-ancestor-frame-url:5", [("unless-ancestor-frame-url", 5)]),
        ("unless-ancestor-frame-url + if-domain", [("unless-ancestor-frame-url", ["a"]), ("if-domain", ["a"])]),
        ("if-frame-url + if-domain", [("if-frame-url", ["a"]), ("if-domain", ["a"])]),
        ("if-frame-url + unless-frame-url", [("if-frame-url", ["a"]), ("unless-frame-url", ["a"])]),
        ("url-filter-is-case-sensitive:\"yes\"", [("url-filter-is-case-sensitive", "yes")]),
        ("url-filter-is-case-sensitive:1", [("url-filter-is-case-sensitive", 1)]),
        ("url-filter-is-case-sensitive:null", [("url-filter-is-case-sensitive", None)]),
        ("url-filter-is-case-sensitive:true", [("url-filter-is-case-sensitive", True)]),
        ("resource-type:[]", [("resource-type", [])]),
        ("resource-type:[\"Image\"]", [("resource-type", ["Image"])]),
        ("resource-type:[\"document\",\"document\"]", [("resource-type", ["document", "document"])]),
        ("resource-type:[\"image\",5]", [("resource-type", ["image", 5])]),
        ("resource-type all known", [("resource-type", ["document", "image", "style-sheet", "script", "font", "raw", "svg-document", "media", "popup", "ping", "fetch", "websocket", "other", "csp-report"])]),
        ("load-type:[]", [("load-type", [])]),
        ("load-type:[\"first-party\",\"third-party\"]", [("load-type", ["first-party", "third-party"])]),
        ("load-context:[]", [("load-context", [])]),
        ("load-context:[\"top-frame\",\"child-frame\"]", [("load-context", ["top-frame", "child-frame"])]),
        ("url-filter missing", [("url-filter", None)]),
    ]
    trig_cases += [
        ("url-filter-is-case-sensitive:false", [("url-filter-is-case-sensitive", False)]),
        ("url-filter-is-case-sensitive:\"false\"", [("url-filter-is-case-sensitive", "false")]),
        ("url-filter-is-case-sensitive:0", [("url-filter-is-case-sensitive", 0)]),
        ("no extra member (reference)", []),
        ("if-domain:[\"a\"] (reference)", [("if-domain", ["a"])]),
        ("unless-domain:[\"*\"]", [("unless-domain", ["*"])]),
        ("if-domain:[\"a.\"]", [("if-domain", ["a."])]),
        ("if-domain:[\".a\"]", [("if-domain", [".a"])]),
        ("if-domain:[\"**a\"]", [("if-domain", ["**a"])]),
        ("if-domain:[\"a*\"]", [("if-domain", ["a*"])]),
        ("if-domain:[\"xn--a\"]", [("if-domain", ["xn--a"])]),
        ("if-domain:[\"1.2.3.4\"]", [("if-domain", ["1.2.3.4"])]),
        ("if-domain:[\"a_b\"]", [("if-domain", ["a_b"])]),
        ("if-domain:[\"a:80\"]", [("if-domain", ["a:80"])]),
        ("request-method:\"\"", [("request-method", "")]),
        ("request-method:\"GET \"", [("request-method", "GET ")]),
    ]
    same = {
        "url-filter-is-case-sensitive:\"yes\"": ["url-filter-is-case-sensitive:true", "url-filter-is-case-sensitive:false"],
        "url-filter-is-case-sensitive:1": ["url-filter-is-case-sensitive:true", "url-filter-is-case-sensitive:false"],
        "url-filter-is-case-sensitive:null": ["url-filter-is-case-sensitive:true", "url-filter-is-case-sensitive:false"],
        "url-filter-is-case-sensitive:\"false\"": ["url-filter-is-case-sensitive:true", "url-filter-is-case-sensitive:false"],
        "url-filter-is-case-sensitive:0": ["url-filter-is-case-sensitive:true", "url-filter-is-case-sensitive:false"],
        "url-filter-is-case-sensitive:false": ["no extra member (reference)"],
        "request-method:GET": ["request-method:get"],
        "request-method:Get": ["request-method:get"],
        "if-ancestor-frame-url:[\"a\"]": ["no extra member (reference)"],
        "if-ancestor-frame-url:5": ["no extra member (reference)"],
        "if-ancestor-frame-url + if-domain": ["if-domain:[\"a\"] (reference)"],
        "unless-ancestor-frame-url:[\"a\"]": ["no extra member (reference)"],
        "resource-type:[]": ["no extra member (reference)"],
        "load-type:[]": ["no extra member (reference)"],
        "load-type:[\"first-party\",\"third-party\"]": ["no extra member (reference)"],
        "load-context:[]": ["no extra member (reference)"],
        "load-context:[\"top-frame\",\"child-frame\"]": ["no extra member (reference)"],
    }
    for label, pairs in trig_cases:
        cases_same = ["C-trigger " + x for x in same[label]] if label in same else None
        if label == "url-filter missing":
            text = '[{"trigger":{"resource-type":["image"]},"action":{"type":"block"}}]'
        else:
            text = "[" + rule_text(trig_text(pairs)) + "]"
        if cases_same:
            add("C-trigger " + label, text, group="trigger", sameAs=cases_same)
        else:
            add("C-trigger " + label, text, group="trigger")

    # 5. Actions.
    def act(label, action, same=None):
        extra = {"sameAs": ["C-action " + x for x in same]} if same else {}
        add("C-action " + label, "[" + rule_text(trig_text([]), dumps(action)) + "]", group="action", **extra)

    def mh(**kw):
        a = {"type": "modify-headers"}
        a.update(kw)
        return a

    hdr = [{"operation": "set", "header": "x-a", "value": "1"}]
    act("modify-headers priority missing", mh(**{"request-headers": hdr}))
    for p in (1, 2, 0, 1.5, 1.9, 0.5, -0.5, "2", -1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 1, 1e300, None, True):
        same = None
        if isinstance(p, float) and p < 1e300:
            same = ["modify-headers priority %s" % json.dumps(x) for x in (0, 1, 2)]
        act("modify-headers priority %s" % json.dumps(p), mh(priority=p, **{"request-headers": hdr}), same)
    act("modify-headers no headers members", mh(priority=1))
    act("modify-headers response-headers only", mh(priority=1, **{"response-headers": hdr}))
    act("modify-headers bad header (5) + priority -1", mh(priority=-1, **{"request-headers": [5]}))
    act("modify-headers bad header (missing) + priority -1", mh(priority=-1, **{"request-headers": [{"operation": "set"}]}))
    act("modify-headers request-headers:5 + priority -1", mh(priority=-1, **{"request-headers": 5}))
    act("modify-headers bad header + priority -1 (priority key last)",
        {"type": "modify-headers", "request-headers": [5], "priority": -1})
    act("modify-headers bad request-headers + bad response-headers",
        mh(priority=1, **{"request-headers": [{"operation": "set"}], "response-headers": 5}))
    act("modify-headers append without value", mh(priority=1, **{"request-headers": [{"operation": "append", "header": "x-a"}]}))
    act("modify-headers set without value", mh(priority=1, **{"request-headers": [{"operation": "set", "header": "x-a"}]}))
    act("modify-headers remove with value", mh(priority=1, **{"request-headers": [{"operation": "remove", "header": "x-a", "value": "1"}]}))
    act("modify-headers operation bogus", mh(priority=1, **{"request-headers": [{"operation": "bogus", "header": "x-a", "value": "1"}]}))
    act("modify-headers operation SET", mh(priority=1, **{"request-headers": [{"operation": "SET", "header": "x-a", "value": "1"}]}))
    act("modify-headers operation bogus, no header", mh(priority=1, **{"request-headers": [{"operation": "bogus"}]}))
    act("modify-headers header 5", mh(priority=1, **{"request-headers": [{"operation": "set", "header": 5, "value": "1"}]}))
    act("modify-headers header \"\"", mh(priority=1, **{"request-headers": [{"operation": "set", "header": "", "value": "1"}]}))
    act("modify-headers header with space", mh(priority=1, **{"request-headers": [{"operation": "set", "header": "a b", "value": "1"}]}))
    act("modify-headers value 5", mh(priority=1, **{"request-headers": [{"operation": "set", "header": "x-a", "value": 5}]}))
    act("modify-headers operation 5", mh(priority=1, **{"request-headers": [{"operation": 5, "header": "x-a", "value": "1"}]}))
    act("redirect extension-path + url", {"type": "redirect", "redirect": {"extension-path": "/a", "url": "https://a.example/"}})
    act("redirect url + extension-path (bad path)", {"type": "redirect", "redirect": {"url": "https://a.example/", "extension-path": "no-slash"}})
    act("redirect url + transform", {"type": "redirect", "redirect": {"url": "https://a.example/", "transform": {"host": "b"}}})
    act("redirect url + regex-substitution", {"type": "redirect", "redirect": {"url": "https://a.example/", "regex-substitution": "x"}})
    act("redirect extension-path no slash", {"type": "redirect", "redirect": {"extension-path": "no-slash"}})
    act("redirect extension-path 5", {"type": "redirect", "redirect": {"extension-path": 5}})
    act("redirect url \"not a url\"", {"type": "redirect", "redirect": {"url": "not a url"}})
    act("redirect url \"javascript:x\"", {"type": "redirect", "redirect": {"url": "javascript:x"}})
    act("redirect url \"\"", {"type": "redirect", "redirect": {"url": ""}})
    act("redirect url \"/relative\"", {"type": "redirect", "redirect": {"url": "/relative"}})
    act("redirect url 5", {"type": "redirect", "redirect": {"url": 5}})
    act("redirect url data:", {"type": "redirect", "redirect": {"url": "data:text/plain,x"}})
    act("redirect redirect:5", {"type": "redirect", "redirect": 5})
    act("redirect regex-substitution without regex-filter", {"type": "redirect", "redirect": {"regex-substitution": "\\1"}})
    act("redirect regex-substitution with invalid regex-filter", {"type": "redirect", "redirect": {"regex-substitution": "\\1", "regex-filter": "("}},
        same=["redirect regex-substitution without regex-filter"])
    act("redirect regex-substitution with valid regex-filter", {"type": "redirect", "redirect": {"regex-substitution": "\\1", "regex-filter": "(a)"}})
    act("redirect regex-filter without regex-substitution", {"type": "redirect", "redirect": {"regex-filter": "(a)"}})
    act("redirect regex-substitution 5", {"type": "redirect", "redirect": {"regex-substitution": 5, "regex-filter": "(a)"}})
    act("redirect transform remove-parameters [5]", {"type": "redirect", "redirect": {"transform": {"query-transform": {"remove-parameters": [5]}}}})
    act("redirect transform remove-parameters \"a\"", {"type": "redirect", "redirect": {"transform": {"query-transform": {"remove-parameters": "a"}}}})
    act("redirect transform add-or-replace [{key:a}] (no value)", {"type": "redirect", "redirect": {"transform": {"query-transform": {"add-or-replace-parameters": [{"key": "a"}]}}}})
    act("redirect transform add-or-replace [{key:a,value:5}]", {"type": "redirect", "redirect": {"transform": {"query-transform": {"add-or-replace-parameters": [{"key": "a", "value": 5}]}}}})
    act("redirect transform add-or-replace bad + remove-parameters bad", {"type": "redirect", "redirect": {"transform": {"query-transform": {"remove-parameters": [5], "add-or-replace-parameters": 5}}}})
    act("redirect transform query-transform 5", {"type": "redirect", "redirect": {"transform": {"query-transform": 5}}})
    act("redirect transform 5", {"type": "redirect", "redirect": {"transform": 5}})
    act("redirect transform {}", {"type": "redirect", "redirect": {"transform": {}}})
    act("redirect transform port 70000", {"type": "redirect", "redirect": {"transform": {"port": "70000"}}})
    act("redirect transform port 80 (number)", {"type": "redirect", "redirect": {"transform": {"port": 80}}})
    act("redirect transform port -1", {"type": "redirect", "redirect": {"transform": {"port": "-1"}}})
    act("redirect transform fragment x", {"type": "redirect", "redirect": {"transform": {"fragment": "x"}}})
    act("redirect transform fragment #x", {"type": "redirect", "redirect": {"transform": {"fragment": "#x"}}})
    act("redirect transform query ?x", {"type": "redirect", "redirect": {"transform": {"query": "?x"}}})
    act("redirect transform scheme https", {"type": "redirect", "redirect": {"transform": {"scheme": "https"}}})
    act("redirect transform scheme \"\"", {"type": "redirect", "redirect": {"transform": {"scheme": ""}}})
    act("redirect transform host 5", {"type": "redirect", "redirect": {"transform": {"host": 5}}})
    act("redirect transform bad port + bad query", {"type": "redirect", "redirect": {"transform": {"query": "x", "port": "x"}}})
    act("redirect transform bad scheme + bad port", {"type": "redirect", "redirect": {"transform": {"port": "x", "scheme": "!"}}})
    act("redirect transform bad port + bad query (port key first)", {"type": "redirect", "redirect": {"transform": {"port": "x", "query": "x"}}})
    act("redirect transform bad scheme + bad port (scheme key first)", {"type": "redirect", "redirect": {"transform": {"scheme": "!", "port": "x"}}})
    act("redirect transform bad query + bad fragment", {"type": "redirect", "redirect": {"transform": {"query": "x", "fragment": "x"}}})
    act("redirect transform bad fragment + bad query", {"type": "redirect", "redirect": {"transform": {"fragment": "x", "query": "x"}}})
    act("redirect transform bad scheme + bad query-transform", {"type": "redirect", "redirect": {"transform": {"scheme": "!", "query-transform": {"remove-parameters": 5}}}})
    act("redirect transform bad query-transform + bad scheme", {"type": "redirect", "redirect": {"transform": {"query-transform": {"remove-parameters": 5}, "scheme": "!"}}})
    act("redirect good extension-path + javascript url", {"type": "redirect", "redirect": {"url": "javascript:x", "extension-path": "/a"}})
    act("redirect good url + bad transform", {"type": "redirect", "redirect": {"url": "https://a.example/", "transform": {"port": "x"}}})
    act("redirect bad url + good transform", {"type": "redirect", "redirect": {"url": "javascript:x", "transform": {"port": "1"}}})
    act("redirect good regex-substitution + bad transform", {"type": "redirect", "redirect": {"regex-substitution": "x", "transform": {"port": "x"}}})
    act("redirect bad extension-path + good regex-substitution", {"type": "redirect", "redirect": {"extension-path": "x", "regex-substitution": "x"}})
    act("css-display-none selector \"\"", {"type": "css-display-none", "selector": ""})
    act("css-display-none selector 5", {"type": "css-display-none", "selector": 5})
    act("css-display-none selector \"###\" (invalid CSS)", {"type": "css-display-none", "selector": "###"})
    act("css-display-none selector \"a[\" (invalid CSS)", {"type": "css-display-none", "selector": "a["})
    act("css-display-none selector \".a\"", {"type": "css-display-none", "selector": ".a"})
    add("C-action css-display-none invalid selector \"a[\" + valid block rule",
        "[" + rule_text(trig_text([]), dumps({"type": "css-display-none", "selector": "a["})) + "," + VALID_TEXT + "]",
        group="action", sameAs=["C-action type block"])
    add("C-action css-display-none selector \"\" + valid block rule",
        "[" + rule_text(trig_text([]), dumps({"type": "css-display-none", "selector": ""})) + "," + VALID_TEXT + "]",
        group="action", sameAs=["C-action type block"])
    act("css-display-none selector \"a, b[\" (one bad part)", {"type": "css-display-none", "selector": "a, b["})
    act("css-display-none selector \":has(a)\"", {"type": "css-display-none", "selector": ":has(a)"})
    act("css-display-none selector \"a::before\"", {"type": "css-display-none", "selector": "a::before"})
    act("notify notification 5", {"type": "notify", "notification": 5})
    act("notify no notification", {"type": "notify"})
    act("notify notification \"\"", {"type": "notify", "notification": ""})
    act("type 5", {"type": 5})
    act("type missing", {})
    act("type \"Block\"", {"type": "Block"})
    for t in ("block", "block-cookies", "ignore-previous-rules", "make-https", "ignore-following-rules", "report"):
        act("type %s" % t, {"type": t})

    res = run_cases(cases)
    recs = []
    for c, r in zip(cases, res):
        rec = make_record("C", c, r)
        for k in ("group", "a", "b"):
            if k in c:
                rec[k] = c[k]
        recs.append(rec)
    add_equivalence(recs, cases)
    return recs


# ---------------------------------------------------------------------------
# D: JSON edge cases

R = VALID_TEXT
R_BAD = '{"trigger":{"url-filter":"["},"action":{"type":"block"}}'


def in_trigger(extra):
    """A valid list whose only rule's trigger has url-filter "a" plus raw
    JSON text `extra` (e.g. '"x":01')."""
    return '[{"trigger":{"url-filter":"a",%s},"action":{"type":"block"}}]' % extra


def with_filter(raw_string_body):
    """A list whose url-filter string literal has the raw body given (text
    between the quotes, inserted verbatim)."""
    return '[{"trigger":{"url-filter":"%s"},"action":{"type":"block"}}]' % raw_string_body


def nested(depth):
    return "[" * depth + "]" * depth


def section_d(skip_huge=False):
    cases = []

    def add(cid, rules, note=None, **extra):
        c = {"id": cid, "rules": rules}
        if note:
            c["note"] = note
        c.update(extra)
        cases.append(c)

    add("D valid baseline", "[" + R + "]")
    add("D reference url-filter \"b\"", with_filter("b"))
    add("D reference url-filter \"A\"", with_filter("A"))
    add("D reference url-filter \"a/b\"", with_filter("a/b"))
    add("D reference url-filter \"a\\tb\" (JSON escape)", with_filter("a\\tb"))
    add("D reference url-filter \"a\\nb\" (JSON escape)", with_filter("a\\nb"))
    add("D duplicate url-filter: \"a\" then \"b\"", '[{"trigger":{"url-filter":"a","url-filter":"b"},"action":{"type":"block"}}]',
        sameAs=["D reference url-filter \"b\"", "D valid baseline"])
    add("D duplicate url-filter: \"b\" then \"a\"", '[{"trigger":{"url-filter":"b","url-filter":"a"},"action":{"type":"block"}}]',
        sameAs=["D reference url-filter \"b\"", "D valid baseline"])
    add("D duplicate trigger objects: a then b", '[{"trigger":{"url-filter":"a"},"trigger":{"url-filter":"b"},"action":{"type":"block"}}]',
        sameAs=["D reference url-filter \"b\"", "D valid baseline"])
    add("D url-filter \\x41 (non-standard JSON escape)", with_filter("\\x41"), sameAs=["D reference url-filter \"A\""])
    add("D url-filter \\x4 (short \\x escape)", with_filter("\\x4"))
    add("D url-filter \\xZZ", with_filter("\\xZZ"))
    add("D url-filter \\v (non-standard JSON escape)", with_filter("a\\vb"))
    add("D url-filter \\0 (non-standard JSON escape)", with_filter("a\\0"))
    add("D url-filter \\' (non-standard JSON escape)", with_filter("a\\'b"))
    # Duplicate keys.
    add("D duplicate url-filter: \"a\" then \"[\"", '[{"trigger":{"url-filter":"a","url-filter":"["},"action":{"type":"block"}}]',
        note="fails with JSONInvalidRegex iff the later key wins")
    add("D duplicate url-filter: \"[\" then \"a\"", '[{"trigger":{"url-filter":"[","url-filter":"a"},"action":{"type":"block"}}]',
        note="fails with JSONInvalidRegex iff the earlier key wins")
    add("D duplicate url-filter: 5 then \"a\"", '[{"trigger":{"url-filter":5,"url-filter":"a"},"action":{"type":"block"}}]')
    add("D duplicate url-filter: \"a\" then 5", '[{"trigger":{"url-filter":"a","url-filter":5},"action":{"type":"block"}}]')
    add("D duplicate action type: block then bogus", '[{"trigger":{"url-filter":"a"},"action":{"type":"block","type":"bogus"}}]')
    add("D duplicate action type: bogus then block", '[{"trigger":{"url-filter":"a"},"action":{"type":"bogus","type":"block"}}]')
    add("D duplicate trigger: valid then 5", '[{"trigger":{"url-filter":"a"},"trigger":5,"action":{"type":"block"}}]')
    add("D duplicate trigger: 5 then valid", '[{"trigger":5,"trigger":{"url-filter":"a"},"action":{"type":"block"}}]')
    # Trailing commas / comments / literals.
    add("D trailing comma in array", "[" + R + ",]")
    add("D trailing comma in object", '[{"trigger":{"url-filter":"a",},"action":{"type":"block"}}]')
    add("D leading comma in array", "[," + R + "]")
    add("D double comma in array", "[" + R + ",," + R + "]")
    add("D // comment before [", "// c\n[" + R + "]")
    add("D // comment inside array", "[" + R + " // c\n]")
    add("D /* */ comment", "[/* c */" + R + "]")
    add("D # comment", "# c\n[" + R + "]")
    for lit in ("NaN", "Infinity", "-Infinity", "01", "00", "-01", "1.", ".5", "-", "+1", "1e5", "1E+5", "1e", "-0", "0x10",
                "1e400", "-1e400", "123456789012345678901234567890", "true", "TRUE", "True", "null", "undefined", "'x'",
                '"\\x41"', '"\\a"', '"\\\'"', '"\\U0041"', '"\\u00"', '"\\u00e9"', '"\\ud800"', '"\\udc00"',
                '"\\udc00\\ud800"', '"\\ud83d\\ude00"'):
        add("D ignored key value " + lit, in_trigger('"x":' + lit))
    add("D priority 01", '[{"trigger":{"url-filter":"a"},"action":{"type":"modify-headers","priority":01,"request-headers":[{"operation":"remove","header":"x"}]}}]')
    add("D priority 1.", '[{"trigger":{"url-filter":"a"},"action":{"type":"modify-headers","priority":1.,"request-headers":[{"operation":"remove","header":"x"}]}}]')
    add("D priority 1e0", '[{"trigger":{"url-filter":"a"},"action":{"type":"modify-headers","priority":1e0,"request-headers":[{"operation":"remove","header":"x"}]}}]')
    add("D priority 1.0", '[{"trigger":{"url-filter":"a"},"action":{"type":"modify-headers","priority":1.0,"request-headers":[{"operation":"remove","header":"x"}]}}]')
    # Strings.
    add("D url-filter lone high surrogate \\ud800", with_filter("\\ud800"))
    add("D url-filter a\\ud800", with_filter("a\\ud800"))
    add("D url-filter lone low surrogate \\udc00", with_filter("\\udc00"))
    add("D url-filter surrogate pair \\ud83d\\ude00", with_filter("\\ud83d\\ude00"))
    add("D url-filter raw emoji", with_filter("\U0001F600"))
    add("D url-filter a\\u0000b", with_filter("a\\u0000b"))
    add("D url-filter raw NUL byte", b'[{"trigger":{"url-filter":"a\x00b"},"action":{"type":"block"}}]')
    add("D raw NUL after ]", b"[" + R.encode() + b"]\x00")
    add("D url-filter a\\/b", with_filter("a\\/b"), sameAs=["D reference url-filter \"a/b\""])
    add("D url-filter \\u0061 escape", with_filter("\\u0061"))
    add("D url-filter raw tab", with_filter("a\tb"), sameAs=["D reference url-filter \"a\\tb\" (JSON escape)"])
    add("D url-filter raw newline", with_filter("a\nb"), sameAs=["D reference url-filter \"a\\nb\" (JSON escape)"])
    add("D url-filter raw CR", with_filter("a\rb"))
    add("D url-filter raw 0x01", with_filter("a\x01b"))
    add("D url-filter raw DEL 0x7f", with_filter("a\x7fb"))
    add("D ignored key raw tab", in_trigger('"x":"a\tb"'))
    add("D url-filter invalid UTF-8 0xff", b'[{"trigger":{"url-filter":"a\xffb"},"action":{"type":"block"}}]')
    add("D url-filter invalid UTF-8 0xc3 0x28", b'[{"trigger":{"url-filter":"a\xc3\x28b"},"action":{"type":"block"}}]')
    add("D url-filter overlong UTF-8 0xc0 0xaf", b'[{"trigger":{"url-filter":"a\xc0\xafb"},"action":{"type":"block"}}]')
    add("D url-filter CESU surrogate bytes ED A0 80", b'[{"trigger":{"url-filter":"a\xed\xa0\x80b"},"action":{"type":"block"}}]')
    add("D ignored key invalid UTF-8 0xff", b'[{"trigger":{"url-filter":"a","x":"\xff"},"action":{"type":"block"}}]')
    add("D invalid UTF-8 outside strings (after ])", b"[" + R.encode() + b"]\xff")
    add("D Latin-1 e-acute byte in url-filter", b'[{"trigger":{"url-filter":"\xe9"},"action":{"type":"block"}}]')
    add("D UTF-8 e-acute in url-filter", with_filter("é"))
    add("D single quotes everywhere", "[{'trigger':{'url-filter':'a'},'action':{'type':'block'}}]")
    add("D single-quoted value", "[{\"trigger\":{\"url-filter\":'a'},\"action\":{\"type\":\"block\"}}]")
    add("D unquoted key", '[{trigger:{"url-filter":"a"},"action":{"type":"block"}}]')
    # Around the document.
    add("D UTF-8 BOM before [", b"\xef\xbb\xbf[" + R.encode() + b"]")
    add("D UTF-16LE BOM + UTF-16LE text", b"\xff\xfe" + ("[" + R + "]").encode("utf-16-le"))
    add("D trailing garbage x after ]", "[" + R + "]x")
    add("D trailing ] after ]", "[" + R + "]]")
    add("D two arrays", "[" + R + "][" + R + "]")
    add("D trailing whitespace", "[" + R + "] \n\t\r\n")
    add("D leading whitespace", " \n\t[" + R + "]")
    add("D form feed after ]", "[" + R + "]\f")
    add("D NBSP after ]", "[" + R + "]\u00a0")
    add("D empty text", "")
    add("D whitespace only", " \n")
    add("D null", "null")
    add("D object {}", "{}")
    add("D string", '"x"')
    add("D [[]]", "[[]]")
    add("D [{}]", "[{}]")
    add("D [[valid]]", "[[" + R + "]]")
    add("D [] + trailing garbage", "[]x")
    add("D unterminated string", '[{"trigger":{"url-filter":"a')
    # Nesting.
    for d in (100, 250, 500, 510, 511, 512, 513, 520, 1000, 1500, 5000, 20000):
        add("D nesting %d in ignored key" % d, in_trigger('"x":' + nested(d)),
            note="array nesting %d inside trigger key x; total document depth %d" % (d, d + 3),
            nesting=d)
    for d in (500, 1000):
        add("D object nesting %d in ignored key" % d, in_trigger('"x":' + '{"a":' * d + "1" + "}" * d),
            note="object nesting %d inside trigger key x" % d, nesting=d)

    if not skip_huge:
        one = "{\"trigger\":{\"url-filter\":\"a\"},\"action\":{\"type\":\"block\"}}"
        bad5 = '{"trigger":{"url-filter":5},"action":{"type":"block"}}'
        badre = '{"trigger":{"url-filter":"["},"action":{"type":"block"}}'

        def many(n, first=None):
            parts = [one] * n
            if first is not None:
                parts[0] = first
            return "[" + ",".join(parts) + "]"

        big = [
            ("D 150000 valid rules", 150000, None),
            ("D 150001 valid rules", 150001, None),
            ("D 150001 rules, rule 0 url-filter:5", 150001, bad5),
            ("D 150001 rules, rule 0 bad regex", 150001, badre),
            ("D 150000 rules, rule 0 bad regex", 150000, badre),
            ("D 150000 rules, rule 0 url-filter:5", 150000, bad5),
        ]
        for label, n, first in big:
            gen = "'[' + ','.join(rules) + ']' where rules = [%r] * %d" % (one, n)
            if first:
                gen += " with rules[0] = %r" % first
            add(label, many(n, first), generator=gen, timeout=1800)
        add("D 150002 rules, rule 150001 is 5", "[" + ",".join([one] * 150001 + ["5"]) + "]",
            generator="'[' + ','.join([%r] * 150001 + ['5']) + ']'" % one, timeout=1800)
        add("D 150000 rules, rule 149999 is 5", "[" + ",".join([one] * 149999 + ["5"]) + "]",
            generator="'[' + ','.join([%r] * 149999 + ['5']) + ']'" % one, timeout=1800)
        css_bad = '{"trigger":{"url-filter":"a"},"action":{"type":"css-display-none","selector":"a["}}'
        add("D 150001 rules, rule 0 css-display-none with invalid selector (dropped)", many(150001, css_bad),
            generator="'[' + ','.join(rules) + ']' where rules = [%r] * 150001 with rules[0] = %r" % (one, css_bad),
            timeout=1800)
        distinct = [{"trigger": {"url-filter": "ad%d\\.example" % i}, "action": {"type": "block"}} for i in range(150000)]
        add("D 150000 distinct url-filters (timing)", dumps(distinct),
            generator="json [{'trigger':{'url-filter':'ad%d\\\\.example' % i},'action':{'type':'block'}} for i in range(150000)], compact separators",
            timeout=1800)
        distinct_css = [{"trigger": {"url-filter": "ad%d\\.example" % i}, "action": {"type": "css-display-none", "selector": ".c%d" % i}}
                        for i in range(20000)]
        add("D 20000 distinct css-display-none rules (timing)", dumps(distinct_css),
            generator="json [{'trigger':{'url-filter':'ad%d\\\\.example' % i},'action':{'type':'css-display-none','selector':'.c%d' % i}} for i in range(20000)], compact separators",
            timeout=1800)

    res = run_cases(cases)
    recs = []
    for c, r in zip(cases, res):
        rec = make_record("D", c, r)
        if "nesting" in c:
            rec["nesting"] = c["nesting"]
        recs.append(rec)
    add_equivalence(recs, cases)

    # Exact nesting limit by bisection (array nesting inside the ignored key).
    lo, hi = 1, 20000  # lo parses, hi does not (checked above unless they disagree)
    probe_results = {}

    def parses(d):
        if d not in probe_results:
            r = run_cases([{"id": "nest-%d" % d, "rules": in_trigger('"x":' + nested(d))}])[0]
            probe_results[d] = r.get("ok")
        return probe_results[d]

    if parses(lo) and not parses(hi):
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if parses(mid):
                lo = mid
            else:
                hi = mid
        recs.append({"set": "D", "case": "D nesting limit (bisection)", "maxArrayNestingInIgnoredKey": lo,
                     "maxDocumentDepth": lo + 3, "firstFailingNesting": hi,
                     "note": "array nesting d inside trigger key x (document depth d+3); largest d that compiles"})
    return recs


# ---------------------------------------------------------------------------
# Tables


def tables(a, b, c, d):
    out = []
    if a:
        bad = [r for r in a if not r["agrees"]]
        out.append("## A. compilerErrorVectors: %d vectors, %d disagree\n" % (len(a), len(bad)))
        if bad:
            out.append("| case | rules | expected | WebKit |\n|---|---|---|---|")
            for r in bad:
                out.append("| %s | %s | %s | %s |" % (r["case"], md_code(r.get("input", "")), r["expectedError"], md_cell(outcome(r))))
        out.append("")
    if b:
        out.append("## B. url-filter patterns\n")
        out.append("| pattern | result | reason logged |\n|---|---|---|")
        for r in b:
            res = "ok" if r["ok"] else (r["errorName"] if r["ok"] is False else "CRASH")
            if r.get("sameCompiledAs"):
                res += " (same program as %s: %s)" % (
                    ", ".join(k for k in r["sameCompiledAs"]), ", ".join(str(v) for v in r["sameCompiledAs"].values()))
            if "extra" in r.get("note", "") or "reference" in r.get("note", ""):
                res += " [extra]"
            out.append("| %s | %s | %s |" % (md_code(r["pattern"]), res, md_cell("; ".join(r.get("reasonTexts", [])))))
        out.append("")
    if c:
        out.append("## C. check order and field validation\n")
        singles = {r["a"]: r for r in c if r.get("group") == "single"}
        out.append("### Trigger errors alone\n")
        out.append("| trigger member | result |\n|---|---|")
        for label, r in singles.items():
            out.append("| %s | %s |" % (md_code(label), md_cell(outcome(r))))
        out.append("")
        # pair winners
        out.append("### Pairs inside one trigger (row key written first, column key second): winner\n")
        labels = list(singles)
        pair = {(r["a"], r["b"]): r for r in c if r.get("group") == "pair"}
        short = {l: "%d" % i for i, l in enumerate(labels)}
        out.append("Columns are numbered like the rows. `=` same error either way; `A`/`B` row/column error wins.\n")
        out.append("| # | row \\ col | " + " | ".join(short[l] for l in labels) + " |")
        out.append("|---|---|" + "---|" * len(labels))
        for la in labels:
            cells = []
            for lb in labels:
                r = pair.get((la, lb))
                if r is None:
                    cells.append("")
                    continue
                ea, eb, e = singles[la]["errorName"], singles[lb]["errorName"], r["errorName"]
                if r["ok"] is None:
                    cells.append("X")
                elif ea is None or eb is None:
                    cells.append("-" if e == (ea or eb) else "?" + str(e))
                elif ea == eb:
                    cells.append("=" if e == ea else "?" + str(e))
                elif e == ea:
                    cells.append("A")
                elif e == eb:
                    cells.append("B")
                else:
                    cells.append("?" + str(e))
            out.append("| %s | %s | %s |" % (short[la], md_code(la), " | ".join(cells)))
        out.append("")
        # derived order
        wins = {l: set() for l in labels}
        inconsistent = []
        for (la, lb), r in pair.items():
            ea, eb, e = singles[la]["errorName"], singles[lb]["errorName"], r["errorName"]
            if ea == eb or ea is None or eb is None or r["ok"] is None:
                continue
            if e == ea:
                wins[la].add(lb)
            elif e == eb:
                wins[lb].add(la)
            rev = pair.get((lb, la))
            if rev is not None and rev["errorName"] != e:
                inconsistent.append((la, lb))
        order = sorted(labels, key=lambda l: -len(wins[l]))
        out.append("Derived precedence (most dominant first; beats = number of other errors it wins against): ")
        out.append("")
        for l in order:
            out.append("- %s -> %s (beats %d)" % (md_code(l), singles[l]["errorName"], len(wins[l])))
        out.append("")
        out.append("Key order changed the winner for: %s\n" % (inconsistent or "no pair"))
        for group, title in (("named", "Named combinations"), ("rule", "Rule / list level"),
                             ("trigger", "Trigger values"), ("action", "Actions")):
            rows = [r for r in c if r.get("group") == group]
            out.append("### %s\n" % title)
            out.append("| case | result |\n|---|---|")
            for r in rows:
                out.append("| %s | %s |" % (md_cell(r["case"].split(" ", 1)[1]), md_cell(outcome(r))))
            out.append("")
    if d:
        out.append("## D. JSON edge cases\n")
        out.append("| case | result | seconds |\n|---|---|---|")
        for r in d:
            if "maxArrayNestingInIgnoredKey" in r:
                out.append("| %s | max array nesting that compiles: %d (document depth %d) | |" % (
                    r["case"], r["maxArrayNestingInIgnoredKey"], r["maxDocumentDepth"]))
                continue
            out.append("| %s | %s | %s |" % (md_cell(r["case"][2:]), md_cell(outcome(r)),
                                             "%.3f" % r["seconds"] if "seconds" in r else ""))
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=None,
                    help="folder for the results (default: a new folder in the temporary directory, $TMPDIR)")
    ap.add_argument("--only", default="A,B,C,D")
    ap.add_argument("--skip-huge", action="store_true", help="skip the 150000-rule lists of D")
    args = ap.parse_args()
    ensure_tool()
    if args.out is None:
        args.out = tempfile.mkdtemp(prefix="webkit-probe-")
    os.makedirs(args.out, exist_ok=True)
    only = set(args.only.upper().split(","))
    a = b = c = d = None
    t0 = time.monotonic()
    if "A" in only:
        a = section_a()
        write_jsonl(os.path.join(args.out, "results-vectors.jsonl"), a)
        print("A: %d records, %d disagree" % (len(a), sum(1 for r in a if not r["agrees"])), flush=True)
    if "B" in only:
        b = section_b()
        write_jsonl(os.path.join(args.out, "results-patterns.jsonl"), b)
        print("B: %d records" % len(b), flush=True)
    if "C" in only:
        c = section_c()
        write_jsonl(os.path.join(args.out, "results-order.jsonl"), c)
        print("C: %d records" % len(c), flush=True)
    if "D" in only:
        d = section_d(args.skip_huge)
        write_jsonl(os.path.join(args.out, "results-json.jsonl"), d)
        print("D: %d records" % len(d), flush=True)
    with open(os.path.join(args.out, "tables.md"), "w", encoding="utf-8") as f:
        f.write(tables(a, b, c, d))
    print("done in %.1f s; tables in %s" % (time.monotonic() - t0, os.path.join(args.out, "tables.md")))


if __name__ == "__main__":
    main()
