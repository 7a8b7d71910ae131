"""The one JIT decorator: its flags, its cache directory, and proof that its two uses of Numba internals work.

``_nrt`` is not a documented Numba option.  If a Numba release ignored it,
hot kernels would silently get reference counting back and perft would run
at half speed, so the compiled code itself is inspected here: a hot kernel's
LLVM IR must hold no ``NRT_incref``/``NRT_decref`` calls.  Code loaded from
the on-disk cache cannot be inspected (Numba disables it), so each kernel is
recompiled, uncached, from its own Python function with exactly the options
the decorator gave it, for the signature the session already called it with.

The other internal is ``numba.np.arrayobj.fix_integer_index``, wrapped so that
Jitfish's kernels index arrays without Python's negative-index wraparound;
small probe functions show that the wrap acts in Jitfish's code and only there.

``forceinline`` (the decorator's ``llvm_inline``) is a Numba option its
documentation does not describe: a probe that calls make and unmake must
compile to code with no call to them left.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numba
import numpy as np
import pytest
from numba.core.caching import FunctionCache
from numba.core.registry import CPUDispatcher

import jitfish
import jitfish.runtime.jit
from jitfish._version import __version__
from jitfish.board import attacks, makemove, movegen, perft, zobrist
from jitfish.board.tables import lookup_tables

HOT_KERNELS = [
    perft._perft_kernel,
    movegen.generate_moves,
    movegen.is_in_check,
    movegen.pinned_pieces,
    makemove.make_move,
    makemove.unmake_move,
    attacks.is_square_attacked,
    attacks.attackers_to,
]
PLAIN_KERNELS = [zobrist.compute_key, attacks.build_attack_tables]
REFCOUNT_CALLS = ("NRT_incref", "NRT_decref")

pytestmark = pytest.mark.usefixtures("compiled_kernels")


def all_board_kernels() -> list[CPUDispatcher]:
    kernels = []
    for module in (attacks, makemove, movegen, perft, zobrist):
        kernels += [
            obj for obj in vars(module).values() if isinstance(obj, CPUDispatcher) and obj.__module__ == module.__name__
        ]
    return kernels


def uncached_copy(kernel: CPUDispatcher, **changes) -> CPUDispatcher:
    """The kernel's own function compiled with its own options, minus the on-disk cache."""
    options = {k: v for k, v in kernel.targetoptions.items() if k != "nopython"}
    options.update(changes)
    return numba.njit(**options)(kernel.py_func)


def compiled_ir(kernel: CPUDispatcher, signature) -> str:
    kernel.compile(signature)
    return kernel.inspect_llvm(signature)


def exercise_board() -> None:
    """Call the kernels from Python so that each has a signature to recompile."""
    board = jitfish.Board()
    board.push_uci("e2e4")
    board.is_check()
    board.legal_moves()
    board.pop()
    board.perft(2)


# --- Flags ----------------------------------------------------------------------------


def test_every_board_kernel_is_cached_and_releases_the_gil():
    kernels = all_board_kernels()
    assert len(kernels) >= 20
    for kernel in kernels:
        assert kernel.targetoptions.get("nogil") is True, kernel.__name__
        assert kernel.targetoptions.get("boundscheck") is False, kernel.__name__
        assert isinstance(kernel._cache, FunctionCache), f"{kernel.__name__} is not cached"


@pytest.mark.parametrize("kernel", HOT_KERNELS, ids=lambda k: k.__name__)
def test_hot_kernels_are_compiled_without_reference_counting(kernel):
    assert kernel.targetoptions.get("_nrt") is False


@pytest.mark.parametrize("kernel", PLAIN_KERNELS, ids=lambda k: k.__name__)
def test_plain_kernels_keep_reference_counting(kernel):
    assert kernel.targetoptions.get("_nrt", True) is True


def test_decorator_sets_the_flags():
    def add(a, b):
        return a + b

    hot = jitfish.runtime.jit.kernel(hot=True)(add)
    plain = jitfish.runtime.jit.kernel(add)
    inlined = jitfish.runtime.jit.kernel(hot=True, inline=True)(add)
    assert hot.targetoptions["_nrt"] is False and hot.targetoptions["nogil"] is True
    assert "_nrt" not in plain.targetoptions and plain.targetoptions["nogil"] is True
    assert inlined.targetoptions["inline"] == "always"
    for dispatcher in (hot, plain, inlined):
        assert isinstance(dispatcher._cache, FunctionCache)
        assert dispatcher.targetoptions["boundscheck"] is False


