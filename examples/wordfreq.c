/* wordfreq N: counts N generated words in a chained hash table (default 200000):
 * allocation-heavy, one small malloc per distinct word. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    struct entry *next;
    long count;
    char word[];
};

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    size_t nb = 1 << 16;
    struct entry **table = calloc(nb, sizeof *table);
    if (!table)
        return 1;
    unsigned s = 42;
    long distinct = 0;
    char w[16];
    for (long i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        snprintf(w, sizeof w, "w%u", (s >> 8) % 50000);
        unsigned h = 2166136261u;
        for (const char *p = w; *p; p++)
            h = (h ^ (unsigned char)*p) * 16777619u;
        struct entry **slot = &table[h & (nb - 1)], *e;
        for (e = *slot; e && strcmp(e->word, w) != 0; e = e->next)
            ;
        if (!e) {
            e = malloc(sizeof *e + strlen(w) + 1);
            if (!e)
                return 1;
            strcpy(e->word, w);
            e->count = 0;
            e->next = *slot;
            *slot = e;
            distinct++;
        }
        e->count++;
    }
    printf("%ld distinct\n", distinct);
    for (size_t i = 0; i < nb; i++)
        for (struct entry *e = table[i], *next; e; e = next) {
            next = e->next;
            free(e);
        }
    free(table);
    return 0;
}
