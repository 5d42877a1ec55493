/* yardstick: a fixed amount of plain integer work, the same-machine yardstick the demo's
 * ratios are taken against (the seed's "same-runner reference"). */
#include <stdio.h>

int main(void)
{
    volatile unsigned long x = 1;
    for (long i = 0; i < 40000000L; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    printf("%lu\n", (unsigned long)x);
    return 0;
}
