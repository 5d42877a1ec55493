/* sort N: qsort of N pseudo-random ints (default 300000): one big allocation, compare-heavy. */
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 300000;
    int *v = malloc(n * sizeof *v);
    if (!v)
        return 1;
    unsigned s = 12345;
    for (long i = 0; i < n; i++)
        v[i] = (int)(s = s * 1103515245u + 12345u);
    qsort(v, n, sizeof *v, cmp);
    printf("%d %d\n", v[0], v[n - 1]);
    free(v);
    return 0;
}
