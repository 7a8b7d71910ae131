"""An OpenBench instance on 127.0.0.1, offline, from fetched snapshots: one SPRT or one datagen run through it.

    python -m tuning.openbench.local setup --openbench OB --fastchess FASTCHESS --work DIR
    python -m tuning.openbench.local backport --work DIR OLD NEW      # prints the commit to test OLD as
    python -m tuning.openbench.local sprt --work DIR DEV BASE [--tc N=5000] [--bounds "[0.00, 40.00]"]
    python -m tuning.openbench.local datagen --work DIR DEV [--games 32] [--tc N=5000]

``OB`` is an exported snapshot of AndyGrant/OpenBench (``git archive``), ``FASTCHESS`` a fastchess binary built
from a snapshot of Disservin/fastchess.  Run it with a Python that has OpenBench's requirements
(``pip install -r OB/requirements.txt -r OB/Client/requirements.txt``); Jitfish's own dependencies must be on
the ``python3`` of ``PATH``, which the client's ``make`` runs.  Nothing of OpenBench is copied here: ``setup``
copies the snapshot into ``DIR/server`` and its client files into ``DIR/client`` and adds the instance's
configuration (the Jitfish engine, one opening book, the admin user); ``sprt`` and ``datagen`` start the server
(Django's ``runserver``, SQLite) and a client with one thread on this machine, submit the workload through the
server's web form as a user would, wait until the server marks it finished, and print what its page shows.

Offline, OpenBench would reach GitHub three times: the server asks GitHub's API for each commit (its SHA and
message), the client downloads the engine's source (``zipball``) and the opening book from GitHub.  Here a small
HTTP server on 127.0.0.1 answers those requests from a bare clone of Jitfish (``DIR/jitfish.git``: commits from
its API, ``git archive`` zips as zipballs) and from ``DIR/books``, and the server and client run through
``_offline``, which sends every ``requests`` call for ``github.com``, ``api.github.com`` and
``raw.githubusercontent.com`` to it.  OpenBench's files are not patched.  The client finds its own files and
``fastchess-ob`` already in place, so it neither downloads itself nor builds fastchess (``--no-client-downloads``).

``backport`` makes a commit of an old tree with a newer OpenBench build (``Makefile``,
``jitfish/runtime/bundle.py``, ``jitfish/runtime/cache.py``): before ``402876c`` ``make EXE=`` wrote a launcher
into the folder the client deletes.  The commit is written with fixed names and dates, so the same OLD and NEW
give the same SHA.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import http.server
import io
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
SERVER_PORT = 8000
GITHUB_PORT = 8001
ENGINE = "Jitfish"
SOURCE = "https://github.com/jitfish-local/jitfish"  # the form insists on github.com; served from jitfish.git
BOOK_SOURCE = "https://raw.githubusercontent.com/jitfish-local/books/main/{name}.zip"
BOOK = REPO / "tuning" / "openings" / "balanced-600.epd"
USER, PASSWORD = "jitfish", "jitfish-local"
# What makes `make EXE=` relocatable (an old tree without ``jitfish/runtime/`` imports the folder as a namespace).
BUILD_FILES = ("Makefile", "jitfish/runtime/bundle.py", "jitfish/runtime/cache.py")
GITHUB_HOSTS = ("github.com", "api.github.com", "raw.githubusercontent.com")
FINISHED_POLL_SECONDS = 15


def engine_config(nps: int) -> dict:
    """``Engines/Jitfish.json`` for the server (docs/openbench.md explains each field)."""
    return {
        "private": False,
        "nps": nps,
        "source": SOURCE,
        "build": {"path": "", "compilers": ["python3>=3.11"], "cpuflags": [], "systems": ["Linux", "Darwin"]},
        "test_presets": {
            "default": {
                "base_branch": "main",
                "book_name": BOOK.name,
                "test_bounds": "[0.00, 5.00]",
                "test_confidence": "[0.05, 0.05]",
                "win_adj": "movecount=3 score=400",
                "draw_adj": "movenumber=40 movecount=8 score=10",
            },
            "5k Nodes": {"both_options": "Threads=1 Hash=16", "both_time_control": "N=5000", "workload_size": 8},
        },
        "tune_presets": {"default": {"book_name": BOOK.name}},
        "datagen_presets": {
            "default": {"win_adj": "None", "draw_adj": "None", "workload_size": 8},
            "5k Nodes": {"both_options": "Threads=1 Hash=16", "both_time_control": "N=5000"},
        },
    }


# ---------------------------------------------------------------------------------------------------- git


def git(work: Path, *args: str, env: dict | None = None, text: bool = True) -> str | bytes:
    """Run git on the instance's bare clone of Jitfish."""
    return subprocess.run(
        ["git", f"--git-dir={work / 'jitfish.git'}", *args], check=True, capture_output=True, text=text, env=env
    ).stdout


