"""The one place that configures Numba for Jitfish.

Every compiled kernel is declared with :func:`kernel`, so the compiler flags
(caching, ``nogil``, no bounds checks) are set once here.  The on-disk cache
lives in a directory named after the package version and a digest of the
modules kernels are compiled from (:func:`kernel_sources`, read from the
sources): Numba only invalidates a cached function when its own file changes,
so a change in a helper module would otherwise leave stale machine code
behind, while a change in Python no kernel is compiled from keeps them all.
"""

from __future__ import annotations

import hashlib
import re
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
from numba.core import typeinfer as numba_typeinfer
from numba.core import types as numba_types
from numba.core.errors import TypingError
from numba.np import arrayobj as numba_arrays

from jitfish._version import __version__
from jitfish.runtime import prebuilt
from jitfish.runtime.cache import cache_root

PACKAGE_DIR = Path(__file__).resolve().parents[1]


# What the cache key digests: the modules that kernels are compiled from, found by reading the sources.
# A file *defines kernels* when a function in it is decorated with ``kernel`` or a name is bound to
# ``kernel(...)`` or ``inlined_copy(...)``.  The key covers every module of this package that such a file
# imports, and what those import in turn.  A kernel file that no other kernel file imports (``negamax``,
# the lessons' kernels) is left to Numba's own check, which recompiles a cached function when its own file
# changes: nothing else was compiled from it.  So editing Python that no kernel file imports (the searcher,
# the time manager, the protocol, the CLI, the tablebase files' reader) keeps every compiled kernel, and
# editing a module kernels are built from recompiles them all at the next start.
_DEFINES_KERNELS = re.compile(
    rb"^[ \t]*(?:@(?:\w+\.)?kernel\b|\w+[ \t]*=[ \t]*(?:\w+\.)?(?:kernel|inlined_copy)\()", re.M
)
_IMPORTS = re.compile(
    rb"^[ \t]*(?:from[ \t]+(jitfish[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)|import[ \t]+(jitfish[\w.]*))", re.M
)


