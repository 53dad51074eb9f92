#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
static double now() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
size_t per;
void* work(void* a) {
  char* p = mmap(0, per + (2 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char* q = (char*)(((size_t)p + (2 << 20) - 1) & ~((size_t)(2 << 20) - 1));
  madvise(q, per, MADV_HUGEPAGE);
  for (size_t i = 0; i < per; i += 4096) q[i] = 1;
  return p;
}
void* spin(void* a) {
  volatile double x = 0;
  double t0 = now();
  long n = 0;
  while (now() - t0 < *(double*)a) {
    x += 1;
    n++;
  }
  return (void*)n;
}
int main(int c, char** v) {
  int nt = atoi(v[1]);
  size_t total = (size_t)atoi(v[2]) << 20;
  per = total / nt;
  int sp = c > 3 ? atoi(v[3]) : 0;
  pthread_t th[8];
  double t0 = now();
  for (int i = 0; i < nt; i++) pthread_create(&th[i], 0, work, 0);
  for (int i = 0; i < nt; i++) pthread_join(th[i], 0);
  double t = now() - t0;
  printf("%d threads %zu MiB: %.3f s (%.2f GB/s)\n", nt, total >> 20, t, total / t / 1e9);
}
