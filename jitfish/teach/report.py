"""The ladder as text: one block per depth, one row per algorithm, then the flags."""

from __future__ import annotations

from jitfish.teach.ladder import BY_NAME, LadderReport, format_value

HEADER = (f"  {'algorithm':<11} {'nodes':>11} {'leaves':>11} {'time':>9} {'value':>7} {'best':>6} "
          f"{'EBF':>6} {'of minimax':>10}")


def _percent(fraction: float | None) -> str:
    if fraction is None:
        return "?"
    return f"{100 * fraction:.3g}%"


def _seconds(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def format_report(report: LadderReport) -> str:
    """Per depth: nodes, leaves, time, value, best move, effective branching factor, fraction of the minimax tree."""
    suite = len(report.fens) > 1
    lines = [f"Suite of {len(report.fens)} positions (nodes and times summed)" if suite
             else f"Position: {report.fens[0]}"]
    lines.append("Rungs: " + "; ".join(f"{name} = {BY_NAME[name].title}" for name in report.algorithms))
    for depth in range(1, report.depth + 1):
        tree = report.minimax_tree.get(depth)
        size = f"{tree:,} nodes" if tree else "too large to count"
        lines += ["", f"depth {depth}   (the minimax tree: {size})", HEADER]
        for name in report.algorithms:
            result = report.get(name, depth)
            if result is None:
                reason = report.skipped.get((name, depth), "not reached")
                lines.append(f"  {name:<11} skipped: {reason}")
                continue
            ebf = report.branching_factor(name, depth)
            value = "" if suite else format_value(result.value)
            best = "" if suite else result.best_move
            leaves = f"{result.leaves:,}" if result.leaves else "-"
            lines.append(f"  {name:<11} {result.nodes:>11,} {leaves:>11} {_seconds(result.time):>9} {value:>7} "
                         f"{best:>6} {'' if ebf is None else f'{ebf:.2f}':>6} "
                         f"{_percent(report.tree_fraction(name, depth)):>10}")
    flags = report.flags()
    lines += ["", "Values compared with minimax's:"]
    if flags:
        lines += [f"  {flag}" for flag in flags]
    else:
        lines.append("  every rung returned minimax's value at every depth")
    exact = [name for name in report.algorithms if BY_NAME[name].exact]
    if exact and not any(flag.startswith("ERROR") or " ERROR " in flag for flag in flags):
        lines.append(f"  exact rungs ({', '.join(exact)}) agree with minimax everywhere, as they must")
    return "\n".join(lines)
