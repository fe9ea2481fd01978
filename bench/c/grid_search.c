/* C references for the grid benchmark: array-FIFO BFS, two-stack A* and binary-heap A*.
 *
 * Usage: grid_search ALGORITHM MAP_FILE REPEATS
 *   ALGORITHM: bfs | astar_two_stack | astar_heap
 *   MAP_FILE:  int32 width, height, start x, start y, goal x, goal y, then width * height
 *              bytes (1 = blocked), row 0 first (OccupancyGrid order).
 * Prints one JSON object: the path length in steps, the cells expanded, and the time of the
 * search alone in each repeat (ms). The per-query reset (memset) is outside the timing, as the
 * project's searches reset nothing (they stamp generations).
 *
 * 4-connected unit steps, neighbours east, north, west, south, on a map framed by a blocked
 * border (no bounds checks), like the project's kernels. The two-stack A* keeps the project's
 * tie rule (ties in f go to the entry pushed last), so it expands the same cells.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    int32_t width, height, row;
    int64_t cells;
    uint8_t *blocked;  /* padded */
    uint8_t *seen;     /* 0 unseen, 1 + direction reached by, +8 once closed */
    int32_t *g;
    int32_t *queue;
    int64_t start, goal;
} Map;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int64_t path_length(const Map *m, const int64_t offsets[4]) {
    int64_t steps = 0, cell = m->goal;
    while (cell != m->start) {
        cell -= offsets[(m->seen[cell] & 7) - 1];
        steps++;
    }
    return steps;
}

static int64_t bfs(Map *m, int64_t *expanded) {
    const int64_t offsets[4] = {1, m->row, -1, -m->row};
    int64_t head = 0, tail = 0;
    m->seen[m->start] = 1;
    m->queue[tail++] = (int32_t)m->start;
    while (head < tail) {
        int64_t cell = m->queue[head++];
        for (int k = 0; k < 4; k++) {
            int64_t next = cell + offsets[k];
            if (m->blocked[next] || m->seen[next]) continue;
            m->seen[next] = (uint8_t)(1 + k);
            if (next == m->goal) {
                *expanded = head;
                return path_length(m, offsets);
            }
            m->queue[tail++] = (int32_t)next;
        }
    }
    *expanded = head;
    return -1;
}

/* Whether a step in direction k reaches `next` (free, open) at a lower g than known; if so it
 * is recorded as reached that way at g_next. */
static int reached_better(Map *m, int64_t next, int k, int32_t g_next) {
    if (m->blocked[next]) return 0;
    uint8_t seen = m->seen[next];
    if ((seen & 8) || (seen && m->g[next] <= g_next)) return 0;
    m->seen[next] = (uint8_t)(1 + k);
    m->g[next] = g_next;
    return 1;
}

typedef struct { int32_t *cells; int64_t size, capacity; } Stack;

static void push(Stack *s, int32_t cell) {
    if (s->size == s->capacity) {
        s->capacity *= 2;
        s->cells = realloc(s->cells, (size_t)s->capacity * sizeof(int32_t));
    }
    s->cells[s->size++] = cell;
}

static int64_t astar_two_stack(Map *m, int64_t *expanded) {
    const int64_t offsets[4] = {1, m->row, -1, -m->row};
    const int64_t goal_x = m->goal % m->row, goal_y = m->goal / m->row;
    Stack stacks[2];
    for (int i = 0; i < 2; i++) {
        stacks[i].capacity = 1024;
        stacks[i].size = 0;
        stacks[i].cells = malloc(1024 * sizeof(int32_t));
    }
    Stack *here = &stacks[0], *there = &stacks[1];
    int64_t count = 0, length = -1;
    m->g[m->start] = 0;
    m->seen[m->start] = 1;
    push(here, (int32_t)m->start);
    for (;;) {
        if (here->size == 0) {
            if (there->size == 0) break;
            Stack *swap = here; here = there; there = swap;
        }
        int64_t cell = here->cells[--here->size];
        if (m->seen[cell] & 8) continue;
        if (cell == m->goal) { length = path_length(m, offsets); break; }
        m->seen[cell] |= 8;
        count++;
        int64_t y = cell / m->row, x = cell - y * m->row;
        int closer[4] = {x < goal_x, y < goal_y, x > goal_x, y > goal_y};
        int32_t g_next = m->g[cell] + 1;
        for (int k = 0; k < 4; k++) {
            int64_t next = cell + offsets[k];
            if (reached_better(m, next, k, g_next)) push(closer[k] ? here : there, (int32_t)next);
        }
    }
    free(stacks[0].cells);
    free(stacks[1].cells);
    *expanded = count;
    return length;
}

typedef struct { int64_t key; int32_t cell; } Entry;

