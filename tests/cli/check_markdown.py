#!/usr/bin/env python3
# tests/cli/check_markdown.py: a Markdown block read as GitHub reads it (test_outputs.sh).
#
#   check_markdown.py MARKDOWN HTML NAMES
#
# MARKDOWN: tare's block; HTML: it rendered by cmark-gfm with GitHub's table extension;
# NAMES: the NUL-separated names the block must show. Checks, by GitHub's rules rather than
# tare's code: every row of a table has as many unescaped '|' as its header (a '|' inside a
# code span splits a cell too unless written \|); the HTML has exactly one <details> and one
# </details>, and no <img>, <script> or other tag a name could have brought; every name is
# the whole text of one code span in a table cell, in esc.h's text form. Prints "ok" or what
# is wrong.
import html.parser
import sys


def visible(b):
    out = []
    for ch in b.decode("utf-8", "backslashreplace"):
        o = ord(ch)
        if o < 0x20 or o == 0x7F:
            out.append("\\x%02x" % o)
        elif 0x80 <= o < 0xA0:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    return "".join(out)


def pipes(line):
    n, i = 0, 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        n += line[i] == "|"
        i += 1
    return n


class Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.codes, self.in_cell, self.in_code = [], [], False, False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "td":
            self.in_cell = True
        if tag == "code" and self.in_cell:
            self.in_code = True
            self.codes.append("")

    def handle_endtag(self, tag):
        self.tags.append("/" + tag)
        if tag == "td":
            self.in_cell = False
        if tag == "code":
            self.in_code = False

    def handle_data(self, data):
        if self.in_code:
            self.codes[-1] += data


def main():
    try:
        md = open(sys.argv[1], encoding="utf-8").read()
        page = open(sys.argv[2], encoding="utf-8").read()
    except UnicodeDecodeError as e:
        print("not UTF-8: %s" % e)
        return 1
    names = [n for n in open(sys.argv[3], "rb").read().split(b"\0") if n]
    header = None
    for line in md.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        if header is None:
            header = pipes(line)
        elif pipes(line) != header:
            print("a row with %d cells, its header %d: %r" % (pipes(line) - 1, header - 1,
                                                              line[:120]))
            return 1
    p = Cells()
    p.feed(page)
    allowed = {"h3", "p", "strong", "em", "code", "table", "thead", "tbody", "tr", "th", "td",
               "details", "summary"}
    bad = sorted({t.strip("/") for t in p.tags} - allowed)
    if bad:
        print("tags a name brought into the page: %s" % bad)
        return 1
    for t in ("details", "/details"):
        if p.tags.count(t) != 1:
            print("%d <%s> in the page, want 1" % (p.tags.count(t), t))
            return 1
    for n in names:
        if visible(n) not in p.codes:
            print("no code span in a cell holds the name %r" % visible(n)[:80])
            return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
