#!/usr/bin/env python3
"""Runs every shell and Python example of README.md and docs/*.md as written
(docs/testing.md "Documented examples"): the ctest test kbt.docs.examples.

An example is a fenced block tagged sh, bash or console (shell) or python;
untagged and other blocks (text, yaml, cpp, ...) are outputs, grammars and
files, never run. Each example runs in a fresh scratch directory that holds
what a built clone holds (configs/ and data/ copied, the other tracked
top-level entries linked, build/src/kbt and build/python linked to this build),
with the build's kbt first on PATH and its Python module importable. Shell
examples run with `bash -e`; a console block runs its `$ ` lines (and their
`\\` continuations) and skips the rest, its output. An HTML comment on the
nearest non-blank line before a block changes how it runs:

  <!-- example: not run: REASON -->
  <!-- example: setup: SHELL COMMAND -->     run first, in the scratch dir
  <!-- example: needs NEED[, NEED ...] -->   run where every need is present
  <!-- example: compile-only BUILD/OBJECT ...; needs NEED[, ...]: REASON -->
      where every need is present, run the block without its `cmake --build`
      lines, then build only each OBJECT in its BUILD (a build dir the block
      configures); else not run.
A need is `mpi` (this build has MPI: --mpi, and mpirun on PATH), `openmp`
(`kbt info` lists it), `python:MODULE` (importable), a path (it has a /) that
exists, or a command on PATH.

A marker without a reason, one that does not parse, or one followed by no
example fails the run, as does any failing or timed-out example, and a run
in which no example ran. Prints each example's file:line and outcome, then
"N ran, M not run".
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SHELL_TAGS = {"sh", "bash", "console"}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
MARKER = re.compile(r"^\s*<!--\s*example\s*:(.*?)-->\s*$")
COMPILE_ONLY = re.compile(r"^compile-only\s+([^;]+);\s*needs\s+([^:]+):\s*(\S.*)$")


class Example:
    def __init__(self, path, line, tag, text, marker):
        self.path, self.line, self.tag, self.text, self.marker = path, line, tag, text, marker
        self.mode, self.reason, self.setup, self.objects, self.needs = "run", None, None, [], []

    def where(self):
        return f"{self.path}:{self.line}"


def parse_marker(example, errors):
    """Fills example.mode etc. from its marker; a bad marker is an error."""
    body = example.marker.strip()
    if body.startswith("not run:") and body[len("not run:"):].strip():
        example.mode, example.reason = "not run", body[len("not run:"):].strip()
    elif body.startswith("setup:") and body[len("setup:"):].strip():
        example.setup = body[len("setup:"):].strip()
    elif body.startswith("needs ") and body[len("needs "):].strip():
        example.needs = [n.strip() for n in body[len("needs "):].split(",") if n.strip()]
    elif COMPILE_ONLY.match(body):
        m = COMPILE_ONLY.match(body)
        example.mode, example.objects, example.reason = "compile-only", m.group(1).split(), m.group(3).strip()
        example.needs = [n.strip() for n in m.group(2).split(",") if n.strip()]
    else:
        errors.append(f"{example.where()}: malformed example marker (a reason is required): <!-- example:{example.marker}-->")


def extract(source, relpath, errors):
    """The examples of one Markdown file, with their markers."""
    lines = open(os.path.join(source, relpath), encoding="utf-8").read().split("\n")
    examples, pending, i = [], None, 0  # pending: (line, marker text) not yet used
    while i < len(lines):
        m, mk = FENCE.match(lines[i]), MARKER.match(lines[i])
        if mk:
            if pending:
                errors.append(f"{relpath}:{pending[0]}: example marker followed by no example")
            pending = (i + 1, mk.group(1))
        elif re.search(r"<!--\s*example", re.sub(r"`[^`]*`", "", lines[i])):  # (quoted in inline code: prose)
            errors.append(f"{relpath}:{i + 1}: an example marker must be alone on its line")
        elif m:
            indent, fence, tag = m.groups()
            start, body = i + 1, []
            i += 1
            while i < len(lines) and not re.match(r"^\s*" + re.escape(fence[0]) + "{%d,}\\s*$" % len(fence), lines[i]):
                body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
                i += 1
            if tag in SHELL_TAGS or tag == "python":
                ex = Example(relpath, start, tag, "\n".join(body) + "\n", pending[1] if pending else None)
                if ex.marker is not None:
                    parse_marker(ex, errors)
                examples.append(ex)
            elif pending:
                errors.append(f"{relpath}:{pending[0]}: example marker before a ```{tag or '(untagged)'} block, which is never run")
            pending = None
        elif lines[i].strip() and pending:
            errors.append(f"{relpath}:{pending[0]}: example marker not directly before a fenced block")
            pending = None
        i += 1
    if pending:
        errors.append(f"{relpath}:{pending[0]}: example marker followed by no example")
    return examples


def shell_text(example):
    """What bash runs: the block as written; for console, its $ commands."""
    if example.tag != "console":
        return example.text
    out, continuing = [], False
    for line in example.text.split("\n"):
        if line.startswith("$ ") or continuing:
            line = line[2:] if line.startswith("$ ") and not continuing else line
            out.append(line)
            continuing = line.rstrip().endswith("\\")
    return "\n".join(out) + "\n"


def tracked_top_level(source):
    """The repository's top-level entries, as a clone has them."""
    try:
        names = subprocess.run(["git", "-C", source, "ls-files"], capture_output=True, text=True, check=True).stdout.split()
        return sorted({n.split("/")[0] for n in names})
    except (OSError, subprocess.CalledProcessError):  # a source tree without git
        return sorted(n for n in os.listdir(source) if not n.startswith((".", "build")))


