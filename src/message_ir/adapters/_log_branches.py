"""The branches of a session log given as text or as a `LogFile` (`_tree.branches`), on the
first pass's compact arrays (a few hundred bytes a line while it runs), in one depth-first
pass over the tree: each line is entered and left once, and at a leaf only what may add to
its branch beyond what the pass counts is gone over (see `Paths`)."""

from __future__ import annotations

from array import array
from collections.abc import Iterator

from message_ir.adapters._first_pass import (
    IS_MESSAGE,
    IS_NODE,
    IS_SIDECHAIN,
    Lines,
    index,
    is_tree,
    record,
    walk,
)
from message_ir.adapters._log_file import text_lines
from message_ir.adapters._tree import Branch, Head, Keys, heads


def branch_lines(source: object, keys: Keys) -> list[tuple[int, int, bool, bool]]:
    """`_tree.branches` of a log given as text or as a `LogFile`, on the first pass's arrays:
    per branch, its last line, its message lines, whether it is a sub-agent's, whether it is
    the one resumed. Empty for a log that is no tree.

    Each leaf's walk is `walk`'s, found in one depth-first pass over the tree instead of one
    walk a leaf (linear, where a walk a leaf is quadratic in a long log with many branches):
    the pass keeps, for the path from a root to the line it is at, its message count, the
    calls on it, and the lines off it that a line on it completes a turn of (of an API message
    on it, or answering a call on it). At a leaf, the branch is that path and those lines of
    its side (and the lines answering their calls, in turn). A leaf whose walk is not its path
    from a root (a compaction on it, an ID an earlier line has, a cycle) is walked on its own."""
    lines = record(source, keys)
    if not is_tree(lines):
        return []
    flags, parents, same = lines.flags, lines.parents, lines.same
    size = len(flags)
    above = bytearray(size)  # a line (the first with its ID) with a message line below it
    ends: list[int] = []
    for number, flag in enumerate(flags):
        if flag & (IS_MESSAGE | IS_NODE) != IS_MESSAGE | IS_NODE:
            continue
        ends.append(number)
        parent = parents[number]
        while parent >= 0 and not above[parent]:  # each line is marked once: linear
            above[parent] = 1
            parent = parents[parent]
    leaves = [number for number in ends if not above[same.get(number, number)]]
    resumed = lines.last_main if lines.last_main >= 0 else lines.last_message
    holding = dict.fromkeys(leaves, 0)  # a leaf -> how many branches hold it
    counts = Paths(lines, holding).walked()
    for leaf in leaves:
        if leaf not in counts:  # walked on its own, as `_tree.branches` walks every leaf
            held = walk(lines, same.get(leaf, leaf)).held
            counts[leaf] = sum(1 for number in held if flags[number] & IS_MESSAGE)
            for number in held:
                if number in holding:
                    holding[number] += 1
    return [
        (leaf, counts[leaf], bool(flags[leaf] & IS_SIDECHAIN), leaf == resumed) for leaf in leaves if holding[leaf] <= 1
    ]


