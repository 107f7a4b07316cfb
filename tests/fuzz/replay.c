/* Runs every file of the seed corpus through the fuzz target, so that the
 * normal suite (no clang, no libFuzzer) exercises the same entry point. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_replay CORPUS_DIR\n");
		return 2;
	}
	DIR *d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 2;
	}
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		_cleanup_free_ char *path = xasprintf("%s/%s", argv[1], de->d_name), *data = NULL;
		size_t len;
		if (fileio_read_path(path, 1 << 20, &data, &len) < 0) {
			fprintf(stderr, "%s: unreadable\n", path);
			closedir(d);
			return 1;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)data, len);
		n++;
	}
	closedir(d);
	printf("replayed %d inputs\n", n);
	return n > 0 ? 0 : 1;
}
