"""Time `arena.llm.extract.extract_object` on crafted answers of growing size (issue 16, item 5).

Prints, per crafted shape (the tests' `CRAFTED`, tests/security/test_sec_linear_json.py) and size, the best of
`--repeats` wall times of one extraction with `truncated=True` (every salvage step runs), and the ratio to the
previous size: a linear search shows ratios near the size ratio (4), a quadratic one near 16. The 250,000-brace
answer took 40 s before the search was made linear.

    python bench/extract.py                      # sizes 62,500 to 1,000,000 characters
    python bench/extract.py --sizes 250000 --repeats 5
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

from arena.llm.extract import NoJSON, extract_object

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "security"))
from test_sec_linear_json import CRAFTED  # type: ignore[import-not-found]  # on sys.path above; the crafted answers the tests count the decoder's work on


def best(text: str, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        with contextlib.suppress(NoJSON):
            extract_object(text, truncated=True)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[62_500, 250_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'shape':<30} {'characters':>12} {'seconds':>9} {'ratio':>6}")
    for name, make in CRAFTED.items():
        previous = None
        for size in args.sizes:
            seconds = best(make(size), args.repeats)
            ratio = f"{seconds / previous:6.1f}" if previous else "     -"
            print(f"{name:<30} {size:>12,} {seconds:>9.4f} {ratio}")
            previous = seconds


if __name__ == "__main__":
    main()