static int64_t astar_heap(Map *m, int64_t *expanded) {
    const int64_t offsets[4] = {1, m->row, -1, -m->row};
    const int64_t goal_x = m->goal % m->row, goal_y = m->goal / m->row;
    int64_t capacity = 1024, size = 0, count = 0, length = -1;
    Entry *heap = malloc((size_t)capacity * sizeof(Entry));
    /* key = f << 32 | (0xFFFFFFFF - g): least f, ties toward the larger g */
    int64_t sx = m->start % m->row, sy = m->start / m->row;
    int64_t h0 = llabs(sx - goal_x) + llabs(sy - goal_y);
    m->g[m->start] = 0;
    m->seen[m->start] = 1;
    heap[size++] = (Entry){(h0 << 32) | 0xFFFFFFFFLL, (int32_t)m->start};
    while (size > 0) {
        Entry top = heap[0];
        Entry last = heap[--size];
        int64_t i = 0;
        for (;;) {
            int64_t child = 2 * i + 1;
            if (child >= size) break;
            if (child + 1 < size && heap[child + 1].key < heap[child].key) child++;
            if (heap[child].key >= last.key) break;
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = last;
        int64_t cell = top.cell;
        if (m->seen[cell] & 8) continue;
        if (cell == m->goal) { length = path_length(m, offsets); break; }
        m->seen[cell] |= 8;
        count++;
        int64_t y = cell / m->row, x = cell - y * m->row;
        int32_t g_next = m->g[cell] + 1;
        for (int k = 0; k < 4; k++) {
            int64_t next = cell + offsets[k];
            if (!reached_better(m, next, k, g_next)) continue;
            int64_t nx = x + (k == 0) - (k == 2), ny = y + (k == 1) - (k == 3);
            int64_t f = g_next + llabs(nx - goal_x) + llabs(ny - goal_y);
            Entry entry = {(f << 32) | (0xFFFFFFFFLL - g_next), (int32_t)next};
            if (size == capacity) {
                capacity *= 2;
                heap = realloc(heap, (size_t)capacity * sizeof(Entry));
            }
            int64_t j = size++;
            while (j > 0 && heap[(j - 1) / 2].key > entry.key) {
                heap[j] = heap[(j - 1) / 2];
                j = (j - 1) / 2;
            }
            heap[j] = entry;
        }
    }
    free(heap);
    *expanded = count;
    return length;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s bfs|astar_two_stack|astar_heap MAP_FILE REPEATS\n", argv[0]);
        return 2;
    }
    FILE *file = fopen(argv[2], "rb");
    if (!file) { perror(argv[2]); return 2; }
    int32_t header[6];
    if (fread(header, sizeof(int32_t), 6, file) != 6) { fprintf(stderr, "bad header\n"); return 2; }
    Map m;
    m.width = header[0];
    m.height = header[1];
    m.row = m.width + 2;
    m.cells = (int64_t)m.row * (m.height + 2);
    m.blocked = malloc((size_t)m.cells);
    memset(m.blocked, 1, (size_t)m.cells);
    uint8_t *line = malloc((size_t)m.width);
    for (int64_t y = 0; y < m.height; y++) {
        if (fread(line, 1, (size_t)m.width, file) != (size_t)m.width) {
            fprintf(stderr, "short map\n");
            return 2;
        }
        memcpy(m.blocked + (y + 1) * m.row + 1, line, (size_t)m.width);
    }
    fclose(file);
    m.start = (int64_t)(header[3] + 1) * m.row + header[2] + 1;
    m.goal = (int64_t)(header[5] + 1) * m.row + header[4] + 1;
    m.seen = malloc((size_t)m.cells);
    m.g = malloc((size_t)m.cells * sizeof(int32_t));
    m.queue = malloc((size_t)m.cells * sizeof(int32_t));
    int repeats = atoi(argv[3]);
    int64_t length = -1, expanded = 0;
    printf("{\"algorithm\": \"%s\", \"times_ms\": [", argv[1]);
    for (int r = 0; r < repeats; r++) {
        memset(m.seen, 0, (size_t)m.cells);
        double began = now_ms();
        if (strcmp(argv[1], "bfs") == 0) length = bfs(&m, &expanded);
        else if (strcmp(argv[1], "astar_two_stack") == 0) length = astar_two_stack(&m, &expanded);
        else if (strcmp(argv[1], "astar_heap") == 0) length = astar_heap(&m, &expanded);
        else { fprintf(stderr, "unknown algorithm %s\n", argv[1]); return 2; }
        printf("%s%.4f", r ? ", " : "", now_ms() - began);
    }
    printf("], \"length\": %lld, \"expanded\": %lld}\n", (long long)length, (long long)expanded);
    return 0;
}
