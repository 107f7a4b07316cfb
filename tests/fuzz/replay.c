/* Replays fuzzing seeds through the fuzz target in a normal build, so that
 * the suite runs the corpus on every change without fuzzing for minutes.
 * Usage: fuzz-replay DIR... ; every regular file in each DIR is one input. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fileio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	size_t n = 0;

	for (int a = 1; a < argc; a++) {
		DIR *d = opendir(argv[a]);
		struct dirent *e;
		if (!d) {
			fprintf(stderr, "fuzz-replay: %s: cannot open the seed directory\n", argv[a]);
			return 1;
		}
		while ((e = readdir(d))) {
			char *data = NULL, *path;
			size_t len;
			if (e->d_name[0] == '.')
				continue;
			path = xasprintf("%s/%s", argv[a], e->d_name);
			if (fileio_read_path(path, 64u << 20, &data, &len) == 0) {
				LLVMFuzzerTestOneInput((const uint8_t *)data, len);
				n++;
			}
			free(data);
			free(path);
		}
		closedir(d);
	}
	printf("replayed %zu inputs\n", n);
	return n > 0 ? 0 : 1;
}
