/* The native kernel of core/solver.py: the same quick depth-first search and the same sweep over masks, step for
 * step, in C. It returns exactly what the pure solver returns (verdicts, lines, node counts: a node budget cuts
 * both off at the same point); tests/test_kernel.py compares the two. core/solver.py is the reference: read its
 * docstrings for what each step means. The tableau's geometry and the search limits come from Python once, by
 * configure(), so that core/layout.py and core/solver.py stay the only place they are written.
 *
 * Ranks are 1-13; index 0 and 14 of the per-rank tables stand for "no neighbour" (Ace and King without the wrap).
 * A line is a tuple of ints: a slot for a removal, -1 for a draw. The searches run without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOTS 28
#define STOCK 23
#define ALL ((uint32_t)((1u << SLOTS) - 1))
#define INF 99
#define ENTRY_RANKS 15
#define MAX_LINE (SLOTS + STOCK + 1)
#define DRAW_CODE (-1)

enum { OK = 0, OUT_OF_BUDGET = -1, NO_MEMORY = -2 };

/* ---- set once by configure() ---- */
static int configured = 0;
static uint32_t cover_mask[SLOTS];   /* the slots covering each slot */
static int covers[SLOTS][2];         /* the slots each slot covers */
static int cover_count[SLOTS];
static uint32_t never_before[SLOTS]; /* cards that can never be removed right before each slot's card */
static long long quick_nodes, action_quick_nodes, setup_nodes;

static inline int top_bit(uint32_t value) { return 31 - __builtin_clz(value); }
static inline int low_bit(uint32_t value) { return __builtin_ctz(value); }

/* ---- the budget: positions and masks examined, and a deadline ---- */
typedef struct {
    long long nodes;
    int has_node_budget;
    long long node_budget;
    int has_deadline;
    double deadline;
} Budget;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int spend(Budget *budget, long long count) {
    budget->nodes += count;
    if (budget->has_node_budget && budget->nodes > budget->node_budget) return OUT_OF_BUDGET;
    if (budget->has_deadline && now() > budget->deadline) return OUT_OF_BUDGET;
    return OK;
}

/* ---- a deal reduced to ranks, with every table the searches read (core/solver.py: _Position and _Tables) ---- */
typedef struct {
    int wraps;
    int ranks[SLOTS];
    int stock[STOCK];
    uint32_t adjacent_slots[ENTRY_RANKS];
    int low[ENTRY_RANKS], high[ENTRY_RANKS];
    uint8_t seed[ENTRY_RANKS][STOCK + 1];
    uint32_t before[SLOTS];
    int last[SLOTS];
    uint32_t watchers[SLOTS];
    uint32_t odd, even;
    int even_after[STOCK + 1], odd_after[STOCK + 1];
} Deal;

typedef struct {
    uint32_t removed, free;
    int drawn, waste;
} Position;

static int adjacent(const Deal *deal, int a, int b) {
    int diff = a > b ? a - b : b - a;
    return diff == 1 || (deal->wraps && diff == 12);
}

static void deal_fill(Deal *deal) {
    memset(deal->adjacent_slots, 0, sizeof deal->adjacent_slots);
    for (int rank = 1; rank < 14; rank++)
        for (int slot = 0; slot < SLOTS; slot++)
            if (adjacent(deal, rank, deal->ranks[slot])) deal->adjacent_slots[rank] |= 1u << slot;
    for (int rank = 0; rank < ENTRY_RANKS; rank++) deal->low[rank] = deal->high[rank] = 0;
    for (int rank = 1; rank < 14; rank++) {
        deal->low[rank] = rank > 1 ? rank - 1 : (deal->wraps ? 13 : 0);
        deal->high[rank] = rank < 13 ? rank + 1 : (deal->wraps ? 1 : 14);
    }
    for (int rank = 0; rank < ENTRY_RANKS; rank++) {
        int found = INF;
        deal->seed[rank][STOCK] = INF;
        for (int index = STOCK - 1; index >= 0; index--) {
            if (rank >= 1 && rank <= 13 && adjacent(deal, deal->stock[index], rank)) found = index + 1;
            deal->seed[rank][index] = (uint8_t)found;
        }
    }
    for (int slot = 0; slot < SLOTS; slot++) {
        int rank = deal->ranks[slot];
        deal->before[slot] = (rank >= 0 && rank < ENTRY_RANKS ? deal->adjacent_slots[rank] : 0)
                             & ~never_before[slot] & ALL;
        deal->last[slot] = -1;
        for (int index = 0; index < STOCK; index++)
            if (adjacent(deal, deal->stock[index], rank)) deal->last[slot] = index;
        deal->watchers[slot] = 0;
    }
    for (int slot = 0; slot < 9; slot++)
        for (int other = 0; other < SLOTS; other++)
            if (deal->before[slot] >> other & 1) deal->watchers[other] |= 1u << slot;
    deal->odd = 0;
    for (int slot = 0; slot < SLOTS; slot++)
        if (deal->ranks[slot] % 2) deal->odd |= 1u << slot;
    deal->even = ALL & ~deal->odd;
    for (int k = 0; k <= STOCK; k++) {
        deal->even_after[k] = deal->odd_after[k] = 0;
        for (int j = k; j < STOCK; j++) {
            if (deal->stock[j] % 2) deal->odd_after[k]++;
            else deal->even_after[k]++;
        }
    }
}