def prepare_scratch(root, args):
    """A scratch clone: configs/ and data/ copied (examples may write there),
    the rest linked, build/ with the CLI and the module of this build."""
    work = os.path.join(root, "work")
    os.makedirs(work)
    for name in tracked_top_level(args.source):
        src = os.path.join(args.source, name)
        if name in ("configs", "data"):
            shutil.copytree(src, os.path.join(work, name))
        elif os.path.exists(src):
            os.symlink(src, os.path.join(work, name))
    os.makedirs(os.path.join(work, "build", "src"))
    os.symlink(args.kbt, os.path.join(work, "build", "src", "kbt"))
    if args.python_path:
        os.symlink(args.python_path, os.path.join(work, "build", "python"))
    bin_dir = os.path.join(root, "bin")  # kbt, and python3 = the module's interpreter
    os.makedirs(bin_dir)
    os.symlink(args.kbt, os.path.join(bin_dir, "kbt"))
    os.symlink(args.python, os.path.join(bin_dir, "python3"))
    os.makedirs(os.path.join(root, "home"))
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""),
               HOME=os.path.join(root, "home"), MPLBACKEND="Agg", OMP_PROC_BIND="false")
    env.pop("PYTHONPATH", None)
    if args.python_path:
        env["PYTHONPATH"] = args.python_path
    if os.geteuid() == 0:  # OpenMPI refuses root unless told (docs/mpi.md); containers run tests as root
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    # Containers: no CMA single-copy, and fewer cores than an example's ranks.
    env.update(OMPI_MCA_btl_vader_single_copy_mechanism="none", OMPI_MCA_rmaps_base_oversubscribe="1")
    return work, env