def backport(work: Path, old: str, new: str) -> str:
    """A commit of ``old``'s tree with ``new``'s build files, its parent ``old``; returns its SHA."""
    old_sha = git(work, "rev-parse", f"{old}^{{commit}}").strip()
    new_sha = git(work, "rev-parse", f"{new}^{{commit}}").strip()
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, GIT_INDEX_FILE=str(Path(scratch) / "index"))
        git(work, "read-tree", old_sha, env=env)
        entries = git(work, "ls-tree", new_sha, "--", *BUILD_FILES)
        subprocess.run(
            ["git", f"--git-dir={work / 'jitfish.git'}", "update-index", "--index-info"],
            input=entries,
            text=True,
            check=True,
            env=env,
        )
        tree = git(work, "write-tree", env=env).strip()
    date = git(work, "show", "-s", "--format=%cI", old_sha).strip()
    identity = {"NAME": "openbench_local.py", "EMAIL": "openbench-local@127.0.0.1", "DATE": date}
    env = dict(
        os.environ,
        **{f"GIT_{role}_{key}": value for role in ("AUTHOR", "COMMITTER") for key, value in identity.items()},
    )
    message = f"{old_sha[:7]} with the OpenBench build of {new_sha[:7]} ({', '.join(BUILD_FILES)})"
    return git(work, "commit-tree", tree, "-p", old_sha, "-m", message, env=env).strip()


# ------------------------------------------------------------------------------------------ offline GitHub


