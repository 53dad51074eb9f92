// probe_random_reads MiB huge(0/1): touch fresh anonymous memory, then 4 M random byte reads over it.
// The same work in every run: run-to-run differences are the memory the process was given (D-016).
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
  char* p = mmap(0, sz + (2 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char* a = (char*)(((size_t)p + (2 << 20) - 1) & ~((size_t)(2 << 20) - 1));
  if (huge) madvise(a, sz, MADV_HUGEPAGE);
  double t0 = now();
  for (size_t i = 0; i < sz; i += 4096) a[i] = 1;
  double t1 = now();
  uint64_t x = 88172645463325252ull, s = 0;
  size_t n = sz / 64;
  for (int r = 0; r < 4000000; r++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s += a[(x % n) * 64];
  }
  double t2 = now();
  printf("touch %.1f ms, 4M random reads %.1f ms (%lu)\n", (t1 - t0) * 1e3, (t2 - t1) * 1e3, (unsigned long)s);
}
