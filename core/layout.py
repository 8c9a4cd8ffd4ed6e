"""The 28-slot tableau: three peaks in four rows, and which cards cover which.

Slots go row by row, left to right: 0-2 the three tops, 3-8 the second row, 9-17 the third, 18-27 the bottom row.

>>> COVERED_BY[0], COVERED_BY[3], COVERED_BY[9]
((3, 4), (9, 10), (18, 19))
>>> [len(p) for p in PEAK_SLOTS]
[9, 9, 10]
"""

from __future__ import annotations

SLOT_COUNT = 28
STOCK_SIZE = 23
ROWS: tuple[range, ...] = (range(0, 3), range(3, 9), range(9, 18), range(18, 28))
BOTTOM_ROW = ROWS[3]


def _covered_by(slot: int) -> tuple[int, ...]:
    if slot < 3:  # top p: second-row cards 2p and 2p+1
        return (3 + 2 * slot, 4 + 2 * slot)
    if slot < 9:  # second-row i, peak p = i // 2, k = i % 2: third-row 3p+k and 3p+k+1
        p, k = divmod(slot - 3, 2)
        return (9 + 3 * p + k, 10 + 3 * p + k)
    if slot < 18:  # third-row j: bottom j and j+1
        j = slot - 9
        return (18 + j, 19 + j)
    return ()


#: For each slot, the slots whose cards partly cover it (empty for the bottom row).
COVERED_BY: tuple[tuple[int, ...], ...] = tuple(_covered_by(s) for s in range(SLOT_COUNT))
#: For each slot, the slots it partly covers (the inverse of COVERED_BY).
COVERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(s for s in range(SLOT_COUNT) if slot in COVERED_BY[s]) for slot in range(SLOT_COUNT)
)


def _peak_of(slot: int) -> int:
    if slot < 3:
        return slot
    if slot < 9:
        return (slot - 3) // 2
    if slot < 18:
        return (slot - 9) // 3
    return min((slot - 18) // 3, 2)  # the bottom row splits 3 + 3 + 4


#: For each slot, its peak: 0 left, 1 middle, 2 right.
PEAK_OF: tuple[int, ...] = tuple(_peak_of(s) for s in range(SLOT_COUNT))
#: The slots of each peak: 9, 9 and 10 cards.
PEAK_SLOTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(s for s in range(SLOT_COUNT) if PEAK_OF[s] == p) for p in range(3)
)
PEAK_MASKS: tuple[int, ...] = tuple(sum(1 << s for s in slots) for slots in PEAK_SLOTS)
COVER_MASKS: tuple[int, ...] = tuple(sum(1 << s for s in c) for c in COVERED_BY)
ALL_SLOTS_MASK = (1 << SLOT_COUNT) - 1


def turned_up(slot: int, removed: int) -> tuple[int, ...]:
    """The slots that turn face up when the card in ``slot`` is removed, ``removed`` (bit ``s`` set when slot ``s``
    is empty) holding the slots emptied before it.

    >>> turned_up(18, 0), turned_up(19, 1 << 18), turned_up(27, 0)
    ((), (9,), ())
    """
    after = removed | 1 << slot
    return tuple(covered for covered in COVERS[slot] if after & COVER_MASKS[covered] == COVER_MASKS[covered])