static uint32_t free_cards(uint32_t removed) {
    uint32_t free = 0;
    for (int slot = 0; slot < SLOTS; slot++)
        if (!(removed >> slot & 1) && (removed & cover_mask[slot]) == cover_mask[slot]) free |= 1u << slot;
    return free;
}

static uint32_t uncovered(uint32_t free, int slot, uint32_t after) {
    uint32_t freed = free ^ (1u << slot);
    for (int i = 0; i < cover_count[slot]; i++) {
        int cover = covers[slot][i];
        if ((after & cover_mask[cover]) == cover_mask[cover]) freed |= 1u << cover;
    }
    return freed;
}

static Position after_action(const Deal *deal, Position pos, int action) {
    if (action == DRAW_CODE) {
        pos.waste = deal->stock[pos.drawn];
        pos.drawn += 1;
    } else {
        uint32_t after = pos.removed | 1u << action;
        pos.free = uncovered(pos.free, action, after);
        pos.removed = after;
        pos.waste = deal->ranks[action];
    }
    return pos;
}

/* ---- the proofs of loss the quick searches share: (removed << 4 | waste) -> fewest draws known to lose ---- */
typedef struct {
    uint64_t *keys;
    uint8_t *values;
    size_t capacity, count;
} FailMap;

#define NO_KEY UINT64_MAX

static size_t hash64(uint64_t key, size_t capacity) {
    key ^= key >> 31;
    key *= 0x9E3779B97F4A7C15ull;
    key ^= key >> 29;
    return (size_t)key & (capacity - 1);
}

static int failmap_init(FailMap *map, size_t capacity) {
    map->capacity = capacity;
    map->count = 0;
    map->keys = malloc(capacity * sizeof *map->keys);
    map->values = malloc(capacity);
    if (!map->keys || !map->values) return NO_MEMORY;
    memset(map->keys, 0xFF, capacity * sizeof *map->keys);
    return OK;
}

static void failmap_free(FailMap *map) {
    free(map->keys);
    free(map->values);
    map->keys = NULL;
    map->values = NULL;
}

static int failmap_get(const FailMap *map, uint64_t key) {
    for (size_t i = hash64(key, map->capacity);; i = (i + 1) & (map->capacity - 1)) {
        if (map->keys[i] == key) return map->values[i];
        if (map->keys[i] == NO_KEY) return -1;
    }
}

static int failmap_set(FailMap *map, uint64_t key, int value) {
    if (2 * (map->count + 1) > map->capacity) {
        FailMap bigger;
        if (failmap_init(&bigger, 2 * map->capacity) != OK) {
            failmap_free(&bigger);
            return NO_MEMORY;
        }
        for (size_t i = 0; i < map->capacity; i++)
            if (map->keys[i] != NO_KEY) failmap_set(&bigger, map->keys[i], map->values[i]);
        failmap_free(map);
        *map = bigger;
    }
    size_t i = hash64(key, map->capacity);
    while (map->keys[i] != NO_KEY && map->keys[i] != key) i = (i + 1) & (map->capacity - 1);
    if (map->keys[i] == NO_KEY) map->count++;
    map->keys[i] = key;
    map->values[i] = (uint8_t)value;
    return OK;
}

