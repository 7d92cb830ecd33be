#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the Performance figures (docs/performance.md, which the README
links, and the series' cover letter, patches/cover-letter.txt) against
bench/results, each figure against the one result it comes from.

The results: every file of bench/results carries a stamp (bench/stamp.py:
the commit and the kernel configuration), a JSON file as its "stamp",
a markdown page as its first line.  The markdown pages (summary.md of
make bench, peers.md of make bench-peers) hold the tables, each after a
comment naming it: <!-- table: busy -->.

The page:
- A table is a copy of a results table: the line before it names that
  table the same way, its header is the same, and every row is one of
  that table's rows, cell for cell.  A table that drifts from its
  results, or has a figure and names no results table, fails.
- A figure of the prose (a number with a unit results are given in: µs,
  %, x, pp, s, ms, MiB, KiB, B) is tied to the cell it comes from by a
  comment right after it, <!-- TABLE | ROW LABEL | ... | COLUMN -->: the
  row whose first cells are those labels, the column of that header.
  The figure must be written there exactly as in the cell (thousands
  separators and a leading sign aside).  A number without a unit that
  carries such a comment is checked the same way; <!-- TABLE | COLUMN -->
  ties to a table of one row.  Inside `code` a number is a command's
  argument, an input, and is not checked.
- A paragraph or list item copied whole from a results page (the
  targets, after <!-- list: targets --> in both) is tied by being
  there, line for line.
- A paragraph saying its figures are "not make bench's" is not checked;
  it must say where they come from.

Prints TAP: the stamps, one line per table, one for the prose.  With
--fill it first rewrites the page from the results instead: each named
table becomes its results table, each tied figure its cell's number
(written with separators if it had them); the words around them are
still the writer's to check.

    bench/check-readme.py [--fill] [docs/performance.md [bench/results]]