def run_bounded(cmd, cwd, env, timeout):
    """(returncode or None on timeout, combined output); kills the whole group."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out.decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out.decode(errors="replace")


def missing_needs(example, env, args):
    def present(need):
        if need == "mpi":
            return args.mpi and shutil.which("mpirun", path=env["PATH"])
        if need == "openmp":
            info = subprocess.run([args.kbt, "info"], env=env, capture_output=True, text=True).stdout
            return re.search(r"^\s+openmp\s", info, re.M) is not None
        if need.startswith("python:"):
            return subprocess.run([args.python, "-c", "import " + need[len("python:"):]], env=env,
                                  capture_output=True).returncode == 0
        return os.path.exists(need) if "/" in need else shutil.which(need, path=env["PATH"])
    names = {"mpi": "MPI in this build", "openmp": "OpenMP in this build"}
    return [names.get(n, n) for n in example.needs if not present(n)]


def run_example(example, args):
    """('ran' | 'not run' | 'failed', detail)."""
    if example.mode == "not run":
        return "not run", example.reason
    if example.tag == "python" and not args.python_path:
        return "not run", "this build has no Python module (KBT_ENABLE_PYTHON=OFF)"
    root = tempfile.mkdtemp(prefix="kbt-doc-example-")
    try:
        work, env = prepare_scratch(root, args)
        timeout = args.timeout
        missing = missing_needs(example, env, args)
        if missing:
            return "not run", "no " + ", ".join(missing)
        if example.mode == "compile-only":
            timeout = args.compile_timeout
        steps = []
        if example.setup:
            steps.append(("setup", ["bash", "-e", "-c", example.setup]))
        script = os.path.join(root, re.sub(r"\W", "_", example.where()) + (".py" if example.tag == "python" else ".sh"))
        if example.tag == "python":
            text = example.text
        else:
            text = shell_text(example)
            if example.mode == "compile-only":  # the full build is CI's; one object here
                text = "".join(l for l in text.splitlines(True) if not l.lstrip().startswith("cmake --build"))
                for target in example.objects:
                    build_dir, obj = target.split("/", 1)
                    text += f"cmake --build {build_dir} --target {obj}\n"
        with open(script, "w", encoding="utf-8") as f:
            f.write(text)
        steps.append(("example", ["python3", script] if example.tag == "python" else ["bash", "-e", script]))
        deadline = time.monotonic() + timeout
        for what, cmd in steps:
            left = deadline - time.monotonic()
            rc, out = run_bounded(cmd, work, env, max(left, 1))
            if rc is None:
                return "failed", f"{what} timed out after {timeout} s\n{out}"
            if rc != 0:
                return "failed", f"{what} exited {rc}\n{out}"
            if args.verbose:
                print(out, end="")
        return "ran", None
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--source", required=True, help="the repository root")
    p.add_argument("--kbt", required=True, help="the built kbt")
    p.add_argument("--python-path", help="the build's python/ folder (import kbt); none: Python examples not run")
    p.add_argument("--python", default=sys.executable, help="the interpreter the module is for")
    p.add_argument("--mpi", action="store_true", help="this build has MPI (KBT_ENABLE_MPI)")
    p.add_argument("--timeout", type=float, default=120, help="seconds per example")
    p.add_argument("--compile-timeout", type=float, default=600, help="seconds per compile-only example")
    p.add_argument("--only", help="run only examples whose file:line starts with this")
    p.add_argument("-v", "--verbose", action="store_true", help="print every example's output")
    args = p.parse_args()
    args.source, args.kbt = os.path.abspath(args.source), os.path.abspath(args.kbt)
    args.python_path = os.path.abspath(args.python_path) if args.python_path else None

    errors, examples = [], []
    docs = ["README.md"] + sorted("docs/" + n for n in os.listdir(os.path.join(args.source, "docs")) if n.endswith(".md"))
    for relpath in docs:
        examples += extract(args.source, relpath, errors)
    for e in errors:
        print("error:", e)

    counts = {"ran": 0, "not run": 0, "failed": 0}
    for ex in examples:
        if args.only and not ex.where().startswith(args.only):
            continue
        start = time.monotonic()
        outcome, detail = run_example(ex, args)
        counts[outcome] += 1
        took = f" ({time.monotonic() - start:.1f} s)" if outcome != "not run" else ""
        label = {"ran": "ran", "not run": f"not run: {detail}", "failed": "FAILED"}[outcome]
        print(f"{ex.where()} [{ex.tag}{', ' + ex.mode if ex.mode == 'compile-only' else ''}] {label}{took}", flush=True)
        if outcome == "failed":
            lines = detail.rstrip().split("\n")  # what failed, then the output's end
            print("    " + "\n    ".join(lines[:1] + lines[1:][-40:]), flush=True)
    print(f"{counts['ran']} ran, {counts['not run']} not run, {counts['failed']} failed, "
          f"{len(errors)} marker errors ({len(examples)} examples in README.md and docs/)")
    if counts["ran"] == 0:
        print("error: no example ran")
    return 1 if errors or counts["failed"] or counts["ran"] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
