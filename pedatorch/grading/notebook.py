"""Notebooks in nbgrader's format: the cell kinds, the student version, checksums.

An exercise notebook marks its cells as nbgrader does (cell metadata ``nbgrader``, schema version 3):

  answer cell     ``solution: true``   the student writes code between ``### BEGIN SOLUTION`` / ``### END SOLUTION``
  test cell       ``grade: true, locked: true, points: n``   checks (``### BEGIN HIDDEN TESTS`` ... hidden ones)
  read-only cell  ``locked: true``     set-up the student may not change

``student_version`` makes the handout by nbgrader's rules; a teacher who uses nbgrader can run it on the same
notebooks unchanged. Notebooks are read as plain JSON (no Jupyter package needed), and every malformed one
raises ``InvalidNotebook`` with the reason.
"""
import copy
import hashlib
import json
import re

BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"


class InvalidNotebook(ValueError):
    """Not a notebook this grader can read (bad JSON, not nbformat 4, cells without sources ...)."""


def read(path):
    """The notebook at ``path`` as a dict, each cell's source one string; InvalidNotebook if it is not one."""
    try:
        with open(path, "rb") as f:
            data = f.read(64 * 2**20 + 1)
        if len(data) > 64 * 2**20:
            raise InvalidNotebook("larger than 64 MiB")
        nb = json.loads(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InvalidNotebook(f"{path}: not a readable notebook ({type(e).__name__}: {e})") from None
    except InvalidNotebook as e:
        raise InvalidNotebook(f"{path}: {e}") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list) or nb.get("nbformat") != 4:
        raise InvalidNotebook(f"{path}: not a Jupyter notebook in format 4")
    for i, cell in enumerate(nb["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
            raise InvalidNotebook(f"{path}: cell {i} is not a notebook cell")
        src = cell.get("source", "")
        if isinstance(src, list) and all(isinstance(s, str) for s in src):
            cell["source"] = "".join(src)
        elif not isinstance(src, str):
            raise InvalidNotebook(f"{path}: cell {i} has no source text")
        if not isinstance(cell.get("metadata", {}), dict):
            raise InvalidNotebook(f"{path}: cell {i} has malformed metadata")
    return nb


def write(nb, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(nb, f, indent=1, ensure_ascii=False)
        f.write("\n")


def meta(cell):
    m = cell.get("metadata", {}).get("nbgrader")
    return m if isinstance(m, dict) else {}


def grade_id(cell):
    return meta(cell).get("grade_id")


def is_solution(cell):
    return bool(meta(cell).get("solution"))


def is_grade(cell):
    return bool(meta(cell).get("grade"))


def is_locked(cell):
    m = meta(cell)
    return bool(m.get("locked")) or (bool(m.get("grade")) and not m.get("solution"))


def is_test(cell):
    """An autograded test cell: a code cell that is graded and is not itself an answer."""
    return cell.get("cell_type") == "code" and is_grade(cell) and not is_solution(cell)


def points(cell):
    try:
        return float(meta(cell).get("points", 0))
    except (TypeError, ValueError):
        return 0.0


def checksum(cell):
    """nbgrader's cell checksum (md5 of source, type, the grade/solution/locked flags, id and points), so
    checksums recorded here and by nbgrader agree."""
    m = hashlib.md5()
    for part in (cell.get("source", ""), cell.get("cell_type", ""), str(is_grade(cell)), str(is_solution(cell)),
                 str(is_locked(cell)), str(grade_id(cell))):
        m.update(part.encode("utf-8"))
    if is_grade(cell):
        m.update(str(points(cell)).encode("utf-8"))
    return m.hexdigest()


# --------------------------------------------------------------------------- the student version

def _replace_regions(source, begin, end, replacement):
    """``source`` with each begin ... end region (marker lines included) replaced by ``replacement`` lines,
    indented like the begin marker; None if there is no region."""
    lines, out, i, found = source.split("\n"), [], 0, False
    while i < len(lines):
        if lines[i].strip() == begin:
            indent = re.match(r"\s*", lines[i]).group(0)
            j = i + 1
            while j < len(lines) and lines[j].strip() != end:
                j += 1
            if j == len(lines):
                raise InvalidNotebook(f"{begin!r} without {end!r}")
            out += [indent + r for r in replacement]
            i, found = j + 1, True
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out) if found else None


def clear_solution(cell):
    """The cell as the student gets it: solution regions (or the whole cell) replaced by a stub."""
    stub = CODE_STUB if cell["cell_type"] == "code" else TEXT_STUB
    new = _replace_regions(cell["source"], BEGIN_SOLUTION, END_SOLUTION, stub.split("\n"))
    return stub if new is None else new


def clear_hidden_tests(source):
    new = _replace_regions(source, BEGIN_HIDDEN, END_HIDDEN, [])
    return source if new is None else new


def student_version(nb, keep_outputs=False):
    """The handout: solutions stubbed, hidden tests removed, outputs cleared, locked cells marked read-only,
    and each graded/locked cell's checksum recorded (tampering with them is then detectable).

    ``keep_outputs``: the outputs of the cells that are no part of an exercise stay (a lesson's pictures and
    printouts, readable before anything runs); answer and test cells are cleared and tagged
    ``raises-exception``, so that ``pytest --nbval`` runs the unsolved handout: its exercises fail, as
    they must until the learner solves them, and everything else must still run and print the same."""
    nb = copy.deepcopy(nb)
    ids = set()
    for cell in nb["cells"]:
        m = meta(cell)
        if m:
            gid = m.get("grade_id")
            if (m.get("grade") or m.get("solution") or m.get("locked")) and not gid:
                raise InvalidNotebook("an nbgrader cell without a grade_id")
            if gid in ids:
                raise InvalidNotebook(f"grade_id {gid!r} is used twice")
            ids.add(gid)
        if is_solution(cell):
            cell["source"] = clear_solution(cell)
        if cell["cell_type"] == "code":
            cell["source"] = clear_hidden_tests(cell["source"])
            exercise = is_solution(cell) or is_grade(cell)
            if not keep_outputs or exercise:
                cell["outputs"], cell["execution_count"] = [], None
            if keep_outputs and exercise:
                tags = cell["metadata"].setdefault("tags", [])
                if "raises-exception" not in tags:
                    tags.append("raises-exception")
        if is_locked(cell):
            cell["metadata"]["editable"] = False
            cell["metadata"]["deletable"] = False
        elif is_solution(cell):
            cell["metadata"]["deletable"] = False
        if m and (is_grade(cell) or is_solution(cell) or is_locked(cell)):
            m["checksum"] = checksum(cell)
            m.setdefault("schema_version", 3)
    return nb