/* ---- the quick depth-first search (core/solver.py: _quick_win) ---- */
typedef struct {
    const Deal *deal;
    FailMap *failed;
    long long nodes, limit;
    int parity;
    int line[MAX_LINE]; /* reversed while the search unwinds */
    int line_length;
} Quick;

enum { FAILED = 0, WON = 1, STOPPED = 2 };

static uint32_t orphans_of(const Deal *deal, uint32_t removed) {
    uint32_t orphans = 0;
    for (int slot = 0; slot < 9; slot++)
        if (!(removed >> slot & 1) && !(deal->before[slot] & ~removed)) orphans |= 1u << slot;
    return orphans;
}

static uint32_t orphans_after(const Deal *deal, uint32_t orphans, int slot, uint32_t after) {
    uint32_t left = orphans & ~(1u << slot);
    uint32_t newly = deal->watchers[slot] & ~after & ~left;
    while (newly) {
        int card = low_bit(newly);
        newly &= newly - 1;
        if (!(deal->before[card] & ~after)) left |= 1u << card;
    }
    return left;
}

static int parity_fails(const Deal *deal, uint32_t removed, int least) {
    int excess = __builtin_popcount(deal->odd & ~removed) - __builtin_popcount(deal->even & ~removed);
    return excess > deal->even_after[least] + 1 || -excess > deal->odd_after[least] + 1;
}

static int hopeless(const Quick *q, uint32_t removed, uint32_t free, int drawn, int waste, uint32_t orphans) {
    const Deal *deal = q->deal;
    while (orphans) {
        int slot = low_bit(orphans);
        orphans &= orphans - 1;
        if (deal->last[slot] < drawn && !((free >> slot & 1) && adjacent(deal, waste, deal->ranks[slot])))
            return 1;
    }
    return q->parity && parity_fails(deal, removed, drawn);
}

/* FAILED, WON, STOPPED (past the limit) or NO_MEMORY */
static int quick_search(Quick *q, uint32_t removed, uint32_t free, int drawn, int waste, uint32_t orphans) {
    const Deal *deal = q->deal;
    uint64_t key = (uint64_t)removed << 4 | (uint64_t)waste;
    int known = failmap_get(q->failed, key);
    if (known >= 0 && known <= drawn) return FAILED;
    if (++q->nodes > q->limit) return STOPPED;
    if (!hopeless(q, removed, free, drawn, waste, orphans)) {
        uint32_t candidates = free & deal->adjacent_slots[waste];
        while (candidates) {
            int slot = top_bit(candidates);
            candidates ^= 1u << slot;
            uint32_t after = removed | 1u << slot;
            if (after == ALL) {
                q->line[q->line_length++] = slot;
                return WON;
            }
            int found = quick_search(q, after, uncovered(free, slot, after), drawn, deal->ranks[slot],
                                     orphans_after(deal, orphans, slot, after));
            if (found == WON) q->line[q->line_length++] = slot;
            if (found != FAILED) return found;
        }
        if (drawn < STOCK) {
            int found = quick_search(q, removed, free, drawn + 1, deal->stock[drawn], orphans);
            if (found == WON) q->line[q->line_length++] = DRAW_CODE;
            if (found != FAILED) return found;
        }
    }
    return failmap_set(q->failed, key, drawn) == OK ? FAILED : NO_MEMORY;
}

/* *won: 1 won (line filled, in order), 0 lost, -1 stopped; returns OK, OUT_OF_BUDGET or NO_MEMORY */
static int quick_win(const Deal *deal, Position pos, Budget *budget, long long limit, FailMap *failed, int *won,
                     int *line, int *line_length) {
    Quick q = {.deal = deal, .failed = failed, .nodes = 0, .limit = limit, .parity = !deal->wraps,
               .line_length = 0};
    int found = quick_search(&q, pos.removed, pos.free, pos.drawn, pos.waste, orphans_of(deal, pos.removed));
    if (found == NO_MEMORY) return NO_MEMORY;
    *won = found == WON ? 1 : found == FAILED ? 0 : -1;
    *line_length = 0;
    if (found == WON)
        for (int i = q.line_length - 1; i >= 0; i--) line[(*line_length)++] = q.line[i];
    return spend(budget, q.nodes);
}