"""
import json
import os
import re
import sys

NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?")
UNIT = r"(?:µs|us|%|x\b| pp\b| s\b| ms\b| MiB\b| KiB\b| B\b)"
# A figure of the prose, with its tie if it has one.
FIGURE = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(\s?(?:guest )?" + UNIT + r")?"
                    r"(?:\s*<!--\s*(?!table:)(.+?)\s*-->)?")
TABLE_NAME = re.compile(r"^<!--\s*table:\s*(\S+)\s*-->$")
CODE = re.compile(r"`[^`]*`")
LIST_NAME = re.compile(r"^<!--\s*list:\s*(\S+)\s*-->$")
NOT_MEASURED_HERE = "not make bench's"


def plain(number):
    """A number as compared: without thousands separators or a plus."""
    return number.replace(",", "").lstrip("+")


def cells_of(row):
    return [c.strip() for c in row.strip().strip("|").split("|")]


def tables_in(lines):
    """[(name, header, [rows])] of the named tables in @lines, and the
    unnamed ones as (line number, header, [rows])."""
    named, unnamed, i = [], [], 0
    while i < len(lines):
        if not lines[i].startswith("|"):
            i += 1
            continue
        start = i
        while i < len(lines) and lines[i].startswith("|"):
            i += 1
        block = lines[start:i]
        name = TABLE_NAME.match(lines[start - 1].strip()) if start else None
        header, rows = cells_of(block[0]), [cells_of(r) for r in block[2:]]
        if name:
            named.append((name.group(1), header, rows))
        else:
            unnamed.append((start + 1, header, rows))
    return named, unnamed


def read_results(results):
    """The results' named tables, their lines, their named lists, and
    the files without a stamp."""
    tables, lines, lists, unstamped = {}, set(), {}, []
    for name in sorted(os.listdir(results)):
        path = os.path.join(results, name)
        if name.endswith(".json"):
            with open(path) as f:
                data = json.load(f)
            stamp = data.get("stamp") if isinstance(data, dict) else None
            if not (isinstance(stamp, dict) and stamp.get("commit")
                    and stamp.get("kernel_config_sha256")):
                unstamped.append(name)
        elif name.endswith(".md"):
            with open(path) as f:
                text = f.read().splitlines()
            if not text or not text[0].startswith("Stamp: commit "):
                unstamped.append(name)
            named, _ = tables_in(text)
            for table, header, rows in named:
                if table in tables:
                    unstamped.append(f"{name} (table {table} is in two pages)")
                tables[table] = (header, rows)
            lines.update(line.strip() for line in text if line.strip())
            lists.update(lists_in(text))
    return tables, lines, lists, unstamped


def lists_in(lines):
    """{name: [items]} of the lists after <!-- list: NAME --> in @lines."""
    found = {}
    for i, line in enumerate(lines):
        name = LIST_NAME.match(line.strip())
        if name:
            items = []
            for item in lines[i + 1:]:
                if not item.startswith("- "):
                    break
                items.append(item)
            found[name.group(1)] = items
    return found


def cell(tables, tie):
    """The cell a tie names, or why there is none."""
    parts = [p.strip() for p in tie.split("|")]
    if len(parts) < 2:
        return None, f"tie '{tie}' is not TABLE | ROW LABEL | ... | COLUMN"
    name, labels, column = parts[0], parts[1:-1], parts[-1]
    if name not in tables:
        return None, f"no results table '{name}'"
    header, rows = tables[name]
    if column not in header:
        return None, f"table {name} has no column '{column}'"
    # No label: the table's one row.
    found = [r for r in rows if r[:len(labels)] == labels] if labels else rows
    if len(found) != 1:
        return None, f"table {name} has {len(found)} rows labelled {' | '.join(labels)}"
    return found[0][header.index(column)], None


def check_table(name, header, rows, tables):
    """Problems of one table of the page against the results table it names."""
    if name not in tables:
        return [f"no results table '{name}'"]
    want_header, want_rows = tables[name]
    if header != want_header:
        return [f"header {header} is not table {name}'s {want_header}"]
    return [f"row not in table {name}: | {' | '.join(r)} |" for r in rows if r not in want_rows]


def prose_paragraphs(text):
    """The paragraphs (and list items) outside tables and code blocks."""
    paragraphs, current, code = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            code = not code
            continue
        starts_item = line.lstrip().startswith(("* ", "- "))
        if (code or line.startswith("|") or not line.strip() or starts_item
                or TABLE_NAME.match(line.strip()) or LIST_NAME.match(line.strip())):
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


def check_prose(text, tables, result_lines):
    """(figures checked, problems) of the page's prose."""
    checked, problems = 0, []
    for paragraph in prose_paragraphs(text):
        if NOT_MEASURED_HERE in paragraph or paragraph in result_lines:
            continue
        # Commands and their arguments are the inputs, not results.
        paragraph = CODE.sub(lambda m: " " * len(m.group(0)), paragraph)
        for m in FIGURE.finditer(paragraph):
            number, unit, tie = m.groups()
            if not unit and not tie:
                continue
            checked += 1
            where = f"'{number}{unit or ''}' in ...{paragraph[max(0, m.start() - 40):m.start()]}"
            if not tie:
                problems.append(f"{where}: no tie to a result")
                continue
            value, why = cell(tables, tie)
            if why:
                problems.append(f"{where}: {why}")
            elif not is_figure(value):
                problems.append(f"{where}: the result is no figure: '{value}'")
            elif plain(number) not in [plain(n) for n in NUMBER.findall(value)]:
                problems.append(f"{where}: the result is '{value}'")
    return checked, problems


def is_figure(value):
    """Whether a cell is a figure (a number, perhaps with its spread), not
    words that hold one ("failed in 1 runs", "lost 3 records: no figure")."""
    return NUMBER.match(value.strip()) is not None


