/* read_latency REPEAT FILE...: opens, reads to the end and closes each FILE
 * REPEAT times, and prints the time of each such read in milliseconds, one a
 * line (bench_maiaudit.sh takes their percentiles with pct.py, the
 * benchmarks' one definition). Measures a file read without the cost of starting a
 * process (which 'time cat' includes, and which dominates on a busy machine). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: read_latency REPEAT FILE...\n");
		return 2;
	}
	int repeat = atoi(argv[1]);
	size_t n = (size_t)repeat * (size_t)(argc - 2), k = 0;
	double *t = calloc(n, sizeof(*t));
	static char buf[1 << 16];
	if (!t || repeat < 1)
		return 2;
	for (int r = 0; r < repeat; r++) {
		for (int i = 2; i < argc; i++) {
			double s = now_ms();
			int fd = open(argv[i], O_RDONLY);
			if (fd < 0) {
				perror(argv[i]);
				return 1;
			}
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
			t[k++] = now_ms() - s;
		}
	}
	for (size_t i = 0; i < n; i++)
		printf("%.3f\n", t[i]);
	free(t);
	return 0;
}
