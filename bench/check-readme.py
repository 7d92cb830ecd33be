#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the Performance figures (docs/performance.md, which the README
links) against bench/results.

Every row of a table in docs/performance.md must have all
its numbers in one result of bench/results: one line of summary.md, or one
object of its JSON files (its own values, not its children's), each as
written there or rounded to as many decimals as the page shows (also in
millions, thousands, KiB/MiB or percent of the value).  Tables most of
whose rows are not one result gather several in a row (one column per
configuration): there each cell's numbers must be in one result.  A row
that fails says which of its figures no result holds at all.  A small
integer can match by chance; the large and precise figures cannot.

The prose of the page is checked too, figure by figure: every number
with a unit results are given in (µs, %, x, pp, s, ms, MiB, B) must be in
a result, except in a paragraph that says its figures are not make
bench's.  Any result will do there, so a small figure passes more easily
than in a table.  Prints TAP: one line per table, one for the prose.

    bench/check-readme.py [docs/performance.md [bench/results]]
"""
import json
import os
import re
import sys

NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?")


def numbers_in_text(text):
    """Every number in @text, as floats."""
    found = set()
    for token in NUMBER.findall(text):
        try:
            found.add(float(token.replace(",", "")))
        except ValueError:
            pass
    return found


def records_in_json(value, records):
    """One set of numbers per JSON object (its scalars and strings) and
    per list of scalars."""
    if isinstance(value, dict):
        own = set()
        for v in value.values():
            if isinstance(v, bool):
                continue
            if isinstance(v, (int, float)):
                own.add(float(v))
            elif isinstance(v, str):
                own.update(numbers_in_text(v))
            else:
                records_in_json(v, records)
        records.append(own)
    elif isinstance(value, list):
        scalars = {float(v) for v in value
                   if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if scalars:
            records.append(scalars)
        for v in value:
            if isinstance(v, (dict, list)):
                records_in_json(v, records)


def results_records(results):
    records = []
    for name in sorted(os.listdir(results)):
        path = os.path.join(results, name)
        if name.endswith(".json"):
            with open(path) as f:
                records_in_json(json.load(f), records)
        elif name.endswith(".md"):
            with open(path) as f:
                records.extend(numbers_in_text(line) for line in f)
    return [derived(r) for r in records if r]


def derived(found):
    """The numbers in the units the page uses: also per million
    (M samples/s), per thousand, per billion (ns to s), per 1024 (KiB,
    MiB), and as percentages of a fraction, so that a figure converted for
    reading still matches."""
    more = set(found)
    for x in found:
        more.update((x / 1e6, x / 1e3, x / 1e9, x / 1024, x / 1048576, x * 100))
    return more


def matches(token, found):
    text = token.replace(",", "")
    value = float(text)
    decimals = len(text.split(".")[1]) if "." in text else 0
    tolerance = 0.5 * 10 ** -decimals + 1e-9
    return any(abs(x - value) <= tolerance for x in found)


def in_one(tokens, records):
    """Whether one record holds every number of @tokens."""
    return not tokens or any(all(matches(t, r) for t in tokens) for r in records)


# A figure of the prose: a number and a unit results are given in.
PROSE_FIGURE = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s?(?:guest )?(?:µs|us|%|x\b| pp\b| s\b| ms\b| MiB\b| B\b)")
NOT_MEASURED_HERE = "not make bench's"


def page_text(page):
    with open(page) as f:
        return f.read()


def prose_paragraphs(section):
    """The paragraphs (and list items) outside tables and code blocks."""
    paragraphs, current, code = [], [], False
    for line in section.splitlines():
        if line.startswith("```"):
            code = not code
            continue
        starts_item = line.lstrip().startswith(("* ", "- "))
        if code or line.startswith("|") or not line.strip() or starts_item:
            if current:
                paragraphs.append(" ".join(current))
            current = []
            if starts_item and not code:
                current = [line.strip()]
            continue
        current.append(line.strip())
    if current:
        paragraphs.append(" ".join(current))
    return paragraphs


def performance_tables(page):
    """(heading, [rows]) of every table of the page."""
    section = page_text(page)
    tables, current, last_text = [], None, ""
    for line in section.splitlines():
        if line.startswith("|"):
            if current is None:
                current = (last_text, [])
                tables.append(current)
            current[1].append(line)
        else:
            current = None
            if line.strip():
                last_text = line.strip()
    return tables


def tap(number, label, problems):
    """One TAP line, and the problems under a failing one; True if ok."""
    if not problems:
        print(f"ok {number} - {label}")
        return True
    print(f"not ok {number} - {label}")
    for problem in problems:
        print(f"#   {problem}")
    return False


def main():
    page = sys.argv[1] if len(sys.argv) > 1 else "docs/performance.md"
    results = sys.argv[2] if len(sys.argv) > 2 else "bench/results"
    records = results_records(results)
    tables = performance_tables(page)
    print(f"1..{len(tables) + 1}")
    failed = 0
    for i, (context, rows) in enumerate(tables, 1):
        # The header row names the columns; the second is the separator.
        body = [r for r in rows[2:] if NUMBER.findall(r)]
        whole = [in_one(NUMBER.findall(r), records) for r in body]
        # Most rows whole: a table of results, every row must be; else one
        # that gathers results in a row, checked cell by cell.
        by_row = sum(whole) * 2 >= len(body)
        bad = []
        for row, ok in zip(body, whole):
            cells = row.strip().strip("|").split("|")
            if ok or (not by_row and
                      all(in_one(NUMBER.findall(c), records) for c in cells)):
                continue
            tokens = NUMBER.findall(row)
            nowhere = [t for t in tokens if not any(matches(t, r) for r in records)]
            bad.append(row.strip() + (" (in no result: " + ", ".join(nowhere) + ")"
                                      if nowhere else " (no single result)"))
        label = (f"{page} table after \"{context[:60]}\": {len(body)} rows, "
                 + ("each in one result" if by_row else "each cell in one result")
                 + f" of {results}")
        failed += not tap(i, label, bad)
    checked, nowhere = 0, []
    for paragraph in prose_paragraphs(page_text(page)):
        if NOT_MEASURED_HERE in paragraph:
            continue
        for m in PROSE_FIGURE.finditer(paragraph):
            checked += 1
            if not any(matches(m.group(1), r) for r in records):
                nowhere.append(f"{m.group(0)} (in: ...{paragraph[max(0, m.start() - 50):m.end() + 20]}...)")
    failed += not tap(len(tables) + 1, f"{page} prose: {checked} figures with units, "
                      f"each in a result of {results}", nowhere)
    return 1 if failed or not tables else 0


if __name__ == "__main__":
    sys.exit(main())
