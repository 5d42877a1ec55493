/* arena.c: see arena.h. */
#define _GNU_SOURCE
#include "core/util/arena.h"

#include <stdlib.h>
#include <sys/mman.h>

/* len bytes (a multiple of ARENA_REGION) mapped at a multiple of ARENA_REGION: a huge page
 * can only back a 2 MiB span so aligned. */
static char *map_aligned(size_t len, bool huge)
{
    if (len > SIZE_MAX - ARENA_REGION)
        return NULL;
    char *m = mmap(NULL, len + ARENA_REGION, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *at = (char *)(((uintptr_t)m + ARENA_REGION - 1) & ~(uintptr_t)(ARENA_REGION - 1));
    if (at > m)
        munmap(m, at - m);
    if (at + len < m + len + ARENA_REGION)
        munmap(at + len, m + len + ARENA_REGION - (at + len));
    if (huge)
        madvise(at, len, MADV_HUGEPAGE);
    return at;
}

static char *add_map(struct arena *a, size_t len, bool own)
{
    if (a->nmaps == a->cap) {
        uint32_t n = a->cap ? a->cap * 2 : 16;
        struct arena_map *q = realloc(a->maps, n * sizeof *q);
        if (!q)
            return NULL;
        a->maps = q;
        a->cap = n;
    }
    char *at = map_aligned(len, a->huge);
    if (at)
        a->maps[a->nmaps++] = (struct arena_map){at, len, own};
    return at;
}

void *arena_alloc(struct arena *a, size_t n)
{
    if (n > SIZE_MAX - 63)
        return NULL;
    n = (n + 63) & ~(size_t)63;
    if (n > ARENA_REGION / 2) {     /* its own mapping: a region is not cut up for it */
        if (n > SIZE_MAX - ARENA_REGION)
            return NULL;
        return add_map(a, (n + ARENA_REGION - 1) & ~(ARENA_REGION - 1), true);
    }
    if ((size_t)(a->end - a->next) < n) {
        char *at = add_map(a, ARENA_REGION, false);
        if (!at)
            return NULL;
        a->next = at;
        a->end = at + ARENA_REGION;
    }
    void *p = a->next;
    a->next += n;
    return p;
}

bool arena_owns(const struct arena *a, const void *p)
{
    const char *c = p;
    for (uint32_t i = 0; i < a->nmaps; i++)
        if (c >= a->maps[i].at && c < a->maps[i].at + a->maps[i].len)
            return true;
    return false;
}

void arena_release(struct arena *a, void *p)
{
    for (uint32_t i = 0; i < a->nmaps; i++)
        if (a->maps[i].own && a->maps[i].at == p) {
            munmap(a->maps[i].at, a->maps[i].len);
            a->maps[i] = a->maps[--a->nmaps];
            return;
        }
}

void arena_free(struct arena *a)
{
    for (uint32_t i = 0; i < a->nmaps; i++)
        munmap(a->maps[i].at, a->maps[i].len);
    free(a->maps);
    bool huge = a->huge;
    *a = (struct arena){.huge = huge};
}
