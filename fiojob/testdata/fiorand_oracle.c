/*
 * fiorand_oracle.c prints fio 3.33's startdelay draws, the table of
 * fiojob's TestFioRand: fio's own lib/rand.c, seeded as init.c's
 * setup_random_seeds seeds FIO_RAND_START_DELAY (13) and drawn as
 * fixup_options draws (rand_between). Build it against Debian's fio 3.33
 * source:
 *   SRC=/var/tmp/clyde-ci-fio-src/fio-3.33
 *   gcc -DCONFIG_HAVE_BOOL -DBITS_PER_LONG=64 -DCONFIG_SEED_BUCKETS=4 -I$SRC \
 *     -include stdbool.h -o oracle fiorand_oracle.c $SRC/lib/rand.c \
 *     $SRC/lib/pattern.c $SRC/lib/strntol.c
 */
#include <stdio.h>
#include <stdint.h>
#include <stdbool.h>
#include "lib/rand.h"
void init_rand_seed(struct frand_state *state, uint64_t seed, bool use64);
int main(void) {
	uint64_t seeds[] = {0x89, 1234, 0};
	for (int s = 0; s < 3; s++) for (int use64 = 0; use64 < 2; use64++) for (int thread = 1; thread <= 3; thread++) {
		uint64_t seed = seeds[s];
		for (int i = 0; i < 4; i++) seed *= 0x9e370001UL;
		uint64_t rs = 0;
		for (int i = 0; i < 20; i++) { if (i == 13) rs = seed * thread + i; seed *= 0x9e370001UL; }
		struct frand_state st;
		init_rand_seed(&st, rs, use64);
		/* One at a time: C leaves the order of a call's arguments open. */
		unsigned long long first = rand_between(&st, 100000, 3000000);
		unsigned long long next = rand_between(&st, 0, 5000000000ULL);
		printf("{%#llx, %d, %d, %llu, %llu},\n", (unsigned long long)seeds[s], use64, thread, first, next);
	}
}