def filled_number(written, value):
    """The number of cell @value that stands where @written stood: the
    first with as many decimals, written with separators like it."""
    numbers = NUMBER.findall(value)
    decimals = len(written.split(".")[1]) if "." in written else 0
    same = [n for n in numbers if (len(n.split(".")[1]) if "." in n else 0) == decimals]
    new = plain((same or numbers or [written])[0])
    if "," in written and "." not in new:
        new = f"{int(new):,}"
    return new


def fill(text, tables, lists):
    """@text with its named tables, named lists and tied figures taken
    from the results' @tables and @lists."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        name = TABLE_NAME.match(lines[i].strip())
        listed = LIST_NAME.match(lines[i].strip())
        out.append(lines[i])
        i += 1
        if listed and listed.group(1) in lists:
            while i < len(lines) and lines[i].startswith("- "):
                i += 1
            out.extend(lists[listed.group(1)])
            continue
        if not name or name.group(1) not in tables:
            continue
        # The table after its name, or where it goes.
        while i < len(lines) and lines[i].startswith("|"):
            i += 1
        header, rows = tables[name.group(1)]
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        out.extend("| " + " | ".join(r) + " |" for r in rows)

    def tied(m):
        number, unit, tie = m.groups()
        value, why = cell(tables, tie) if tie else (None, "untied")
        if why or not is_figure(value):
            return m.group(0)
        return filled_number(number, value) + m.group(0)[len(number):]

    return FIGURE.sub(tied, "\n".join(out) + "\n")


def tap(number, label, problems):
    """One TAP line, and the problems under a failing one; True if ok."""
    if not problems:
        print(f"ok {number} - {label}")
        return True
    print(f"not ok {number} - {label}")
    for problem in problems:
        print(f"#   {problem}")
    return False


USAGE = "usage: bench/check-readme.py [--fill] [PAGE [RESULTS]]"


def main():
    args = sys.argv[1:]
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__.rstrip() + "\n")
        return 0
    update = args[:1] == ["--fill"]
    args = args[1:] if update else args
    if len(args) > 2 or any(a.startswith("-") for a in args):
        print(f"check-readme: unexpected arguments {' '.join(args)}; {USAGE}",
              file=sys.stderr)
        return 2
    page = args[0] if args else "docs/performance.md"
    results = args[1] if len(args) > 1 else "bench/results"
    try:
        tables, result_lines, lists, unstamped = read_results(results)
        with open(page) as f:
            text = f.read()
    except (OSError, ValueError) as e:
        print(f"check-readme: {e}", file=sys.stderr)
        return 2
    if update:
        text = fill(text, tables, lists)
        with open(page, "w") as f:
            f.write(text)
    lines = text.splitlines()
    named, unnamed = tables_in(lines)
    print(f"1..{len(named) + 3}")
    failed = not tap(1, f"every file of {results} stamped, {len(tables)} named tables",
                     [f"{n}: no stamp" for n in unstamped]
                     + ([] if tables else ["no named table in any results page"]))
    empty = [f"line {n + 1}: {line.strip()} has no table after it"
             for n, line in enumerate(lines) if TABLE_NAME.match(line.strip())
             and not (n + 1 < len(lines) and lines[n + 1].startswith("|"))]
    failed += not tap(2, f"{page}: every table with figures names its results table, "
                      "every name has its table",
                      [f"line {n}: table {h[:3]}... names no results table"
                       for n, h, rows in unnamed if NUMBER.search(" ".join(sum(rows, [])))]
                      + empty)
    for i, (name, header, rows) in enumerate(named, 3):
        failed += not tap(i, f"{page} table {name}: {len(rows)} rows, each a row of "
                          f"the results' table {name}", check_table(name, header, rows, tables))
    checked, problems = check_prose(text, tables, result_lines)
    failed += not tap(len(named) + 3, f"{page} prose: {checked} figures, each tied to "
                      "its result cell", problems + ([] if checked else ["no figure"]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