/* ---- the sweep over masks (core/solver.py: _sweep, _line_to) ---- */
typedef struct {
    uint32_t mask, free;
    uint8_t at[ENTRY_RANKS]; /* fewest draws reaching the mask with a card of each rank on the waste */
    uint8_t least;
} Entry;

typedef struct {
    uint32_t mask;
    uint32_t number; /* entry number + 1, 0 when the slot is empty */
} Slot;

typedef struct {
    Entry *entries;
    size_t count, capacity;
    Slot *index; /* open addressing, twice the entries' capacity; the mask beside the number saves a lookup */
    size_t index_capacity;
} Level;

typedef struct {
    Level levels[SLOTS + 1];
    int count;
} Levels;

static size_t hash32(uint32_t mask, size_t capacity) {
    return (size_t)((mask * 2654435761u) ^ (mask >> 15)) & (capacity - 1);
}

/* an empty level for at least ``at_least`` masks, in the buffers it already has when they fit (the page faults of
 * fresh memory cost a fifth of a search) */
static int level_init(Level *level, size_t at_least) {
    size_t capacity = 16; /* a power of two, for the index's masks */
    while (capacity < at_least) capacity *= 2;
    level->count = 0;
    if (level->entries && level->index && level->capacity >= capacity && level->capacity <= 8 * capacity) {
        memset(level->index, 0, level->index_capacity * sizeof *level->index);
        return OK;
    }
    free(level->entries);
    free(level->index);
    level->capacity = capacity;
    level->index_capacity = 2 * capacity;
    level->entries = malloc(capacity * sizeof *level->entries);
    level->index = calloc(level->index_capacity, sizeof *level->index);
    return level->entries && level->index ? OK : NO_MEMORY;
}

static void level_free(Level *level) {
    free(level->entries);
    free(level->index);
    level->entries = NULL;
    level->index = NULL;
}

/* no level, the buffers kept for the next sweep */
static void levels_clear(Levels *levels) { levels->count = 0; }

static void levels_destroy(Levels *levels) {
    for (int i = 0; i <= SLOTS; i++) level_free(&levels->levels[i]);
    free(levels);
}

/* One set of level buffers is kept between calls (taken and given back with the GIL held), so that a search reuses
 * memory already mapped; a call that finds it taken (another thread's search) allocates its own. */
static Levels *spare_levels = NULL;

static Levels *levels_take(void) {
    Levels *levels = spare_levels;
    spare_levels = NULL;
    return levels ? levels : calloc(1, sizeof *levels);
}

static void levels_give_back(Levels *levels) {
    levels_clear(levels);
    if (spare_levels) levels_destroy(levels);
    else spare_levels = levels;
}

static Entry *level_find(const Level *level, uint32_t mask) {
    for (size_t i = hash32(mask, level->index_capacity);; i = (i + 1) & (level->index_capacity - 1)) {
        const Slot *slot = &level->index[i];
        if (!slot->number) return NULL;
        if (slot->mask == mask) return &level->entries[slot->number - 1];
    }
}

static void index_put(Level *level, uint32_t mask, uint32_t number) {
    size_t i = hash32(mask, level->index_capacity);
    while (level->index[i].number) i = (i + 1) & (level->index_capacity - 1);
    level->index[i].mask = mask;
    level->index[i].number = number;
}

static int level_grow(Level *level) {
    Level bigger = {.entries = NULL, .index = NULL};
    if (level_init(&bigger, 2 * level->capacity) != OK) {
        level_free(&bigger);
        return NO_MEMORY;
    }
    memcpy(bigger.entries, level->entries, level->count * sizeof *level->entries);
    bigger.count = level->count;
    for (size_t n = 0; n < level->count; n++) index_put(&bigger, level->entries[n].mask, (uint32_t)n + 1);
    level_free(level);
    *level = bigger;
    return OK;
}

/* a new entry for a mask not in the level yet (NULL when out of memory) */
static Entry *level_add(Level *level, uint32_t mask) {
    if (level->count == level->capacity && level_grow(level) != OK) return NULL;
    Entry *entry = &level->entries[level->count++];
    index_put(level, mask, (uint32_t)level->count);
    entry->mask = mask;
    memset(entry->at, INF, sizeof entry->at);
    return entry;
}