# --- The compiled code ------------------------------------------------------------------


def test_kernels_run_from_the_project_cache_directory():
    exercise_board()
    kernel = perft._perft_kernel
    assert kernel.signatures, "_perft_kernel was never called"
    assert kernel.stats.cache_path.startswith(str(jitfish.runtime.jit.CACHE_DIR))
    # Either this process compiled and saved it, or it loaded it: the cache is in use either way.
    assert sum(kernel.stats.cache_hits.values()) + sum(kernel.stats.cache_misses.values()) >= 1


@pytest.mark.parametrize("kernel", [movegen.is_in_check, makemove.unmake_move], ids=lambda k: k.__name__)
def test_hot_kernel_machine_code_has_no_reference_counting(kernel):
    """These kernels pass arrays on to other kernels: with reference counting that costs incref/decref calls."""
    exercise_board()
    assert kernel.signatures, f"{kernel.__name__} was never called"
    signature = kernel.signatures[0]
    ir = compiled_ir(uncached_copy(kernel), signature)
    assert "define" in ir
    for call in REFCOUNT_CALLS:
        assert call not in ir, f"{kernel.__name__} compiled with {call}: _nrt=False no longer takes effect"
    # The control: the same function with reference counting on does show the calls,
    # so the check above can see them when they are there.
    counted = compiled_ir(uncached_copy(kernel, _nrt=True), signature)
    assert any(call in counted for call in REFCOUNT_CALLS)


def _doubled_sum(values):
    doubled = values * 2  # allocates a new array
    return doubled.sum()


def test_plain_kernel_that_allocates_uses_reference_counting():
    plain = jitfish.runtime.jit.kernel(_doubled_sum)
    copy = uncached_copy(plain)
    signature = (numba.types.float64[::1],)
    ir = compiled_ir(copy, signature)
    assert copy(np.arange(4.0)) == 12.0
    assert "NRT_MemInfo" in ir
    assert any(call in ir for call in REFCOUNT_CALLS)


def _play_and_take_back(bbs, state, undo, key_history, tables, move):
    makemove.make_move(bbs, state, undo, key_history, tables, move)
    makemove.unmake_move(bbs, state, undo, key_history, tables)


_plain_make_move = uncached_copy(makemove.make_move, forceinline=False)


def _play_and_take_back_plain(bbs, state, undo, key_history, tables, move):
    _plain_make_move(bbs, state, undo, key_history, tables, move)


def _calls(ir: str, mangled_prefix: str) -> int:
    return sum(1 for line in ir.splitlines() if " call " in line and mangled_prefix in line)


def test_llvm_inline_pastes_the_kernel_into_its_callers():
    """``llvm_inline`` kernels (make and unmake here) leave no call in a caller's code, even when they come from
    the on-disk cache; the control, the same kernel without the option, stays a call."""
    exercise_board()
    assert makemove.make_move.targetoptions["forceinline"] is True
    p = jitfish.Board().position
    args = (p.bbs, p.state, p.undo, p.key_history, lookup_tables(), np.int64(0))
    signature = tuple(numba.typeof(a) for a in args)
    ir = compiled_ir(numba.njit(_nrt=False)(_play_and_take_back), signature)
    assert _calls(ir, "8makemove9make_move") == 0, "make_move is still called: forceinline no longer takes effect"
    assert _calls(ir, "8makemove11unmake_move") == 0
    plain = compiled_ir(numba.njit(_nrt=False)(_play_and_take_back_plain), signature)
    assert _calls(plain, "8makemove9make_move") == 1


# --- The cache directory ----------------------------------------------------------------


def test_cache_directory_is_named_after_version_and_source_digest():
    digest = jitfish.runtime.jit.source_digest()
    assert len(digest) == 16 and int(digest, 16) >= 0
    assert jitfish.runtime.jit.CACHE_DIR.name == f"{__version__}-{digest}"
    assert numba.config.CACHE_DIR == str(jitfish.runtime.jit.CACHE_DIR)


# Python that no kernel is compiled from (issue 76): editing it must keep every compiled kernel.
PURE_PYTHON = (
    "search/searcher.py",
    "search/threads.py",
    "search/timeman.py",
    "search/bench.py",
    "syzygy/root.py",
    "uci/protocol.py",
)


