/* cgmem-alloc MIB [hold]: allocates MIB MiB of anonymous memory in 256 KiB
 * chunks, writing one byte in every 4 KiB page so each page is charged,
 * then prints "allocated MIB MiB" and exits (or, with "hold", sleeps until
 * killed). Every 4 MiB it prints "MIB ms-since-start". Built with gcc -static
 * for the VM guest, which has no C library to link against. The stand-in
 * for `cgmem workload` in the VM rig's first scenarios. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { kChunk = 256 * 1024, kPage = 4096 };

static long elapsed_ms(const struct timespec* start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

int main(int argc, char** argv) {
  char* end = NULL;
  long mib = argc > 1 ? strtol(argv[1], &end, 10) : -1;
  if (argc < 2 || argc > 3 || *end != '\0' || mib <= 0 || mib > 1 << 20 ||
      (argc == 3 && strcmp(argv[2], "hold") != 0)) {
    fprintf(stderr, "usage: cgmem-alloc MIB [hold]\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  long chunks = mib * (1024 * 1024 / kChunk);
  for (long i = 1; i <= chunks; ++i) {
    char* chunk = mmap(NULL, kChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (chunk == MAP_FAILED) {
      perror("cgmem-alloc: mmap");
      return 1;
    }
    for (long offset = 0; offset < kChunk; offset += kPage) chunk[offset] = 1;
    if (i % (4 * 1024 * 1024 / kChunk) == 0) printf("%ld %ld\n", i * kChunk / (1024 * 1024), elapsed_ms(&start));
  }
  printf("allocated %ld MiB\n", mib);
  if (argc == 3) {
    for (;;) pause();
  }
  return 0;
}