static int sweep(const Deal *deal, Position pos, Budget *budget, int upper, Levels *levels) {
    Level *level = &levels->levels[0];
    levels->count = 1;
    if (level_init(level, 16) != OK) return NO_MEMORY;
    Entry *root = level_add(level, pos.removed);
    root->at[pos.waste] = (uint8_t)pos.drawn;
    root->free = pos.free;
    root->least = (uint8_t)pos.drawn;
    for (int removed = __builtin_popcount(pos.removed); removed < SLOTS; removed++) {
        if (spend(budget, (long long)level->count) != OK) return OUT_OF_BUDGET;
        Level *following = &levels->levels[levels->count];
        if (level_init(following, level->count * 2) != OK) return NO_MEMORY;
        for (size_t n = 0; n < level->count; n++) {
            const Entry *entry = &level->entries[n];
            int least = entry->least;
            uint32_t cards = entry->free;
            while (cards) {
                int slot = low_bit(cards);
                cards &= cards - 1;
                int rank = deal->ranks[slot];
                int value = entry->at[deal->low[rank]];
                if (entry->at[deal->high[rank]] < value) value = entry->at[deal->high[rank]];
                if (deal->seed[rank][least] < value) value = deal->seed[rank][least];
                if (value > upper) continue;
                uint32_t after = entry->mask | 1u << slot;
                Entry *child = level_find(following, after);
                if (!child) {
                    uint32_t freed = uncovered(entry->free, slot, after);
                    child = level_add(following, after);
                    if (!child) return NO_MEMORY;
                    child->at[rank] = (uint8_t)value;
                    child->free = freed;
                    child->least = (uint8_t)value;
                } else if (value < child->at[rank]) {
                    child->at[rank] = (uint8_t)value;
                    if (value < child->least) child->least = (uint8_t)value;
                }
            }
        }
        if (!following->count) break;
        levels->count++;
        level = following;
    }
    return OK;
}

static int first_rank_at(const Entry *entry, int draws) {
    for (int rank = 1; rank < 14; rank++)
        if (entry->at[rank] == draws) return rank;
    return -1;
}

/* a line from the position to ``mask`` with a card of ``rank`` on the waste after ``draws`` draws; its length, or
 * -1 when no parent is found (never, for values the sweep recorded) */
static int line_to(const Deal *deal, Position pos, const Levels *levels, uint32_t mask, int rank, int draws,
                   int *line) {
    int reversed[MAX_LINE + STOCK];
    int length = 0;
    int depth = __builtin_popcount(mask) - __builtin_popcount(pos.removed);
    while (depth > 0) {
        const Level *parents = &levels->levels[depth - 1];
        int found = 0;
        for (int slot = 0; slot < SLOTS && !found; slot++) {
            uint32_t bit = 1u << slot;
            if (!(mask & bit) || deal->ranks[slot] != rank) continue;
            const Entry *parent = level_find(parents, mask ^ bit);
            if (!parent || !(parent->free & bit)) continue;
            int below = deal->low[rank], above = deal->high[rank], least = parent->least;
            if (parent->at[below] == draws || parent->at[above] == draws) {
                reversed[length++] = slot;
                rank = parent->at[below] == draws ? below : above;
            } else if (deal->seed[rank][least] == draws) {
                reversed[length++] = slot;
                for (int i = 0; i < draws - least; i++) reversed[length++] = DRAW_CODE;
                draws = least;
                rank = first_rank_at(parent, least);
            } else {
                continue;
            }
            mask ^= bit;
            depth--;
            found = 1;
        }
        if (!found) return -1;
    }
    for (int i = 0; i < length; i++) line[i] = reversed[length - 1 - i];
    return length;
}

/* ---- the searches of core/solver.py: _search, hint, winnable_actions ---- */
static int count_draws(const int *line, int length) {
    int draws = 0;
    for (int i = 0; i < length; i++) draws += line[i] == DRAW_CODE;
    return draws;
}

static long long at_most(long long limit, const Budget *budget) {
    return budget->has_node_budget && budget->node_budget < limit ? budget->node_budget : limit;
}

/* *won 1 or 0 with the line (with the fewest draws when ``best`` or when the quick search stopped); ``levels``
 * holds the sweep's levels when it ran (levels->count 0 when not) */
