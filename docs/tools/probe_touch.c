#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
static double now() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
int main(int argc, char** argv) {
  size_t sz = (size_t)atoi(argv[1]) << 20;
  int huge = atoi(argv[2]);
  int pop = argc > 3 ? atoi(argv[3]) : 0;
  for (int r = 0; r < 4; r++) {
    double t0 = now();
    char* p =
        mmap(0, sz + (2 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (pop ? MAP_POPULATE : 0), -1, 0);
    char* a = (char*)(((size_t)p + (2 << 20) - 1) & ~((size_t)(2 << 20) - 1));
    if (huge) madvise(a, sz, MADV_HUGEPAGE);
    double t1 = now();
    for (size_t i = 0; i < sz; i += 4096) a[i] = 1;
    double t2 = now();
    memset(a, 2, sz);
    double t3 = now();
    printf("run %d: map %.1f ms, touch %.1f ms (%.2f GB/s), memset after %.1f ms\n", r, (t1 - t0) * 1e3,
           (t2 - t1) * 1e3, sz / (t2 - t1) / 1e9, (t3 - t2) * 1e3);
    munmap(p, sz + (2 << 20));
  }
}