def _ast_imports(path: Path, modules: dict[str, Path]) -> set[Path]:
    """The reference for ``jit._imported``: the same rule over Python's own parse of the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            found |= {modules.get(alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found |= {modules.get(f"{node.module}.{a.name}") or modules.get(node.module) for a in node.names}
    return found - {None}


def _ast_defines_kernels(path: Path) -> bool:
    """The reference for a kernel file: a function decorated with ``kernel``, or ``name = kernel(...)`` or
    ``name = inlined_copy(...)``, over Python's own parse."""

    def named(node: ast.AST) -> str | None:
        node = node.func if isinstance(node, ast.Call) else node
        return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)

    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.FunctionDef) and any(named(d) == "kernel" for d in node.decorator_list):
            return True
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            if named(node.value) in ("kernel", "inlined_copy"):
                return True
    return False


def test_the_cache_key_reads_the_sources_as_python_does():
    """Each file's imports as Python parses them are found (a docstring's example may add more), and the files
    digested are those a reference over Python's own parse finds."""
    modules = jitfish.runtime.jit._package_sources()
    imports = {path: _ast_imports(path, modules) for path in modules.values()}
    for path in modules.values():
        assert imports[path] <= jitfish.runtime.jit._imported(path.read_bytes(), modules), path
    pending = [found for path in modules.values() if _ast_defines_kernels(path) for found in imports[path]]
    closure: set[Path] = set()
    while pending:
        path = pending.pop()
        if path not in closure:
            closure.add(path)
            pending.extend(imports[path])
    package = Path(jitfish.runtime.jit.__file__).parents[1]
    assert jitfish.runtime.jit.kernel_sources() == sorted(path.relative_to(package).as_posix() for path in closure)


def test_the_cache_key_covers_what_kernels_are_built_from_and_nothing_else():
    sources = jitfish.runtime.jit.kernel_sources()
    for name in ("runtime/jit.py", "types.py", "board/movegen.py", "board/makemove.py", "search/quiescence.py"):
        assert name in sources
    for name in ("search/movepick.py", "eval/evaluation.py", "nnue/features.py", "nnue/inference.py"):
        assert name in sources
    for name in ("syzygy/probe.py", "syzygy/layout.py", "search/params.py"):
        assert name in sources
    assert not [name for name in sources if name in PURE_PYTHON or name.startswith(("uci/", "teach/"))]