static int search(const Deal *deal, Position pos, Budget *budget, int best, FailMap *failed, int *won, int *line,
                  int *line_length, Levels *levels) {
    levels->count = 0;
    int status = quick_win(deal, pos, budget, at_most(quick_nodes, budget), failed, won, line, line_length);
    if (status != OK || *won == 0 || (*won == 1 && !best)) return status;
    int upper = *won == 1 ? pos.drawn + count_draws(line, *line_length) : STOCK;
    status = sweep(deal, pos, budget, upper, levels);
    if (status != OK) return status;
    const Entry *final = level_find(&levels->levels[levels->count - 1], ALL);
    if (!final) {
        *won = 0;
        *line_length = 0;
        return OK;
    }
    *won = 1;
    *line_length = line_to(deal, pos, levels, ALL, first_rank_at(final, final->least), final->least, line);
    return *line_length < 0 ? NO_MEMORY : OK;
}

static int most_removed_line(const Deal *deal, Position pos, const Levels *levels, int *line) {
    const Level *last = &levels->levels[levels->count - 1];
    const Entry *best = &last->entries[0];
    for (size_t n = 1; n < last->count; n++) {
        const Entry *entry = &last->entries[n];
        if (entry->least < best->least || (entry->least == best->least && entry->mask < best->mask)) best = entry;
    }
    return line_to(deal, pos, levels, best->mask, first_rank_at(best, best->least), best->least, line);
}

/* ---- Python arguments and results ---- */
static int read_ranks(PyObject *sequence, int *out, Py_ssize_t size, const char *what) {
    PyObject *fast = PySequence_Fast(sequence, what);
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != size) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: %zd ranks expected", what, size);
        return -1;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        long value = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (value == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (value < 0 || value > 13) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_ValueError, "%s: ranks are 0-13", what);
            return -1;
        }
        out[i] = (int)value;
    }
    Py_DECREF(fast);
    return 0;
}

/* the deal, the position and the budget from (wraps, ranks, stock, removed, drawn, waste, node_budget,
 * time_budget); node_budget and time_budget may be None */
static int read_position(PyObject *args, Deal *deal, Position *pos, Budget *budget, int *best) {
    PyObject *ranks, *stock, *node_budget, *time_budget;
    unsigned long removed;
    int wraps, drawn, waste;
    int parsed = best ? PyArg_ParseTuple(args, "pOOkiipOO", &wraps, &ranks, &stock, &removed, &drawn, &waste, best,
                                         &node_budget, &time_budget)
                      : PyArg_ParseTuple(args, "pOOkiiOO", &wraps, &ranks, &stock, &removed, &drawn, &waste,
                                         &node_budget, &time_budget);
    if (!parsed) return -1;
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "the kernel is not configured");
        return -1;
    }
    deal->wraps = wraps;
    if (read_ranks(ranks, deal->ranks, SLOTS, "tableau") || read_ranks(stock, deal->stock, STOCK, "stock"))
        return -1;
    if (removed > ALL || drawn < 0 || drawn > STOCK || waste < 1 || waste > 13) {
        PyErr_SetString(PyExc_ValueError, "removed is a 28-bit mask, 0-23 cards drawn, the waste rank 1-13");
        return -1;
    }
    memset(budget, 0, sizeof *budget);
    if (node_budget != Py_None) {
        budget->has_node_budget = 1;
        budget->node_budget = PyLong_AsLongLong(node_budget);
        if (budget->node_budget == -1 && PyErr_Occurred()) return -1;
    }
    if (time_budget != Py_None) {
        double seconds = PyFloat_AsDouble(time_budget);
        if (seconds == -1.0 && PyErr_Occurred()) return -1;
        budget->has_deadline = 1;
        budget->deadline = now() + seconds;
    }
    deal_fill(deal);
    pos->removed = (uint32_t)removed;
    pos->free = free_cards(pos->removed);
    pos->drawn = drawn;
    pos->waste = waste;
    return 0;
}

static PyObject *line_tuple(const int *line, int length) {
    PyObject *tuple = PyTuple_New(length);
    if (!tuple) return NULL;
    for (int i = 0; i < length; i++) PyTuple_SET_ITEM(tuple, i, PyLong_FromLong(line[i]));
    return tuple;
}

static PyObject *verdict_of(int won) {
    if (won < 0) Py_RETURN_NONE;
    return PyBool_FromLong(won);
}

