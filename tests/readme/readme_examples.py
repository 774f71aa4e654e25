#!/usr/bin/env python3
"""Runs every gpumem command the README shows, and checks the output it shows.

A README that tells a user to type a command that fails, or shows output the tool no longer
prints, is a defect like any other. This test reads README.md, takes every ```sh block,
joins its backslash continuations and drops its trailing comments, and runs each command
that starts with `gpumem` (commands of other programs, such as the setup scripts or the
probe's GPU runner, are run by CI or need a GPU, and are left out here by name: only
`gpumem` lines run). Each runs in a fresh copy of the files the README's commands read
(scenarios/, model/, reports/, tests/data/), so outputs such as `-o ledger.json` land in the
copy and the repository is never written.

A command passes when its exit code is 0, 1 (does not fit) or 4 (a difference found, for
diff and check): never 2 (bad input) or 3 (internal error). When an ```sh block holding one
command is followed at once by a plain ``` block, that block is the output the README shows:
each of its lines must appear, in order, among the lines the command printed (a line `...`
stands for lines left out), so the README may abridge an output but never misquote it.

Usage: readme_examples.py GPUMEM_BINARY REPOSITORY_ROOT
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

COPIED = ["scenarios", "model", "reports", "tests/data"]
ACCEPTED_EXIT_CODES = {0, 1, 4}


def fenced_blocks(text):
    """Yields (language, lines) for every fenced block, in order."""
    language = None
    lines = []
    for line in text.splitlines():
        fence = re.match(r"^```(\S*)\s*$", line)
        if fence and language is None:
            language = fence.group(1)
            lines = []
        elif fence:
            yield language, lines
            language = None
        elif language is not None:
            lines.append(line)


def commands_of(lines):
    """The commands of an sh block: continuations joined, comments dropped."""
    commands = []
    pending = ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        words = shlex.split(pending + line, comments=True)
        pending = ""
        if words:
            commands.append(words)
    return commands


def examples(readme):
    """(command words, shown output lines or None) for every gpumem command."""
    blocks = list(fenced_blocks(readme))
    for i, (language, lines) in enumerate(blocks):
        if language != "sh":
            continue
        commands = [c for c in commands_of(lines) if c[0] == "gpumem"]
        shown = None
        if len(commands) == 1 and i + 1 < len(blocks) and blocks[i + 1][0] == "":
            shown = blocks[i + 1][1]
        for words in commands:
            yield words, shown if len(commands) == 1 else None


def shown_lines_missing(shown, printed):
    """The first shown line not found, in order, among the printed lines; None if all are."""
    position = 0
    for line in shown:
        if line.strip() == "...":
            continue
        while position < len(printed) and printed[position] != line:
            position += 1
        if position == len(printed):
            return line
        position += 1
    return None


def main():
    gpumem, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    failures = []
    count = 0
    with tempfile.TemporaryDirectory(prefix="gpumem-readme-") as work:
        for path in COPIED:
            shutil.copytree(os.path.join(root, path), os.path.join(work, path), symlinks=True)
        for words, shown in examples(readme):
            count += 1
            line = shlex.join(words)
            # Expand globs as the shell would (`gpumem validate scenarios/*.yaml`).
            argv = [gpumem]
            for word in words[1:]:
                if any(c in word for c in "*?["):
                    matches = sorted(glob.glob(word, root_dir=work))
                    argv.extend(matches if matches else [word])
                else:
                    argv.append(word)
            result = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=600)
            if result.returncode not in ACCEPTED_EXIT_CODES:
                failures.append(f"{line}\n  exit {result.returncode}\n{result.stderr[-2000:]}")
                continue
            if shown is not None:
                missing = shown_lines_missing(shown, result.stdout.splitlines())
                if missing is not None:
                    failures.append(f"{line}\n  the README shows a line it does not print:\n"
                                    f"  {missing!r}\n  printed:\n{result.stdout[-4000:]}")
            print(f"ok (exit {result.returncode}): {line}")
    if count == 0:
        failures.append("README.md shows no gpumem command")
    for failure in failures:
        print("FAIL: " + failure)
    print(f"{count - len(failures)} of {count} README commands as shown")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
