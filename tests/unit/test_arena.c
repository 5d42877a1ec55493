/* test_arena.c: the arena of arena.h -- where its blocks lie, what it owns, what it gives
 * back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/arena.h"
#include "unit.h"

static bool aligned(const void *p, uintptr_t to)
{
    return ((uintptr_t)p & (to - 1)) == 0;
}

int main(void)
{
    for (int huge = 0; huge <= 1; huge++) {
        struct arena a = {.huge = huge};
        /* small blocks: 64-byte aligned, one after another in a region aligned to 2 MiB,
         * zero, and writable to their last byte */
        char *first = arena_alloc(&a, 1), *second = arena_alloc(&a, 100);
        CHECK(first && second);
        CHECK(aligned(first, ARENA_REGION));
        CHECK(aligned(second, 64));
        CHECK_INT(second - first, 64);
        CHECK_INT(a.nmaps, 1);
        CHECK(second[0] == 0 && second[99] == 0);
        memset(second, 0xab, 100);
        CHECK(arena_owns(&a, first) && arena_owns(&a, second + 99));
        int on_stack;
        CHECK(!arena_owns(&a, &on_stack));
        char *from_malloc = malloc(16);
        CHECK(!arena_owns(&a, from_malloc));
        free(from_malloc);

        /* a block that does not fit what is left of a region starts a new one */
        char *big_small = arena_alloc(&a, ARENA_REGION / 2);
        CHECK(big_small && a.nmaps == 1);
        char *next = arena_alloc(&a, ARENA_REGION / 2);
        CHECK(next && aligned(next, ARENA_REGION) && a.nmaps == 2);

        /* a block larger than half a region has a mapping of its own, of whole regions */
        size_t n = 3 * ARENA_REGION + 5;
        char *own = arena_alloc(&a, n);
        CHECK(own && aligned(own, ARENA_REGION));
        CHECK_INT(a.nmaps, 3);
        CHECK_INT(a.maps[2].len, 4 * ARENA_REGION);
        CHECK(a.maps[2].own && !a.maps[0].own);
        own[0] = 1;
        own[n - 1] = 2;
        CHECK(arena_owns(&a, own + n - 1));
        /* ... given back alone; a region's block is not */
        arena_release(&a, own);
        CHECK_INT(a.nmaps, 2);
        CHECK(!arena_owns(&a, own));
        arena_release(&a, second);
        CHECK_INT(a.nmaps, 2);
        CHECK(arena_owns(&a, second) && (unsigned char)second[0] == 0xab);

        /* later blocks still come from the last region */
        char *later = arena_alloc(&a, 64);
        CHECK(later && later >= next + ARENA_REGION / 2 && later < next + ARENA_REGION);

        /* sizes no mapping can have */
        CHECK(arena_alloc(&a, SIZE_MAX) == NULL);
        CHECK(arena_alloc(&a, SIZE_MAX - ARENA_REGION) == NULL);

        arena_free(&a);
        CHECK_INT(a.nmaps, 0);
        CHECK(a.maps == NULL && a.next == NULL);
        CHECK_INT(a.huge, huge);
        CHECK(!arena_owns(&a, first));
        /* and usable again */
        char *again = arena_alloc(&a, 10);
        CHECK(again && aligned(again, ARENA_REGION));
        arena_free(&a);
    }
    return unit_done("test_arena");
}