class Paths:
    """The depth-first pass of `branch_lines`, along the path from a root to the line it is at.

    `_walk` adds to a path (`_complete_turns`): the message lines of the leaf's side, off the
    path, that a line on it completes a turn of (of an API message on it, or answering a call
    it makes): `off`, the direct ones; then the lines answering the calls those make (and so
    on). The pass keeps both counts as it enters and leaves lines, so that a leaf's count
    needs no going over them: the direct ones by side (`direct`), and the first ring of the
    others (`ring`: a line answering a call that a direct one makes and no line on the path
    does). At a leaf, only the leaves among them (for `holding`) and the lines of the ring
    that make calls (the rings beyond) are gone over."""

    def __init__(self, lines: Lines, holding: dict[int, int]) -> None:
        self.lines = lines
        self.holding = holding  # a leaf -> how many walks hold it (counted as they are found)
        size = len(lines.flags)
        self.on = bytearray(size)  # the lines on the path to the line the pass is at
        self.anchors = array("q", bytes(8 * size))  # a line -> the lines on the path it completes a turn of
        self.off: set[int] = set()  # the lines with anchors that are off the path
        self.direct = [0, 0]  # the message lines of `off`, of the main conversation and of sub-agents
        self.path_calls: dict[int, int] = {}  # a call's digest -> how many lines on the path make it
        self.made: tuple[dict[int, int], dict[int, int]] = ({}, {})  # by side: a call -> direct lines making it
        self.support = array("q", bytes(8 * size))  # a line -> the calls it answers that the ring's rule counts
        self.in_ring = bytearray(size)
        self.ring = [0, 0]  # by side: how many lines the first ring holds
        self.watched: tuple[set[int], set[int]] = (set(), set())  # by side: leaves and callers to go over
        self.messages = 0  # the message lines on the path
        self.compactions = 0  # the lines on the path that keep only what follows an entry
        self.by_group, self.answering = index(lines)

    def _partners(self, number: int) -> Iterator[int]:
        """The lines `number` completes a turn of, were it on a branch: those of its API
        message, those answering its calls."""
        lines = self.lines
        group = lines.groups.one(number)
        if group is not None:
            for other in self.by_group.get(group, ()):
                if other != number:
                    yield other
        for call in lines.calls.get(number):
            for other in self.answering.get(call, ()):
                if other != number:
                    yield other

    def _side(self, number: int) -> int:
        return 1 if self.lines.flags[number] & IS_SIDECHAIN else 0

    def _is_message(self, number: int) -> bool:
        return self.lines.flags[number] & (IS_MESSAGE | IS_NODE) == IS_MESSAGE | IS_NODE

    def _open(self, call: int, side: int) -> bool:
        """Whether the ring of `side` counts the lines answering `call`: a direct line of that
        side makes it, no line on the path does."""
        return bool(self.made[side].get(call)) and not self.path_calls.get(call)

    def _support(self, call: int, side: int, change: int) -> None:
        """`call` opened (`change` 1) or closed (-1) for the ring of `side`."""
        for other in self.answering.get(call, ()):
            if self._side(other) == side:
                self.support[other] += change
                self._refresh(other)

    def _refresh(self, number: int) -> None:
        """Put `number` in the first ring or take it out, by what holds now."""
        side = self._side(number)
        inside = (
            self.support[number] > 0 and not self.on[number] and not self.anchors[number] and self._is_message(number)
        )
        if inside == bool(self.in_ring[number]):
            return
        self.in_ring[number] = inside
        self.ring[side] += 1 if inside else -1
        if self._watch(number):
            if inside:
                self.watched[side].add(number)
            elif number not in self.off:  # (a direct line is watched as one)
                self.watched[side].discard(number)

    def _watch(self, number: int) -> bool:
        """Whether a leaf must go over `number` when it is added: a leaf two walks do not hold
        yet, or a line that makes calls."""
        return self.holding.get(number, 2) < 2 or self.lines.calls.holds(number)

    def _made(self, number: int, change: int) -> None:
        """The direct line `number` came (`change` 1) or went (-1): the calls it makes."""
        side = self._side(number)
        made = self.made[side]
        for call in self.lines.calls.get(number):
            was = self._open(call, side)
            made[call] = made.get(call, 0) + change
            if self._open(call, side) != was:
                self._support(call, side, 1 if not was else -1)

    def _put_off(self, number: int) -> None:
        if number in self.off:
            return
        self.off.add(number)
        if self._is_message(number):
            side = self._side(number)
            self.direct[side] += 1
            if self._watch(number):
                self.watched[side].add(number)
            self._made(number, 1)
        self._refresh(number)

    def _take_off(self, number: int) -> None:
        if number not in self.off:
            return
        self.off.discard(number)
        if self._is_message(number):
            side = self._side(number)
            self.direct[side] -= 1
            if not self.in_ring[number]:
                self.watched[side].discard(number)
            self._made(number, -1)
        self._refresh(number)

    def _path_call(self, call: int, change: int) -> None:
        opened = [self._open(call, side) for side in (0, 1)]
        self.path_calls[call] = self.path_calls.get(call, 0) + change
        for side in (0, 1):
            if self._open(call, side) != opened[side]:
                self._support(call, side, -1 if opened[side] else 1)

    def _enter(self, number: int) -> None:
        self.on[number] = 1
        self._take_off(number)
        self.messages += self.lines.flags[number] & IS_MESSAGE
        self.compactions += number in self.lines.keeps
        for call in self.lines.calls.get(number):
            self._path_call(call, 1)
        for other in self._partners(number):
            self.anchors[other] += 1
            if not self.on[other]:
                self._put_off(other)
            if self.anchors[other] == 1:
                self._refresh(other)
        self._refresh(number)

    def _leave(self, number: int) -> None:
        self.on[number] = 0
        self.messages -= self.lines.flags[number] & IS_MESSAGE
        self.compactions -= number in self.lines.keeps
        for call in self.lines.calls.get(number):
            self._path_call(call, -1)
        for other in self._partners(number):
            self.anchors[other] -= 1
            if not self.anchors[other]:
                self._take_off(other)
        if self.anchors[number]:
            self._put_off(number)
        self._refresh(number)

    def _completed(self, leaf: int) -> int:
        """How many lines `_complete_turns` adds to the path to `leaf` (the leaves among them
        counted in `holding`): the direct ones and the first ring of the leaf's side, then the
        rings beyond (the lines answering calls the ring makes, in turn)."""
        flags, on, lines, holding = self.lines.flags, self.on, self.lines, self.holding
        side = self._side(leaf)
        count = self.direct[side] + self.ring[side]
        more: set[int] = set()  # the calls of the rings beyond the first (no line on the path makes them)
        taken: set[int] = set()  # the lines of the rings beyond the first
        pending: list[int] = []
        done: list[int] = []  # leaves two walks hold: they end no branch, and need no more counting
        for number in self.watched[side]:
            if lines.calls.holds(number) and self.in_ring[number]:
                pending.append(number)
            if number in holding:
                holding[number] += 1
                if holding[number] >= 2 and not lines.calls.holds(number):
                    done.append(number)
        self.watched[side].difference_update(done)
        while pending:
            number = pending.pop()
            for call in lines.calls.get(number):
                if self.path_calls.get(call) or self.made[side].get(call) or call in more:
                    continue  # made on the path, or its answers are in the first ring already
                more.add(call)
                for other in self.answering.get(call, ()):
                    if on[other] or self.anchors[other] or self.in_ring[other] or other in taken:
                        continue  # on the path, or added already
                    if not self._is_message(other) or flags[other] & IS_SIDECHAIN != (IS_SIDECHAIN if side else 0):
                        continue
                    taken.add(other)
                    count += 1
                    if other in holding:
                        holding[other] += 1
                    pending.append(other)
        return count

    def walked(self) -> dict[int, int]:
        """The message lines of each leaf reached from a root whose path holds no compaction
        (and whose ID no earlier line has); the leaves its walk holds counted in `holding`."""
        lines = self.lines
        flags, parents = lines.flags, lines.parents
        children: dict[int, list[int]] = {}
        roots: list[int] = []
        for number in range(len(flags)):
            if not flags[number] & IS_NODE:
                continue
            parent = parents[number]
            if parent >= 0:
                children.setdefault(parent, []).append(number)
            else:
                roots.append(number)
        found: dict[int, int] = {}
        for root in roots:
            stack: list[tuple[int, bool]] = [(root, False)]
            while stack:
                number, leaving = stack.pop()
                if leaving:
                    self._leave(number)
                    continue
                self._enter(number)
                stack.append((number, True))
                if number in self.holding and not self.compactions and number not in lines.same:
                    self.holding[number] += 1
                    found[number] = self.messages + self._completed(number)
                stack.extend((child, False) for child in reversed(children.get(number, ())))
        return found


def text_branches(source: object, keys: Keys) -> tuple[Branch, ...]:
    """`_tree.branches` of a log given as text or as a `LogFile`. The leaves' IDs and times
    are read in a last pass over the lines, up to the last leaf."""
    found = branch_lines(source, keys)
    if not found:
        return ()
    wanted = {leaf for leaf, _, _, _ in found}
    last = max(wanted)
    read: dict[int, Head] = {}
    lines = text_lines(source)
    assert lines is not None  # a log given as text or as a `LogFile`
    for number, raw in enumerate(lines):
        if number in wanted:
            head = next(heads(raw, (), keys))
            assert head is not None  # a leaf is a line with an ID
            assert head.uid is not None
            read[number] = head
        if number == last:
            break
    return tuple(
        Branch(read[leaf].uid or "", leaf, read[leaf].timestamp, count, sidechain, resumed)
        for leaf, count, sidechain, resumed in found
    )