def _package_sources() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its ``__init__.py``)."""
    modules = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _imported(source: bytes, modules: dict[str, Path]) -> set[Path]:
    """The package's modules that ``source`` imports: ``from jitfish.a import b`` is module ``jitfish.a.b`` if
    there is one, else ``jitfish.a`` itself."""
    found: set[Path | None] = set()
    for module, names, plain in _IMPORTS.findall(source):
        if plain:
            found.add(modules.get(plain.decode()))
            continue
        for name in re.sub(r"#[^\n]*", "", names.decode()).strip("()").split(","):
            name = name.split(" as ")[0].strip()
            if name:
                found.add(modules.get(f"{module.decode()}.{name}") or modules.get(module.decode()))
    return {path for path in found if path is not None}


def _kernel_source_bytes() -> dict[str, bytes]:
    """The files the cache key digests (see above), relative to the package, with their bytes."""
    modules = _package_sources()
    sources = {path: path.read_bytes() for path in modules.values()}
    pending = [
        imported
        for source in sources.values()
        if b"kernel" in source and _DEFINES_KERNELS.search(source)
        for imported in _imported(source, modules)
    ]
    found: set[Path] = set()
    while pending:
        path = pending.pop()
        if path not in found:
            found.add(path)
            pending.extend(_imported(sources[path], modules))
    return {path.relative_to(PACKAGE_DIR).as_posix(): sources[path] for path in found}


def kernel_sources() -> list[str]:
    """The files the cache key digests (see above), relative to the package, sorted."""
    return sorted(_kernel_source_bytes())


def source_digest() -> str:
    """A short digest of the kernel sources (:func:`kernel_sources`), their names and their bytes."""
    digest = hashlib.sha1()
    for name, source in sorted(_kernel_source_bytes().items()):
        digest.update(name.encode())
        digest.update(source)
    return digest.hexdigest()[:16]


# Kernels the wheel ships for a named CPU, if they fit this machine (:mod:`jitfish.runtime.prebuilt`): Numba then
# compiles for that CPU, into a cache folder of its own, which starts with the shipped kernels.
DIGEST = source_digest()
PREBUILT = prebuilt.fitting(PACKAGE_DIR, DIGEST)
if PREBUILT is not None:
    prebuilt.select(PREBUILT)
CACHE_DIR = cache_root() / (f"{__version__}-{DIGEST}" + ("" if PREBUILT is None else f"-{PREBUILT.cpu_name}"))
# Numba reads this when a dispatcher enables caching, i.e. at decoration time,
# so it must be set before any kernel module is imported.
numba.config.CACHE_DIR = str(CACHE_DIR)  # type: ignore[attr-defined]  # numba.config sets its names at import
if PREBUILT is not None:
    prebuilt.install(PREBUILT, PACKAGE_DIR, CACHE_DIR)

_BASE_OPTIONS = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy")

# Numba gives a signed array index Python's meaning, where a negative index counts
# from the end: a compare and a select on every array access, and loops it cannot
# unroll as well.  Jitfish's kernels never index from the end, and without that
# step the search runs about a third faster.  Numba has no option for it, so the
# one function that adds it is wrapped to skip it in Jitfish's own kernels only
# (whose mangled names start with the package's): other Numba code in the same
# process keeps Python's meaning.  ``fix_integer_index`` is not a documented API,
# so a test checks that the wrap still takes effect, and only where it should.
#
# When it breaks.  pyproject.toml pins ``NUMBA_RANGE`` (below): the wrap was tested
# on 0.68.1, and ``fix_integer_index(context, builder, idxty, idx, size)`` has
# had this name, signature and module since Numba moved it to ``numba.np`` (0.49).
# A new release can break it in three ways: the function is renamed or moved
# (the import above fails: Jitfish does not start), its callers import it by
# name instead of through the module (the wrap is silently skipped: the search
# runs a third slower), or mangled names stop starting with the module path
# (the same).  ``tests/runtime/test_jit.py::test_own_kernels_index_arrays_without_wraparound``
# fails on the last two, ``test_other_numba_code_keeps_python_negative_indexing``
# if the wrap leaks into other code.  To fix: read the new ``arrayobj.py`` for
# where integer indices are normalised and wrap that instead (or delete the wrap:
# every kernel is correct without it, only slower), run the tests and ``bench``,
# then raise the upper bound in pyproject.toml.
# The Numba releases both wraps in this file were checked on: at least the first, below the
# second.  pyproject.toml pins the same range, and
# ``tests/runtime/test_jit.py::test_numba_is_in_the_range_the_wraps_were_checked_on`` fails if the
# installed Numba or the pin leaves it: check the wraps (their tests, ``bench``) before widening it.
NUMBA_RANGE = ("0.60", "0.69")
OWN_SYMBOL_PREFIX = "_ZN7jitfish"
_numba_fix_integer_index: Any = numba_arrays.fix_integer_index  # untyped in Numba


def _fix_integer_index(context: Any, builder: Any, index_type: Any, index: Any, size: Any) -> Any:
    if index_type.signed and builder.function.name.startswith(OWN_SYMBOL_PREFIX):
        return context.cast(builder, index, index_type, numba_types.intp)
    return _numba_fix_integer_index(context, builder, index_type, index, size)


numba_arrays.fix_integer_index = _fix_integer_index

# Typing a self-recursive kernel.  Numba types a recursive call by cloning the
# kernel's type inference and running it again without the recursive calls
# (``TypeInferer.return_types_from_partial``): the return type of the paths that
# do not recurse.  It does so at every recursive call site on every round of
# propagation, so ``negamax`` (seven recursive calls) was typed about fifty times
# over: two thirds of its compile, a quarter of a cold start.  For Jitfish's
# kernels the answer is computed once per typing and reused at every site.  It
# can only differ between sites if the function's return type depends on its
# own recursive calls, so when the typing ends the function's return type must
# equal the reused answer, else compiling fails with a ``TypingError`` (instead
# of machine code that disagrees with itself).  Same caveats as above: the two
# methods are internal (``tests/runtime/test_jit.py`` checks that the shortcut still
# takes effect, and only for Jitfish's kernels); deleting the wrap is always
# correct, only slower to compile.
_numba_return_types_from_partial: Any = numba_typeinfer.TypeInferer.return_types_from_partial  # untyped in Numba
_numba_unify: Any = numba_typeinfer.TypeInferer.unify  # untyped in Numba
OWN_MODULE_PREFIX = __name__.partition(".")[0] + "."


def _own_kernel(inferer: Any) -> bool:
    return getattr(inferer.func_id.func, "__module__", "").startswith(OWN_MODULE_PREFIX)


def _return_types_from_partial(inferer: Any) -> Any:
    if not _own_kernel(inferer):
        return _numba_return_types_from_partial(inferer)
    known = getattr(inferer, "_jitfish_recursive_return", None)
    if known is None:
        known = _numba_return_types_from_partial(inferer)
        inferer._jitfish_recursive_return = known
    return known


def _unify(inferer: Any, raise_errors: bool = True) -> Any:
    typemap, return_type, call_types = _numba_unify(inferer, raise_errors)
    assumed = getattr(inferer, "_jitfish_recursive_return", None)
    if assumed is not None and return_type is not None and return_type != assumed:
        raise TypingError(
            f"{inferer.func_id.func_qualname} returns {return_type}, but its recursive calls "
            f"were typed as returning {assumed} (jitfish.runtime.jit: recursive kernels)"
        )
    return typemap, return_type, call_types


numba_typeinfer.TypeInferer.return_types_from_partial = _return_types_from_partial  # type: ignore[method-assign]  # the wrap above
numba_typeinfer.TypeInferer.unify = _unify  # type: ignore[method-assign]  # the wrap above


# Where a search callee is compiled ahead on a cold start (see :mod:`jitfish.runtime.compile`): a kernel
# declares its role where it is defined, ``@kernel(hot=True, cold_start=HELPER)``, and the
# warm-up lists are read from ``COLD_START`` in the order the kernels were defined (callees first:
# a module's kernels are decorated after those it imports).
ENGINE_FIRST = "engine first"  # this process, first: callees of quiescence the helper then loads
HELPER = "helper"  # the helper process: quiescence's largest callees and the tablebase
# prober, then quiescence
WHILE_WAITING = "while waiting"  # this process, while the helper works: the main search's own callees
COLD_START: dict[str, list[Any]] = {ENGINE_FIRST: [], HELPER: [], WHILE_WAITING: []}


def kernel(
    function: Callable[..., Any] | None = None,
    *,
    hot: bool = False,
    inline: bool = False,
    llvm_inline: bool = False,
    cold_start: str | None = None,
) -> Any:
    """Compile ``function`` with the project's Numba flags.

    ``cold_start`` (``ENGINE_FIRST``, ``HELPER``, ``WHILE_WAITING``) registers a
    search callee for the cold-start split of :mod:`jitfish.runtime.compile`.

    ``inline=True`` pastes the function into its callers at Numba-IR level.
    The function is typed again at every call site, which costs compile time,
    so keep it for the tiny helpers of the hot paths (piece placement, slider
    lookups, move emission) and for the steps of the search, which take the
    whole search context.

    ``llvm_inline=True`` (Numba's ``forceinline`` option) compiles the kernel
    once and has LLVM paste its machine code into every kernel that calls it.
    LLVM inlines small kernels by itself; a larger one stays a call, and a
    call copies every word of every array argument (seven for a 1-d array)
    onto the stack.  In the search those copies cost more than they seem
    (docs/benchmarks.md has the measured gain and the kernels tried).  Each
    marked kernel grows the code of every caller, so mark only kernels with
    few call sites in the search, and keep a mark only if alternated ``bench``
    runs show it pays: marking too much made ``bench`` slower again.  A test
    (``tests/runtime/test_jit.py``) checks that the option still takes effect.

    ``hot=True`` also drops Numba's reference counting (``_nrt=False``): the
    kernel then may not allocate arrays, but calls between hot kernels pay no
    atomic increments on their array arguments, which roughly doubles perft
    speed.  ``_nrt`` is not a documented option, so a test checks that it
    still takes effect.
    """
    options: dict[str, Any] = dict(_BASE_OPTIONS)
    if hot:
        options["_nrt"] = False
    if inline:
        options["inline"] = "always"
    if llvm_inline:
        options["forceinline"] = True

    def decorate(fn: Callable[..., Any]) -> Any:
        dispatcher = numba.njit(**options)(fn)
        if cold_start is not None:
            COLD_START[cold_start].append(dispatcher)
        return dispatcher

    if function is not None:
        return decorate(function)
    return decorate


def inlined_copy(dispatcher: Any, name: str) -> Any:
    """A second, inlined kernel of a hot kernel's Python function, named ``name``.

    Inlining a large kernel makes its callers fast but slow to compile, so
    perft pastes make/unmake into its loop while the search (many call sites,
    compiled once per start on a cold cache) calls the ordinary kernel.  The
    copy gets its own name so the two never share a cache entry.
    """
    function = dispatcher.py_func
    clone = types.FunctionType(
        function.__code__, function.__globals__, name, function.__defaults__, function.__closure__
    )
    clone.__qualname__ = name
    clone.__doc__ = function.__doc__
    return kernel(clone, hot=True, inline=True)
