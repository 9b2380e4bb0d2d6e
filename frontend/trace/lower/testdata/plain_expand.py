#!/usr/bin/env python3
"""Plain expansion of a ScalaTrace V2 trace: the yardstick for `parley lower`.

Reads the trace, expands every rank's loops into one event per MPI call
(each execution of a record takes the next values of its parameter lists)
and counts the events. It does nothing else: no matching, no folding. The
time it takes is what any tool that walks the expanded trace pays at least;
BenchmarkLowerVsPlainExpansion runs it beside `parley lower` (see
docs/trace.md, "Speed").

usage: plain_expand.py TRACE
prints: ranks, events, point-to-point calls, seconds
"""
import sys
import time

P2P = {1113, 1117, 1108, 1012, 1092, 1093, 1091, 1072, 1102, 1090}
PEER = {0x1a, 0x2b}


def members(toks):
    """Reads a rank list from the token list, returns (set of ranks, rest)."""
    n = int(toks[0])
    i = 1
    out = set()
    for _ in range(n):
        depth = -int(toks[i])
        start = int(toks[i + 1])
        i += 2
        dims = []
        for _ in range(depth):
            dims.append((int(toks[i]), int(toks[i + 1])))
            i += 2
        bases = [start]
        for cnt, stride in dims:
            bases = [b + k * stride for b in bases for k in range(cnt)]
        out.update(bases)
    return out, toks[i:]


def groups(text):
    """Parses '( v ... )[ ranklist ]...' into [(values, ranks)]."""
    out = []
    toks = text.replace("(", " ( ").replace(")", " ) ").replace("[", " [ ").replace("]", " ] ").split()
    i = 0
    while i < len(toks):
        assert toks[i] == "("
        j = toks.index(")", i)
        vals = [int(v) for v in toks[i + 1:j]]
        assert toks[j + 1] == "["
        k = toks.index("]", j)
        ranks, _ = members(toks[j + 2:k])
        out.append((vals, ranks))
        i = k + 1
    return out


def parse(path):
    recs = []
    cur = None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                cur = None
                continue
            if line.startswith("RANKS:"):
                ranks, _ = members(line.split()[1:])
                cur = {"ranks": ranks, "loops": [], "params": {}}
                recs.append(cur)
            elif line.startswith("EVENT"):
                cur["op"] = int(line.split()[1])
            elif line.startswith("COMP") or line.startswith("COMM"):
                pass
            elif line.startswith("LOOP"):
                body = line.split(":", 1)[1]
                it, mem = body.split("mem:")
                it = it.replace("iter:", "")
                cur["loops"].append((groups(it), groups(mem)))
            else:
                code, rest = line.split(None, 1) if " " in line else (line, "")
                rest = rest.strip()
                if rest.startswith("("):
                    cur["params"][int(code, 16)] = groups(rest)
                else:
                    cur["params"][int(code, 16)] = [([int(v) for v in rest.split()], None)]
    return recs


def pick(gs, r):
    for vals, ranks in gs:
        if ranks is None or r in ranks:
            return vals
    return None


def expand_rank(recs, r, n):
    mine = [rec for rec in recs if r in rec["ranks"]]
    runs = [0] * len(mine)
    params = []
    for rec in mine:
        ps = {}
        for code, gs in rec["params"].items():
            v = pick(gs, r)
            if v is not None:
                ps[code] = v
        params.append(ps)

    def loops_at(k):
        ls = []
        for it, mem in mine[k]["loops"]:
            i = pick(it, r)
            if i is not None:
                ls.append((i[0], pick(mem, r)[0]))
        return ls

    def site(k):
        x = runs[k]
        runs[k] = x + 1
        rec = mine[k]
        ev = [rec["op"]]
        for code, v in params[k].items():
            val = v[x % len(v)]
            if code in PEER and val != 2147483647:
                val = (val + r) % n
            ev.append(val)
        yield tuple(ev)

    def seq(i, j):
        k = i
        while k < j:
            ls = loops_at(k)
            if not ls:
                yield from site(k)
                k += 1
                continue
            yield from loop(k, ls)
            k += ls[0][1]

    def loop(k, ls):
        count, mem = ls[0]
        end = k + mem
        for _ in range(count):
            if len(ls) > 1:
                yield from loop(k, ls[1:])
                yield from seq(k + ls[1][1], end)
            else:
                yield from site(k)
                yield from seq(k + 1, end)

    return seq(0, len(mine))


def main():
    start = time.perf_counter()
    recs = parse(sys.argv[1])
    n = max(max(rec["ranks"]) for rec in recs) + 1
    events = p2p = 0
    for r in range(n):
        for ev in expand_rank(recs, r, n):
            events += 1
            if ev[0] in P2P:
                p2p += 1
    print(f"ranks {n} events {events} p2p {p2p} seconds {time.perf_counter() - start:.3f}")


if __name__ == "__main__":
    main()
