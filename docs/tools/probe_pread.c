#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
static double now() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
int fd;
size_t sz, chunk;
int nth;
void* work(void* a) {
  long id = (long)a;
  char* b = aligned_alloc(1 << 21, chunk + 4096);
  for (size_t off = id * chunk; off < sz; off += nth * chunk) {
    pread(fd, b, chunk, off);
  }
  return 0;
}
int main(int argc, char** argv) {
  fd = open(argv[1], O_RDONLY);
  sz = lseek(fd, 0, SEEK_END);
  chunk = (size_t)atoi(argv[2]) << 10;
  nth = atoi(argv[3]);
  for (int r = 0; r < 3; r++) {
    double t0 = now();
    pthread_t th[8];
    for (long i = 0; i < nth; i++) pthread_create(&th[i], 0, work, (void*)i);
    for (int i = 0; i < nth; i++) pthread_join(th[i], 0);
    double t = now() - t0;
    printf("chunk %zu KiB threads %d: %.3f s %.1f GB/s\n", chunk >> 10, nth, t, sz / t / 1e9);
  }
}
