#!/usr/bin/env python3
# tests/cli/check_outputs.py: reads tare's outputs the way their consumers do, not with tare's
# code, and checks the names in them (tests/cli/test_outputs.sh).
#
#   check_outputs.py KIND FILE [NAMES]
#
# KIND: json (strict: the bytes decoded as UTF-8, no NaN or Infinity), text (UTF-8, no control
# character but newline and tab), csv, junit (UTF-8 XML read by ElementTree). NAMES, a file of
# NUL-separated names, each of which must appear in FILE in the form esc.h's rule gives it:
# valid UTF-8 as it is, a byte that is not UTF-8 as the text \xNN; in text and CSV every
# control character visibly too (\x1b, \u0085); in XML tab, newline and return kept.
# Prints "ok", or what is wrong.
import csv
import io
import json
import sys
import xml.etree.ElementTree as ET


def rule(b):
    return b.decode("utf-8", "backslashreplace")


def visible(s, keep=""):
    out = []
    for ch in s:
        o = ord(ch)
        if ch in keep:
            out.append(ch)
        elif o < 0x20 or o == 0x7F:
            out.append("\\x%02x" % o)
        elif 0x80 <= o < 0xA0 or o in (0xFFFE, 0xFFFF):
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    return "".join(out)


def strings_of(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings_of(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings_of(x)


def no_constant(c):
    raise ValueError("not JSON: " + c)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    names = []
    if len(sys.argv) > 3:
        names = [n for n in open(sys.argv[3], "rb").read().split(b"\0") if n]
    data = open(path, "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        print("not UTF-8: %s" % e)
        return 1
    if kind == "json":
        try:
            doc = json.loads(text, parse_constant=no_constant)
        except ValueError as e:
            print("not JSON: %s" % e)
            return 1
        have = list(strings_of(doc))
        want = [rule(n) for n in names]
    elif kind == "text":
        bad = [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or ord(c) == 0x7F or
               0x80 <= ord(c) < 0xA0]
        if bad:
            print("control characters in text: %r" % sorted(set(bad)))
            return 1
        have = [text]
        want = [visible(rule(n)) for n in names]
    elif kind == "csv":
        have = [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]
        want = [visible(rule(n)) for n in names]
    elif kind == "junit":
        try:
            root = ET.fromstring(data)
        except ET.ParseError as e:
            print("not XML: %s" % e)
            return 1
        have = [v for el in root.iter() for v in list(el.attrib.values()) + [el.text or ""]]
        want = [visible(rule(n), "\t\n\r") for n in names]
    else:
        print("unknown kind " + kind)
        return 2
    for w in want:
        if not any(w in h for h in have):
            print("name missing: %r" % w[:80])
            return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