static PyObject *configure(PyObject *self, PyObject *args) {
    PyObject *masks, *cover_lists, *never;
    if (!PyArg_ParseTuple(args, "OOOLLL", &masks, &cover_lists, &never, &quick_nodes, &action_quick_nodes,
                          &setup_nodes))
        return NULL;
    for (int slot = 0; slot < SLOTS; slot++) {
        PyObject *mask = PySequence_GetItem(masks, slot), *before = PySequence_GetItem(never, slot);
        PyObject *list = PySequence_GetItem(cover_lists, slot);
        if (!mask || !before || !list) {
            Py_XDECREF(mask);
            Py_XDECREF(before);
            Py_XDECREF(list);
            return NULL;
        }
        cover_mask[slot] = (uint32_t)PyLong_AsUnsignedLongMask(mask);
        never_before[slot] = (uint32_t)PyLong_AsUnsignedLongMask(before);
        Py_ssize_t count = PySequence_Size(list);
        cover_count[slot] = count < 0 ? 0 : (int)(count > 2 ? 2 : count);
        for (int i = 0; i < cover_count[slot]; i++) {
            PyObject *cover = PySequence_GetItem(list, i);
            covers[slot][i] = cover ? (int)PyLong_AsLong(cover) : 0;
            Py_XDECREF(cover);
        }
        Py_DECREF(mask);
        Py_DECREF(before);
        Py_DECREF(list);
        if (PyErr_Occurred()) return NULL;
    }
    configured = 1;
    Py_RETURN_NONE;
}

static PyObject *no_memory(Levels *levels, FailMap *failed) {
    if (levels) levels_give_back(levels);
    failmap_free(failed);
    return PyErr_NoMemory();
}

/* solve(wraps, ranks, stock, removed, drawn, waste, best, node_budget, time_budget) -> (winnable, line, nodes) */
static PyObject *kernel_solve(PyObject *self, PyObject *args) {
    Deal deal;
    Position pos;
    Budget budget;
    int best = 0, won = 0, line[MAX_LINE + STOCK], length = 0, status;
    if (read_position(args, &deal, &pos, &budget, &best)) return NULL;
    FailMap failed = {.keys = NULL, .values = NULL, .capacity = 0, .count = 0};
    Levels *levels = levels_take();
    if (!levels || failmap_init(&failed, 1024) != OK) return no_memory(levels, &failed);
    Py_BEGIN_ALLOW_THREADS
    status = search(&deal, pos, &budget, best, &failed, &won, line, &length, levels);
    levels_clear(levels);
    failmap_free(&failed);
    Py_END_ALLOW_THREADS
    levels_give_back(levels);
    if (status == NO_MEMORY) return PyErr_NoMemory();
    if (status == OUT_OF_BUDGET) return Py_BuildValue("(OOL)", Py_None, Py_None, budget.nodes);
    if (!won) return Py_BuildValue("(OOL)", Py_False, Py_None, budget.nodes);
    PyObject *tuple = line_tuple(line, length);
    return tuple ? Py_BuildValue("(ONL)", Py_True, tuple, budget.nodes) : NULL;
}

/* hint(wraps, ranks, stock, removed, drawn, waste, None, time_budget) -> (winnable, line): a best line when
 * winnable, else a line removing the most cards (None when the budget ran out on it); (None, None) when the budget
 * ran out before the verdict */
static PyObject *kernel_hint(PyObject *self, PyObject *args) {
    Deal deal;
    Position pos;
    Budget budget;
    int won = 0, known = 0, line[MAX_LINE + STOCK], length = 0, status;
    if (read_position(args, &deal, &pos, &budget, NULL)) return NULL;
    FailMap failed = {.keys = NULL, .values = NULL, .capacity = 0, .count = 0};
    Levels *levels = levels_take();
    if (!levels || failmap_init(&failed, 1024) != OK) return no_memory(levels, &failed);
    Py_BEGIN_ALLOW_THREADS
    status = search(&deal, pos, &budget, 1, &failed, &won, line, &length, levels);
    known = status == OK;
    if (status == OK && !won) {
        if (!levels->count) status = sweep(&deal, pos, &budget, STOCK, levels);
        if (status == OK) {
            length = most_removed_line(&deal, pos, levels, line);
            if (length < 0) status = NO_MEMORY;
        }
    }
    levels_clear(levels);
    failmap_free(&failed);
    Py_END_ALLOW_THREADS
    levels_give_back(levels);
    if (status == NO_MEMORY) return PyErr_NoMemory();
    if (status == OUT_OF_BUDGET) return Py_BuildValue("(OO)", known ? Py_False : Py_None, Py_None);
    PyObject *tuple = line_tuple(line, length);
    return tuple ? Py_BuildValue("(ON)", won ? Py_True : Py_False, tuple) : NULL;
}

