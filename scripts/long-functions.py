#!/usr/bin/env python3
"""scripts/long-functions.py [--max N] [PATH...]

Lists the Swift functions (func, init, deinit, subscript) longer than N lines (default 120),
from their declaration to their closing brace, longest first; exits 1 when there is one.
Braces are counted outside comments and string literals ("...", multi-line and raw strings).
PATH: files or folders (default: Sources). Metrics.swift is left out on purpose (issue 42:
it is held to its reference).
"""
import os, re, sys

DECL = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|open|static|class|final|override|"
                  r"mutating|nonmutating|convenience|required|nonisolated|@inlinable|@inline\(__always\)|@discardableResult)\s+)*"
                  r"(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b|subscript\s*[(<])")
SKIP = {"Metrics.swift"}


def code_only(text):
    """The text with comments and string contents blanked (newlines kept, so lines still count)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            hashes = len(re.match(r"#*", text[i:]).group(0))
            start = i + hashes
            if text.startswith('"""', start):
                close = '"""' + "#" * hashes
                j = text.find(close, start + 3)
                j = n if j < 0 else j + len(close)
            else:
                close = '"' + "#" * hashes
                j = start + 1
                while j < n and not text.startswith(close, j) and text[j] != "\n":
                    j += 2 if (text[j] == "\\" and hashes == 0) else 1
                j = min(n, j + len(close))
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    lines = code_only(open(path, encoding="utf-8").read()).split("\n")
    for k, line in enumerate(lines):
        m = DECL.match(line)
        if not m:
            continue
        # The body starts at the first "{" after the declaration (none: a protocol requirement).
        depth, started = 0, False
        for j in range(k, len(lines)):
            rest = lines[j] if j > k else line[m.start(1):]
            if not started and j > k and DECL.match(lines[j]):
                break
            for ch in rest:
                if ch == "{":
                    depth, started = depth + 1, True
                elif ch == "}":
                    depth -= 1
                if started and depth == 0:
                    yield m.group(1).split("(")[0].strip(), k + 1, j - k + 1
                    break
            else:
                continue
            break


def main():
    args = sys.argv[1:]
    limit = 120
    if args[:1] == ["--max"]:
        limit, args = int(args[1]), args[2:]
    found = []
    for root in args or ["Sources"]:
        walk = [(os.path.dirname(root), [], [os.path.basename(root)])] if os.path.isfile(root) else os.walk(root)
        for d, _, files in walk:
            for f in files:
                if f.endswith(".swift") and f not in SKIP:
                    p = os.path.join(d, f)
                    found += [(n, p, line, name) for name, line, n in functions(p) if n > limit]
    for n, p, line, name in sorted(found, reverse=True):
        print("%5d  %s:%d  %s" % (n, p, line, name))
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
