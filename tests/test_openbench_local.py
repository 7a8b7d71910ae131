"""tuning/openbench/local.py: the offline GitHub OpenBench talks to, and the backport of the OpenBench build."""

from __future__ import annotations

import http.server
import io
import json
import os
import subprocess
import threading
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tuning.openbench import local as openbench_local

IDENTITY = {
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@127.0.0.1",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@127.0.0.1",
}


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    env = dict(os.environ, **IDENTITY)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo, check=True, env=env)
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def instance(tmp_path: Path) -> tuple[Path, str, str]:
    """An instance folder whose ``jitfish.git`` holds an old commit (a launcher Makefile) and a new one."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    old = commit(repo, {"Makefile": "launcher\n", "jitfish/engine.py": "old engine\n"}, "old")
    new = commit(
        repo,
        {
            "Makefile": "executable\n",
            "jitfish/runtime/bundle.py": "bundle\n",
            "jitfish/runtime/cache.py": "cache\n",
            "jitfish/engine.py": "new engine\n",
            "tests/data/bench.txt": "# the node count\n2296682\n",
        },
        "new\n\nBench: 2296682",
    )
    work = tmp_path / "instance"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(work / "jitfish.git")], check=True)
    return work, old, new


@pytest.fixture
def github(instance: tuple[Path, str, str]):
    """The offline GitHub on a free port of 127.0.0.1; yields (base URL, work, old, new)."""
    work = instance[0]
    (work / "books").mkdir()
    (work / "books" / "tiny.epd").write_text("8/8/8/8/8/8/8/K6k w - -\n")
    handler = type("Handler", (openbench_local.FakeGitHub,), {"work": work, "log_message": lambda *args: None})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", *instance
    finally:
        server.shutdown()
        server.server_close()


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_github_urls_go_to_the_offline_server() -> None:
    local = "http://127.0.0.1:8001"
    assert (
        openbench_local.offline_url("https://api.github.com/repos/a/b/commits/main", local)
        == "http://127.0.0.1:8001/api.github.com/repos/a/b/commits/main"
    )
    assert (
        openbench_local.offline_url("https://raw.githubusercontent.com/a/b/main/x.epd.zip", local)
        == "http://127.0.0.1:8001/raw.githubusercontent.com/a/b/main/x.epd.zip"
    )
    assert openbench_local.offline_url("http://127.0.0.1:8000/clientGetWorkload/", local).startswith(
        "http://127.0.0.1:8000"
    )
    assert openbench_local.offline_url("https://example.com/github.com/x", local) == "https://example.com/github.com/x"


def test_offline_github_answers_the_api_from_the_clone(github) -> None:
    url, work, old, new = github
    api = f"{url}/api.github.com/repos/jitfish-local/jitfish"
    status, body = get(f"{api}/commits/{new}")
    assert status == 200 and json.loads(body) == {"sha": new, "commit": {"message": "new\n\nBench: 2296682"}}
    status, body = get(f"{api}/branches/main")
    assert status == 200 and json.loads(body)["commit"]["sha"] == new
    assert get(f"{api}/branches/nothing")[0] == 404
    assert get(f"{api}/commits/{'0' * 40}")[0] == 404
    # compare/BASE...HEAD: the commits HEAD has that BASE lacks (OpenBench asks dev...base: is base ahead?)
    assert json.loads(get(f"{api}/compare/{old}...{new}")[1]) == {"ahead_by": 1}
    assert json.loads(get(f"{api}/compare/{new}...{old}")[1]) == {"ahead_by": 0}


def test_offline_github_serves_zipballs_and_books(github) -> None:
    url, work, old, new = github
    status, body = get(f"{url}/api.github.com/repos/jitfish-local/jitfish/zipball/{old}")
    assert status == 200
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        names = archive.namelist()
        # One root folder, as GitHub's zipballs have: the client renames whatever the first entry is.
        assert {name.split("/")[0] for name in names} == {f"jitfish-{old[:7]}"}
        assert archive.read(f"jitfish-{old[:7]}/jitfish/engine.py") == b"old engine\n"
    status, body = get(f"{url}/raw.githubusercontent.com/jitfish-local/books/main/tiny.epd.zip")
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        assert archive.namelist() == ["tiny.epd"]
    assert get(f"{url}/raw.githubusercontent.com/jitfish-local/books/main/missing.epd.zip")[0] == 404
    assert get(f"{url}/github.com/anything")[0] == 404


def test_backport_puts_the_new_build_on_the_old_tree(instance: tuple[Path, str, str]) -> None:
    work, old, new = instance
    sha = openbench_local.backport(work, old, new)
    assert openbench_local.backport(work, old[:7], "main") == sha  # fixed names and dates: the same commit

    def show(path: str) -> str:
        return openbench_local.git(work, "show", f"{sha}:{path}")

    assert show("Makefile") == "executable\n"
    assert show("jitfish/runtime/bundle.py") == "bundle\n" and show("jitfish/runtime/cache.py") == "cache\n"
    assert show("jitfish/engine.py") == "old engine\n"
    assert openbench_local.git(work, "rev-parse", f"{sha}^").strip() == old
    assert openbench_local.bench_of(work, new) == "2296682"
    with pytest.raises(ValueError, match="no tests/data/bench.txt"):
        openbench_local.bench_of(work, sha)
