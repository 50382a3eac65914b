/* Produces testdata/glibcrand/glibc-rand.txt with glibc's own rand().
 * Command: gcc -O2 -o /tmp/gen testdata/glibcrand/gen.c && /tmp/gen > testdata/glibcrand/glibc-rand.txt
 * Each line: seed, then the first 40 values of rand() after srand(seed), then
 * value number 100000 (index 99999) to cover the stream far from its start. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    unsigned seeds[] = {0u, 1u, 42u, 12345u, 1795979251u, 2147483648u, 3000000000u, 4294967295u};
    for (unsigned s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        srand(seeds[s]);
        printf("%u", seeds[s]);
        int v = 0;
        for (int i = 0; i < 100000; i++) {
            v = rand();
            if (i < 40) printf(" %d", v);
        }
        printf(" %d\n", v);
    }
    return 0;
}