/* winnable_actions(wraps, ranks, stock, removed, drawn, waste, node_budget, time_budget) -> (verdicts, nodes),
 * verdicts a tuple of (slot or -1 for the draw, winnable), or None when a budget ran out */
static PyObject *kernel_winnable_actions(PyObject *self, PyObject *args) {
    Deal deal;
    Position pos;
    Budget budget;
    int won = 0, line[MAX_LINE + STOCK], length = 0, status;
    int actions[SLOTS + 1], verdicts[SLOTS + 1], action_count = 0;
    if (read_position(args, &deal, &pos, &budget, NULL)) return NULL;
    if (pos.removed == ALL) return Py_BuildValue("(()i)", 0);
    for (int slot = 0; slot < SLOTS; slot++)
        if ((pos.free >> slot & 1) && adjacent(&deal, deal.ranks[slot], pos.waste)) actions[action_count++] = slot;
    if (pos.drawn < STOCK) actions[action_count++] = DRAW_CODE;
    FailMap failed = {.keys = NULL, .values = NULL, .capacity = 0, .count = 0};
    Levels *levels = levels_take();
    if (!levels || failmap_init(&failed, 4096) != OK) return no_memory(levels, &failed);
    Py_BEGIN_ALLOW_THREADS
    status = spend(&budget, setup_nodes);
    if (status == OK) status = search(&deal, pos, &budget, 0, &failed, &won, line, &length, levels);
    levels_clear(levels);
    for (int i = 0; i < action_count && status == OK; i++) {
        if (!won) {
            verdicts[i] = 0;
            continue;
        }
        if (actions[i] == line[0]) {
            verdicts[i] = 1;
            continue;
        }
        Position child = after_action(&deal, pos, actions[i]);
        status = spend(&budget, setup_nodes);
        if (status != OK) break;
        int found, child_line[MAX_LINE + STOCK], child_length;
        status = quick_win(&deal, child, &budget, at_most(action_quick_nodes, &budget), &failed, &found, child_line,
                           &child_length);
        if (status == OK && found < 0) {
            status = sweep(&deal, child, &budget, STOCK, levels);
            if (status == OK) found = level_find(&levels->levels[levels->count - 1], ALL) != NULL;
            levels_clear(levels);
        }
        verdicts[i] = found;
    }
    levels_clear(levels);
    failmap_free(&failed);
    Py_END_ALLOW_THREADS
    levels_give_back(levels);
    if (status == NO_MEMORY) return PyErr_NoMemory();
    if (status == OUT_OF_BUDGET) return Py_BuildValue("(OL)", Py_None, budget.nodes);
    PyObject *tuple = PyTuple_New(action_count);
    if (!tuple) return NULL;
    for (int i = 0; i < action_count; i++)
        PyTuple_SET_ITEM(tuple, i, Py_BuildValue("(iO)", actions[i], verdicts[i] ? Py_True : Py_False));
    return Py_BuildValue("(NL)", tuple, budget.nodes);
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(cover_masks, covers, never_before, quick_nodes, action_quick_nodes, setup_nodes): the tableau's "
     "geometry and the search limits, once."},
    {"solve", kernel_solve, METH_VARARGS,
     "solve(wraps, ranks, stock, removed, drawn, waste, best, node_budget, time_budget) -> (winnable, line, nodes)"},
    {"hint", kernel_hint, METH_VARARGS,
     "hint(wraps, ranks, stock, removed, drawn, waste, None, time_budget) -> (winnable, line)"},
    {"winnable_actions", kernel_winnable_actions, METH_VARARGS,
     "winnable_actions(wraps, ranks, stock, removed, drawn, waste, node_budget, time_budget) -> (verdicts, nodes)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "core._kernel",
                                    "The native kernel of core/solver.py (see there).", -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModule_Create(&module); }