class FakeGitHub(http.server.BaseHTTPRequestHandler):
    """Answers the GitHub requests OpenBench makes, from ``DIR/jitfish.git`` and ``DIR/books``.

    Paths are ``/<host>/<GitHub path>`` (what :func:`offline_url` makes of a GitHub URL).  Any owner and
    repository name mean the one clone."""

    work: Path

    def log_message(self, format: str, *args) -> None:
        print(f"[github] {format % args}", file=sys.stderr)

    def reply(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def reply_json(self, status: int, data: dict) -> None:
        self.reply(status, json.dumps(data).encode(), "application/json")

    def commit(self, ref: str) -> dict | None:
        try:
            sha = git(self.work, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
        except subprocess.CalledProcessError:
            return None
        message = git(self.work, "show", "-s", "--format=%B", sha).rstrip()  # as GitHub's: no newline at the end
        return {"sha": sha, "commit": {"message": message}}

    def do_GET(self) -> None:
        host, _, path = urllib.parse.unquote(self.path).lstrip("/").partition("/")
        parts = path.split("/")
        if host == "api.github.com" and len(parts) == 5 and parts[0] == "repos":
            kind, ref = parts[3], parts[4]
            if kind in ("commits", "branches"):
                commit = self.commit(ref if kind == "commits" else f"refs/heads/{ref}")
                if commit is None:
                    return self.reply_json(404, {"message": "Not Found"})
                return self.reply_json(200, commit if kind == "commits" else {"name": ref, "commit": commit})
            if kind == "compare":  # GET compare/BASE...HEAD: how many commits HEAD has that BASE lacks
                base, head = ref.split("...")
                ahead = int(git(self.work, "rev-list", "--count", f"{base}..{head}"))
                return self.reply_json(200, {"ahead_by": ahead})
            if kind == "zipball":
                commit = self.commit(ref)
                if commit is None:
                    return self.reply_json(404, {"message": "Not Found"})
                prefix = f"{parts[2]}-{commit['sha'][:7]}/"
                archive = git(self.work, "archive", "--format=zip", f"--prefix={prefix}", commit["sha"], text=False)
                return self.reply(200, archive, "application/zip")
        if host == "raw.githubusercontent.com" and path.endswith(".zip"):
            book = self.work / "books" / Path(path).name.removesuffix(".zip")
            if book.is_file():
                buffer = io.BytesIO()
                with zipfile.ZipFile(buffer, "w") as archive:
                    archive.write(book, book.name)
                return self.reply(200, buffer.getvalue(), "application/zip")
        self.reply_json(404, {"message": f"not served offline: {self.path}"})


def offline_url(url: str, github: str) -> str:
    """``url`` on the offline GitHub when it is a GitHub URL, else ``url``."""
    scheme, _, rest = url.partition("://")
    host = rest.split("/", 1)[0]
    if scheme == "https" and host in GITHUB_HOSTS:
        return f"{github}/{rest}"
    return url


def run_offline(argv: list[str]) -> None:
    """``_offline SCRIPT ARGS``: run a Python script with GitHub requests sent to ``$OPENBENCH_LOCAL_GITHUB``."""
    import requests.sessions

    github = os.environ["OPENBENCH_LOCAL_GITHUB"]
    request = requests.sessions.Session.request

    def offline_request(self, method, url, *args, **kwargs):
        return request(self, method, offline_url(url, github), *args, **kwargs)

    requests.sessions.Session.request = offline_request
    script = Path(argv[0]).resolve()
    sys.argv = [str(script), *argv[1:]]
    runpy.run_path(str(script), run_name="__main__")  # its folder is on PYTHONPATH (Instance.start)


# ------------------------------------------------------------------------------------------------- setup


def setup(args: argparse.Namespace) -> None:
    work: Path = args.work.resolve()
    server, client = work / "server", work / "client"
    for folder in (server, client):
        if folder.exists():
            shutil.rmtree(folder)
    shutil.copytree(args.openbench, server)
    shutil.copytree(args.openbench / "Client", client)
    shutil.copy2(args.fastchess, client / "fastchess-ob")
    if not (work / "jitfish.git").exists():
        subprocess.run(["git", "clone", "--quiet", "--bare", str(args.repo), str(work / "jitfish.git")], check=True)

    (work / "books").mkdir(parents=True, exist_ok=True)
    shutil.copy2(BOOK, work / "books" / BOOK.name)
    sha = hashlib.sha256(BOOK.read_bytes()).hexdigest()
    book_json = {"sha": sha, "source": BOOK_SOURCE.format(name=BOOK.name)}
    (server / "Books" / f"{BOOK.name}.json").write_text(json.dumps(book_json, indent=4) + "\n")
    (server / "Engines" / f"{ENGINE}.json").write_text(json.dumps(engine_config(args.nps), indent=4) + "\n")
    config_path = server / "Config" / "config.json"
    config = json.loads(config_path.read_text())
    config["books"] = [*config["books"], BOOK.name]
    config["engines"] = [ENGINE]  # the other engines' clients would look for their compilers too
    config_path.write_text(json.dumps(config, indent=4) + "\n")

    manage = [args.python, "manage.py"]
    subprocess.run([*manage, "migrate", "--no-input"], cwd=server, check=True, stdout=subprocess.DEVNULL)
    create_user = (
        "from django.contrib.auth.models import User; from OpenBench.models import Profile; "
        f"user = User.objects.create_superuser({USER!r}, 'jitfish@127.0.0.1', {PASSWORD!r}); "
        "Profile.objects.create(user=user, enabled=True, approver=True)"
    )
    subprocess.run([*manage, "shell", "-c", create_user], cwd=server, check=True)
    print(f"instance in {work}: server {server}, client {client}, user {USER} / {PASSWORD}")


# ------------------------------------------------------------------------------------------- a workload


class Instance:
    """The offline GitHub (a thread), the server and the client (subprocesses) of one run."""

    def __init__(self, work: Path, python: str) -> None:
        self.work, self.python = work, python
        self.url = f"http://{HOST}:{SERVER_PORT}"
        self.processes: list[subprocess.Popen] = []
        handler = type("Handler", (FakeGitHub,), {"work": work})
        self.github = http.server.ThreadingHTTPServer((HOST, GITHUB_PORT), handler)
        threading.Thread(target=self.github.serve_forever, daemon=True).start()
        self.env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        self.env["OPENBENCH_LOCAL_GITHUB"] = f"http://{HOST}:{GITHUB_PORT}"

    def start(self, name: str, script: Path, *args: str) -> None:
        log = open(self.work / f"{name}.log", "a")
        # This file runs by its path, in OpenBench's Python (which need not have Jitfish: it imports none of it),
        # and the script's folder is on the path, as when Python runs the script itself.
        command = [self.python, str(Path(__file__).resolve()), "_offline", str(script), *args]
        env = dict(self.env, PYTHONPATH=str(script.parent))
        self.processes.append(
            subprocess.Popen(command, cwd=script.parent, env=env, stdout=log, stderr=subprocess.STDOUT)
        )

    def start_server(self) -> None:
        self.start("server", self.work / "server" / "manage.py", "runserver", "--noreload", f"{HOST}:{SERVER_PORT}")
        import requests

        for _ in range(120):
            try:
                requests.get(f"{self.url}/login/", timeout=5)
                return
            except requests.ConnectionError:
                time.sleep(1)
        raise RuntimeError(f"the server did not start: see {self.work / 'server.log'}")

    def start_client(self) -> None:
        credentials = ["-U", USER, "-P", PASSWORD, "-S", self.url]
        self.start(
            "client", self.work / "client" / "client.py", *credentials, "-T", "1", "-N", "1", "--no-client-downloads"
        )

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        self.github.shutdown()

    def submit(self, kind: str, form: dict[str, str]) -> int:
        """Log in and post the web form of ``/<kind>/new/``; the new workload's id."""
        import requests

        session = requests.Session()
        session.get(f"{self.url}/login/")
        login = {"username": USER, "password": PASSWORD, "csrfmiddlewaretoken": session.cookies["csrftoken"]}
        session.post(f"{self.url}/login/", data=login)
        session.get(f"{self.url}/{kind}/new/")
        reply = session.post(
            f"{self.url}/{kind}/new/", data={**form, "csrfmiddlewaretoken": session.cookies["csrftoken"]}
        )
        if error := re.search(r'class="error-message">\s*<pre>(.*?)</pre>', reply.text, re.S):
            raise RuntimeError(f"the server refused the {kind}: {html.unescape(error[1]).strip()}")
        found = re.findall(rf"/{kind}/(\d+)/", session.get(f"{self.url}/index/").text)
        if not found:
            raise RuntimeError(f"no {kind} on the server's index after submitting it")
        return max(map(int, found))

    def info(self, workload: int) -> dict:
        import requests

        return requests.get(f"{self.url}/api/workload/{workload}/info/").json()["info"]

    def stat_block(self, kind: str, workload: int) -> str:
        """The figures the workload's page shows (its statistics box), as text."""
        import requests

        page = requests.get(f"{self.url}/{kind}/{workload}/").text
        block = re.search(r'<pre class="?long-statblock"?[^>]*>(.*?)</pre>', page, re.S)
        return html.unescape(re.sub(r"<br\s*/?>", "\n", block[1])).strip() if block else "(no statistics box)"


def shared_form(args: argparse.Namespace) -> dict[str, str]:
    options = f"Threads=1 Hash={args.hash}"
    return {
        "dev_engine": ENGINE,
        "dev_repo": SOURCE,
        "dev_network": "",
        "dev_options": options,
        "dev_time_control": args.tc,
        "base_engine": ENGINE,
        "base_repo": SOURCE,
        "base_network": "",
        "base_options": options,
        "base_time_control": args.tc,
        "info": args.info,
        "priority": "0",
        "throughput": "1000",
        "syzygy_wdl": "OPTIONAL",
        "syzygy_adj": "OPTIONAL",
        "workload_size": str(args.workload_size),
        "scale_method": "BASE",
        "scale_nps": str(args.nps),
    }


def full_sha(work: Path, ref: str) -> str:
    return git(work, "rev-parse", f"{ref}^{{commit}}").strip()


def bench_of(work: Path, sha: str) -> str:
    """The node count the commit's ``tests/data/bench.txt`` records (what its ``Bench:`` line quotes)."""
    try:
        text = git(work, "show", f"{sha}:tests/data/bench.txt")
    except subprocess.CalledProcessError:
        raise ValueError(f"{sha[:7]} has no tests/data/bench.txt: give its bench (--dev-bench, --base-bench)") from None
    return re.findall(r"^\d+$", text, re.M)[-1]


def run_workload(args: argparse.Namespace, kind: str, form: dict[str, str]) -> None:
    work: Path = args.work.resolve()
    instance = Instance(work, args.python)
    try:
        instance.start_server()
        workload = instance.submit(kind, form)
        print(f"{kind} {workload}: {instance.url}/{kind}/{workload}/", flush=True)
        instance.start_client()
        started = time.time()
        while not (info := instance.info(workload))["finished"]:
            if instance.processes[-1].poll() is not None:
                raise RuntimeError(f"the client stopped: see {work / 'client.log'}")
            time.sleep(FINISHED_POLL_SECONDS)
        minutes = (time.time() - started) / 60
        block = instance.stat_block(kind, workload)
        print(block)
        print(f"finished in {minutes:.1f} min (client log: {work / 'client.log'})")
        record = {"kind": kind, "id": workload, "minutes": round(minutes, 1), "stat_block": block, "info": info}
        (work / f"{kind}-{workload}.json").write_text(json.dumps(record, indent=2, default=str) + "\n")
    finally:
        instance.stop()


def sprt(args: argparse.Namespace) -> None:
    work = args.work.resolve()
    dev, base = full_sha(work, args.dev), full_sha(work, args.base)
    form = shared_form(args) | {
        "dev_branch": dev,
        "dev_bench": args.dev_bench or bench_of(work, dev),
        "base_branch": base,
        "base_bench": args.base_bench or bench_of(work, base),
        "book_name": BOOK.name,
        "upload_pgns": "FALSE",
        "test_mode": "SPRT",
        "test_bounds": args.bounds,
        "test_confidence": "[0.05, 0.05]",
        "test_max_games": "0",
        "win_adj": "movecount=3 score=400",
        "draw_adj": "movenumber=40 movecount=8 score=10",
    }
    run_workload(args, "test", form)


def datagen(args: argparse.Namespace) -> None:
    work = args.work.resolve()
    dev = full_sha(work, args.dev)
    bench = args.dev_bench or bench_of(work, dev)
    form = shared_form(args) | {
        "dev_branch": dev,
        "dev_bench": bench,
        "base_branch": dev,
        "base_bench": bench,
        "book_name": "NONE",
        "upload_pgns": "VERBOSE",
        "datagen_max_games": str(args.games),
        "datagen_custom_genfens": "",
        "datagen_play_reverses": "NO",
        "win_adj": "None",
        "draw_adj": "None",
    }
    run_workload(args, "datagen", form)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_offline"]:
        run_offline(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--work", type=Path, required=True, help="the instance's folder")
    common.add_argument("--python", default=sys.executable, help="the Python with OpenBench's requirements")
    common.add_argument("--nps", type=int, default=750_000, help="the engine's reference bench speed")

    one = commands.add_parser("setup", parents=[common], help="make the instance from the snapshots")
    one.add_argument("--openbench", type=Path, required=True, help="an exported AndyGrant/OpenBench snapshot")
    one.add_argument("--fastchess", type=Path, required=True, help="a fastchess binary")
    one.add_argument("--repo", type=Path, default=REPO, help="the Jitfish repository to serve")

    one = commands.add_parser("backport", parents=[common], help="OLD's tree with NEW's OpenBench build")
    one.add_argument("old")
    one.add_argument("new")

    workload = argparse.ArgumentParser(add_help=False, parents=[common])
    workload.add_argument("--tc", default="N=5000", help="OpenBench's time control: N=nodes, D=depth, 8.0+0.08")
    workload.add_argument("--hash", type=int, default=16)
    workload.add_argument("--workload-size", type=int, default=8, help="game pairs a client takes at once")
    workload.add_argument("--dev-bench", help="default: tests/data/bench.txt of the commit")
    workload.add_argument("--info", default="local OpenBench (tuning/openbench/local.py)")
    one = commands.add_parser("sprt", parents=[workload], help="one SPRT of DEV against BASE")
    one.add_argument("dev")
    one.add_argument("base")
    one.add_argument("--base-bench", help="default: tests/data/bench.txt of the commit")
    one.add_argument("--bounds", default="[0.00, 40.00]", help="OpenBench's SPRT bounds, in normalized Elo")
    one = commands.add_parser("datagen", parents=[workload], help="one datagen workload of DEV (genfens, games)")
    one.add_argument("dev")
    one.add_argument("--games", type=int, default=32)

    args = parser.parse_args(argv)
    if args.command == "setup":
        setup(args)
    elif args.command == "backport":
        print(backport(args.work.resolve(), args.old, args.new))
    elif args.command == "sprt":
        sprt(args)
    else:
        datagen(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
