/*
 * pattern_oracle.c prints how fio 3.33 reads a data pattern (buffer_pattern,
 * verify_pattern with its %o), the table of fiojob's TestParsePattern:
 * fio's own lib/pattern.c parse_and_fill_pattern on each argument. Build it
 * as fiorand_oracle.c, with lib/pattern.c and lib/strntol.c:
 *   gcc -DCONFIG_HAVE_BOOL -DBITS_PER_LONG=64 -DCONFIG_SEED_BUCKETS=4 -I$SRC \
 *     -include stdbool.h -o pattern_oracle pattern_oracle.c $SRC/lib/pattern.c \
 *     $SRC/lib/strntol.c
 */
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include "lib/pattern.h"
static int paste(char *buf, unsigned int len, void *priv) { return 0; }
static struct pattern_fmt_desc fmt_desc[] = { { .fmt = "%o", .len = 8, .paste = paste }, { .fmt = NULL } };
int main(int argc, char **argv) {
	for (int a = 1; a < argc; a++) {
		char out[512]; struct pattern_fmt fmt[8]; unsigned int fsz = 8;
		int n = parse_and_fill_pattern(argv[a], strlen(argv[a]), out, 512, fmt_desc, fmt, &fsz);
		printf("{`%s`, \"", argv[a]);
		for (int i = 0; i < n; i++) printf("%02x", (unsigned char)out[i]);
		printf("\", %d, []int{", n < 0);
		for (unsigned int i = 0; n > 0 && i < fsz; i++) printf("%s%u", i ? ", " : "", fmt[i].off);
		printf("}},\n");
	}
}