@pytest.mark.slow
def test_a_pure_python_edit_recompiles_nothing_and_a_kernel_edit_recompiles(tmp_path):
    """In a scratch copy of the package with its own cache: a kernel compiles once, then loads; editing files
    that define no kernel and that no kernel file imports keeps the cache; editing a module kernels are
    built from (``types.py``) compiles it again."""
    shutil.copytree(Path(jitfish.__file__).parent, tmp_path / "jitfish", ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        "from jitfish.runtime.compile import CompileCounter\nimport jitfish.runtime.jit as j\n"
        "from jitfish.types import mate_in\n"
        "with CompileCounter() as counter:\n    mate_in(3)\nprint(j.DIGEST, counter.started, j.PACKAGE_DIR)"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path), JITFISH_CACHE_DIR=str(tmp_path / "cache"), JITFISH_PREBUILT="0")

    def digest_and_compiles() -> tuple[str, int]:
        done = subprocess.run(
            [sys.executable, "-P", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        digest, compiled, package = done.stdout.split()
        assert package == str(tmp_path / "jitfish")
        return digest, int(compiled)

    digest, compiled = digest_and_compiles()
    assert compiled >= 1
    assert digest_and_compiles() == (digest, 0)
    for name in PURE_PYTHON:
        with open(tmp_path / "jitfish" / name, "a") as file:
            file.write("# edited\n")
        assert digest_and_compiles() == (digest, 0), name
    with open(tmp_path / "jitfish" / "types.py", "a") as file:
        file.write("# edited\n")
    edited, compiled = digest_and_compiles()
    assert edited != digest and compiled >= 1


def test_cache_root_can_be_moved_with_an_environment_variable(tmp_path):
    env = dict(os.environ, JITFISH_CACHE_DIR=str(tmp_path))
    code = "import numba, jitfish.runtime.jit as j; print(j.CACHE_DIR); print(numba.config.CACHE_DIR)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    cache_dir, numba_dir = result.stdout.split()
    assert cache_dir == numba_dir == str(tmp_path / jitfish.runtime.jit.CACHE_DIR.name)


# --- Array indexing without Python's negative-index wraparound ---------------------------


def _element(array, index):
    return array[index]


def _element_compiled_in(module: str):
    """``_element`` compiled (uncached) as if it were defined in ``module``."""
    clone = types.FunctionType(_element.__code__, _element.__globals__, "element")
    clone.__module__ = module
    return numba.njit(boundscheck=False)(clone)


def test_own_kernels_index_arrays_without_wraparound():
    """Index -1 of a view must read the slot before the view: no end-relative step was compiled in.

    If a Numba release renamed the function Jitfish wraps, this fails (and the search slows by a third).
    """
    base = np.array([10, 20, 30, 40], dtype=np.int64)
    view = base[1:]
    assert _element_compiled_in("jitfish.probe")(view, -1) == 10
    assert _element_compiled_in("jitfish.probe")(view, 2) == 40


def test_other_numba_code_keeps_python_negative_indexing():
    """Importing Jitfish must not change the meaning of anyone else's Numba code."""
    base = np.array([10, 20, 30, 40], dtype=np.int64)
    view = base[1:]
    assert _element_compiled_in("notebook.user_code")(view, -1) == 40


# --- Typing recursive kernels --------------------------------------------------------------


def _countdown(n):
    """Three recursive calls, as negamax has seven: Numba would type each on every round of propagation."""
    if n <= 0:
        return 0
    if n % 3 == 0:
        return _countdown(n - 1) + 1
    if n % 3 == 1:
        return _countdown(n - 1) + 2
    return _countdown(n - 1) + 3


def _half_step(n):
    """Its return type depends on its recursion: int64 where it stops, float64 where it recurses."""
    if n <= 0:
        return 1
    return _half_step(n - 1) + 0.5


def _recursive_compiled_in(function, module_name: str, monkeypatch):
    """``function`` compiled (uncached) in a new module ``module_name``; its recursive calls reach the copy."""
    module = types.ModuleType(module_name)
    monkeypatch.setitem(sys.modules, module_name, module)  # Numba names the recursive call after its module
    clone = types.FunctionType(function.__code__, vars(module), function.__name__)
    clone.__module__ = module_name
    compiled = numba.njit(clone)
    setattr(module, function.__name__, compiled)
    return compiled


def partial_typings(monkeypatch) -> list[str]:
    """The names of the functions Numba types again to learn a recursive call's return type."""
    typed: list[str] = []
    numba_partial = jitfish.runtime.jit._numba_return_types_from_partial

    def counting(inferer):
        typed.append(inferer.func_id.func_name)
        return numba_partial(inferer)

    monkeypatch.setattr(jitfish.runtime.jit, "_numba_return_types_from_partial", counting)
    return typed


def test_own_recursive_kernel_is_typed_again_once_not_once_per_recursive_call(monkeypatch):
    """If this fails, negamax's compile (and a cold start) takes about 15 s longer."""
    typed = partial_typings(monkeypatch)
    countdown = _recursive_compiled_in(_countdown, "jitfish.probe", monkeypatch)
    assert countdown(6) == 12
    assert typed == ["_countdown"]


def test_other_recursive_numba_code_is_typed_as_numba_types_it(monkeypatch):
    """The shortcut is Jitfish's own: other code in the process sees Numba unchanged.

    If Numba itself one day types the recursion once, this fails: then delete the wrap in jit.py.
    """
    typed = partial_typings(monkeypatch)
    countdown = _recursive_compiled_in(_countdown, "notebook.user_code", monkeypatch)
    assert countdown(6) == 12
    assert len(typed) > 1


def test_recursive_kernel_whose_type_depends_on_its_recursion_fails_to_compile(monkeypatch):
    half_step = _recursive_compiled_in(_half_step, "jitfish.probe", monkeypatch)
    with pytest.raises(numba.core.errors.TypingError, match="recursive calls were typed as returning int64"):
        half_step(3)


# --- The Numba versions the wraps were checked on ----------------------------------------------


def _release(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def test_numba_is_in_the_range_the_wraps_were_checked_on():
    """jitfish/runtime/jit.py wraps two Numba internals; ``NUMBA_RANGE`` beside them says on which releases they
    were checked, and pyproject.toml must pin the same range so that no install goes outside it."""
    low, high = jitfish.runtime.jit.NUMBA_RANGE
    assert _release(low) <= _release(numba.__version__) < _release(high), numba.__version__
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert pyproject.count(f'"numba>={low},<{high}"') == 2  # the dependency, and the build's (setup.py)
